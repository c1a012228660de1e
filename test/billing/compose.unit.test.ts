import { describe, expect, it } from 'vitest';
import { BillingError, composeInvoice, currenciesToConvert, type ComposeInput } from '../../src/billing/compose';
import type { PlannedLine } from '../../src/billing/plan';

// The pure composer: planned lines → positions (coupon, tax, conversion) and totals. Every expected
// figure is worked out by hand in the comments.

const day = (d: string) => new Date(`${d}T00:00:00.000Z`);

function line(over: Partial<PlannedLine> = {}): PlannedLine {
  return {
    itemId: 'i1',
    productId: 'saas',
    kind: 'recurring',
    ledgerKind: 'recurring',
    advancesBilling: true,
    periodStart: day('2025-03-01'),
    periodEnd: day('2025-04-01'),
    quantity: '1',
    amount: '100',
    factor: null,
    pricePlanId: 'p1',
    currencyCode: 'EUR',
    description: 'Pro',
    changeIds: [],
    ...over,
  };
}

function input(over: Partial<ComposeInput> = {}, lines: PlannedLine[] = [line()]): ComposeInput {
  let n = 0;
  return {
    currency: 'EUR',
    subscriptions: [{ header: { name: 'Pro plan', description: 'Subscription S-00000001' }, planId: null, coupons: [], lines }],
    tax: {
      sellerCountry: 'DE',
      payer: { countryCode: 'DE', vatIdValid: false, isBusiness: false, taxExempt: 'auto' },
      productTaxGroups: new Map([['saas', 'std']]),
      taxGroups: new Map([['std', { type: 'standard', reverseChargeType: 'REVERSE_CHARGE', overrides: [] }]]),
    },
    rates: new Map(),
    invoiceDay: '2025-03-01',
    newId: () => `id${++n}`,
    ...over,
  };
}

