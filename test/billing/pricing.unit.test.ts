import { describe, expect, it } from 'vitest';
import { checkPricePlan, checkTiers, priceFor, PricingError, type PricePlanPricing, type PriceTier } from '../../src/billing/pricing';

// All expectations below are worked out by hand in the comments; none comes from the code.

// Tiers (0,100] at 1, (100,1000] at 0.5 plus 10 flat, (1000,∞) at 0.1.
const TIERS: PriceTier[] = [
  { upTo: '100', unitPrice: '1', flatPrice: '0' },
  { upTo: '1000', unitPrice: '0.5', flatPrice: '10' },
  { upTo: null, unitPrice: '0.1', flatPrice: '0' },
];
// Micro prices: (0,1000000] at 0.0125, above at 0.00001 plus 5 flat.
const MICRO: PriceTier[] = [
  { upTo: '1000000', unitPrice: '0.0125', flatPrice: '0' },
  { upTo: null, unitPrice: '0.00001', flatPrice: '5' },
];
// Stair steps: up to 10 → 49, up to 50 → 199 (its unit price must be ignored), beyond → 499.99.
const STEPS: PriceTier[] = [
  { upTo: '10', unitPrice: '0', flatPrice: '49' },
  { upTo: '50', unitPrice: '5', flatPrice: '199' },
  { upTo: null, unitPrice: '0', flatPrice: '499.99' },
];

const tiered = (tiers: PriceTier[], freeUnits?: string): PricePlanPricing => ({ calculationType: 'tiered', tiers, freeUnits });
const volume = (tiers: PriceTier[], freeUnits?: string): PricePlanPricing => ({ calculationType: 'volume', tiers, freeUnits });
const stairStep = (tiers: PriceTier[], freeUnits?: string): PricePlanPricing => ({ calculationType: 'stair_step', tiers, freeUnits });
const perUnit = (unitPrice: string, freeUnits?: string): PricePlanPricing => ({ calculationType: 'per_unit', unitPrice, freeUnits });
const flatFee = (flatPrice: string, freeUnits?: string): PricePlanPricing => ({ calculationType: 'flat_fee', flatPrice, freeUnits });

describe('priceFor: flat_fee', () => {
  it.each([
    ['0', '49.9999'], // charged whatever the quantity, also 0
    ['1', '49.9999'],
    ['1000000000', '49.9999'],
    ['2.5', '49.9999'],
  ])('quantity %s → %s', (quantity, amount) => {
    expect(priceFor(flatFee('49.9999'), quantity).amount).toBe(amount);
  });

  it('shows one fee in the breakdown, and freeUnits do not matter', () => {
    expect(priceFor(flatFee('19.99', '5'), '3')).toEqual({
      amount: '19.99',
      billableQuantity: '0',
      breakdown: [{ tier: null, from: '0', to: null, quantity: '1', unitPrice: '0', flatPrice: '19.99', amount: '19.99' }],
    });
  });
});

describe('priceFor: per_unit', () => {
  it.each([
    ['19.99', '0', '0'],
    ['19.99', '1', '19.99'],
    ['19.99', '3', '59.97'], // 3 × 19.99
    ['19.99', '1000000000', '19990000000'], // 1e9 × 19.99
    ['0.0125', '1', '0.0125'],
    ['0.0125', '3', '0.0375'], // not rounded to cents
    ['0.0125', '1.5', '0.01875'],
    ['0.0125', '1000000000', '12500000'],
    ['0.00001', '7', '0.00007'],
    ['0.00001', '123456789', '1234.56789'],
    ['0.00001', '1000000000', '10000'],
    ['0.0000000001', '3', '0.0000000003'],
    ['2', '0.333', '0.666'],
    ['0', '5', '0'],
  ])('%s × %s → %s', (unitPrice, quantity, amount) => {
    expect(priceFor(perUnit(unitPrice), quantity).amount).toBe(amount);
  });

  it('breaks down into one line', () => {
    expect(priceFor(perUnit('0.0125'), '3').breakdown).toEqual([
      { tier: null, from: '0', to: null, quantity: '3', unitPrice: '0.0125', flatPrice: '0', amount: '0.0375' },
    ]);
    expect(priceFor(perUnit('0.0125'), '0').breakdown).toEqual([]);
  });
});

