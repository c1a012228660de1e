import { describe, expect, it } from 'vitest';
import { createCustomer, tick } from '../support/builders';
import { anyNumber, ECB_USD_2014, expectInvoices, I, insertRates, invoicesOf, item, L, local, offer, shape, subscribe, tenantAt } from './scenario';

// Billing scenarios: taxes per customer and conversion at the ECB rate of the invoice date. Every
// expected invoice is written out by hand; scenario.ts has the builders and the conventions the
// expectations rely on.

describe('taxes and currencies', () => {
  it('EU B2B reverse charge (AE 0 %), B2C destination rate (FR 20 %), exempt customer (E 0 %)', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '99.99');
    const b2b = await createCustomer(t, { countryCode: 'FR', companyName: 'Acme SARL', vatId: 'FR40303265045' });
    expect(b2b.isVatIdValid).toBe(true);
    const b2c = await createCustomer(t, { countryCode: 'FR', firstName: 'Marie', lastName: 'Curie' });
    const exempt = await createCustomer(t, { countryCode: 'DE', companyName: 'Verein e.V.', taxExempt: 'exempt' });
    const s1 = await subscribe(t, b2b.id, [item(pro)], { name: 'B2B' });
    const s2 = await subscribe(t, b2c.id, [item(pro)], { name: 'B2C' });
    const s3 = await subscribe(t, exempt.id, [item(pro)], { name: 'Exempt' });
    for (const m of ['2025-01', '2025-02']) await tick(t, local(`${m}-01`));

    const twoMonths = (name: string, rate: string, category: string, tax: string, gross: string) =>
      [
        ['2025-01-01', '2025-02-01'],
        ['2025-02-01', '2025-03-01'],
      ].map(([from, to]) =>
        I({
          number: anyNumber(2025),
          at: local(from!),
          groups: [[name, [L('Pro', local(from!), local(to!), '1', '99.99', { rate, category })]]],
          taxes: [[rate, category, '99.99', tax]],
          net: '99.99',
          tax,
          gross,
        }),
      );
    // FR business with a valid VAT id: reverse charge, 0 %: gross 99.99.
    const inv1 = await invoicesOf(t, s1.id);
    expectInvoices(inv1, twoMonths('B2B', '0', 'AE', '0.00', '99.99'));
    expect(inv1[0].positions.find((p: any) => p.kind !== 'header').taxNote).toMatch(/reverse charge/i);
    // FR consumer: the French rate, 99.99 × 20 % = 19.998 → 20.00; gross 119.99.
    expectInvoices(await invoicesOf(t, s2.id), twoMonths('B2C', '20', 'S', '20.00', '119.99'));
    // Exempt customer: E 0 %: gross 99.99.
    const inv3 = await invoicesOf(t, s3.id);
    expectInvoices(inv3, twoMonths('Exempt', '0', 'E', '0.00', '99.99'));
    expect(inv3[0].positions.find((p: any) => p.kind !== 'header').taxNote).toMatch(/exempt/i);
  });

  it('a USD customer with EUR prices: converted at the ECB rate of the invoice date, recorded in applicatedExchangeRates', async () => {
    await insertRates(ECB_USD_2014);
    const { t, c } = await tenantAt(local('2014-03-19'));
    const pro = await offer(t, c, 'Pro', '49.99');
    const customer = await createCustomer(t, { currencyCode: 'USD' });
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Pro USD' });
    for (const day of ['2014-03-19', '2014-04-19', '2014-05-19']) await tick(t, local(day));

    // The invoice date is the Berlin calendar day (billing runs at local midnight, which is the
    // previous day in UTC): 19 March → rate of 19 March; 19 April (Saturday; 18 April Good Friday)
    // → the latest rate before, 17 April; 19 May → 19 May.
    const month = (n: number, from: string, to: string, rate: string, rateDate: string, net: string, tax: string, gross: string) => ({
      ...I({
        number: `RE-000000000${n}`,
        at: local(from),
        currency: 'USD',
        groups: [['Pro USD', [L('Pro', local(from), local(to), '1', net)]]],
        taxes: [['19', 'S', net, tax]],
        net,
        tax,
        gross,
      }),
      rates: [{ sourceCurrencyCode: 'EUR', destinationCurrencyCode: 'USD', exchangeRate: rate, exchangeRateDate: rateDate }],
    });
    const invoices = await invoicesOf(t, sub.id);
    expect(invoices.map((i) => ({ ...shape(i), rates: i.applicatedExchangeRates }))).toEqual([
      // 49.99 × 1.3913 = 69.551087 → 69.55; × 19 % = 13.2145 → 13.21; gross 82.76
      month(1, '2014-03-19', '2014-04-19', '1.3913', '2014-03-19', '69.55', '13.21', '82.76'),
      // 49.99 × 1.3855 = 69.261145 → 69.26; × 19 % = 13.1594 → 13.16; gross 82.42
      month(2, '2014-04-19', '2014-05-19', '1.3855', '2014-04-17', '69.26', '13.16', '82.42'),
      // 49.99 × 1.3715 = 68.561285 → 68.56; × 19 % = 13.0264 → 13.03; gross 81.59
      month(3, '2014-05-19', '2014-06-19', '1.3715', '2014-05-19', '68.56', '13.03', '81.59'),
    ]);
  });
});
