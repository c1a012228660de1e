import { describe, expect, it } from 'vitest';
import {
  applyCoupons,
  couponActive,
  couponMatchesLine,
  type CouponInput,
  type CouponSkipReason,
  type DiscountableLine,
} from '../../src/billing/discounts';
import { lineNet } from '../../src/billing/invoice-totals';

// Every expected amount is worked out by hand in the comment next to it; none comes from the code.

const line = (id: string, net: string, productId = 'prod-1', planId?: string): DiscountableLine => ({ id, productId, planId, net });

const coupon = (id: string, over: Partial<CouponInput>): CouponInput => ({
  id,
  type: 'percentage',
  frequency: 'lifetime',
  appliedIntervals: 0,
  limitedToProducts: [],
  excludedFromProducts: [],
  limitedToPlans: [],
  excludedFromPlans: [],
  ...over,
});
const pct = (id: string, percentage: number, over: Partial<CouponInput> = {}) => coupon(id, { type: 'percentage', percentage, ...over });
const fixed = (id: string, fixedAmount: string, currency: string | null = 'EUR', over: Partial<CouponInput> = {}) =>
  coupon(id, { type: 'fixed_amount', fixedAmount, currency, ...over });

/** Line discounts (in line order), total discount. */
function summary(lines: DiscountableLine[], coupons: CouponInput[], currency = 'EUR'): [string[], string] {
  const r = applyCoupons(lines, coupons, currency);
  return [r.lines.map((l) => l.discount), r.discount];
}

describe('applyCoupons: percentage', () => {
  it.each<[string, DiscountableLine[], number, string, string[], string]>([
    // 49.99 × 10 % = 4.999 → 5.00; 19.95 × 10 % = 1.995 → 2.00 (half-up). Total 7.00 (one rounding on 69.94 would give 6.99).
    ['10 % on two lines', [line('a', '49.99'), line('b', '19.95')], 10, 'EUR', ['5.00', '2.00'], '7.00'],
    // Exact nets: 1234 × 0.0125 = 15.425 → × 10 % = 1.5425 → 1.54; 0.045 × 10 % = 0.0045 → 0.00.
    ['10 % on unrounded nets', [line('a', '15.425'), line('b', '0.045')], 10, 'EUR', ['1.54', '0.00'], '1.54'],
    // 0.05 × 10 % = 0.005 → 0.01 (half a cent up).
    ['half a cent of discount rounds up', [line('a', '0.05')], 10, 'EUR', ['0.01'], '0.01'],
    // 100 % of 0.005 = 0.005 → 0.01, which is exactly the line rounded (0.005 → 0.01): the line ends at 0.
    ['100 % of an unrounded half cent', [line('a', '0.005')], 100, 'EUR', ['0.01'], '0.01'],
    ['0 %', [line('a', '100.00')], 0, 'EUR', ['0.00'], '0.00'],
    // 0.0125 EUR (cap 0.01) × 33 % = 0.004125 → 0.00.
    ['tiny line', [line('a', '0.0125')], 33, 'EUR', ['0.00'], '0.00'],
    // JPY: 999 × 15 % = 149.85 → 150; 3 × 15 % = 0.45 → 0.
    ['JPY', [line('a', '999'), line('b', '3')], 15, 'JPY', ['150', '0'], '150'],
    // KWD: 1.2345 × 10 % = 0.12345 → 0.123; 0.005 × 10 % = 0.0005 → 0.001.
    ['KWD', [line('a', '1.2345'), line('b', '0.005')], 10, 'KWD', ['0.123', '0.001'], '0.124'],
    // 12.5 %: 19.99 × 0.125 = 2.49875 → 2.50.
    ['fractional percentage', [line('a', '19.99')], 12.5, 'EUR', ['2.50'], '2.50'],
  ])('%s', (_label, lines, percentage, currency, perLine, total) => {
    expect(summary(lines, [pct('c', percentage)], currency)).toEqual([perLine, total]);
  });

  it('reports the coupon as applied with its part per matching line', () => {
    expect(applyCoupons([line('a', '49.99'), line('b', '19.95')], [pct('c', 10)], 'EUR')).toEqual({
      lines: [
        { id: 'a', discount: '5.00' },
        { id: 'b', discount: '2.00' },
      ],
      coupons: [
        {
          id: 'c',
          applied: true,
          reason: null,
          discount: '7.00',
          lines: [
            { id: 'a', amount: '5.00' },
            { id: 'b', amount: '2.00' },
          ],
        },
      ],
      discount: '7.00',
    });
  });
});

