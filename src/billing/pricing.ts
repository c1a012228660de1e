// Price of a quantity under a price plan (docs/decisions.md, Foundations). Pure: decimal strings in, exact decimal
// strings out. The amount is NOT rounded: the invoice line rounds once, half-up, to the currency.
import { checkDecimal, Dec, MAX_UNIT_PRICE_DECIMALS, parseDecimal, toDecimalString, type DecimalProblem } from './money';

export const CALCULATION_TYPES = ['flat_fee', 'per_unit', 'tiered', 'volume', 'stair_step', 'percentage'] as const;
export type CalculationType = (typeof CALCULATION_TYPES)[number];

/** Quantities (and freeUnits, tier bounds) may carry up to this many decimals (usage such as 1.5 GB). */
export const MAX_QUANTITY_DECIMALS = 10;
/** Most tiers a price plan may have. */
export const MAX_TIERS = 100;

/**
 * One tier. `upTo` is the inclusive upper bound of the tier (a decimal string), `null` for the
 * last, unbounded tier; the exclusive lower bound is the previous tier's `upTo` (0 for the first).
 * `unitPrice` and `flatPrice` are non-negative decimal strings with at most 10 decimals.
 */
export interface PriceTier {
  upTo: string | null;
  unitPrice: string;
  flatPrice: string;
}

/**
 * What `priceFor` needs of a price plan; every number is a decimal string.
 * - `flat_fee`: `flatPrice`, charged once whatever the quantity (also at quantity 0).
 * - `per_unit`: `unitPrice` × billable quantity.
 * - `tiered` (graduated): each unit at the unit price of its own tier, plus the `flatPrice` of each tier reached.
 * - `volume`: all units at the unit price of the tier the billable quantity falls in, plus that tier's `flatPrice`.
 * - `stair_step`: the `flatPrice` of the tier the billable quantity falls in (unit prices ignored).
 * - `percentage`: `percentage` (0..100) percent of `context.baseAmount`; the quantity is not used.
 * `freeUnits` (default 0) is subtracted from the quantity first, never going below 0; it applies to
 * per_unit, tiered, volume and stair_step. Fields that the calculation type does not use are ignored.
 */
export interface PricePlanPricing {
  calculationType: CalculationType;
  flatPrice?: string | null;
  unitPrice?: string | null;
  tiers?: readonly PriceTier[] | null;
  freeUnits?: string | null;
  percentage?: string | null;
}

/** Per-call input that is not part of the plan. */
export interface PriceContext {
  /** The amount a `percentage` plan takes its percentage of (decimal string, ≥ 0). */
  baseAmount?: string;
}

/**
 * One charged part of the price. For tier types `tier` is the 0-based tier index and the range is
 * (`from`, `to`] (`to` null = unbounded); for per_unit and percentage `tier` is null and the range
 * is (0, null]; for flat_fee `tier` is null, `from` "0", `to` null and `quantity` "1".
 * For percentage, `quantity` is the base amount and `unitPrice` the fraction (2.5 % → "0.025").
 * Always `amount = quantity × unitPrice + flatPrice` (stair_step shows unitPrice "0").
 */
export interface PriceBreakdownLine {
  tier: number | null;
  from: string;
  to: string | null;
  quantity: string;
  unitPrice: string;
  flatPrice: string;
  amount: string;
}

export interface PriceResult {
  /** Exact sum of the breakdown amounts, not rounded ("0.0375"). */
  amount: string;
  /** Quantity after freeUnits (max(quantity − freeUnits, 0)). */
  billableQuantity: string;
  /** What makes up the amount; empty when nothing is charged (billable quantity 0 for usage types). */
  breakdown: PriceBreakdownLine[];
}

/** One broken rule, shaped like an API violation; paths look like `tiers[1].upTo`. */
export interface PricingProblem {
  propertyPath: string;
  code: string;
  message: string;
}

/** Thrown by `priceFor` when the plan, quantity or context break a rule; lists every problem. */
export class PricingError extends RangeError {
  constructor(readonly problems: PricingProblem[]) {
    super(problems.map((p) => `${p.propertyPath}: ${p.message}`).join('; '));
    this.name = 'PricingError';
  }
}

const PRICE_OPTIONS = { maxDecimals: MAX_UNIT_PRICE_DECIMALS, allowNegative: false } as const;
const QUANTITY_OPTIONS = { maxDecimals: MAX_QUANTITY_DECIMALS, allowNegative: false } as const;

