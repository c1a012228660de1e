import { z } from '@hono/zod-openapi';
import { parseDuration } from '../billing/durations';
import { checkDecimal, Dec } from '../billing/money';
import { fromLocalDateTime } from '../billing/periods';
import { currentRequestScope } from './request-scope';
import { isCountryCode, isCurrencyCode, isTimeZone } from '../reference/iso';

/** Optional text of `min`..`max` characters; an empty string counts as absent and becomes null. */
export const optionalText = (min: number, max: number) =>
  z.preprocess(
    (v) => (v === '' ? null : v),
    z
      .string()
      .trim()
      .min(min, `Must be at least ${min} characters long.`)
      .max(max, `Must be at most ${max} characters long.`)
      .nullable()
      .optional(),
  ).transform((v) => v ?? null);

export const requiredText = (min: number, max: number) =>
  z.string().trim().min(min, `Must be at least ${min} characters long.`).max(max, `Must be at most ${max} characters long.`);

export const emailAddress = z
  .string()
  .trim()
  .min(2, 'Must be at least 2 characters long.')
  .max(255, 'Must be at most 255 characters long.')
  .pipe(z.email({ message: 'Must be a valid e-mail address.' }));

export const countryCode = z
  .string()
  .refine(isCountryCode, { message: 'Must be an ISO 3166-1 alpha-2 country code (upper case, e.g. DE).', params: { code: 'invalid_country_code' } })
  .openapi({ example: 'DE' });

export const currencyCode = z.string().refine(isCurrencyCode, { message: 'Must be an ISO 4217 currency code (e.g. EUR).', params: { code: 'invalid_currency_code' } }).openapi({ example: 'EUR' });

export const timeZone = z.string().refine(isTimeZone, { message: 'Must be an IANA time zone (e.g. Europe/Berlin).', params: { code: 'invalid_time_zone' } }).openapi({ example: 'Europe/Berlin' });

const DATE_TIME = z.regexes.datetime({ offset: true, local: true, precision: null });
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$/;

/**
 * A date-time on input, normalized to UTC (`2026-01-15T09:00:00.000Z`), the one form stored and
 * compared as text. With `Z` or an offset it is that instant; without one (n8n's date picker
 * sends `2026-01-15T10:00:00`) it is a wall time in the tenant's time zone, read from the request
 * scope set after authentication (docs/decisions.md, HTTP conventions). Every date-time field and
 * query parameter uses this schema.
 */
export const timestamp = z
  .string()
  .regex(DATE_TIME, 'Must be an ISO 8601 date-time such as 2026-01-15T10:00:00Z (without an offset it is read in the tenant\'s time zone).')
  .transform((v, ctx) => {
    const local = LOCAL_DATE_TIME.exec(v);
    if (!local) return new Date(v).toISOString();
    const timeZone = currentRequestScope()?.timeZone;
    if (!timeZone) {
      ctx.addIssue({ code: 'custom', message: 'Must carry Z or an offset (no tenant time zone applies here).', params: { code: 'invalid_format' } });
      return z.NEVER;
    }
    const [, year, month, day, hour, minute, second = '0', fraction = ''] = local;
    const instant = fromLocalDateTime(
      { year: Number(year), month: Number(month), day: Number(day), hour: Number(hour), minute: Number(minute), second: Number(second), millisecond: Number(fraction.padEnd(3, '0').slice(0, 3)) },
      timeZone,
    );
    return instant.toISOString();
  })
  .openapi({
    type: 'string',
    pattern: DATE_TIME.source,
    description: 'ISO 8601 date-time with Z or an offset; without one it is read in the tenant\'s time zone. Stored and returned in UTC.',
    example: '2026-01-15T10:00:00Z',
  });

export const calendarDate = z.iso.date({ message: 'Must be a date (YYYY-MM-DD).' });

export const idParam = (name: string, description: string) =>
  z.string().min(1).max(64).openapi({ param: { name, in: 'path' }, description });

/** Custom fields on the wire: field name → scalar value, checked against /custom-fields. */
export const customFieldValues = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
  .nullable()
  .optional()
  .transform((v) => v ?? null);