describe('applyCoupons: fixed amount, largest remainder', () => {
  it.each<[string, DiscountableLine[], string, string, string[], string]>([
    // 5.00 over 10.00, 20.00, 30.00 (weights 1000, 2000, 3000 cents of 6000): 500 × 1/6 = 83.33, × 2/6 = 166.67,
    // × 3/6 = 250 → floors 83 + 166 + 250 = 499; the remainder cent goes to the largest fraction (0.67, line b).
    ['5.00 over 10, 20, 30 with one remainder cent', [line('a', '10.00'), line('b', '20.00'), line('c', '30.00')], '5.00', 'EUR', ['0.83', '1.67', '2.50'], '5.00'],
    // 5.00 over three equal lines: 166.67 each → floors 498; two cents left, equal fractions → the first two lines.
    ['5.00 over three equal lines', [line('a', '10.00'), line('b', '10.00'), line('c', '10.00')], '5.00', 'EUR', ['1.67', '1.67', '1.66'], '5.00'],
    // Larger than the lines: capped at their rounded total 10.00 + 15.43 (15.425 → 15.43) = 25.43; each line to 0.
    ['fixed amount larger than the total', [line('a', '10.00'), line('b', '15.425')], '50.00', 'EUR', ['10.00', '15.43'], '25.43'],
    // Exactly the total.
    ['fixed amount equal to the total', [line('a', '3.00'), line('b', '2.00')], '5.00', 'EUR', ['3.00', '2.00'], '5.00'],
    // Weights are the nets rounded: 0.004 → 0.00 is not discountable; 9.996 → 10.00 takes all 1.00.
    ['a line that rounds to 0 takes nothing', [line('a', '0.004'), line('b', '9.996')], '1.00', 'EUR', ['0.00', '1.00'], '1.00'],
    // JPY: 1000 over 1000, 1000, 1000 → 333.33 each → floors 999, one yen to the first.
    ['JPY', [line('a', '1000'), line('b', '1000'), line('c', '1000')], '1000', 'JPY', ['334', '333', '333'], '1000'],
    // KWD: 1.000 over 0.500 and 1.000 (weights 500, 1000 fils of 1500): 333.33 and 666.67 → floors 999; one fil to b.
    ['KWD', [line('a', '0.500'), line('b', '1.000')], '1.000', 'KWD', ['0.333', '0.667'], '1.000'],
    ['zero fixed amount', [line('a', '10.00')], '0.00', 'EUR', ['0.00'], '0.00'],
  ])('%s', (_label, lines, amount, currency, perLine, total) => {
    expect(summary(lines, [fixed('c', amount, currency)], currency)).toEqual([perLine, total]);
  });

  it('a capped discount takes lineNet exactly to 0, never below', () => {
    // Line 1234 × 0.0125 = 15.425; the coupon gives it 15.43 (its rounded amount); lineNet: min(15.43, 15.425) → net 0.00.
    const [[discount]] = summary([line('a', '15.425')], [fixed('c', '50.00')]);
    expect(discount).toBe('15.43');
    expect(lineNet({ quantity: '1234', unitPrice: '0.0125', discount: discount! }, 'EUR')).toMatchObject({ net: '0.00', discount: '15.43' });
  });
});