describe('priceFor: tiered (graduated)', () => {
  it.each([
    ['0', '0'],
    ['0.25', '0.25'], // 0.25 × 1
    ['1', '1'],
    ['99', '99'],
    ['100', '100'], // exactly on the boundary: all in tier 0
    ['100.5', '110.25'], // 100 + 0.5 × 0.5 + 10
    ['101', '110.5'], // 100 + 1 × 0.5 + 10
    ['1000', '560'], // 100 + 900 × 0.5 + 10
    ['1001', '560.1'], // 560 + 1 × 0.1
    ['1000000000', '100000460'], // 560 + 999999000 × 0.1 = 560 + 99999900
  ])('quantity %s → %s', (quantity, amount) => {
    expect(priceFor(tiered(TIERS), quantity).amount).toBe(amount);
  });

  it.each([
    ['1', '0.0125'],
    ['1000000', '12500'], // 1e6 × 0.0125
    ['1000001', '12505.00001'], // 12500 + 0.00001 + 5
    ['1000000000', '22495'], // 12500 + 999000000 × 0.00001 + 5 = 12500 + 9990 + 5
  ])('micro prices, quantity %s → %s', (quantity, amount) => {
    expect(priceFor(tiered(MICRO), quantity).amount).toBe(amount);
  });

  it('lists every tier reached with its own quantity and flat price', () => {
    expect(priceFor(tiered(TIERS), '1001')).toEqual({
      amount: '560.1',
      billableQuantity: '1001',
      breakdown: [
        { tier: 0, from: '0', to: '100', quantity: '100', unitPrice: '1', flatPrice: '0', amount: '100' },
        { tier: 1, from: '100', to: '1000', quantity: '900', unitPrice: '0.5', flatPrice: '10', amount: '460' },
        { tier: 2, from: '1000', to: null, quantity: '1', unitPrice: '0.1', flatPrice: '0', amount: '0.1' },
      ],
    });
  });

  it('on a boundary stops at that tier', () => {
    expect(priceFor(tiered(TIERS), '100').breakdown).toEqual([
      { tier: 0, from: '0', to: '100', quantity: '100', unitPrice: '1', flatPrice: '0', amount: '100' },
    ]);
  });

  it('charges nothing, not even a flat price, for quantity 0', () => {
    const plan = tiered([{ upTo: null, unitPrice: '1', flatPrice: '25' }]);
    expect(priceFor(plan, '0')).toEqual({ amount: '0', billableQuantity: '0', breakdown: [] });
    expect(priceFor(plan, '2').amount).toBe('27'); // 2 × 1 + 25
  });
});

describe('priceFor: volume', () => {
  it.each([
    ['0', '0'],
    ['50.5', '50.5'], // 50.5 × 1
    ['100', '100'], // boundary: tier 0, 100 × 1
    ['101', '60.5'], // all 101 in tier 1: 101 × 0.5 + 10
    ['1000', '510'], // 1000 × 0.5 + 10
    ['1001', '100.1'], // 1001 × 0.1
    ['1000000000', '100000000'], // 1e9 × 0.1
  ])('quantity %s → %s', (quantity, amount) => {
    expect(priceFor(volume(TIERS), quantity).amount).toBe(amount);
  });

  it.each([
    ['3', '0.0375'], // 3 × 0.0125
    ['1000000', '12500'],
    ['1000001', '15.00001'], // 1000001 × 0.00001 + 5 = 10.00001 + 5
  ])('micro prices, quantity %s → %s', (quantity, amount) => {
    expect(priceFor(volume(MICRO), quantity).amount).toBe(amount);
  });

  it('shows the one tier the quantity falls in', () => {
    expect(priceFor(volume(TIERS), '101').breakdown).toEqual([
      { tier: 1, from: '100', to: '1000', quantity: '101', unitPrice: '0.5', flatPrice: '10', amount: '60.5' },
    ]);
  });
});