export interface DecimalRule {
  /** Most digits after the point (default: no limit). */
  scale?: number;
  /** Whether a leading minus is accepted (default false). */
  signed?: boolean;
  /** Most digits before the point (default 15). */
  integerDigits?: number;
  /** The largest value accepted, a decimal string ("100" for a percentage). */
  max?: string;
}

/**
 * The pattern of the decimal strings `checkDecimal` (src/billing/money.ts) accepts under the same
 * limits: plain notation, no leading zeros ("05.00" is refused), no exponent, no "+". It is what the
 * OpenAPI document shows, so generated validators accept what we accept.
 */
export function decimalPattern({ scale, signed = false, integerDigits = 15, max }: DecimalRule): RegExp {
  const decimals = scale === undefined ? '(\\.\\d+)?' : `(\\.\\d{1,${scale}})?`;
  if (max === '100') return new RegExp(`^(100(\\.0{1,${scale ?? 10}})?|(0|[1-9]\\d?)${decimals})$`);
  return new RegExp(`^${signed ? '-?' : ''}(0|[1-9]\\d{0,${integerDigits - 1}})${decimals}$`);
}

/** Why a string is not a decimal under the rule (the domain parser's own check, codes as violations), or null. */
function decimalProblem(v: string, rule: DecimalRule): { message: string; code: string } | null {
  const { scale, signed = false, integerDigits = 15, max } = rule;
  const p = checkDecimal(v, { maxDecimals: scale, allowNegative: signed, maxIntegerDigits: integerDigits });
  if (p) return { message: p.message, code: p.code === 'invalid_decimal' ? 'invalid_format' : p.code };
  // The domain parser lets "-0" through where no sign is allowed; the document's pattern does not.
  if (!decimalPattern(rule).test(v)) return { message: 'Must be a decimal string in plain notation, e.g. "12.50".', code: 'invalid_format' };
  if (max !== undefined && new Dec(v).gt(max)) return { message: `Must be at most ${max}.`, code: 'too_large' };
  return null;
}

/**
 * The one schema for decimals on input (amounts, prices, quantities, rates): a string, never a JS
 * number. It is checked with `checkDecimal` itself, so no accepted string can make `parseDecimal`
 * throw later ("05.00" and "07" are 422 `invalid_format`, never a 500).
 */
export const decimalString = (scale: number | undefined = 10, rule: Omit<DecimalRule, 'scale'> = {}) =>
  z
    .string()
    .superRefine((v, ctx) => {
      const problem = decimalProblem(v, { ...rule, scale });
      if (problem) ctx.addIssue({ code: 'custom', message: problem.message, params: { code: problem.code } });
    })
    .openapi({ type: 'string', pattern: decimalPattern({ ...rule, scale }).source, example: '19.99' });

/**
 * A decimal Fynn documents as a JSON number: a decimal string, or a number that `exactNumbers`
 * (src/http/exact-numbers.ts) has replaced by its source text before validation, so it never
 * passes through a float. A number that still arrives here is refused rather than rounded.
 */
export const decimalOrNumber = (scale: number | undefined, rule: Omit<DecimalRule, 'scale'> = {}, example = '19.99') =>
  z
    .union([z.string().openapi({ pattern: decimalPattern({ ...rule, scale }).source }), z.number()])
    .superRefine((v, ctx) => {
      const problem = typeof v === 'number' ? { message: 'Send this value as a decimal string.', code: 'invalid_format' } : decimalProblem(v, { ...rule, scale });
      if (problem) ctx.addIssue({ code: 'custom', message: problem.message, params: { code: problem.code } });
    })
    .transform((v) => String(v))
    .openapi({ example });

/** A calendar duration such as 14D, 2W, 1M, 1Y6M. */
export const durationText = z
  .string()
  .refine((v) => parseDuration(v) !== null, { message: 'Must be a duration like 14D, 2W, 1M, 3M, 1Y or 1Y6M.', params: { code: 'invalid_duration' } })
  .openapi({ example: '1M' });

/** Money on the wire: a decimal string in major units and its currency (docs/decisions.md, Foundations). */
export const moneyInput = z.strictObject({ amount: decimalString(4), currencyCode });