describe('applyCoupons: restrictions', () => {
  const lines = [line('a', '100.00', 'prod-1', 'plan-x'), line('b', '50.00', 'prod-2', 'plan-y'), line('c', '20.00', 'prod-2')];
  it.each<[string, Partial<CouponInput>, string[], string]>([
    // 20 %: a 20.00, b 10.00, c 4.00.
    ['no restriction', {}, ['20.00', '10.00', '4.00'], '34.00'],
    ['limited to one product', { limitedToProducts: ['prod-1'] }, ['20.00', '0.00', '0.00'], '20.00'],
    ['limited to the other product', { limitedToProducts: ['prod-2'] }, ['0.00', '10.00', '4.00'], '14.00'],
    ['excluded from a product', { excludedFromProducts: ['prod-2'] }, ['20.00', '0.00', '0.00'], '20.00'],
    // c has no plan: it never matches a plan list, and is never excluded by one.
    ['limited to a plan', { limitedToPlans: ['plan-y'] }, ['0.00', '10.00', '0.00'], '10.00'],
    ['excluded from a plan', { excludedFromPlans: ['plan-x'] }, ['0.00', '10.00', '4.00'], '14.00'],
    ['product and plan lists both apply', { limitedToProducts: ['prod-2'], excludedFromPlans: ['plan-y'] }, ['0.00', '0.00', '4.00'], '4.00'],
  ])('%s', (_label, restriction, perLine, total) => {
    expect(summary(lines, [pct('c', 20, restriction)])).toEqual([perLine, total]);
  });

  it('spreads a restricted fixed amount only over the matching lines', () => {
    // 6.00 over b 50.00 and c 20.00 (5000 and 2000 of 7000 cents): 600 × 5/7 = 428.57 → 428 and 600 × 2/7 = 171.43 → 171,
    // 599 cents; the last cent to the larger fraction (.57, line b): 4.29 and 1.71.
    expect(summary(lines, [fixed('f', '6.00', 'EUR', { limitedToProducts: ['prod-2'] })])).toEqual([['0.00', '4.29', '1.71'], '6.00']);
  });

  it.each([
    [{ limitedToProducts: ['prod-1'] }, { productId: 'prod-1' }, true],
    [{ limitedToProducts: ['prod-1'] }, { productId: 'prod-2' }, false],
    [{ excludedFromProducts: ['prod-1'] }, { productId: 'prod-1' }, false],
    [{ limitedToPlans: ['plan-x'] }, { productId: 'prod-1', planId: 'plan-x' }, true],
    [{ limitedToPlans: ['plan-x'] }, { productId: 'prod-1' }, false],
    [{ excludedFromPlans: ['plan-x'] }, { productId: 'prod-1' }, true],
    [{ excludedFromPlans: ['plan-x'] }, { productId: 'prod-1', planId: 'plan-x' }, false],
  ])('couponMatchesLine(%j, %j) = %s', (restriction, target, expected) => {
    expect(couponMatchesLine(coupon('c', restriction), target)).toBe(expected);
  });
});

describe('applyCoupons: frequency', () => {
  it.each<[CouponInput['frequency'], number | undefined, number, boolean]>([
    ['once', undefined, 0, true],
    ['once', undefined, 1, false],
    ['limited', 3, 0, true],
    ['limited', 3, 2, true],
    ['limited', 3, 3, false],
    ['limited', 3, 4, false],
    ['lifetime', undefined, 0, true],
    ['lifetime', undefined, 1000, true],
  ])('%s (interval %s) after %i periods applies: %s', (frequency, frequencyInterval, appliedIntervals, applies) => {
    const r = applyCoupons([line('a', '100.00')], [pct('c', 10, { frequency, frequencyInterval, appliedIntervals })], 'EUR');
    // 100.00 × 10 % = 10.00 while it runs, else nothing.
    expect(r.coupons[0]).toMatchObject(applies ? { applied: true, reason: null, discount: '10.00' } : { applied: false, reason: 'frequency_exhausted', discount: '0.00', lines: [] });
    expect(r.discount).toBe(applies ? '10.00' : '0.00');
    expect(couponActive({ frequency, frequencyInterval, appliedIntervals })).toBe(applies);
  });
});

describe('applyCoupons: several coupons, in the order given', () => {
  it.each<[string, DiscountableLine[], CouponInput[], string[], string[], string]>([
    // 10 % of 100.00 = 10.00; then 5.00 off the 90.00 left. 15.00.
    ['percentage, then fixed', [line('a', '100.00')], [pct('p', 10), fixed('f', '5.00')], ['10.00', '5.00'], ['15.00'], '15.00'],
    // 5.00 off 100.00; then 10 % of the 95.00 left = 9.50. 14.50: the order matters.
    ['fixed, then percentage', [line('a', '100.00')], [fixed('f', '5.00'), pct('p', 10)], ['5.00', '9.50'], ['14.50'], '14.50'],
    // 50 %: 15.00 and 5.00; then 100.00 fixed capped at what is left, 15.00 + 5.00 = 20.00. Lines to 0.
    ['a fixed amount after a percentage is capped at what is left', [line('a', '30.00'), line('b', '10.00')], [pct('p', 50), fixed('f', '100.00')], ['20.00', '20.00'], ['30.00', '10.00'], '40.00'],
    // 10 %: 4.999 → 5.00 and 1.995 → 2.00; left 44.99 and 17.95. Then 20 %: 8.998 → 9.00 and 3.59 → 3.59.
    // Lines 14.00 and 5.59; total 19.59.
    ['two percentages compound', [line('a', '49.99'), line('b', '19.95')], [pct('p1', 10), pct('p2', 20)], ['7.00', '12.59'], ['14.00', '5.59'], '19.59'],
    // Unrounded net 15.425: 10 % = 1.5425 → 1.54; left 13.885. Then 20 % = 2.777 → 2.78. Total 4.32; lineNet 15.425 − 4.32 = 11.105 → 11.11.
    ['percentages on an unrounded net', [line('a', '15.425')], [pct('p1', 10), pct('p2', 20)], ['1.54', '2.78'], ['4.32'], '4.32'],
  ])('%s', (_label, lines, coupons, perCoupon, perLine, total) => {
    const r = applyCoupons(lines, coupons, 'EUR');
    expect(r.coupons.map((c) => c.discount)).toEqual(perCoupon);
    expect(r.lines.map((l) => l.discount)).toEqual(perLine);
    expect(r.discount).toBe(total);
  });

  it('a coupon that finds nothing left does not apply (and is not counted)', () => {
    // 100 % takes 20.00 to 0; the second coupon finds no positive line.
    const r = applyCoupons([line('a', '20.00')], [pct('all', 100), pct('more', 10, { frequency: 'once' })], 'EUR');
    expect(r.coupons.map((c) => [c.applied, c.reason, c.discount])).toEqual([
      [true, null, '20.00'],
      [false, 'no_matching_lines', '0.00'],
    ]);
  });
});

