import { z } from '@hono/zod-openapi';
import { parseDuration } from '../billing/durations';
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

export const timestamp = z.iso.datetime({ offset: true, message: 'Must be an ISO 8601 timestamp with offset or Z.' });

export const calendarDate = z.iso.date({ message: 'Must be a date (YYYY-MM-DD).' });

export const idParam = (name: string, description: string) =>
  z.string().min(1).max(64).openapi({ param: { name, in: 'path' }, description });

/** Custom fields on the wire: field name → scalar value, checked against /custom-fields. */
export const customFieldValues = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
  .nullable()
  .optional()
  .transform((v) => v ?? null);

/** A non-negative decimal string with at most `scale` decimals; never a JS number on the wire. */
export const decimalString = (scale = 10) =>
  z
    .string()
    .regex(new RegExp(`^\\d{1,15}(\\.\\d{1,${scale}})?$`), { message: `Must be a non-negative decimal string with at most ${scale} decimals (e.g. "19.99").` })
    .openapi({ example: '19.99' });

/** A calendar duration such as 14D, 2W, 1M, 1Y6M. */
export const durationText = z
  .string()
  .refine((v) => parseDuration(v) !== null, { message: 'Must be a duration like 14D, 2W, 1M, 3M, 1Y or 1Y6M.', params: { code: 'invalid_duration' } })
  .openapi({ example: '1M' });

/** Money on the wire: a decimal string in major units and its currency (docs/decisions.md, Foundations). */
export const moneyInput = z.strictObject({ amount: decimalString(4), currencyCode });