function problem(path: string, p: DecimalProblem): PricingProblem {
  return { propertyPath: path, code: p.code, message: p.message };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Tiers are valid when there are 1..100 of them, upTo ascends strictly from above 0, only the last upTo is null, and prices are non-negative decimals with ≤ 10 decimals. */
export function checkTiers(tiers: unknown, path = 'tiers'): PricingProblem[] {
  if (tiers === undefined || tiers === null) return [{ propertyPath: path, code: 'required', message: 'Tiers are required for this calculation type.' }];
  if (!Array.isArray(tiers)) return [{ propertyPath: path, code: 'invalid_type', message: 'Must be an array of tiers.' }];
  if (tiers.length === 0) return [{ propertyPath: path, code: 'too_small', message: 'Must contain at least one tier.' }];
  if (tiers.length > MAX_TIERS) return [{ propertyPath: path, code: 'too_big', message: `Must contain at most ${MAX_TIERS} tiers.` }];
  const out: PricingProblem[] = [];
  let previous: Dec | null = new Dec(0); // null once a bound could not be read: stop comparing
  tiers.forEach((tier: unknown, i) => {
    const at = `${path}[${i}]`;
    if (!isRecord(tier)) {
      out.push({ propertyPath: at, code: 'invalid_type', message: 'Must be an object with upTo, unitPrice and flatPrice.' });
      previous = null;
      return;
    }
    for (const field of ['unitPrice', 'flatPrice'] as const) {
      const p = checkDecimal(tier[field], PRICE_OPTIONS);
      if (p) out.push(problem(`${at}.${field}`, p));
    }
    const last = i === tiers.length - 1;
    if (tier.upTo === null || tier.upTo === undefined) {
      if (!last) out.push({ propertyPath: `${at}.upTo`, code: 'unbounded_tier_not_last', message: 'Only the last tier may have upTo null.' });
      previous = null;
      return;
    }
    const p = checkDecimal(tier.upTo, QUANTITY_OPTIONS);
    if (p) {
      out.push(problem(`${at}.upTo`, p));
      previous = null;
    } else {
      const upTo = new Dec(tier.upTo as string);
      if (previous !== null && !upTo.greaterThan(previous))
        out.push({
          propertyPath: `${at}.upTo`,
          code: 'not_ascending',
          message: i === 0 ? 'Must be greater than 0.' : "Must be greater than the previous tier's upTo.",
        });
      previous = upTo;
    }
    if (last) out.push({ propertyPath: `${at}.upTo`, code: 'missing_unbounded_tier', message: 'The last tier must have upTo null (unbounded).' });
  });
  return out;
}

/** A plan is valid when its calculation type is known and the fields that type uses are present and well-formed (prices ≥ 0 with ≤ 10 decimals, percentage 0..100, freeUnits ≥ 0). */
export function checkPricePlan(plan: PricePlanPricing): PricingProblem[] {
  const out: PricingProblem[] = [];
  const required = (field: 'flatPrice' | 'unitPrice' | 'percentage') => {
    const value = plan[field];
    if (value === undefined || value === null) {
      out.push({ propertyPath: field, code: 'required', message: `Required for calculation type ${plan.calculationType}.` });
      return false;
    }
    return true;
  };
  if (plan.freeUnits !== undefined && plan.freeUnits !== null) {
    const p = checkDecimal(plan.freeUnits, QUANTITY_OPTIONS);
    if (p) out.push(problem('freeUnits', p));
  }
  switch (plan.calculationType) {
    case 'flat_fee':
    case 'per_unit': {
      const field = plan.calculationType === 'flat_fee' ? 'flatPrice' : 'unitPrice';
      if (required(field)) {
        const p = checkDecimal(plan[field], PRICE_OPTIONS);
        if (p) out.push(problem(field, p));
      }
      break;
    }
    case 'tiered':
    case 'volume':
    case 'stair_step':
      out.push(...checkTiers(plan.tiers));
      break;
    case 'percentage':
      if (required('percentage')) {
        const p = checkDecimal(plan.percentage, { maxDecimals: MAX_UNIT_PRICE_DECIMALS, allowNegative: false, maxIntegerDigits: 3 });
        if (p) out.push(problem('percentage', p));
        else if (new Dec(plan.percentage as string).greaterThan(100))
          out.push({ propertyPath: 'percentage', code: 'too_big', message: 'Must be between 0 and 100.' });
      }
      break;
    default:
      out.push({ propertyPath: 'calculationType', code: 'invalid_value', message: `Must be one of ${CALCULATION_TYPES.join(', ')}.` });
  }
  return out;
}

const ZERO = new Dec(0);
const str = (d: Dec) => toDecimalString(d);

interface Bound {
  tier: PriceTier;
  lower: Dec;
  upper: Dec | null;
}

function bounds(tiers: readonly PriceTier[]): Bound[] {
  let lower = ZERO;
  return tiers.map((tier) => {
    const upper = tier.upTo === null || tier.upTo === undefined ? null : parseDecimal(tier.upTo);
    const b = { tier, lower, upper };
    if (upper !== null) lower = upper;
    return b;
  });
}

function line(index: number | null, from: Dec, to: Dec | null, quantity: Dec, unitPrice: Dec, flatPrice: Dec): PriceBreakdownLine & { value: Dec } {
  const value = quantity.times(unitPrice).plus(flatPrice);
  return {
    tier: index,
    from: str(from),
    to: to === null ? null : str(to),
    quantity: str(quantity),
    unitPrice: str(unitPrice),
    flatPrice: str(flatPrice),
    amount: str(value),
    value,
  };
}

/** The tier a quantity falls in: the first whose (inclusive) upTo is ≥ the quantity. */
function tierOf(all: Bound[], quantity: Dec): { bound: Bound; index: number } {
  const index = all.findIndex((b) => b.upper === null || quantity.lessThanOrEqualTo(b.upper));
  return { bound: all[index]!, index }; // checkTiers guarantees a last, unbounded tier
}

/** Prices a quantity under a plan: freeUnits first, then the calculation type's rule (see `PricePlanPricing`); the amount is exact, not rounded. */
export function priceFor(plan: PricePlanPricing, quantity: string, context: PriceContext = {}): PriceResult {
  const problems = checkPricePlan(plan);
  const q = checkDecimal(quantity, QUANTITY_OPTIONS);
  if (q) problems.push(problem('quantity', q));
  if (plan.calculationType === 'percentage') {
    if (context.baseAmount === undefined) problems.push({ propertyPath: 'baseAmount', code: 'required', message: 'A percentage plan needs a base amount.' });
    else {
      const p = checkDecimal(context.baseAmount, { allowNegative: false });
      if (p) problems.push(problem('baseAmount', p));
    }
  }
  if (problems.length > 0) throw new PricingError(problems);

  const free = plan.freeUnits ? parseDecimal(plan.freeUnits) : ZERO;
  const billable = Dec.max(parseDecimal(quantity).minus(free), ZERO);
  const lines: (PriceBreakdownLine & { value: Dec })[] = [];

  switch (plan.calculationType) {
    case 'flat_fee':
      lines.push(line(null, ZERO, null, new Dec(1), ZERO, parseDecimal(plan.flatPrice!)));
      break;
    case 'per_unit':
      if (billable.greaterThan(0)) lines.push(line(null, ZERO, null, billable, parseDecimal(plan.unitPrice!), ZERO));
      break;
    case 'percentage': {
      const fraction = parseDecimal(plan.percentage!).dividedBy(100); // exact: at most 12 decimals
      lines.push(line(null, ZERO, null, parseDecimal(context.baseAmount!), fraction, ZERO));
      break;
    }
    case 'tiered':
      if (billable.greaterThan(0))
        for (const [index, b] of bounds(plan.tiers!).entries()) {
          if (!billable.greaterThan(b.lower)) break;
          const inTier = (b.upper === null ? billable : Dec.min(billable, b.upper)).minus(b.lower);
          lines.push(line(index, b.lower, b.upper, inTier, parseDecimal(b.tier.unitPrice), parseDecimal(b.tier.flatPrice)));
        }
      break;
    case 'volume':
    case 'stair_step':
      if (billable.greaterThan(0)) {
        const { bound: b, index } = tierOf(bounds(plan.tiers!), billable);
        const unitPrice = plan.calculationType === 'volume' ? parseDecimal(b.tier.unitPrice) : ZERO;
        lines.push(line(index, b.lower, b.upper, billable, unitPrice, parseDecimal(b.tier.flatPrice)));
      }
      break;
  }

  const total = lines.reduce((sum, l) => sum.plus(l.value), ZERO);
  return {
    amount: str(total),
    billableQuantity: str(billable),
    breakdown: lines.map(({ value: _value, ...l }) => l),
  };
}
