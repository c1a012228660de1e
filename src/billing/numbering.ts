import { localDay } from './periods';

/**
 * Placeholders a number format may use, as Fynn defines them: `{number}` (may carry a zero-padding
 * width: `{number:10}`), `{yearLong}` (2026), `{year}` (26), `{month}` (03), `{day}` (09),
 * `{customerNumber}`.
 */
const PLACEHOLDER = /\{(number|yearLong|year|month|day|customerNumber)(?::(\d{1,2}))?\}/g;

export interface NumberFormatProblem {
  message: string;
}

/** A document number format is valid when it holds `{number}` exactly once and only known placeholders. */
export function checkNumberFormat(format: string): NumberFormatProblem | null {
  if (format.length < 1 || format.length > 64) return { message: 'Must be 1 to 64 characters long.' };
  const numbers = [...format.matchAll(PLACEHOLDER)].filter((m) => m[1] === 'number');
  if (numbers.length !== 1) return { message: 'Must contain the placeholder {number} exactly once.' };
  for (const m of format.matchAll(PLACEHOLDER)) {
    if (m[2] !== undefined && m[1] !== 'number') return { message: `Only {number} takes a padding width, not {${m[1]}}.` };
    if (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 20)) return { message: 'The padding width must be 1 to 20.' };
  }
  const rest = format.replace(PLACEHOLDER, '');
  if (/[{}]/.test(rest)) return { message: 'Unknown placeholder; use {number}, {yearLong}, {year}, {month}, {day} or {customerNumber}.' };
  if (!/^[A-Za-z0-9\-_/.#]*$/.test(rest)) return { message: 'Literal text may only use letters, digits and - _ / . #' };
  return null;
}

/**
 * Renders a number in a format such as `RE-{number:10}` or `RE-{yearLong}-{number:5}`; the date
 * parts are the calendar date of `date` in `timeZone` (`{year}` is its last two digits, as in Fynn).
 */
export function formatNumber(
  format: string,
  values: { number: number; date: Date; timeZone: string; customerNumber?: string },
): string {
  const [yearLong, month, day] = localDay(values.date, values.timeZone).split('-') as [string, string, string];
  return format.replace(PLACEHOLDER, (_, name: string, pad?: string) => {
    switch (name) {
      case 'number':
        return pad ? String(values.number).padStart(Number(pad), '0') : String(values.number);
      case 'yearLong':
        return yearLong;
      case 'year':
        return yearLong.slice(-2);
      case 'month':
        return month;
      case 'day':
        return day;
      default:
        return values.customerNumber ?? '';
    }
  });
}
