// Coupons on priced invoice lines (docs/decisions.md, Foundations and Invoices and billing: item price → coupon
// discount → tax). Pure: decimal strings in and out, decimal.js (`Dec`) in between; no I/O, no clock.
//
// Semantics the billing engine relies on:
// - Input nets are the priced amounts BEFORE discount and may be exact/unrounded (priceFor ×
//   proration) or already rounded; either works. A line "can be discounted" up to its net rounded
//   half-up to the currency, so after `lineNet({ ..., discount })` no line goes below 0.
// - Only lines with a positive amount (after rounding) are ever discounted; zero lines (trials) and
//   negative lines (credits for unused time) never match a coupon, so a credit line must carry the
//   discount of the charge it reverses itself.
// - Coupons apply one after the other, IN THE ORDER GIVEN, each on what the previous ones left.
// - percentage: per matching line, round half-up(remaining × percentage / 100); each line rounded on
//   its own (so a position's discountAmount matches its discountPercentage).
// - fixed_amount: min(fixedAmount, Σ rounded remaining of the matching lines), split over those lines
//   proportionally to their rounded remaining amounts by the largest-remainder method in minor
//   units (parts add up to the exact amount; ties go to the line listed first); no line gets more
//   than its remaining amount. A fixed amount in another currency does not apply (currency_mismatch).
// - A coupon counts as applied for the period (the caller increments appliedIntervals) when its
//   frequency allows it, its currency fits and at least one matching line had a positive remaining
//   amount — even when that yields 0 (a 0 % coupon, or a percentage that rounds to 0).
import type Decimal from 'decimal.js';
import { checkDecimal, currencyScale, Dec, formatDecimal, parseDecimal } from './money';

export type CouponType = 'percentage' | 'fixed_amount';
export type CouponFrequency = 'once' | 'limited' | 'lifetime';

/** A priced line before discount. */
export interface DiscountableLine {
  /** Unique within the call. */
  id: string;
  productId: string;
  planId?: string | null;
  /** Amount before discount, decimal string, exact or rounded (see the module comment). */
  net: string;
}

/** What `applyCoupons` needs of a redeemed coupon. */
export interface CouponInput {
  /** Unique within the call. */
  id: string;
  type: CouponType;
  /** 0..100, required for `percentage` (a number, or a decimal string). */
  percentage?: number | string | null;
  /** Decimal string ≥ 0 at the currency's scale, required for `fixed_amount`. */
  fixedAmount?: string | null;
  /** Currency of fixedAmount; absent/null = the invoice currency. */
  currency?: string | null;
  frequency: CouponFrequency;
  /** Periods a `limited` coupon runs (integer ≥ 1). */
  frequencyInterval?: number | null;
  /** Periods the coupon has already applied in. */
  appliedIntervals: number;
  /** Non-empty: only lines of these products. */
  limitedToProducts: readonly string[];
  excludedFromProducts: readonly string[];
  /** Non-empty: only lines of these plans (a line without a plan then never matches). */
  limitedToPlans: readonly string[];
  excludedFromPlans: readonly string[];
}

/** Why a coupon did not apply this period. */
export type CouponSkipReason = 'frequency_exhausted' | 'currency_mismatch' | 'no_matching_lines';

export interface CouponOutcome {
  id: string;
  /** Applied this period: the caller increments appliedIntervals. */
  applied: boolean;
  /** null when applied. */
  reason: CouponSkipReason | null;
  /** This coupon's total discount, at the currency's scale. */
  discount: string;
  /** This coupon's part per matching line (in line order); empty when not applied. */
  lines: { id: string; amount: string }[];
}

export interface DiscountResult {
  /** Per input line (same order): the sum of all coupons' parts, at the currency's scale. */
  lines: { id: string; discount: string }[];
  /** Per input coupon (same order). */
  coupons: CouponOutcome[];
  /** Σ of every discount. */
  discount: string;
}

