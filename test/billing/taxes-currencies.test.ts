import { describe, expect, it } from 'vitest';
import { get } from '../support/api';
import { createCustomer, ok, tick } from '../support/builders';
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

  // Conversion by division (docs/decisions.md, Invoices and billing): 1 EUR = 1.0850 USD on 10 January 2033 and 1.1000 on
  // 10 January 2034 (rates made up for these days; no other test bills USD after 2014).
  const USD_2033: [string, string][] = [
    ['2033-01-10', '1.0850'],
    ['2034-01-10', '1.1000'],
  ];
  const yearOf = (from: string, to: string, net: string) => L('Pro', local(from), local(to), '1', net);

  it('a USD price billed to a EUR customer: divided by the rate and rounded (1200 USD at 1.0850 = 1105.99 EUR), each year at its own invoice date', async () => {
    await insertRates(USD_2033);
    const { t, c } = await tenantAt(local('2033-01-10'));
    const pro = await offer(t, c, 'Pro', '1200.00', '1Y', { currencyCode: 'USD' });
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Pro USD' });
    for (const day of ['2033-01-10', '2034-01-10']) await tick(t, local(day));
    const invoices = await invoicesOf(t, sub.id);
    expectInvoices(invoices, [
      // 1200 / 1.0850 = 1105.99078341… → the unit price keeps 10 decimals (1105.9907834101), the line 1105.99;
      // × 19 % = 210.1381 → 210.14; gross 1316.13.
      I({ number: anyNumber(2033), at: local('2033-01-10'), groups: [['Pro USD', [yearOf('2033-01-10', '2034-01-10', '1105.99')]]], taxes: [['19', 'S', '1105.99', '210.14']], net: '1105.99', tax: '210.14', gross: '1316.13' }),
      // The second year on its own invoice date, at its rate: 1200 / 1.1000 = 1090.90909… → 1090.91;
      // × 19 % = 207.2729 → 207.27; gross 1298.18.
      I({ number: anyNumber(2034), at: local('2034-01-10'), groups: [['Pro USD', [yearOf('2034-01-10', '2035-01-10', '1090.91')]]], taxes: [['19', 'S', '1090.91', '207.27']], net: '1090.91', tax: '207.27', gross: '1298.18' }),
    ]);
    expect(invoices.map((i) => i.positions.find((p: any) => p.kind !== 'header').unitPrice.amount)).toEqual(['1105.9907834101', '1090.9090909091']);
    expect(invoices.map((i) => i.applicatedExchangeRates)).toEqual([
      [{ sourceCurrencyCode: 'USD', destinationCurrencyCode: 'EUR', exchangeRate: '0.9216589862', exchangeRateDate: '2033-01-10' }],
      [{ sourceCurrencyCode: 'USD', destinationCurrencyCode: 'EUR', exchangeRate: '0.9090909091', exchangeRateDate: '2034-01-10' }],
    ]);
    const runs = (await ok(get(t, '/billing-runs'))).data;
    expect(runs.map((r: any) => [r.status, r.errors])).toEqual(runs.map(() => ['completed', 0]));
  });

  it('a run that catches up bills the missed periods on one invoice of its day, at that day\'s rate', async () => {
    await insertRates(USD_2033);
    const { t, c } = await tenantAt(local('2033-01-10'));
    const pro = await offer(t, c, 'Pro', '1200.00', '1Y', { currencyCode: 'USD' });
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Pro USD' });
    // No run between activation and 10 January 2034: both years are due on that day.
    await tick(t, local('2034-01-10'));
    // Both years at 10 January 2034's rate: 2 × 1090.91 = 2181.82; × 19 % = 414.5458 → 414.55; gross 2596.37.
    expectInvoices(await invoicesOf(t, sub.id), [
      I({
        number: anyNumber(2034),
        at: local('2034-01-10'),
        groups: [['Pro USD', [yearOf('2033-01-10', '2034-01-10', '1090.91'), yearOf('2034-01-10', '2035-01-10', '1090.91')]]],
        taxes: [['19', 'S', '2181.82', '414.55']],
        net: '2181.82',
        tax: '414.55',
        gross: '2596.37',
      }),
    ]);
  });

  it('a EUR price billed to a USD customer: multiplied by the rate (1200 EUR at 1.0850 = 1302.00 USD)', async () => {
    await insertRates(USD_2033);
    const { t, c } = await tenantAt(local('2033-01-10'));
    const pro = await offer(t, c, 'Pro', '1200.00', '1Y');
    const customer = await createCustomer(t, { currencyCode: 'USD' });
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Pro EUR' });
    await tick(t, local('2033-01-10'));
    const invoices = await invoicesOf(t, sub.id);
    // 1200 × 1.0850 = 1302.00 USD; × 19 % = 247.38; gross 1549.38.
    expectInvoices(invoices, [
      I({
        number: anyNumber(2033),
        at: local('2033-01-10'),
        currency: 'USD',
        groups: [['Pro EUR', [yearOf('2033-01-10', '2034-01-10', '1302.00')]]],
        taxes: [['19', 'S', '1302.00', '247.38']],
        net: '1302.00',
        tax: '247.38',
        gross: '1549.38',
      }),
    ]);
    expect(invoices[0].applicatedExchangeRates).toEqual([{ sourceCurrencyCode: 'EUR', destinationCurrencyCode: 'USD', exchangeRate: '1.085', exchangeRateDate: '2033-01-10' }]);
  });
});
