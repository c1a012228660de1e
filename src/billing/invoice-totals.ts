// Invoice line and document totals (docs/decisions.md, Foundations and Invoices and billing; EN16931). Pure: decimal strings
// in, decimal strings out, decimal.js (`Dec`) in between; no I/O, no clock, never a JS number for money.
//
// Semantics the billing engine relies on:
// - Rounding is half-up, which for negative amounts means HALF AWAY FROM ZERO (decimal.js
//   ROUND_HALF_UP, the same as `roundMoney`): 0.005 → 0.01 and −0.005 → −0.01. Rounding is
//   therefore symmetric, round(−x) = −round(x), so a credit note or cancellation that negates every
//   line of an invoice has exactly the negated net, tax and gross of the original.
// - A line is rounded once: net = round(quantity × unitPrice × factor − discount). Nothing before
//   that is rounded (priceFor and prorationFactor give exact amounts).
// - Tax is computed per (category, rate) on the sum of the rounded line nets of that group and
//   rounded once per group (EN16931 BR-CO-17), never per line; tax = Σ group taxes, gross = net + tax.
// - Rounded amounts come back formatted with exactly the currency's minor-unit scale ("7.50",
//   JPY "1001", KWD "0.088"); exact (unrounded) amounts come back as plain decimal strings.
import type Decimal from 'decimal.js';
import { checkDecimal, currencyScale, Dec, formatDecimal, fromMinorUnits, MAX_UNIT_PRICE_DECIMALS, parseDecimal, toDecimalString, toMinorUnitsSafe } from './money';
import { checkTaxRate } from './tax';

const ZERO = new Dec(0);

/** The factor of a prorated line: a decimal string, or the used/period days of `prorationFactor` (exact: divides last). */
export type LineFactor = string | { usedDays: number; periodDays: number };

export interface LineNetInput {
  /** Decimal string, may be negative (a credit line), at most 10 decimals. */
  quantity: string;
  /** Decimal string, may be negative, at most 10 decimals. */
  unitPrice: string;
  /**
   * The discount as a non-negative magnitude (decimal string; normally already at the currency's
   * scale, as `applyCoupons` returns it). It moves the line towards 0 and never past it: on a
   * negative (credit) line it is added, so −100 with discount 10 gives −90.
   */
  discount?: string;
  /**
   * Proration factor, default 1. Pass `prorationFactor(...)`'s result (or `{ usedDays, periodDays }`)
   * rather than its `factor` string: the ratio is applied as × usedDays ÷ periodDays at the end, so
   * an exact half cent is not lost to the 40-digit truncation of a repeating factor such as 1/3.
   */
  factor?: LineFactor;
}

export interface LineNetResult {
  /** quantity × unitPrice × factor, exact (not rounded). */
  gross: string;
  /** `gross` rounded once, half-up, to the currency: the position's amount before discount. */
  grossAmount: string;
  /**
   * The discount applied, at the currency's scale and signed like the line, so that
   * grossAmount − discount = net always holds. It equals the given discount (with the line's sign)
   * when that had the currency's scale and did not exceed the line; when it exceeded the line, it is
   * the whole grossAmount and net is 0.
   */
  discount: string;
  /** (gross − applied discount) rounded once, half-up, to the currency: the position net. */
  net: string;
}

function parseFactor(factor: LineFactor | undefined): { times: Dec; divide: Dec } {
  if (factor === undefined) return { times: new Dec(1), divide: new Dec(1) };
  if (typeof factor === 'string') {
    const f = parseDecimal(factor, { allowNegative: false });
    return { times: f, divide: new Dec(1) };
  }
  const { usedDays, periodDays } = factor;
  if (!Number.isSafeInteger(usedDays) || usedDays < 0) throw new RangeError('factor.usedDays must be a non-negative integer.');
  if (!Number.isSafeInteger(periodDays) || periodDays <= 0) throw new RangeError('factor.periodDays must be a positive integer.');
  return { times: new Dec(usedDays), divide: new Dec(periodDays) };
}

