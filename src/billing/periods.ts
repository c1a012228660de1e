// Calendar periods (docs/decisions.md, Foundations): billing periods, billing-group anchors, contract terms,
// cancellation dates, proration and trials. Pure functions: `now` is always an argument.
//
// Instants are JS `Date`s (UTC). Calendar arithmetic happens on the local calendar date and
// wall-clock time in the customer's IANA time zone (default Europe/Berlin), read and written
// with `Intl.DateTimeFormat`, which behaves the same in Node and workerd.
//
// Semantics the callers rely on:
// - Month and year steps are anchored to the anchor, never chained: anchor + k × 1M is computed
//   from the anchor's day of month, clamped to the target month's length (Jan 31 + 1M = Feb 28/29,
//   + 2M = Mar 31). Weeks and days are calendar days added after the month/year part, so
//   anchor + k × `1M2W` = (anchor + k months) + 2k weeks.
// - The wall-clock time of the anchor is kept (00:00 local stays 00:00 local across DST). A time
//   that does not exist locally (spring-forward gap) moves forward by the gap (02:30 → 03:30);
//   an ambiguous one (fall-back overlap) takes the first occurrence (the earlier instant).
// - "The start of a day" is 00:00 local time on that calendar date (or, in a zone whose clock
//   skips midnight, the first instant of that date).
// - Periods are half-open [start, end): an instant exactly on a boundary belongs to the new period.
// - Instants before the anchor belong to period 0 (the first period); there are no negative indexes.
// - Proration counts whole local calendar days: days(a, b) = local date of b − local date of a.
//   A range that starts or ends mid-day counts a day for the range in effect at that day's end,
//   so consecutive ranges [a, b) + [b, c) always add up to [a, c) (a mid-day change bills the
//   change day under the new state); a 23- or 25-hour DST day is one day.
import type { Duration } from './durations';
import { Dec } from './money';

/** Most periods `periodsBetween` returns unless told otherwise. */
export const DEFAULT_MAX_PERIODS = 1000;

const MS_PER_DAY = 86_400_000;
/** The average Gregorian month (365.2425 / 12 days), used only to estimate a period index. */
const AVG_MONTH_MS = 2_629_746_000;

/** A local calendar date and wall-clock time (month 1–12, day 1–31, hour 0–23). */
export interface LocalDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

/** Options for month and year steps of `addDuration` (and everything built on it). */
export interface AddDurationOptions {
  /**
   * When the anchor is the last day of its local month, month/year steps land on the last day of
   * the target month (Apr 30 + 1M = May 31, not May 30). Used for `end_of_month` billing groups.
   */
  endOfMonth?: boolean;
  /**
   * Month/year steps target this day of month (1–31, clamped to the target month's length)
   * instead of the anchor's own day; takes precedence over `endOfMonth`. Used for `custom`
   * billing groups whose anchor was clamped (custom day 31 → Apr 30, then May 31).
   */
  dayOfMonth?: number;
}

/** A billing period [start, end) and its 0-based position from the anchor. */
export interface Period {
  index: number;
  start: Date;
  end: Date;
}

export interface PeriodsBetweenOptions extends AddDurationOptions {
  /** Most periods returned (default 1000); the list is silently cut there. */
  max?: number;
}

export type BillingGroupType = 'start_of_month' | 'end_of_month' | 'start_of_year' | 'end_of_year' | 'custom';

/** The fields of a billing group that decide the billing anchor. */
export interface BillingGroupRule {
  type: BillingGroupType;
  customDay: number | null;
  customMonth: number | null;
}

/** A contract term (the initial term, then each automatic renewal); `end` null when open-ended. */
export interface ContractTerm {
  index: number;
  start: Date;
  end: Date | null;
}

export interface CancellationDatesInput {
  contractStart: Date;
  contractPeriod: Duration | null;
  cancellationPeriod: Duration | null;
  now: Date;
  /** How many dates (default 3); only used with a contract period. */
  count?: number;
  timeZone: string;
}

export interface Proration {
  usedDays: number;
  periodDays: number;
  /** usedDays / periodDays as a plain decimal string, 40 significant digits, rounded half-up. */
  factor: string;
}

// ---------------------------------------------------------------------------------------------
// Local calendar <-> instant

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    if (typeof timeZone !== 'string' || timeZone === '') throw new RangeError('A time zone is required.');
    // Throws a RangeError for an unknown time zone.
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

