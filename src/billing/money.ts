// Money arithmetic on decimal.js. Money never touches a JS number: amounts are decimal strings on
// the wire, `Dec` instances in memory and integer minor units (bigint, or a safe integer) in storage.
// Rounding is explicit and half-up (commercial: 0.005 → 0.01, -0.005 → -0.01).
import Decimal from 'decimal.js';
import { CURRENCY_MINOR_UNITS } from '../reference/iso';

/**
 * A private decimal.js constructor: 40 significant digits, half-up, never exponent notation in
 * `toString()`. A clone, so the global `Decimal` configuration is never touched.
 */
export const Dec = Decimal.clone({
  precision: 40,
  rounding: Decimal.ROUND_HALF_UP,
  toExpNeg: -9e15,
  toExpPos: 9e15,
});
/** An instance of `Dec` (the same class type as decimal.js' `Decimal`). */
export type Dec = Decimal;

/** Unit prices may carry up to this many decimals (docs/decisions.md, Foundations). */
export const MAX_UNIT_PRICE_DECIMALS = 10;
/** Digits before the decimal point any parsed value may have; keeps every product inside 40 digits. */
export const MAX_INTEGER_DIGITS = 18;

export type DecimalProblemCode = 'invalid_decimal' | 'too_many_decimals' | 'too_large' | 'negative';

/** Why a string is not an acceptable decimal; `code` doubles as the 422 violation code. */
export interface DecimalProblem {
  code: DecimalProblemCode;
  message: string;
}

export interface ParseDecimalOptions {
  /** Most digits after the decimal point (default: no limit). */
  maxDecimals?: number;
  /** Whether a leading minus sign is accepted (default true). */
  allowNegative?: boolean;
  /** Most digits before the decimal point (default MAX_INTEGER_DIGITS). */
  maxIntegerDigits?: number;
}

/** Thrown by the parsers; carries the problem so a caller can turn it into a violation. */
export class DecimalFormatError extends RangeError {
  constructor(
    readonly problem: DecimalProblem,
    readonly input: unknown,
  ) {
    super(`${problem.message} (got ${JSON.stringify(typeof input === 'string' ? input : String(input))})`);
    this.name = 'DecimalFormatError';
  }
}

// Plain decimal notation only: optional minus, no leading zeros, no exponent, no '+', no '.5', no '5.'.
const DECIMAL = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/** A decimal string is acceptable when it is plain notation (`-?digits(.digits)?`) within the given limits; returns the problem or null. */
export function checkDecimal(input: unknown, options: ParseDecimalOptions = {}): DecimalProblem | null {
  if (typeof input !== 'string') return { code: 'invalid_decimal', message: 'Must be a decimal number as a string, e.g. "12.50".' };
  const m = DECIMAL.exec(input);
  if (!m) return { code: 'invalid_decimal', message: 'Must be a decimal number in plain notation, e.g. "12.50" (no exponent, no "+", no leading zeros).' };
  const [, sign, integer = '', fraction = ''] = m;
  const maxIntegerDigits = options.maxIntegerDigits ?? MAX_INTEGER_DIGITS;
  if (integer.length > maxIntegerDigits) return { code: 'too_large', message: `Must have at most ${maxIntegerDigits} digits before the decimal point.` };
  if (options.maxDecimals !== undefined && fraction.length > options.maxDecimals)
    return { code: 'too_many_decimals', message: `Must have at most ${options.maxDecimals} decimals.` };
  const isZero = /^0*$/.test(integer + fraction);
  if (sign === '-' && !isZero && options.allowNegative === false) return { code: 'negative', message: 'Must not be negative.' };
  return null;
}

/** Parses a decimal string strictly (see `checkDecimal`); throws `DecimalFormatError`. "-0" becomes 0. */
export function parseDecimal(input: string, options: ParseDecimalOptions = {}): Dec {
  const problem = checkDecimal(input, options);
  if (problem) throw new DecimalFormatError(problem, input);
  const value = new Dec(input);
  return value.isZero() ? new Dec(0) : value;
}