function fmt(value: Decimal, scale: number): string {
  return formatDecimal(value, scale);
}

/** Rounds half-up, i.e. half away from zero for negatives (−0.005 → −0.01), to `scale` decimals; never −0. */
function roundAt(value: Decimal, scale: number): Dec {
  const r = new Dec(value).toDecimalPlaces(scale, Dec.ROUND_HALF_UP);
  return r.isZero() ? new Dec(0) : r;
}

/** Parses an amount that must already be at the currency's scale (a rounded money amount). */
function parseAtScale(value: string, scale: number, what: string, options: { allowNegative?: boolean } = {}): Dec {
  const p = checkDecimal(value, { maxDecimals: scale, allowNegative: options.allowNegative ?? true });
  if (p) throw new RangeError(`${what}: ${p.message} (got ${JSON.stringify(value)}; amounts must be rounded to the currency's ${scale} decimals)`);
  const d = new Dec(value);
  return d.isZero() ? new Dec(0) : d;
}

/** Position net (docs/decisions.md, Invoices and billing): quantity × unitPrice × factor − discount (discount capped at the line, towards 0), rounded once half-up (away from zero) to the currency. */
export function lineNet(line: LineNetInput, currency: string): LineNetResult {
  const scale = currencyScale(currency);
  const quantity = parseDecimal(line.quantity, { maxDecimals: MAX_UNIT_PRICE_DECIMALS });
  const unitPrice = parseDecimal(line.unitPrice, { maxDecimals: MAX_UNIT_PRICE_DECIMALS });
  const discount = line.discount === undefined ? ZERO : parseDecimal(line.discount, { allowNegative: false });
  const { times, divide } = parseFactor(line.factor);

  // Multiply everything first and divide last: exact whenever the true value terminates.
  const gross = quantity.times(unitPrice).times(times).dividedBy(divide);
  const magnitude = gross.abs();
  const applied = Dec.min(discount, magnitude); // never past 0
  const sign = gross.isNegative() ? -1 : 1;
  const netExact = sign < 0 ? gross.plus(applied) : gross.minus(applied);

  const grossAmount = roundAt(gross, scale);
  const net = roundAt(netExact, scale);
  return {
    gross: toDecimalString(gross),
    grossAmount: fmt(grossAmount, scale),
    discount: fmt(grossAmount.minus(net), scale),
    net: fmt(net, scale),
  };
}

export interface TotalsLine {
  /** The position net, already rounded to the currency's scale (`lineNet(...).net`); may be negative. */
  net: string;
  /** Percent, a decimal string 0..100 ("19", "7", "0"). */
  taxRate: string;
  /** EN16931 / UNCL5305 category: S, Z, E, AE, K, G, O, L, M. */
  taxCategory: string;
  /** The discount of the position at the currency's scale (`lineNet(...).discount`); summed into `discount`. */
  discount?: string;
}

/** One line of the VAT breakdown (EN16931 BG-23). */
export interface TaxBreakdown {
  /** Percent, normalized ("19", "5.5", "0"). */
  rate: string;
  category: string;
  /** Σ nets of the lines with this category and rate. */
  taxableAmount: string;
  /** taxableAmount × rate / 100, rounded once half-up (away from zero). */
  taxAmount: string;
}

export interface InvoiceTotals {
  /** Σ line nets. */
  net: string;
  /** Sorted by category (ordinal), then rate (numerically ascending). */
  taxes: TaxBreakdown[];
  /** Σ taxes[].taxAmount. */
  tax: string;
  /** net + tax. */
  gross: string;
  /** Σ line discounts. */
  discount: string;
}

/** Categories whose rate must be 0 (EN16931 BR-Z-05, BR-E-05, BR-AE-05, BR-IC-05, BR-G-05, BR-O-05). */
const ZERO_RATE_CATEGORIES = new Set(['Z', 'E', 'AE', 'K', 'G', 'O']);