describe('priceFor: stair_step', () => {
  it.each([
    ['0', '0'],
    ['1', '49'],
    ['10', '49'], // boundary
    ['10.5', '199'],
    ['11', '199'], // the unit price 5 of this step is ignored
    ['50', '199'],
    ['51', '499.99'],
    ['1000000000', '499.99'],
  ])('quantity %s → %s', (quantity, amount) => {
    expect(priceFor(stairStep(STEPS), quantity).amount).toBe(amount);
  });

  it('shows the step with unit price 0', () => {
    expect(priceFor(stairStep(STEPS), '11').breakdown).toEqual([
      { tier: 1, from: '10', to: '50', quantity: '11', unitPrice: '0', flatPrice: '199', amount: '199' },
    ]);
  });
});

describe('priceFor: percentage', () => {
  it.each([
    ['2.5', '1000', '25'],
    ['2.5', '0', '0'],
    ['2.5', '123.45', '3.08625'], // 123.45 × 0.025, not rounded
    ['0.0125', '1000000000', '125000'], // 1e9 × 0.000125
    ['100', '7.77', '7.77'],
    ['0', '500', '0'],
    ['33.3333', '3', '0.999999'], // 3 × 0.333333
  ])('%s %% of %s → %s', (percentage, baseAmount, amount) => {
    expect(priceFor({ calculationType: 'percentage', percentage }, '1', { baseAmount }).amount).toBe(amount);
  });

  it('ignores the quantity and shows the base as quantity, the fraction as unit price', () => {
    expect(priceFor({ calculationType: 'percentage', percentage: '2.5' }, '0', { baseAmount: '123.45' }).breakdown).toEqual([
      { tier: null, from: '0', to: null, quantity: '123.45', unitPrice: '0.025', flatPrice: '0', amount: '3.08625' },
    ]);
  });

  it('needs a base amount', () => {
    expect(() => priceFor({ calculationType: 'percentage', percentage: '2.5' }, '1')).toThrow(PricingError);
  });
});

describe('priceFor: freeUnits come off first', () => {
  it.each([
    ['per_unit, free > quantity', perUnit('2', '10'), '5', '0', '0'],
    ['per_unit, free = quantity', perUnit('2', '10'), '10', '0', '0'],
    ['per_unit, one above', perUnit('2', '10'), '11', '1', '2'],
    ['per_unit, fractional', perUnit('2', '10'), '12.5', '2.5', '5'],
    ['per_unit, fractional free units', perUnit('0.0125', '0.5'), '1.5', '1', '0.0125'],
    ['tiered', tiered(TIERS, '50'), '151', '101', '110.5'], // 101 billable: 100 + 0.5 + 10
    ['tiered, free > quantity', tiered(TIERS, '50'), '20', '0', '0'],
    ['volume', volume(TIERS, '1'), '101', '100', '100'], // 100 billable: tier 0
    ['stair_step', stairStep(STEPS, '1000'), '5', '0', '0'],
    ['stair_step, into the first step', stairStep(STEPS, '1000'), '1001', '1', '49'],
  ])('%s: quantity %s → billable %s, amount %s', (_name, plan, quantity, billable, amount) => {
    const result = priceFor(plan, quantity);
    expect(result.billableQuantity).toBe(billable);
    expect(result.amount).toBe(amount);
  });
});

describe('priceFor: bad input', () => {
  it.each([
    ['negative quantity', perUnit('1'), '-1', 'quantity', 'negative'],
    ['exponent quantity', perUnit('1'), '1e3', 'quantity', 'invalid_decimal'],
    ['NaN quantity', perUnit('1'), 'NaN', 'quantity', 'invalid_decimal'],
    ['11-decimal quantity', perUnit('1'), '0.00000000001', 'quantity', 'too_many_decimals'],
    ['missing unit price', { calculationType: 'per_unit' } as PricePlanPricing, '1', 'unitPrice', 'required'],
    ['negative free units', perUnit('1', '-1'), '1', 'freeUnits', 'negative'],
    ['bad tiers', tiered([{ upTo: '10', unitPrice: '1', flatPrice: '0' }]), '1', 'tiers[0].upTo', 'missing_unbounded_tier'],
  ])('%s → PricingError at %s (%s)', (_name, plan, quantity, propertyPath, code) => {
    let error: unknown;
    try {
      priceFor(plan, quantity);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PricingError);
    expect((error as PricingError).problems).toContainEqual(expect.objectContaining({ propertyPath, code }));
  });
});