function instantMs(value: Date, name: string): number {
  const t = value instanceof Date ? value.getTime() : Number.NaN;
  if (!Number.isFinite(t)) throw new RangeError(`${name} must be a valid Date.`);
  return t;
}

/** Milliseconds of a local date/time read as if it were UTC ("wall time"); fields may overflow (day 32 → next month). */
function wallMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, millisecond = 0): number {
  const d = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, millisecond);
  return d.getTime();
}

function wallOf(l: LocalDateTime): number {
  return wallMs(l.year, l.month, l.day, l.hour, l.minute, l.second, l.millisecond);
}

/**
 * Local times already read, by zone and instant: a billing run asks for the same few instants
 * (anchors, period bounds, the day before and after them for offsets) for every subscription, and
 * `formatToParts` is the most expensive call of a run. Bounded; a pure cache of a pure function.
 */
const localTimes = new Map<string, Readonly<LocalDateTime>>();
const LOCAL_TIMES_MAX = 50_000;

function localAt(t: number, timeZone: string): LocalDateTime {
  const key = `${timeZone}|${t}`;
  const known = localTimes.get(key);
  if (known) return { ...known };
  const local = readLocalAt(t, timeZone);
  if (localTimes.size >= LOCAL_TIMES_MAX) localTimes.clear();
  localTimes.set(key, Object.freeze({ ...local }));
  return local;
}

function readLocalAt(t: number, timeZone: string): LocalDateTime {
  const fields: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(t))) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const { year, month, day, minute, second } = fields;
  if (year === undefined || month === undefined || day === undefined || minute === undefined || second === undefined || fields.hour === undefined)
    throw new RangeError(`Cannot read the local time in ${timeZone}.`);
  return {
    year,
    month,
    day,
    hour: fields.hour === 24 ? 0 : fields.hour,
    minute,
    second,
    millisecond: ((t % 1000) + 1000) % 1000,
  };
}

/** UTC offset (local wall time − instant) in milliseconds at instant `t`. */
function offsetAt(t: number, timeZone: string): number {
  return wallOf(localAt(t, timeZone)) - t;
}

/** The instant of a wall time: a time in a spring-forward gap moves forward by the gap, an ambiguous one takes the first occurrence. */
function instantOfWall(wall: number, timeZone: string): number {
  // The offsets a day before and after cover any single transition near this wall time.
  const before = offsetAt(wall - MS_PER_DAY, timeZone);
  const after = offsetAt(wall + MS_PER_DAY, timeZone);
  let best: number | null = null;
  for (const offset of before === after ? [before] : [before, after]) {
    const t = wall - offset;
    if (offsetAt(t, timeZone) === offset && (best === null || t < best)) best = t;
  }
  // In a gap neither offset maps back to this wall time: use the offset before the gap, which
  // lands the same distance past the gap's end (02:30 in a 02:00–03:00 gap → 03:30).
  return best ?? wall - before;
}

/** Local calendar date and wall-clock time of an instant in `timeZone` (throws RangeError for an unknown zone). */
export function toLocalDateTime(instant: Date, timeZone: string): LocalDateTime {
  return localAt(instantMs(instant, 'instant'), timeZone);
}

/** The calendar day (`YYYY-MM-DD`) of an instant in `timeZone`: an invoice's date. */
export function localDay(instant: Date, timeZone: string): string {
  const l = localAt(instantMs(instant, 'instant'), timeZone);
  return `${String(l.year).padStart(4, '0')}-${String(l.month).padStart(2, '0')}-${String(l.day).padStart(2, '0')}`;
}

/** The instant of a local date and time in `timeZone`; a time in a DST gap moves forward by the gap, an ambiguous one takes the first occurrence. */
export function fromLocalDateTime(local: Partial<LocalDateTime> & Pick<LocalDateTime, 'year' | 'month' | 'day'>, timeZone: string): Date {
  const wall = wallMs(local.year, local.month, local.day, local.hour ?? 0, local.minute ?? 0, local.second ?? 0, local.millisecond ?? 0);
  if (!Number.isFinite(wall)) throw new RangeError('Invalid local date.');
  return new Date(instantOfWall(wall, timeZone));
}

/** The start of an instant's local calendar day: 00:00 local (or the first instant of that date when midnight is skipped by DST). */
export function startOfLocalDay(instant: Date, timeZone: string): Date {
  const l = toLocalDateTime(instant, timeZone);
  return new Date(instantOfWall(wallMs(l.year, l.month, l.day), timeZone));
}

