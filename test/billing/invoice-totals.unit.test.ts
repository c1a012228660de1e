import { describe, expect, it } from 'vitest';
import {
  creditableAmount,
  invoiceTotals,
  lineNet,
  splitPayment,
  unpaidAmount,
  type InvoiceTotals,
  type LineFactor,
  type TotalsLine,
} from '../../src/billing/invoice-totals';
import { prorationFactor } from '../../src/billing/periods';

// Every expected amount is worked out by hand in the comment next to it; none comes from the code.
// Rounding is half-up = half away from zero: 0.005 → 0.01, −0.005 → −0.01.

const TEN_OF_31: LineFactor = { usedDays: 10, periodDays: 31 };

describe('lineNet: one rounding per line', () => {
  it.each<[string, string, string, string | undefined, LineFactor | undefined, string, string, string]>([
    // label, quantity, unitPrice, discount, factor, → grossAmount, discount, net
    ['exact half cent rounds up', '1', '2.345', undefined, undefined, '2.35', '0.00', '2.35'], // 2.345 → 2.35
    ['just below half a cent rounds down', '1', '2.3449999', undefined, undefined, '2.34', '0.00', '2.34'], // 2.3449999 → 2.34
    ['negative half cent rounds away from zero', '-1', '2.345', undefined, undefined, '-2.35', '0.00', '-2.35'], // −2.345 → −2.35
    ['3 × 0.015', '3', '0.015', undefined, undefined, '0.05', '0.00', '0.05'], // 0.045 → 0.05
    ['−3 × 0.015 (credit line)', '-3', '0.015', undefined, undefined, '-0.05', '0.00', '-0.05'], // −0.045 → −0.05
    ['4-decimal unit price', '1234', '0.0125', undefined, undefined, '15.43', '0.00', '15.43'], // 1234 × 0.0125 = 15.425 → 15.43
    ['10-decimal unit price', '1000000', '0.0000012345', undefined, undefined, '1.23', '0.00', '1.23'], // 1e6 × 0.0000012345 = 1.2345 → 1.23
    ['fractional quantity', '1.5', '0.0125', undefined, undefined, '0.02', '0.00', '0.02'], // 0.01875 → 0.02
    ['discount at scale', '1', '10', '2.50', undefined, '10.00', '2.50', '7.50'], // 10 − 2.50
    ['discount on two units', '2', '19.99', '5.00', undefined, '39.98', '5.00', '34.98'], // 39.98 − 5.00
    ['discount on an unrounded line', '1234', '0.0125', '0.43', undefined, '15.43', '0.43', '15.00'], // 15.425 − 0.43 = 14.995 → 15.00
    ['discount larger than the line stops at 0', '1', '10', '15', undefined, '10.00', '10.00', '0.00'], // min(15, 10) = 10 → 0
    ['discount equal to the rounded-up line stops at 0', '1234', '0.0125', '15.43', undefined, '15.43', '15.43', '0.00'], // min(15.43, 15.425) → 0
    ['credit line: discount moves towards 0', '-1', '100', '10', undefined, '-100.00', '-10.00', '-90.00'], // −100 + 10
    ['credit line: discount never past 0', '-1', '100', '150', undefined, '-100.00', '-100.00', '0.00'], // min(150, 100) → 0
    ['proration 10/31 of 49.99 (ratio)', '1', '49.99', undefined, TEN_OF_31, '16.13', '0.00', '16.13'], // 499.9 / 31 = 16.12580… → 16.13
    [
      'proration 10/31 of 49.99 (40-digit factor string)',
      '1',
      '49.99',
      undefined,
      '0.3225806451612903225806451612903225806452', // 10/31 = 0.(322580645161290…), 40 significant digits
      '16.13',
      '0.00',
      '16.13',
    ], // 49.99 × 0.32258… = 16.12580… → 16.13
    ['prorated with a discount', '1', '49.99', '1.00', TEN_OF_31, '16.13', '1.00', '15.13'], // 16.12580… − 1 = 15.12580… → 15.13
    ['proration 0 days', '1', '49.99', undefined, { usedDays: 0, periodDays: 30 }, '0.00', '0.00', '0.00'], // 0
    ['proration of a credit for 15 of 30 days', '-1', '0.25', undefined, { usedDays: 15, periodDays: 30 }, '-0.13', '0.00', '-0.13'], // −0.125 → −0.13
    ['ratio divides last: 3 × 0.015 × 1/3', '3', '0.015', undefined, { usedDays: 1, periodDays: 3 }, '0.02', '0.00', '0.02'], // 0.045 / 3 = 0.015 → 0.02
    ['9 of 28 days of 1.82 (ratio)', '1', '1.82', undefined, { usedDays: 9, periodDays: 28 }, '0.59', '0.00', '0.59'], // 16.38 / 28 = 0.585 → 0.59
    // The same line with prorationFactor's 40-digit string for 9/28 (…5714, the next digit 2 dropped):
    // 1.82 × 0.3214…5714 = 0.58499…9 → 0.58. The half cent is lost: why the ratio is the better input.
    ['a 40-digit factor string loses the half cent', '1', '1.82', undefined, '0.3214285714285714285714285714285714285714', '0.58', '0.00', '0.58'],
  ])('%s (EUR)', (_label, quantity, unitPrice, discount, factor, grossAmount, appliedDiscount, net) => {
    expect(lineNet({ quantity, unitPrice, discount, factor }, 'EUR')).toMatchObject({ grossAmount, discount: appliedDiscount, net });
  });

  it.each([
    // currency, quantity, unitPrice, discount → grossAmount, discount, net
    ['JPY', '3', '333.5', undefined, '1001', '0', '1001'], // 1000.5 → 1001
    ['JPY', '1', '0.4', undefined, '0', '0', '0'], // 0.4 → 0
    ['JPY', '1', '0.5', undefined, '1', '0', '1'], // 0.5 → 1
    ['JPY', '-1', '0.5', undefined, '-1', '0', '-1'], // −0.5 → −1
    ['JPY', '3', '333.5', '100', '1001', '100', '901'], // 1000.5 − 100 = 900.5 → 901
    ['KWD', '7', '0.0125', undefined, '0.088', '0.000', '0.088'], // 0.0875 → 0.088
    ['KWD', '1', '1.2344', undefined, '1.234', '0.000', '1.234'], // 1.2344 → 1.234
    ['KWD', '1', '1.2345', undefined, '1.235', '0.000', '1.235'], // 1.2345 → 1.235
    ['KWD', '2', '5.1005', '0.250', '10.201', '0.250', '9.951'], // 10.201 − 0.250 = 9.951
    ['USD', '1', '0.005', undefined, '0.01', '0.00', '0.01'], // 0.005 → 0.01
  ])('%s: %s × %s, discount %s', (currency, quantity, unitPrice, discount, grossAmount, appliedDiscount, net) => {
    expect(lineNet({ quantity, unitPrice, discount }, currency)).toMatchObject({ grossAmount, discount: appliedDiscount, net });
  });

  it('returns the exact gross, unrounded', () => {
    expect(lineNet({ quantity: '1234', unitPrice: '0.0125' }, 'EUR').gross).toBe('15.425'); // 1234 / 80
    expect(lineNet({ quantity: '3', unitPrice: '0.015', factor: { usedDays: 1, periodDays: 3 } }, 'EUR').gross).toBe('0.015');
    // 499.9 / 31 = 16.1(258064516129032) repeating, 40 significant digits: 16 + 38 decimals, next digit 1 → down.
    expect(lineNet({ quantity: '1', unitPrice: '49.99', factor: TEN_OF_31 }, 'EUR').gross).toBe('16.12580645161290322580645161290322580645');
    expect(lineNet({ quantity: '-1', unitPrice: '100', discount: '10' }, 'EUR').gross).toBe('-100');
  });

  it("takes prorationFactor's result as is (its days, not its 40-digit string)", () => {
    // February 2026 in Berlin has 28 days; used from Feb 20 to Mar 1 = 9 days. 1.82 × 9 / 28 = 0.585 → 0.59.
    const proration = prorationFactor(
      { start: new Date('2026-01-31T23:00:00Z'), end: new Date('2026-02-28T23:00:00Z') },
      { start: new Date('2026-02-19T23:00:00Z'), end: new Date('2026-02-28T23:00:00Z') },
      'Europe/Berlin',
    );
    expect(proration).toMatchObject({ usedDays: 9, periodDays: 28 });
    expect(lineNet({ quantity: '1', unitPrice: '1.82', factor: proration }, 'EUR').net).toBe('0.59');
  });

  it('keeps grossAmount − discount = net', () => {
    // 1 × 0.016 with discount 0.004: net 0.012 → 0.01; grossAmount 0.016 → 0.02; so the discount shown is 0.01.
    expect(lineNet({ quantity: '1', unitPrice: '0.016', discount: '0.004' }, 'EUR')).toEqual({
      gross: '0.016',
      grossAmount: '0.02',
      discount: '0.01',
      net: '0.01',
    });
  });

  it.each([
    ['a unit price with 11 decimals', { quantity: '1', unitPrice: '0.00000000001' }, 'EUR'],
    ['a negative discount', { quantity: '1', unitPrice: '10', discount: '-1' }, 'EUR'],
    ['a number-like quantity', { quantity: '1e3', unitPrice: '10' }, 'EUR'],
    ['a negative factor', { quantity: '1', unitPrice: '10', factor: '-0.5' }, 'EUR'],
    ['a period of 0 days', { quantity: '1', unitPrice: '10', factor: { usedDays: 0, periodDays: 0 } }, 'EUR'],
    ['fractional used days', { quantity: '1', unitPrice: '10', factor: { usedDays: 1.5, periodDays: 30 } }, 'EUR'],
    ['an unknown currency', { quantity: '1', unitPrice: '10' }, 'ABC'],
  ])('rejects %s', (_label, line, currency) => {
    expect(() => lineNet(line, currency)).toThrow(RangeError);
  });
});

