// The TARGET2 calendar SEPA settles on: no weekends, and closed on 1 January, Good Friday, Easter
// Monday, 1 May, 25 and 26 December (ECB, "TARGET closing days"). Collection and execution dates
// of SEPA files must be TARGET business days. Pure: calendar dates in, calendar dates out.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MS_PER_DAY = 86_400_000;

/** The UTC midnight of a calendar date, or null when it is not one (2026-02-30, 2026-1-5). */
function parseDay(day: string): Date | null {
  const m = DATE.exec(day);
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === day ? d : null;
}

const format = (d: Date) => d.toISOString().slice(0, 10);

/** Whether `day` is a calendar date written YYYY-MM-DD. */
export const isCalendarDay = (day: string): boolean => parseDay(day) !== null;

/** Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm, Meeus/Jones/Butcher). */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return format(new Date(Date.UTC(year, month - 1, day)));
}

/** Why `day` is no TARGET business day (`weekend`, `holiday`), or null when it is one. Throws for a malformed date. */
export function targetClosure(day: string): 'weekend' | 'holiday' | null {
  const d = parseDay(day);
  if (!d) throw new RangeError(`Not a calendar date: ${day}`);
  const weekday = d.getUTCDay();
  if (weekday === 0 || weekday === 6) return 'weekend';
  const monthDay = day.slice(5);
  if (monthDay === '01-01' || monthDay === '05-01' || monthDay === '12-25' || monthDay === '12-26') return 'holiday';
  const easter = parseDay(easterSunday(d.getUTCFullYear()))!.getTime();
  if (d.getTime() === easter - 2 * MS_PER_DAY || d.getTime() === easter + MS_PER_DAY) return 'holiday';
  return null;
}

export const isTargetBusinessDay = (day: string): boolean => targetClosure(day) === null;

/** The first TARGET business day after `day` (strictly later). */
export function nextTargetBusinessDay(day: string): string {
  const d = parseDay(day);
  if (!d) throw new RangeError(`Not a calendar date: ${day}`);
  let next = format(new Date(d.getTime() + MS_PER_DAY));
  while (!isTargetBusinessDay(next)) next = format(new Date(parseDay(next)!.getTime() + MS_PER_DAY));
  return next;
}