/** Whether `timeZone` is an IANA time zone this runtime knows. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Whole local calendar days from `from` to `to` (local date of `to` − local date of `from`); a 23- or 25-hour DST day is one day. */
export function localDaysBetween(from: Date, to: Date, timeZone: string): number {
  const a = toLocalDateTime(from, timeZone);
  const b = toLocalDateTime(to, timeZone);
  return Math.round((wallMs(b.year, b.month, b.day) - wallMs(a.year, a.month, a.day)) / MS_PER_DAY);
}

function daysInMonth(year: number, month: number): number {
  return Math.round((wallMs(year, month + 1, 1) - wallMs(year, month, 1)) / MS_PER_DAY);
}

// ---------------------------------------------------------------------------------------------
// Durations

function checkDuration(d: Duration, name: string): void {
  if (d === null || typeof d !== 'object') throw new RangeError(`${name} must be a duration.`);
  for (const field of ['years', 'months', 'weeks', 'days'] as const) {
    const v = d[field];
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${name}.${field} must be a non-negative integer.`);
  }
}

function checkPositiveDuration(d: Duration, name: string): void {
  checkDuration(d, name);
  if (d.years + d.months + d.weeks + d.days === 0) throw new RangeError(`${name} must not be zero.`);
}

function checkStepOptions(options: AddDurationOptions): void {
  const { dayOfMonth } = options;
  if (dayOfMonth !== undefined && (!Number.isInteger(dayOfMonth) || dayOfMonth < 1 || dayOfMonth > 31))
    throw new RangeError('dayOfMonth must be an integer from 1 to 31.');
}

/** anchor + times × duration on the anchor's local date and wall time in `timeZone`: months/years anchored to the start and clamped to the month's length, then weeks/days as calendar days; times may be negative (subtracts). */
export function addDuration(anchor: Date, duration: Duration, times: number, timeZone: string, options: AddDurationOptions = {}): Date {
  const t = instantMs(anchor, 'anchor');
  checkDuration(duration, 'duration');
  checkStepOptions(options);
  if (!Number.isSafeInteger(times)) throw new RangeError('times must be an integer.');
  const months = (duration.years * 12 + duration.months) * times;
  const days = (duration.weeks * 7 + duration.days) * times;
  formatter(timeZone); // validate the zone even when nothing moves
  // Nothing to add: the anchor itself (also when it is the second occurrence of an ambiguous time).
  if (months === 0 && days === 0) return new Date(t);
  const l = localAt(t, timeZone);
  let { year, month, day } = l;
  if (months !== 0) {
    const monthIndex = year * 12 + (month - 1) + months;
    year = Math.floor(monthIndex / 12);
    month = monthIndex - year * 12 + 1;
    const wanted = options.dayOfMonth ?? (options.endOfMonth && l.day === daysInMonth(l.year, l.month) ? 31 : l.day);
    day = Math.min(wanted, daysInMonth(year, month));
  }
  const wall = wallMs(year, month, day + days, l.hour, l.minute, l.second, l.millisecond);
  return new Date(instantOfWall(wall, timeZone));
}

// ---------------------------------------------------------------------------------------------
// Billing periods

/** The billing period [start, end) containing `instant`, start = addDuration(anchor, interval, index); instants before the anchor get index 0; O(1) steps for any index. */
export function periodAt(anchor: Date, interval: Duration, instant: Date, timeZone: string, options: AddDurationOptions = {}): Period {
  const a = instantMs(anchor, 'anchor');
  const t = instantMs(instant, 'instant');
  checkPositiveDuration(interval, 'interval');
  const at = (k: number) => addDuration(anchor, interval, k, timeZone, options);
  if (t < a) return { index: 0, start: new Date(a), end: at(1) };
  // Estimate the index from the average length of the interval, then step to the exact one.
  const approxMs = (interval.years * 12 + interval.months) * AVG_MONTH_MS + (interval.weeks * 7 + interval.days) * MS_PER_DAY;
  let index = Math.max(0, Math.floor((t - a) / approxMs));
  let start = at(index);
  while (index > 0 && start.getTime() > t) {
    index -= 1;
    start = at(index);
  }
  let end = at(index + 1);
  while (end.getTime() <= t) {
    index += 1;
    start = end;
    end = at(index + 1);
  }
  return { index, start, end };
}

/** Every period that starts in [from, to), in order (what a billing run bills), at most `max` (default 1000). */
export function periodsBetween(anchor: Date, interval: Duration, from: Date, to: Date, timeZone: string, options: PeriodsBetweenOptions = {}): Period[] {
  const a = instantMs(anchor, 'anchor');
  const f = instantMs(from, 'from');
  const e = instantMs(to, 'to');
  checkPositiveDuration(interval, 'interval');
  const max = options.max ?? DEFAULT_MAX_PERIODS;
  if (!Number.isSafeInteger(max) || max < 0) throw new RangeError('max must be a non-negative integer.');
  const steps: AddDurationOptions = {};
  if (options.endOfMonth !== undefined) steps.endOfMonth = options.endOfMonth;
  if (options.dayOfMonth !== undefined) steps.dayOfMonth = options.dayOfMonth;
  if (e <= f || max === 0) return [];
  let index = 0;
  let start = new Date(a);
  if (f > a) {
    const p = periodAt(anchor, interval, from, timeZone, steps);
    [index, start] = p.start.getTime() === f ? [p.index, p.start] : [p.index + 1, p.end];
  }
  const out: Period[] = [];
  while (start.getTime() < e && out.length < max) {
    const end = addDuration(anchor, interval, index + 1, timeZone, steps);
    out.push({ index, start, end });
    index += 1;
    start = end;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Billing groups

function checkBillingGroup(group: BillingGroupRule): void {
  const types: BillingGroupType[] = ['start_of_month', 'end_of_month', 'start_of_year', 'end_of_year', 'custom'];
  if (!types.includes(group.type)) throw new RangeError(`Unknown billing group type ${JSON.stringify(group.type)}.`);
  if (group.type !== 'custom') return;
  const { customDay, customMonth } = group;
  if (customDay === null || !Number.isInteger(customDay) || customDay < 1 || customDay > 31)
    throw new RangeError('A custom billing group needs customDay from 1 to 31.');
  if (customMonth !== null && (!Number.isInteger(customMonth) || customMonth < 1 || customMonth > 12))
    throw new RangeError('customMonth must be null or from 1 to 12.');
}

/** The billing anchor for a subscription starting at `start`: the first billing-group boundary (00:00 local on the group's day, clamped to the month's length) at or after `start`. */
export function alignToBillingGroup(start: Date, group: BillingGroupRule, timeZone: string): Date {
  const t = instantMs(start, 'start');
  checkBillingGroup(group);
  const l = localAt(t, timeZone);
  const yearly = group.type === 'start_of_year' || group.type === 'end_of_year' || (group.type === 'custom' && group.customMonth !== null);
  // The group's boundary date in the cycle `step` months (or years) after the start's own.
  const boundary = (step: number): [number, number, number] => {
    if (yearly) {
      const year = l.year + step;
      if (group.type === 'start_of_year') return [year, 1, 1];
      if (group.type === 'end_of_year') return [year, 12, 31];
      const month = group.customMonth as number;
      return [year, month, Math.min(group.customDay as number, daysInMonth(year, month))];
    }
    const monthIndex = l.year * 12 + (l.month - 1) + step;
    const year = Math.floor(monthIndex / 12);
    const month = monthIndex - year * 12 + 1;
    const last = daysInMonth(year, month);
    if (group.type === 'start_of_month') return [year, month, 1];
    if (group.type === 'end_of_month') return [year, month, last];
    return [year, month, Math.min(group.customDay as number, last)];
  };
  for (let step = 0; ; step += 1) {
    const [year, month, day] = boundary(step);
    const candidate = instantOfWall(wallMs(year, month, day), timeZone);
    if (candidate >= t) return new Date(candidate);
  }
}

/** The step options that keep a billing group's day for later periods: end_of_month → last day of every month, custom → customDay clamped per month, others need none. */
export function billingGroupStepOptions(group: BillingGroupRule): AddDurationOptions {
  checkBillingGroup(group);
  if (group.type === 'end_of_month') return { endOfMonth: true };
  if (group.type === 'custom') return { dayOfMonth: group.customDay as number };
  return {};
}

// ---------------------------------------------------------------------------------------------
// Contracts and cancellation

/** The contract term containing `now` (contracts renew automatically by their contract period); before the contract start it is term 0; end null without a contract period. */
export function contractTerm(contractStart: Date, contractPeriod: Duration | null, now: Date, timeZone: string): ContractTerm {
  const s = instantMs(contractStart, 'contractStart');
  instantMs(now, 'now');
  if (!contractPeriod) {
    formatter(timeZone);
    return { index: 0, start: new Date(s), end: null };
  }
  return periodAt(contractStart, contractPeriod, now, timeZone);
}

/** The next `count` dates the subscription can end on if cancelled at `now`: term ends after now whose notice deadline (end − cancellation period) is at or after now; without a contract period just now + cancellation period. */
export function nextPossibleCancellationDates(input: CancellationDatesInput): Date[] {
  const { contractStart, contractPeriod, cancellationPeriod, timeZone } = input;
  instantMs(contractStart, 'contractStart');
  const now = instantMs(input.now, 'now');
  const count = input.count ?? 3;
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError('count must be a non-negative integer.');
  if (cancellationPeriod) checkDuration(cancellationPeriod, 'cancellationPeriod');
  if (count === 0) return [];
  if (!contractPeriod) return [cancellationPeriod ? addDuration(input.now, cancellationPeriod, 1, timeZone) : new Date(now)];
  checkPositiveDuration(contractPeriod, 'contractPeriod');
  const termEnd = (k: number) => addDuration(contractStart, contractPeriod, k, timeZone);
  const possible = (k: number): boolean => {
    const end = termEnd(k);
    const deadline = cancellationPeriod ? addDuration(end, cancellationPeriod, -1, timeZone) : end;
    return end.getTime() > now && deadline.getTime() >= now;
  };
  // `possible` is monotone in k (later ends have later deadlines); start near the first end at or
  // after now + cancellation period and step to the exact one.
  const earliest = cancellationPeriod ? addDuration(input.now, cancellationPeriod, 1, timeZone) : input.now;
  let k = Math.max(1, periodAt(contractStart, contractPeriod, earliest, timeZone).index);
  while (k > 1 && possible(k - 1)) k -= 1;
  while (!possible(k)) k += 1;
  return Array.from({ length: count }, (_, i) => termEnd(k + i));
}

// ---------------------------------------------------------------------------------------------
// Proration and trials

/** Proration (docs/decisions.md, Foundations): used local calendar days (the used range clipped to the half-open period) / calendar days in the period, as a 40-significant-digit half-up decimal string. */
export function prorationFactor(period: { start: Date; end: Date }, used: { start: Date; end: Date }, timeZone: string): Proration {
  const ps = instantMs(period.start, 'period.start');
  const pe = instantMs(period.end, 'period.end');
  const us = Math.max(instantMs(used.start, 'used.start'), ps);
  const ue = Math.min(instantMs(used.end, 'used.end'), pe);
  const periodDays = localDaysBetween(period.start, period.end, timeZone);
  if (periodDays <= 0) throw new RangeError('The period must span at least one local calendar day.');
  const usedDays = ue > us ? localDaysBetween(new Date(us), new Date(ue), timeZone) : 0;
  const factor = new Dec(usedDays).dividedBy(new Dec(periodDays));
  return { usedDays, periodDays, factor: factor.isZero() ? '0' : factor.toString() };
}

/** The end of a trial: start + trialDays local calendar days, same wall-clock time (0 days → start). */
export function trialEnd(start: Date, trialDays: number, timeZone: string): Date {
  if (!Number.isSafeInteger(trialDays) || trialDays < 0) throw new RangeError('trialDays must be a non-negative integer.');
  return addDuration(start, { years: 0, months: 0, weeks: 0, days: trialDays }, 1, timeZone);
}

/** When a subscription activated at `now` starts, ends its trial and is first billed. */
export interface ActivationSchedule {
  /** The contract start, never before `now`. */
  contractStart: Date;
  trialEndsOn: Date | null;
  /** The first billing anchor: after the trial, moved to the billing group's day. */
  billingAnchor: Date;
}

export function activationSchedule(input: { contractStart: Date; trialDays: number; billingGroup: BillingGroupRule | null; now: Date; timeZone: string }): ActivationSchedule {
  const contractStart = input.contractStart < input.now ? input.now : input.contractStart;
  const trialEndsOn = input.trialDays > 0 ? trialEnd(contractStart, input.trialDays, input.timeZone) : null;
  const billingStart = trialEndsOn ?? contractStart;
  const billingAnchor = input.billingGroup ? alignToBillingGroup(billingStart, input.billingGroup, input.timeZone) : billingStart;
  return { contractStart, trialEndsOn, billingAnchor };
}