const S19 = (net: string, discount?: string): TotalsLine => ({ net, taxRate: '19', taxCategory: 'S', discount });
const S7 = (net: string): TotalsLine => ({ net, taxRate: '7', taxCategory: 'S' });

describe('invoiceTotals: tax per rate on the summed nets (EN16931)', () => {
  it.each<[string, TotalsLine[], string, InvoiceTotals]>([
    [
      // Per line: 0.13 × 0.19 = 0.0247 → 0.02, three times = 0.06. Per rate: 0.39 × 0.19 = 0.0741 → 0.07.
      'three lines of 0.13 at 19 % (per line would give 0.06)',
      [S19('0.13'), S19('0.13'), S19('0.13')],
      'EUR',
      { net: '0.39', taxes: [{ rate: '19', category: 'S', taxableAmount: '0.39', taxAmount: '0.07' }], tax: '0.07', gross: '0.46', discount: '0.00' },
    ],
    [
      // Per line: 0.08 × 0.19 = 0.0152 → 0.02, three times = 0.06. Per rate: 0.24 × 0.19 = 0.0456 → 0.05.
      'three lines of 0.08 at 19 % (per line would give 0.06)',
      [S19('0.08'), S19('0.08'), S19('0.08')],
      'EUR',
      { net: '0.24', taxes: [{ rate: '19', category: 'S', taxableAmount: '0.24', taxAmount: '0.05' }], tax: '0.05', gross: '0.29', discount: '0.00' },
    ],
    [
      // 19 %: 100.00 + 49.99 = 149.99; × 0.19 = 28.4981 → 28.50. 7 %: 10.00 + 5.35 = 15.35; × 0.07 = 1.0745 → 1.07.
      // net 165.34; tax 28.50 + 1.07 = 29.57; gross 194.91. Sorted: S 7 before S 19.
      'mixed 19 % and 7 % lines, interleaved',
      [S19('100.00'), S7('10.00'), S19('49.99'), S7('5.35')],
      'EUR',
      {
        net: '165.34',
        taxes: [
          { rate: '7', category: 'S', taxableAmount: '15.35', taxAmount: '1.07' },
          { rate: '19', category: 'S', taxableAmount: '149.99', taxAmount: '28.50' },
        ],
        tax: '29.57',
        gross: '194.91',
        discount: '0.00',
      },
    ],
    [
      // Credit note of the invoice above: every line negated → every total exactly negated.
      // 19 %: −149.99 × 0.19 = −28.4981 → −28.50. 7 %: −15.35 × 0.07 = −1.0745 → −1.07.
      'credit note negating the mixed invoice',
      [S19('-100.00'), S7('-10.00'), S19('-49.99'), S7('-5.35')],
      'EUR',
      {
        net: '-165.34',
        taxes: [
          { rate: '7', category: 'S', taxableAmount: '-15.35', taxAmount: '-1.07' },
          { rate: '19', category: 'S', taxableAmount: '-149.99', taxAmount: '-28.50' },
        ],
        tax: '-29.57',
        gross: '-194.91',
        discount: '0.00',
      },
    ],
    [
      // 10.50 × 0.19 = 1.995 → 2.00; gross 12.50.
      'half cent of tax rounds up',
      [S19('10.50')],
      'EUR',
      { net: '10.50', taxes: [{ rate: '19', category: 'S', taxableAmount: '10.50', taxAmount: '2.00' }], tax: '2.00', gross: '12.50', discount: '0.00' },
    ],
    [
      // −10.50 × 0.19 = −1.995 → −2.00 (away from zero, not −1.99); gross −12.50.
      'half cent of tax on a credit note rounds away from zero',
      [S19('-10.50')],
      'EUR',
      { net: '-10.50', taxes: [{ rate: '19', category: 'S', taxableAmount: '-10.50', taxAmount: '-2.00' }], tax: '-2.00', gross: '-12.50', discount: '0.00' },
    ],
    [
      // A charge and a credit line of the same rate are summed first: 10.00 − 2.50 = 7.50; × 0.19 = 1.425 → 1.43.
      'charge and credit line of one rate',
      [S19('10.00'), S19('-2.50')],
      'EUR',
      { net: '7.50', taxes: [{ rate: '19', category: 'S', taxableAmount: '7.50', taxAmount: '1.43' }], tax: '1.43', gross: '8.93', discount: '0.00' },
    ],
    [
      // Reverse charge: 200.00 + 50.00 at 0 % AE; tax 0.
      'reverse charge lines (AE, 0 %)',
      [
        { net: '200.00', taxRate: '0', taxCategory: 'AE' },
        { net: '50.00', taxRate: '0', taxCategory: 'AE' },
      ],
      'EUR',
      { net: '250.00', taxes: [{ rate: '0', category: 'AE', taxableAmount: '250.00', taxAmount: '0.00' }], tax: '0.00', gross: '250.00', discount: '0.00' },
    ],
    [
      // Sorted by category (AE < E < S < Z), then rate. S 19: 20.00 × 0.19 = 3.80. tax 3.80; net 10 + 5 + 20 + 1 = 36.00; gross 39.80.
      'several categories, sorted by category then rate',
      [
        { net: '1.00', taxRate: '0', taxCategory: 'Z' },
        S19('20.00'),
        { net: '5.00', taxRate: '0', taxCategory: 'E' },
        { net: '10.00', taxRate: '0', taxCategory: 'AE' },
      ],
      'EUR',
      {
        net: '36.00',
        taxes: [
          { rate: '0', category: 'AE', taxableAmount: '10.00', taxAmount: '0.00' },
          { rate: '0', category: 'E', taxableAmount: '5.00', taxAmount: '0.00' },
          { rate: '19', category: 'S', taxableAmount: '20.00', taxAmount: '3.80' },
          { rate: '0', category: 'Z', taxableAmount: '1.00', taxAmount: '0.00' },
        ],
        tax: '3.80',
        gross: '39.80',
        discount: '0.00',
      },
    ],
    [
      // "19.00" and "19" are one rate: 0.50 + 0.50 = 1.00; × 0.19 = 0.19.
      'rates are grouped by value',
      [S19('0.50'), { net: '0.50', taxRate: '19.00', taxCategory: 'S' }],
      'EUR',
      { net: '1.00', taxes: [{ rate: '19', category: 'S', taxableAmount: '1.00', taxAmount: '0.19' }], tax: '0.19', gross: '1.19', discount: '0.00' },
    ],
    [
      // Discounts are summed: 2.50 + 1.00 = 3.50. 7.50 + 9.00 = 16.50; × 0.19 = 3.135 → 3.14; gross 19.64.
      'line discounts add up to discountAmount',
      [S19('7.50', '2.50'), S19('9.00', '1.00')],
      'EUR',
      { net: '16.50', taxes: [{ rate: '19', category: 'S', taxableAmount: '16.50', taxAmount: '3.14' }], tax: '3.14', gross: '19.64', discount: '3.50' },
    ],
    [
      // Credit note of that: −16.50 × 0.19 = −3.135 → −3.14; discount −3.50.
      'credit note discounts are negative',
      [S19('-7.50', '-2.50'), S19('-9.00', '-1.00')],
      'EUR',
      { net: '-16.50', taxes: [{ rate: '19', category: 'S', taxableAmount: '-16.50', taxAmount: '-3.14' }], tax: '-3.14', gross: '-19.64', discount: '-3.50' },
    ],
    [
      // JPY: 1000 + 5 = 1005; × 0.10 = 100.5 → 101; gross 1106.
      'JPY, half a yen of tax',
      [
        { net: '1000', taxRate: '10', taxCategory: 'S' },
        { net: '5', taxRate: '10', taxCategory: 'S' },
      ],
      'JPY',
      { net: '1005', taxes: [{ rate: '10', category: 'S', taxableAmount: '1005', taxAmount: '101' }], tax: '101', gross: '1106', discount: '0' },
    ],
    [
      // KWD: 10.125 + 0.010 = 10.135; × 0.05 = 0.50675 → 0.507; gross 10.642.
      'KWD, three decimals',
      [
        { net: '10.125', taxRate: '5', taxCategory: 'S' },
        { net: '0.010', taxRate: '5', taxCategory: 'S' },
      ],
      'KWD',
      { net: '10.135', taxes: [{ rate: '5', category: 'S', taxableAmount: '10.135', taxAmount: '0.507' }], tax: '0.507', gross: '10.642', discount: '0.000' },
    ],
    [
      // FI 25.5 %: 9.99 × 0.255 = 2.54745 → 2.55; gross 12.54.
      'a rate with decimals',
      [{ net: '9.99', taxRate: '25.5', taxCategory: 'S' }],
      'EUR',
      { net: '9.99', taxes: [{ rate: '25.5', category: 'S', taxableAmount: '9.99', taxAmount: '2.55' }], tax: '2.55', gross: '12.54', discount: '0.00' },
    ],
    ['an empty invoice', [], 'EUR', { net: '0.00', taxes: [], tax: '0.00', gross: '0.00', discount: '0.00' }],
  ])('%s', (_label, lines, currency, expected) => {
    const totals = invoiceTotals(lines, currency);
    expect(totals).toEqual(expected);
  });

  it.each<[string, TotalsLine[]]>([
    ['a net with more decimals than EUR', [S19('0.125')]],
    ['a number-like net', [S19('1e2')]],
    ['a rate above 100', [{ net: '1.00', taxRate: '101', taxCategory: 'S' }]],
    ['a negative rate', [{ net: '1.00', taxRate: '-19', taxCategory: 'S' }]],
    ['S at 0 % (that is Z)', [{ net: '1.00', taxRate: '0', taxCategory: 'S' }]],
    ['AE with a rate', [{ net: '1.00', taxRate: '19', taxCategory: 'AE' }]],
    ['a missing category', [{ net: '1.00', taxRate: '19', taxCategory: '' }]],
    ['a discount with more decimals than EUR', [S19('1.00', '0.005')]],
  ])('rejects %s', (_label, lines) => {
    expect(() => invoiceTotals(lines, 'EUR')).toThrow(RangeError);
  });

  it('works with lineNet end to end: 1234 × 0.0125 and 49.99 × 10/31 at 19 %', () => {
    // Lines 15.43 (15.425) and 16.13 (16.1258…); net 31.56; × 0.19 = 5.9964 → 6.00; gross 37.56.
    const a = lineNet({ quantity: '1234', unitPrice: '0.0125' }, 'EUR');
    const b = lineNet({ quantity: '1', unitPrice: '49.99', factor: TEN_OF_31 }, 'EUR');
    expect(invoiceTotals([S19(a.net, a.discount), S19(b.net, b.discount)], 'EUR')).toEqual({
      net: '31.56',
      taxes: [{ rate: '19', category: 'S', taxableAmount: '31.56', taxAmount: '6.00' }],
      tax: '6.00',
      gross: '37.56',
      discount: '0.00',
    });
  });
});