/** A coupon is still running when its frequency allows: once → appliedIntervals < 1; limited → < frequencyInterval; lifetime → always. */
export function couponActive(coupon: Pick<CouponInput, 'frequency' | 'frequencyInterval' | 'appliedIntervals'>): boolean {
  const applied = coupon.appliedIntervals;
  if (!Number.isSafeInteger(applied) || applied < 0) throw new RangeError('appliedIntervals must be a non-negative integer.');
  switch (coupon.frequency) {
    case 'once':
      return applied < 1;
    case 'limited': {
      const n = coupon.frequencyInterval;
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw new RangeError('A limited coupon needs frequencyInterval, an integer ≥ 1.');
      return applied < n;
    }
    case 'lifetime':
      return true;
    default:
      throw new RangeError(`Unknown coupon frequency ${JSON.stringify(coupon.frequency)}.`);
  }
}

/** A line matches a coupon when its product is in limitedToProducts (if any) and not excluded, and its plan is in limitedToPlans (if any) and not excluded. */
export function couponMatchesLine(
  coupon: Pick<CouponInput, 'limitedToProducts' | 'excludedFromProducts' | 'limitedToPlans' | 'excludedFromPlans'>,
  line: Pick<DiscountableLine, 'productId' | 'planId'>,
): boolean {
  if (coupon.limitedToProducts.length > 0 && !coupon.limitedToProducts.includes(line.productId)) return false;
  if (coupon.excludedFromProducts.includes(line.productId)) return false;
  const plan = line.planId ?? null;
  if (coupon.limitedToPlans.length > 0 && (plan === null || !coupon.limitedToPlans.includes(plan))) return false;
  if (plan !== null && coupon.excludedFromPlans.includes(plan)) return false;
  return true;
}

function roundAt(value: Decimal, scale: number): Dec {
  const r = new Dec(value).toDecimalPlaces(scale, Dec.ROUND_HALF_UP);
  return r.isZero() ? new Dec(0) : r;
}

function percentageOf(coupon: CouponInput, at: string): Dec {
  const p = coupon.percentage;
  let value: Dec;
  if (typeof p === 'number') {
    if (!Number.isFinite(p)) throw new RangeError(`${at}.percentage must be a finite number.`);
    value = new Dec(p);
  } else if (typeof p === 'string') value = parseDecimal(p);
  else throw new RangeError(`${at}.percentage is required for a percentage coupon.`);
  if (value.isNegative() || value.greaterThan(100)) throw new RangeError(`${at}.percentage must be between 0 and 100.`);
  return value;
}

function fixedAmountOf(coupon: CouponInput, at: string, currency: string): Dec {
  const scale = currencyScale(currency);
  if (coupon.fixedAmount === undefined || coupon.fixedAmount === null) throw new RangeError(`${at}.fixedAmount is required for a fixed_amount coupon.`);
  const problem = checkDecimal(coupon.fixedAmount, { maxDecimals: scale, allowNegative: false });
  if (problem) throw new RangeError(`${at}.fixedAmount: ${problem.message} (${currency} has ${scale} decimals)`);
  return new Dec(coupon.fixedAmount);
}

/**
 * Largest-remainder split of `total` minor units (0 ≤ total ≤ Σ weights) over integer `weights`:
 * floor(total × w / W) each, then the leftover units one each to the largest remainders, ties to
 * the earlier index. No part exceeds its weight, and the parts add up to `total` exactly.
 */
function largestRemainder(total: Dec, weights: readonly Dec[]): Dec[] {
  const sum = weights.reduce((s, w) => s.plus(w), new Dec(0));
  if (sum.isZero()) return weights.map(() => new Dec(0));
  const parts = weights.map((w) => {
    const scaled = total.times(w); // integers: exact
    const base = scaled.dividedToIntegerBy(sum);
    return { base, remainder: scaled.minus(base.times(sum)) };
  });
  let left = total.minus(parts.reduce((s, p) => s.plus(p.base), new Dec(0)));
  const order = parts.map((_, i) => i).sort((a, b) => parts[b]!.remainder.comparedTo(parts[a]!.remainder) || a - b);
  for (const i of order) {
    if (left.lessThanOrEqualTo(0)) break;
    parts[i]!.base = parts[i]!.base.plus(1);
    left = left.minus(1);
  }
  return parts.map((p) => p.base);
}