/** Parses a unit price: plain decimal notation with at most 10 decimals (sign is the caller's rule). */
export function parseUnitPrice(input: string): Dec {
  return parseDecimal(input, { maxDecimals: MAX_UNIT_PRICE_DECIMALS });
}

/** Accepts a `Dec`/`Decimal` as is (re-wrapped in `Dec`) or parses a string strictly; never a number. */
export function toDec(value: Decimal | string): Dec {
  if (typeof value === 'string') return parseDecimal(value);
  // Clones share decimal.js' prototype, so this accepts instances of `Decimal` and of any clone.
  if (!Decimal.isDecimal(value)) throw new TypeError('Expected a Decimal or a decimal string.');
  if (!value.isFinite()) throw new DecimalFormatError({ code: 'invalid_decimal', message: 'Must be a finite number.' }, value.toString());
  return new Dec(value);
}

/** The ISO 4217 minor-unit scale of a currency (EUR 2, JPY 0, KWD 3); throws for an unknown code. */
export function currencyScale(currencyCode: string): number {
  const scale = CURRENCY_MINOR_UNITS.get(currencyCode);
  if (scale === undefined) throw new RangeError(`Unknown ISO 4217 currency code ${JSON.stringify(currencyCode)}.`);
  return scale;
}

/** Rounds half-up (commercial) to the currency's minor-unit scale: 2.345 EUR → 2.35, 0.5 JPY → 1. */
export function roundMoney(amount: Decimal | string, currencyCode: string): Dec {
  const rounded = toDec(amount).toDecimalPlaces(currencyScale(currencyCode), Decimal.ROUND_HALF_UP);
  return rounded.isZero() ? new Dec(0) : rounded;
}

/** Plain decimal string of a value, without exponent and without trailing zeros ("0.0125", "1000000000"). */
export function toDecimalString(value: Decimal | string): string {
  const d = toDec(value);
  return d.isZero() ? '0' : d.toString();
}

/** Renders a value with exactly `scale` decimals after rounding it half-up ("119" with 2 → "119.00"). */
export function formatDecimal(value: Decimal | string, scale: number): string {
  if (!Number.isInteger(scale) || scale < 0) throw new RangeError('The scale must be a non-negative integer.');
  let d = toDec(value).toDecimalPlaces(scale, Decimal.ROUND_HALF_UP);
  if (d.isZero()) d = new Dec(0);
  const text = d.toString();
  if (scale === 0) return text;
  const [integer, fraction = ''] = text.split('.');
  return `${integer}.${fraction.padEnd(scale, '0')}`;
}

/** A money amount as it goes on the wire: major units with exactly the currency's scale, rounded half-up. */
export interface WireMoney {
  amount: string;
  currencyCode: string;
}

/** Wire format (docs/decisions.md, Foundations): `{ amount: "119.00", currencyCode: "EUR" }`, rounded half-up to the currency's scale. */
export function formatMoney(amount: Decimal | string, currencyCode: string): WireMoney {
  return { amount: formatDecimal(amount, currencyScale(currencyCode)), currencyCode };
}

/** 10^scale, made once per scale (currency scales are 0 to 4): billing converts every amount it writes. */
const powers: Dec[] = [];
const pow10 = (scale: number): Dec => (powers[scale] ??= new Dec(10).pow(scale));

/** Converts an amount already at the currency's scale to integer minor units ("119.00" EUR → 11900n); throws if it needs rounding. */
export function toMinorUnits(amount: Decimal | string, currencyCode: string): bigint {
  const scale = currencyScale(currencyCode);
  const d = toDec(amount);
  if (d.decimalPlaces() > scale)
    throw new RangeError(`${d.toString()} has more decimals than ${currencyCode} allows (${scale}); round it with roundMoney first.`);
  return BigInt(d.times(pow10(scale)).toString());
}