describe('unpaidAmount', () => {
  it.each([
    // gross, payments, currency → paid, unpaid, overpaid
    ['119.00', [], 'EUR', '0.00', '119.00', '0.00'],
    ['119.00', ['50.00', '19.00'], 'EUR', '69.00', '50.00', '0.00'], // 119 − 69
    ['119.00', ['100.00', '19.00'], 'EUR', '119.00', '0.00', '0.00'],
    ['119.00', ['100.00', '20.00'], 'EUR', '120.00', '0.00', '1.00'], // never below 0; 1.00 overpaid
    ['0.00', ['5.00'], 'EUR', '5.00', '0.00', '5.00'],
    ['-50.00', ['20.00'], 'EUR', '20.00', '-30.00', '0.00'], // credit note: 20 of 50 refunded
    ['-50.00', ['60.00'], 'EUR', '60.00', '0.00', '10.00'],
    ['1000', ['999'], 'JPY', '999', '1', '0'],
    ['1.500', ['0.250', '0.250'], 'KWD', '0.500', '1.000', '0.000'],
  ])('%s paid by %j (%s)', (gross, payments, currency, paid, unpaid, overpaid) => {
    expect(unpaidAmount(gross, payments, currency)).toEqual({ paid, unpaid, overpaid });
  });

  it.each([
    ['a negative payment', '119.00', ['-1.00']],
    ['a payment below the cent', '119.00', ['10.005']],
    ['an unrounded gross', '119.001', []],
  ])('rejects %s', (_label, gross, payments) => {
    expect(() => unpaidAmount(gross, payments, 'EUR')).toThrow(RangeError);
  });
});