describe('applyCoupons: coupons that do not apply', () => {
  it.each<[string, DiscountableLine[], CouponInput, CouponSkipReason]>([
    ['a fixed amount in USD on a EUR invoice', [line('a', '100.00')], fixed('f', '5.00', 'USD'), 'currency_mismatch'],
    ['a fixed amount in EUR on a JPY invoice', [line('a', '1000')], fixed('f', '5.00', 'EUR'), 'currency_mismatch'],
    ['a trial line of 0 (a once coupon is not used up)', [line('a', '0')], pct('p', 10, { frequency: 'once' }), 'no_matching_lines'],
    ['a negative (credit) line', [line('a', '-20.00')], pct('p', 10), 'no_matching_lines'],
    ['a line below half a cent', [line('a', '0.004')], fixed('f', '1.00'), 'no_matching_lines'],
    ['no line of the product', [line('a', '100.00', 'prod-1')], pct('p', 10, { limitedToProducts: ['prod-9'] }), 'no_matching_lines'],
    ['no lines at all', [], pct('p', 10), 'no_matching_lines'],
  ])('%s', (_label, lines, c, reason) => {
    const currency = lines[0]?.net === '1000' ? 'JPY' : 'EUR';
    const r = applyCoupons(lines, [c], currency);
    expect(r.coupons[0]).toMatchObject({ applied: false, reason, lines: [] });
    expect(r.lines.every((l) => /^0(\.0+)?$/.test(l.discount))).toBe(true);
  });

  it('a fixed amount without a currency is taken in the invoice currency', () => {
    expect(summary([line('a', '100.00')], [fixed('f', '5.00', null)])).toEqual([['5.00'], '5.00']);
  });

  it('a skipped coupon does not stop the next one', () => {
    // USD coupon skipped; 10 % of 100.00 = 10.00.
    const r = applyCoupons([line('a', '100.00')], [fixed('usd', '5.00', 'USD'), pct('p', 10)], 'EUR');
    expect(r.coupons.map((c) => c.applied)).toEqual([false, true]);
    expect(r.discount).toBe('10.00');
  });
});

describe('applyCoupons: invalid input', () => {
  it.each<[string, DiscountableLine[], CouponInput[]]>([
    ['a percentage above 100', [line('a', '1.00')], [pct('p', 101)]],
    ['a negative percentage', [line('a', '1.00')], [pct('p', -1)]],
    ['a percentage coupon without percentage', [line('a', '1.00')], [coupon('p', { type: 'percentage' })]],
    ['a fixed amount below the cent', [line('a', '1.00')], [fixed('f', '5.001')]],
    ['a negative fixed amount', [line('a', '1.00')], [fixed('f', '-5.00')]],
    ['a fixed coupon without amount', [line('a', '1.00')], [coupon('f', { type: 'fixed_amount' })]],
    ['limited without frequencyInterval', [line('a', '1.00')], [pct('p', 10, { frequency: 'limited' })]],
    ['negative appliedIntervals', [line('a', '1.00')], [pct('p', 10, { appliedIntervals: -1 })]],
    ['duplicate line ids', [line('a', '1.00'), line('a', '2.00')], [pct('p', 10)]],
    ['duplicate coupon ids', [line('a', '1.00')], [pct('p', 10), pct('p', 20)]],
    ['a net in exponent notation', [line('a', '1e2')], [pct('p', 10)]],
  ])('rejects %s', (_label, lines, coupons) => {
    expect(() => applyCoupons(lines, coupons, 'EUR')).toThrow(RangeError);
  });
});