describe('checkTiers', () => {
  const t = (upTo: string | null, unitPrice = '1', flatPrice = '0'): PriceTier => ({ upTo, unitPrice, flatPrice });
  it.each([
    ['valid', TIERS, []],
    ['one unbounded tier', [t(null)], []],
    ['fractional bounds', [t('0.5'), t('1.5'), t(null)], []],
    ['missing', undefined, ['tiers: required']],
    ['not an array', 'x', ['tiers: invalid_type']],
    ['empty', [], ['tiers: too_small']],
    ['equal bounds', [t('10'), t('10'), t(null)], ['tiers[1].upTo: not_ascending']],
    ['descending', [t('100'), t('50'), t(null)], ['tiers[1].upTo: not_ascending']],
    ['first bound 0', [t('0'), t(null)], ['tiers[0].upTo: not_ascending']],
    ['no unbounded last tier', [t('10'), t('20')], ['tiers[1].upTo: missing_unbounded_tier']],
    ['unbounded tier in the middle', [t(null), t('10')], ['tiers[0].upTo: unbounded_tier_not_last', 'tiers[1].upTo: missing_unbounded_tier']],
    ['negative prices', [t('10', '-1'), t(null, '1', '-0.01')], ['tiers[0].unitPrice: negative', 'tiers[1].flatPrice: negative']],
    ['11 decimals', [t(null, '0.00000000001')], ['tiers[0].unitPrice: too_many_decimals']],
    ['exponent bound', [t('1e3'), t(null)], ['tiers[0].upTo: invalid_decimal']],
    ['negative bound', [t('-5'), t(null)], ['tiers[0].upTo: negative']],
    ['number instead of string', [{ upTo: 10, unitPrice: 1, flatPrice: '0' }, t(null)], ['tiers[0].unitPrice: invalid_decimal', 'tiers[0].upTo: invalid_decimal']],
    ['not an object', [null, t(null)], ['tiers[0]: invalid_type']],
  ])('%s', (_name, tiers, expected) => {
    expect(checkTiers(tiers).map((p) => `${p.propertyPath}: ${p.code}`)).toEqual(expected);
  });

  it('takes a path prefix', () => {
    expect(checkTiers([], 'prices[2].tiers')[0]?.propertyPath).toBe('prices[2].tiers');
  });
});

describe('checkPricePlan', () => {
  it.each([
    ['flat_fee ok', flatFee('10'), []],
    ['flat_fee exponent', flatFee('1e2'), ['flatPrice: invalid_decimal']],
    ['flat_fee missing', { calculationType: 'flat_fee' }, ['flatPrice: required']],
    ['per_unit negative', perUnit('-0.5'), ['unitPrice: negative']],
    ['per_unit 10 decimals', perUnit('0.0000000001'), []],
    ['percentage ok', { calculationType: 'percentage', percentage: '2.5' }, []],
    ['percentage 100', { calculationType: 'percentage', percentage: '100' }, []],
    ['percentage over 100', { calculationType: 'percentage', percentage: '100.5' }, ['percentage: too_big']],
    ['percentage negative', { calculationType: 'percentage', percentage: '-1' }, ['percentage: negative']],
    ['percentage missing', { calculationType: 'percentage' }, ['percentage: required']],
    ['volume without tiers', { calculationType: 'volume' }, ['tiers: required']],
    ['unknown type', { calculationType: 'package' }, ['calculationType: invalid_value']],
    ['negative free units', perUnit('1', '-1'), ['freeUnits: negative']],
  ])('%s', (_name, plan, expected) => {
    expect(checkPricePlan(plan as PricePlanPricing).map((p) => `${p.propertyPath}: ${p.code}`)).toEqual(expected);
  });
});