/**
 * Whether a (valid) rate fits its category: the zero-rate categories need 0, S needs more than 0;
 * the message, or null. Inputs are checked with it so totals never meet a mismatch.
 */
export function taxCategoryProblem(category: string, rate: string): string | null {
  const zero = new Dec(rate).isZero();
  if (ZERO_RATE_CATEGORIES.has(category) && !zero) return `Category ${category} requires the rate 0, got ${rate}.`;
  if (category === 'S' && zero) return 'Category S requires a rate above 0 (a 0 % supply is Z).';
  return null;
}

/** EN16931 totals: tax per (category, rate) on the sum of that group's rounded line nets, rounded half-up once per group; tax = Σ group taxes; gross = net + tax. */
export function invoiceTotals(lines: readonly TotalsLine[], currency: string): InvoiceTotals {
  const scale = currencyScale(currency);
  const groups = new Map<string, { rate: Dec; category: string; taxable: Dec }>();
  let net = ZERO;
  let discount = ZERO;
  lines.forEach((line, i) => {
    const lineNetValue = parseAtScale(line.net, scale, `lines[${i}].net`);
    const p = checkTaxRate(line.taxRate);
    if (p) throw new RangeError(`lines[${i}].taxRate: ${p.message} (got ${JSON.stringify(line.taxRate)})`);
    const rate = new Dec(line.taxRate);
    const category = line.taxCategory;
    if (typeof category !== 'string' || category === '') throw new RangeError(`lines[${i}].taxCategory: a tax category is required.`);
    const mismatch = taxCategoryProblem(category, line.taxRate);
    if (mismatch) throw new RangeError(`lines[${i}]: ${mismatch}`);
    if (line.discount !== undefined) discount = discount.plus(parseAtScale(line.discount, scale, `lines[${i}].discount`));
    net = net.plus(lineNetValue);
    const key = `${category}|${toDecimalString(rate)}`;
    const group = groups.get(key);
    if (group) group.taxable = group.taxable.plus(lineNetValue);
    else groups.set(key, { rate, category, taxable: lineNetValue });
  });

  const sorted = [...groups.values()].sort((a, b) => (a.category < b.category ? -1 : a.category > b.category ? 1 : a.rate.comparedTo(b.rate)));
  let tax = ZERO;
  const taxes = sorted.map((g) => {
    const amount = roundAt(g.taxable.times(g.rate).dividedBy(100), scale); // exact product, one rounding
    tax = tax.plus(amount);
    return { rate: toDecimalString(g.rate), category: g.category, taxableAmount: fmt(g.taxable, scale), taxAmount: fmt(amount, scale) };
  });
  return { net: fmt(net, scale), taxes, tax: fmt(tax, scale), gross: fmt(net.plus(tax), scale), discount: fmt(discount, scale) };
}

export interface UnpaidResult {
  /** Σ payments. */
  paid: string;
  /** What is still open, signed like gross, never past 0. */
  unpaid: string;
  /** Paid beyond the gross (≥ 0); to be refunded or kept as credit by the caller. */
  overpaid: string;
}

function sign(d: Decimal): Dec {
  return new Dec(d.isNegative() ? -1 : 1);
}

/** unpaid = gross − Σ payments, never past 0 (a payment settles the document's magnitude; a negative gross is a credit note paid out by refunds); the excess is reported as overpaid. */
export function unpaidAmount(gross: string, payments: readonly string[], currency: string): UnpaidResult {
  const scale = currencyScale(currency);
  const g = parseAtScale(gross, scale, 'gross');
  const paid = payments.reduce((sum, p, i) => sum.plus(parseAtScale(p, scale, `payments[${i}]`, { allowNegative: false })), ZERO);
  const open = Dec.max(g.abs().minus(paid), ZERO);
  const overpaid = Dec.max(paid.minus(g.abs()), ZERO);
  return { paid: fmt(paid, scale), unpaid: fmt(open.times(sign(g)), scale), overpaid: fmt(overpaid, scale) };
}