describe('splitPayment', () => {
  it.each([
    // unpaid, payment, currency → applied, unpaid after, overpayment, settled
    ['119.00', '50.00', 'EUR', '50.00', '69.00', '0.00', false], // partial
    ['119.00', '119.00', 'EUR', '119.00', '0.00', '0.00', true],
    ['119.00', '150.00', 'EUR', '119.00', '0.00', '31.00', true], // 150 − 119 overpaid
    ['0.00', '10.00', 'EUR', '0.00', '0.00', '10.00', true],
    ['119.00', '0.00', 'EUR', '0.00', '119.00', '0.00', false],
    ['-30.00', '20.00', 'EUR', '20.00', '-10.00', '0.00', false], // refund against a credit note
    ['1001', '1000', 'JPY', '1000', '1', '0', false],
    ['0.088', '0.100', 'KWD', '0.088', '0.000', '0.012', true],
  ])('%s open, %s paid (%s)', (unpaid, payment, currency, applied, after, overpayment, settled) => {
    expect(splitPayment(unpaid, payment, currency)).toEqual({ applied, unpaid: after, overpayment, settled });
  });

  it('rejects a negative payment', () => {
    expect(() => splitPayment('119.00', '-1.00', 'EUR')).toThrow(RangeError);
  });
});

describe('creditableAmount', () => {
  it.each([
    // original gross, already credited, currency → credited, creditable, overCredited
    ['119.00', [], 'EUR', '0.00', '119.00', '0.00'],
    ['119.00', ['-19.00'], 'EUR', '19.00', '100.00', '0.00'], // 119 − 19
    ['119.00', ['-19.00', '100.00'], 'EUR', '119.00', '0.00', '0.00'], // magnitudes: 19 + 100
    ['119.00', ['-119.00', '-1.00'], 'EUR', '120.00', '0.00', '1.00'], // never below 0
    ['1.500', ['-0.250'], 'KWD', '0.250', '1.250', '0.000'],
    ['1001', ['-1'], 'JPY', '1', '1000', '0'],
  ])('%s after %j (%s)', (original, credited, currency, creditedTotal, creditable, overCredited) => {
    expect(creditableAmount(original, credited, currency)).toEqual({ credited: creditedTotal, creditable, overCredited });
  });

  it('rejects a negative original and unrounded amounts', () => {
    expect(() => creditableAmount('-119.00', [], 'EUR')).toThrow(RangeError);
    expect(() => creditableAmount('119.00', ['-0.001'], 'EUR')).toThrow(RangeError);
  });
});