/** Applies coupons in the given order on what earlier ones left (item price → coupon discount → tax): percentage per line rounded half-up, fixed amounts split by largest remainder and capped at the matching lines, never below 0. */
export function applyCoupons(lines: readonly DiscountableLine[], coupons: readonly CouponInput[], currency: string): DiscountResult {
  const scale = currencyScale(currency);
  const unit = new Dec(10).pow(scale);
  const fmt = (d: Decimal) => formatDecimal(d, scale);

  const seenLines = new Set<string>();
  const state = lines.map((line, i) => {
    if (seenLines.has(line.id)) throw new RangeError(`lines[${i}].id ${JSON.stringify(line.id)} is not unique.`);
    seenLines.add(line.id);
    // Exact remaining amount (never below 0) and the total discount so far (at scale).
    return { line, remaining: parseDecimal(line.net), discount: new Dec(0) };
  });
  const seenCoupons = new Set<string>();
  let total = new Dec(0);

  const outcomes = coupons.map((coupon, c): CouponOutcome => {
    const at = `coupons[${c}]`;
    if (seenCoupons.has(coupon.id)) throw new RangeError(`${at}.id ${JSON.stringify(coupon.id)} is not unique.`);
    seenCoupons.add(coupon.id);
    // Validate the whole coupon first, whether or not it applies.
    let percentage: Dec | null = null;
    let fixed: Dec | null = null;
    const couponCurrency = coupon.currency ?? currency;
    if (coupon.type === 'percentage') percentage = percentageOf(coupon, at);
    else if (coupon.type === 'fixed_amount') fixed = fixedAmountOf(coupon, at, couponCurrency);
    else throw new RangeError(`${at}.type must be percentage or fixed_amount.`);
    const active = couponActive(coupon);

    const skip = (reason: CouponSkipReason): CouponOutcome => ({ id: coupon.id, applied: false, reason, discount: fmt(new Dec(0)), lines: [] });
    if (!active) return skip('frequency_exhausted');
    if (fixed !== null && couponCurrency !== currency) return skip('currency_mismatch');
    // Matching lines with something left to discount (their remaining amount rounded to the currency).
    const matching = state
      .map((s) => ({ s, cap: roundAt(s.remaining, scale) }))
      .filter(({ s, cap }) => cap.greaterThan(0) && couponMatchesLine(coupon, s.line));
    if (matching.length === 0) return skip('no_matching_lines');

    let parts: Dec[];
    if (percentage !== null) {
      const fraction = percentage.dividedBy(100);
      parts = matching.map(({ s, cap }) => Dec.min(roundAt(s.remaining.times(fraction), scale), cap));
    } else {
      const caps = matching.map(({ cap }) => cap.times(unit)); // minor units, integers
      const capTotal = caps.reduce((sum, x) => sum.plus(x), new Dec(0));
      const amount = Dec.min(fixed!.times(unit), capTotal);
      parts = largestRemainder(amount, caps).map((minor) => minor.dividedBy(unit));
    }

    let couponTotal = new Dec(0);
    matching.forEach(({ s }, i) => {
      const part = parts[i]!;
      s.discount = s.discount.plus(part);
      s.remaining = Dec.max(s.remaining.minus(part), new Dec(0));
      couponTotal = couponTotal.plus(part);
    });
    total = total.plus(couponTotal);
    return {
      id: coupon.id,
      applied: true,
      reason: null,
      discount: fmt(couponTotal),
      lines: matching.map(({ s }, i) => ({ id: s.line.id, amount: fmt(parts[i]!) })),
    };
  });

  return {
    lines: state.map((s) => ({ id: s.line.id, discount: fmt(s.discount) })),
    coupons: outcomes,
    discount: fmt(total),
  };
}