export interface PaymentSplit {
  /** The part of the payment that settles the open amount: min(payment, |unpaid|). */
  applied: string;
  /** The open amount after the payment, signed like the open amount before, never past 0. */
  unpaid: string;
  /** The part of the payment beyond the open amount (≥ 0). */
  overpayment: string;
  /** Nothing is open any more (→ STATUS_PAID). */
  settled: boolean;
}

/** Splits a payment (≥ 0) against an open amount: applied = min(payment, |unpaid|), the rest is overpayment; the open amount never goes past 0. */
export function splitPayment(unpaid: string, payment: string, currency: string): PaymentSplit {
  const scale = currencyScale(currency);
  const open = parseAtScale(unpaid, scale, 'unpaid');
  const amount = parseAtScale(payment, scale, 'payment', { allowNegative: false });
  const applied = Dec.min(amount, open.abs());
  const after = open.abs().minus(applied);
  return {
    applied: fmt(applied, scale),
    unpaid: fmt(after.times(sign(open)), scale),
    overpayment: fmt(amount.minus(applied), scale),
    settled: after.isZero(),
  };
}

export interface CreditableResult {
  /** Σ |already credited|. */
  credited: string;
  /** What may still be credited: max(originalGross − credited, 0), as a positive magnitude. */
  creditable: string;
  /** Credited beyond the original (should be "0"; > 0 signals an earlier bug). */
  overCredited: string;
}

/** Credit notes and cancellations never exceed the original: creditable = max(originalGross − Σ |credited|, 0); each credited amount counts by its magnitude (a credit note's negative gross or a positive amount alike). */
export function creditableAmount(originalGross: string, alreadyCredited: readonly string[], currency: string): CreditableResult {
  const scale = currencyScale(currency);
  const original = parseAtScale(originalGross, scale, 'originalGross', { allowNegative: false });
  const credited = alreadyCredited.reduce((sum, c, i) => sum.plus(parseAtScale(c, scale, `alreadyCredited[${i}]`).abs()), ZERO);
  return {
    credited: fmt(credited, scale),
    creditable: fmt(Dec.max(original.minus(credited), ZERO), scale),
    overCredited: fmt(Dec.max(credited.minus(original), ZERO), scale),
  };
}

/** What `positionTotals` needs of a stored invoice position (amounts in minor units). */
export interface TotalsPosition {
  kind: string;
  netAmount: number;
  discountAmount: number;
  taxRate: string;
  taxCategory: string;
  serviceFrom: string | null;
  serviceTo: string | null;
}

/**
 * An invoice's totals from its positions (EN16931: tax per rate on the sum of the nets), in minor
 * units, with the service period they span. Header positions group lines and carry no amount.
 */
export function positionTotals(all: readonly TotalsPosition[], currency: string) {
  const positions = all.filter((p) => p.kind !== 'header');
  const t = invoiceTotals(
    positions.map((p) => ({
      net: fromMinorUnits(p.netAmount, currency).toString(),
      taxRate: p.taxRate,
      taxCategory: p.taxCategory,
      discount: fromMinorUnits(p.discountAmount, currency).toString(),
    })),
    currency,
  );
  const froms = positions.map((p) => p.serviceFrom).filter((x): x is string => x !== null).sort();
  const tos = positions.map((p) => p.serviceTo).filter((x): x is string => x !== null).sort();
  return {
    netAmount: toMinorUnitsSafe(t.net, currency),
    taxAmount: toMinorUnitsSafe(t.tax, currency),
    grossAmount: toMinorUnitsSafe(t.gross, currency),
    discountAmount: toMinorUnitsSafe(t.discount, currency),
    taxBreakdown: t.taxes,
    serviceDateFrom: froms[0] ?? null,
    serviceDateTo: tos[tos.length - 1] ?? null,
  };
}