describe('composeInvoice', () => {
  it('puts each subscription under a header, prices, taxes and totals to the cent', () => {
    // 100.00 + 2 × 24.995 = 49.99 (rounded once) → net 149.99; 19 % of 149.99 = 28.4981 → 28.50; gross 178.49.
    const c = composeInvoice(input({}, [line(), line({ itemId: 'i2', quantity: '2', amount: '49.99', description: 'Seats' })]));
    expect(c.positions.map((p) => [p.kind, p.name, p.parentId, p.quantity, p.unitPrice, p.netAmount, p.taxRate, p.taxCategory])).toEqual([
      ['header', 'Pro plan', null, '0', '0', 0, '0', 'O'],
      ['recurring', 'Pro', 'id3', '1', '100', 10000, '19', 'S'],
      ['recurring', 'Seats', 'id3', '2', '24.995', 4999, '19', 'S'],
    ]);
    expect(c.totals).toMatchObject({ netAmount: 14999, taxAmount: 2850, grossAmount: 17849, serviceDateFrom: '2025-03-01T00:00:00.000Z', serviceDateTo: '2025-04-01T00:00:00.000Z' });
    expect(c.type).toBe('TYPE_INVOICE');
  });

  it('applies coupons after the price and before tax, prorated lines at their prorated amount', () => {
    // 100 × 15/31 = 48.387… ; 10 % off: discount 4.8387… → net 43.548… → 43.55; tax 19 % → 8.27.
    const coupons = [{ id: 'd1', type: 'percentage' as const, percentage: 10, frequency: 'lifetime' as const, appliedIntervals: 0, limitedToProducts: [], excludedFromProducts: [], limitedToPlans: [], excludedFromPlans: [] }];
    const prorated = line({ factor: { usedDays: 15, periodDays: 31, factor: '0.48387' } });
    const base = input({}, [prorated]);
    const c = composeInvoice({ ...base, subscriptions: [{ ...base.subscriptions[0]!, coupons }] });
    expect(c.positions[1]).toMatchObject({ discountAmount: 484, netAmount: 4355, description: '15/31 days' });
    expect(c.totals).toMatchObject({ netAmount: 4355, taxAmount: 827, discountAmount: 484 });
    expect(c.appliedCoupons).toEqual(['d1']);
  });

  it('converts at the rates of the invoice day and rounds the converted price to 10 decimals', () => {
    // 1200 USD to EUR at 1 EUR = 1.0850 USD: 1200 / 1.0850 = 1105.99078341013824884792… → 1105.9907834101 → 1105.99.
    const usd = line({ amount: '1200', currencyCode: 'USD' });
    const rates = new Map([
      ['EUR', { rate: '1', date: '2025-03-01' }],
      ['USD', { rate: '1.0850', date: '2025-02-28' }],
    ]);
    expect(currenciesToConvert('EUR', [usd])).toEqual(['EUR', 'USD']);
    const c = composeInvoice(input({ rates }, [usd]));
    expect(c.positions[1]).toMatchObject({ unitPrice: '1105.9907834101', netAmount: 110599 });
    expect(c.exchangeRates).toEqual([{ sourceCurrencyCode: 'USD', destinationCurrencyCode: 'EUR', exchangeRate: '0.9216589862', exchangeRateDate: '2025-02-28' }]);
    // EUR to USD: 100 × 1.0850 = 108.50 USD.
    const toUsd = composeInvoice(input({ currency: 'USD', rates }, [line()]));
    expect(toUsd.positions[1]).toMatchObject({ unitPrice: '108.5', netAmount: 10850 });
    expect(() => composeInvoice(input({ rates: new Map() }, [usd]))).toThrow('No ECB rate for USD/EUR on 2025-03-01');
  });

  it('applies reverse charge to an EU business with a valid VAT id, and makes a credit note of a negative total', () => {
    const business = { countryCode: 'AT', vatIdValid: true, isBusiness: true, taxExempt: 'auto' as const };
    const base = input();
    const c = composeInvoice({ ...base, tax: { ...base.tax, payer: business } }, );
    expect(c.positions[1]).toMatchObject({ taxRate: '0', taxCategory: 'AE' });
    expect(c.positions[1]!.taxNote).toMatch(/reverse charge/i);
    // A credit of 30 and a charge of 10: −20.00 net, −3.80 tax.
    const credit = composeInvoice(input({}, [line({ amount: '-30', ledgerKind: 'credit:x' }), line({ amount: '10', ledgerKind: 'charge:x' })]));
    expect(credit.type).toBe('TYPE_CREDIT');
    expect(credit.totals).toMatchObject({ netAmount: -2000, taxAmount: -380, grossAmount: -2380 });
  });

  it('leaves skipped periods off the invoice and bills a product without tax group tax-exempt', () => {
    const c = composeInvoice(input({}, [line({ kind: 'skipped', amount: '0' }), line({ productId: 'untaxed' })]));
    expect(c.positions.map((p) => [p.kind, p.taxCategory])).toEqual([
      ['header', 'O'],
      ['recurring', 'E'],
    ]);
  });

  it('refuses with a BillingError what a document cannot hold: a line beyond the line bound, lines adding up beyond the document bound', () => {
    // The bound itself bills: 100000000000.00 EUR.
    expect(composeInvoice(input({}, [line({ amount: '100000000000' })])).totals).toMatchObject({ netAmount: 10_000_000_000_000 });
    const over = () => composeInvoice(input({}, [line({ amount: '100000000000.001' })]));
    expect(over).toThrow(BillingError);
    expect(over).toThrow('Pro: 100000000000.001 EUR exceeds the largest amount a line may bill (100000000000 EUR).');
    // 999999999999999.9999999999 × 999999999999999 (as the API once accepted): refused before anything computes with it.
    expect(() => composeInvoice(input({}, [line({ amount: '999999999999998999999999900000.0000000001' })]))).toThrow(expect.objectContaining({ code: 'amount_out_of_range' }));
    // EUR → JPY multiplies units: 100000000000 EUR at 160 JPY is 1.6 × 10^13 yen, beyond the line bound.
    const rates = new Map([['EUR', { rate: '1', date: '2025-03-01' }], ['JPY', { rate: '160', date: '2025-03-01' }]]);
    expect(() => composeInvoice(input({ currency: 'JPY', rates }, [line({ amount: '100000000000' })]))).toThrow(expect.objectContaining({ code: 'amount_out_of_range' }));
    // Lines at the bound each fit, ten of them (10^12 EUR) do not fit one document.
    expect(() => composeInvoice(input({}, Array.from({ length: 1000 }, (_, i) => line({ itemId: `i${i}`, amount: '100000000000' }))))).toThrow(
      expect.objectContaining({ code: 'amount_out_of_range', message: 'The invoice total exceeds the largest amount an invoice can hold in EUR.' }),
    );
  });
});