/** Like `toMinorUnits`, as a JS integer for storage; throws when it is outside the safe-integer range. */
export function toMinorUnitsSafe(amount: Decimal | string, currencyCode: string): number {
  const minor = toMinorUnits(amount, currencyCode);
  if (minor > BigInt(Number.MAX_SAFE_INTEGER) || minor < BigInt(Number.MIN_SAFE_INTEGER))
    throw new RangeError(`${minor} minor units of ${currencyCode} exceed the safe-integer range.`);
  return Number(minor);
}

/** Converts integer minor units back to a major-unit amount (11900 EUR → 119); a number must be a safe integer. */
export function fromMinorUnits(minor: bigint | number, currencyCode: string): Dec {
  if (typeof minor === 'number' && !Number.isSafeInteger(minor)) throw new RangeError(`Minor units must be a safe integer, got ${minor}.`);
  if (typeof minor !== 'number' && typeof minor !== 'bigint') throw new TypeError('Minor units must be a bigint or a safe integer.');
  if (minor.toString().replace('-', '').length > 36) throw new RangeError('Minor units have too many digits.');
  const value = new Dec(minor.toString()).dividedBy(pow10(currencyScale(currencyCode)));
  return value.isZero() ? new Dec(0) : value;
}

/**
 * Every amount a document holds (a line before and after its discount, net, discount, gross) stays
 * below this magnitude in major units of its currency: 10^12, or less for a currency with more than
 * three decimals, so that 10^15 minor units bound every amount and the largest gross (2 × 10^15 at
 * a 100 % rate) is still a safe integer for storage.
 */
export function documentAmountLimit(currency: string): Dec {
  return new Dec(10).pow(Math.min(12, 15 - currencyScale(currency)));
}

/** Whether an amount (major units) stays below `documentAmountLimit`. */
export function withinDocumentLimit(amount: Decimal | string, currency: string): boolean {
  return new Dec(amount).abs().lt(documentAmountLimit(currency));
}

/**
 * Currency signs that name one currency only; every other currency is shown by its ISO code
 * ("10.00 CHF"), so a displayed amount is never ambiguous ($ is USD, never CAD or AUD).
 */
const DISPLAY_SIGNS: Readonly<Record<string, string>> = { EUR: '€', USD: '$', GBP: '£', JPY: '¥' };

/**
 * An amount as Fynn shows it (`"10.00 €"`, docs/decisions.md, Subscriptions): rounded half-up to the
 * currency's scale, a dot before the decimals, no grouping, a leading minus, then a space and the
 * currency's sign or code. For display only; the money object beside it is what to compute with.
 */
export function formatDisplayAmount(amount: Decimal | string, currencyCode: string): string {
  return `${formatDecimal(amount, currencyScale(currencyCode))} ${DISPLAY_SIGNS[currencyCode] ?? currencyCode}`;
}

/**
 * The largest amount one invoice line may bill (docs/decisions.md, Invoices and billing): a tenth
 * of `documentAmountLimit`, so a line at the bound with 100 % tax still fits a document
 * (EUR 100,000,000,000, JPY 100,000,000,000, KWD 100,000,000,000). One bound for the catalogue,
 * subscriptions, usage and billing; documents themselves are held to `documentAmountLimit`.
 */
export function maxLineAmount(currencyCode: string): Dec {
  return documentAmountLimit(currencyCode).div(10);
}

/**
 * Whether an amount (of either sign) is beyond what one invoice line may bill. Any size is compared
 * (an exact product of a price and a quantity may have 30 digits), so a string is not held to the
 * 18 integer digits `parseDecimal` allows.
 */
export function exceedsLineAmount(amount: Decimal | string, currencyCode: string): boolean {
  const value = new Dec(amount);
  if (!value.isFinite()) throw new DecimalFormatError({ code: 'invalid_decimal', message: 'Must be a finite number.' }, amount.toString());
  return value.abs().greaterThan(maxLineAmount(currencyCode));
}
