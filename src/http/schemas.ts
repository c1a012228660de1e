import { z } from '@hono/zod-openapi';
import { parseDuration } from '../billing/durations';
import { checkDecimal } from '../billing/money';
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

/** An optional date-time: absent, null or "" (n8n sends untouched date fields as "") is null. */
export const optionalTimestamp = z.preprocess((v) => (v === '' ? null : v), timestamp.nullable().optional()).transform((v) => v ?? null);

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
  /** Most digits after the point. */
  scale: number;
  /** Whether a leading minus is accepted (default false). */
  signed?: boolean;
  /** Most digits before the point (default 15). */
  integerDigits?: number;
}

/**
 * The pattern of the decimal strings `checkDecimal` (src/billing/money.ts) accepts under the same
 * limits: plain notation, no leading zeros ("05.00" is refused), no exponent, no "+".
 */
export function decimalPattern({ scale, signed = false, integerDigits = 15 }: DecimalRule): RegExp {
  return new RegExp(`^${signed ? '-?' : ''}(0|[1-9]\\d{0,${integerDigits - 1}})(\\.\\d{1,${scale}})?$`);
}

/**
 * The one schema for decimals on input (amounts, prices, quantities, rates): a string, never a JS
 * number. What it accepts the domain parser accepts by construction: the pattern (also what the
 * OpenAPI document shows) is checked first, then `checkDecimal` with the same limits, so no
 * accepted string can make `parseDecimal` throw later.
 */
export const decimalString = (scale = 10, rule: Omit<DecimalRule, 'scale'> = {}) => {
  const { signed = false, integerDigits = 15 } = rule;
  const kind = signed ? 'a decimal string' : 'a non-negative decimal string';
  return z
    .string()
    .regex(decimalPattern({ scale, signed, integerDigits }), {
      message: `Must be ${kind} with at most ${integerDigits} digits before and ${scale} after the point, without leading zeros (e.g. "19.99").`,
      abort: true,
    })
    .superRefine((v, ctx) => {
      const problem = checkDecimal(v, { maxDecimals: scale, allowNegative: signed, maxIntegerDigits: integerDigits });
      if (problem) ctx.addIssue({ code: 'custom', message: problem.message, params: { code: problem.code } });
    })
    .openapi({ example: '19.99' });
};

/** A calendar duration such as 14D, 2W, 1M, 1Y6M. */
export const durationText = z
  .string()
  .refine((v) => parseDuration(v) !== null, { message: 'Must be a duration like 14D, 2W, 1M, 3M, 1Y or 1Y6M.', params: { code: 'invalid_duration' } })
  .openapi({ example: '1M' });

/** Money on the wire: a decimal string in major units and its currency (docs/decisions.md, Foundations). */
export const moneyInput = z.strictObject({ amount: decimalString(4), currencyCode });

