// Every expected instant below is written out by hand (local date → UTC with the zone's offset of
// that day), never computed by the code under test.
// Europe/Berlin 2025: CET (+01:00) until 2025-03-30T01:00Z, CEST (+02:00) until 2025-10-26T01:00Z.
// America/New_York 2025: EST (−05:00) until 2025-03-09T07:00Z, EDT (−04:00) until 2025-11-02T06:00Z.
// Asia/Kolkata: IST (+05:30), no DST.
import { describe, expect, it } from 'vitest';
import { parseDuration, type Duration } from '../../src/billing/durations';
import {
  addDuration,
  alignToBillingGroup,
  billingGroupStepOptions,
  contractTerm,
  fromLocalDateTime,
  isValidTimeZone,
  localDaysBetween,
  nextPossibleCancellationDates,
  periodAt,
  periodsBetween,
  prorationFactor,
  startOfLocalDay,
  toLocalDateTime,
  trialEnd,
  type BillingGroupRule,
} from '../../src/billing/periods';

const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';
const KOLKATA = 'Asia/Kolkata';
const UTC = 'UTC';

function dur(text: string): Duration {
  const d = parseDuration(text);
  if (!d) throw new Error(`bad duration ${text}`);
  return d;
}
const at = (iso: string) => new Date(iso);
const isoOf = (d: Date | null) => (d === null ? null : d.toISOString());
const periodIso = (p: { index: number; start: Date; end: Date | null }) => ({ index: p.index, start: isoOf(p.start), end: isoOf(p.end) });

describe('addDuration: Jan 31 monthly start (Europe/Berlin), anchored not chained', () => {
  const anchor = at('2025-01-30T23:00:00.000Z'); // 2025-01-31 00:00 CET
  it.each([
    [0, '2025-01-30T23:00:00.000Z'], // Jan 31
    [1, '2025-02-27T23:00:00.000Z'], // Feb 28
    [2, '2025-03-30T22:00:00.000Z'], // Mar 31, CEST
    [3, '2025-04-29T22:00:00.000Z'], // Apr 30
    [4, '2025-05-30T22:00:00.000Z'], // May 31
    [5, '2025-06-29T22:00:00.000Z'], // Jun 30
    [6, '2025-07-30T22:00:00.000Z'], // Jul 31
    [7, '2025-08-30T22:00:00.000Z'], // Aug 31
    [8, '2025-09-29T22:00:00.000Z'], // Sep 30
    [9, '2025-10-30T23:00:00.000Z'], // Oct 31, CET again
    [10, '2025-11-29T23:00:00.000Z'], // Nov 30
    [11, '2025-12-30T23:00:00.000Z'], // Dec 31
    [12, '2026-01-30T23:00:00.000Z'], // Jan 31 2026
  ])('start of period %i is %s', (times, expected) => {
    expect(addDuration(anchor, dur('1M'), times, BERLIN).toISOString()).toBe(expected);
  });

  it.each([
    ['2024-01-30T23:00:00.000Z', 1, '2024-02-28T23:00:00.000Z'], // 2024-01-31 + 1M = Feb 29 (leap year)
    ['2024-01-30T23:00:00.000Z', 2, '2024-03-30T23:00:00.000Z'], // Mar 31 2024, still CET (DST starts Mar 31 02:00)
  ])('leap year: %s + %i × 1M = %s', (from, times, expected) => {
    expect(addDuration(at(from), dur('1M'), times, BERLIN).toISOString()).toBe(expected);
  });
});

describe('addDuration: Feb 29 yearly start (Europe/Berlin)', () => {
  const anchor = at('2024-02-28T23:00:00.000Z'); // 2024-02-29 00:00 CET
  it.each([
    [1, '2025-02-27T23:00:00.000Z'], // 2025-02-28
    [2, '2026-02-27T23:00:00.000Z'], // 2026-02-28
    [3, '2027-02-27T23:00:00.000Z'], // 2027-02-28
    [4, '2028-02-28T23:00:00.000Z'], // 2028-02-29
  ])('+ %i × 1Y = %s', (times, expected) => {
    expect(addDuration(anchor, dur('1Y'), times, BERLIN).toISOString()).toBe(expected);
  });
});

describe('addDuration: mixed durations, negative times, weeks and days', () => {
  it.each([
    // 2024-08-31 00:00 CEST + 1Y6M = 2026-02-28 (clamped) 00:00 CET
    ['2024-08-30T22:00:00.000Z', '1Y6M', 1, BERLIN, '2026-02-27T23:00:00.000Z'],
    // + 2 × 1Y6M = 2027-08-31 00:00 CEST (anchored, not Feb 28 + 1Y6M)
    ['2024-08-30T22:00:00.000Z', '1Y6M', 2, BERLIN, '2027-08-30T22:00:00.000Z'],
    // 2025-01-31 + 1M2W = Feb 28 + 14 days = Mar 14 00:00 CET
    ['2025-01-30T23:00:00.000Z', '1M2W', 1, BERLIN, '2025-03-13T23:00:00.000Z'],
    // 2025-01-31 + 2 × 1M2W = Mar 31 + 28 days = Apr 28 00:00 CEST
    ['2025-01-30T23:00:00.000Z', '1M2W', 2, BERLIN, '2025-04-27T22:00:00.000Z'],
    // 2026-01-01 00:00 CET − 3M = 2025-10-01 00:00 CEST
    ['2025-12-31T23:00:00.000Z', '3M', -1, BERLIN, '2025-09-30T22:00:00.000Z'],
    // 2025-03-31 00:00 CEST − 1M = 2025-02-28 00:00 CET
    ['2025-03-30T22:00:00.000Z', '1M', -1, BERLIN, '2025-02-27T23:00:00.000Z'],
    // 2025-03-28 00:00 CET + 2W = 2025-04-11 00:00 CEST
    ['2025-03-27T23:00:00.000Z', '2W', 1, BERLIN, '2025-04-10T22:00:00.000Z'],
    // 2025-12-25 10:15 CET + 14D = 2026-01-08 10:15 CET
    ['2025-12-25T09:15:00.000Z', '14D', 1, BERLIN, '2026-01-08T09:15:00.000Z'],
    // milliseconds are kept: 2025-01-31 12:34:56.789 CET + 1M = 2025-02-28 12:34:56.789 CET
    ['2025-01-31T11:34:56.789Z', '1M', 1, BERLIN, '2025-02-28T11:34:56.789Z'],
  ])('%s + %s × %i (%s) = %s', (from, d, times, tz, expected) => {
    expect(addDuration(at(from), dur(d), times, tz).toISOString()).toBe(expected);
  });

  it('times 0 returns the anchor itself, even the second occurrence of an ambiguous time', () => {
    // 2025-10-26 02:30 CET (the second 02:30 that night)
    expect(addDuration(at('2025-10-26T01:30:00.000Z'), dur('1D'), 0, BERLIN).toISOString()).toBe('2025-10-26T01:30:00.000Z');
    expect(addDuration(at('2025-10-26T01:30:00.000Z'), dur('1D'), 1, BERLIN).toISOString()).toBe('2025-10-27T01:30:00.000Z');
  });
});

describe('DST changes in Europe/Berlin (2025-03-30 and 2025-10-26)', () => {
  it.each([
    // monthly from 2025-03-15 00:00 CET
    [0, '2025-03-14T23:00:00.000Z'],
    [1, '2025-04-14T22:00:00.000Z'], // 2025-04-15 00:00 CEST
    [7, '2025-10-14T22:00:00.000Z'], // 2025-10-15 00:00 CEST
    [8, '2025-11-14T23:00:00.000Z'], // 2025-11-15 00:00 CET
  ])('monthly from 2025-03-15 Berlin: start %i = %s', (times, expected) => {
    expect(addDuration(at('2025-03-14T23:00:00.000Z'), dur('1M'), times, BERLIN).toISOString()).toBe(expected);
  });

  it.each([
    // daily from 2025-03-29 00:00 CET across spring-forward: Mar 30 is a 23-hour day
    ['2025-03-28T23:00:00.000Z', 0, '2025-03-28T23:00:00.000Z', '2025-03-29T23:00:00.000Z'],
    ['2025-03-28T23:00:00.000Z', 1, '2025-03-29T23:00:00.000Z', '2025-03-30T22:00:00.000Z'],
    ['2025-03-28T23:00:00.000Z', 2, '2025-03-30T22:00:00.000Z', '2025-03-31T22:00:00.000Z'],
    // daily from 2025-10-25 00:00 CEST across fall-back: Oct 26 is a 25-hour day
    ['2025-10-24T22:00:00.000Z', 0, '2025-10-24T22:00:00.000Z', '2025-10-25T22:00:00.000Z'],
    ['2025-10-24T22:00:00.000Z', 1, '2025-10-25T22:00:00.000Z', '2025-10-26T23:00:00.000Z'],
    ['2025-10-24T22:00:00.000Z', 2, '2025-10-26T23:00:00.000Z', '2025-10-27T23:00:00.000Z'],
  ])('daily from %s: period %i = [%s, %s)', (anchor, index, start, end) => {
    // an instant in the middle of the period (start + 1 hour)
    const inside = new Date(at(start).getTime() + 3_600_000);
    expect(periodIso(periodAt(at(anchor), dur('1D'), inside, BERLIN))).toEqual({ index, start, end });
  });

  it.each([
    // 02:30 local daily: 2025-03-30 02:30 does not exist → 03:30 CEST (forward by the gap)
    ['2025-03-29T01:30:00.000Z', 1, '2025-03-30T01:30:00.000Z'],
    ['2025-03-29T01:30:00.000Z', 2, '2025-03-31T00:30:00.000Z'], // 02:30 CEST
    // 02:30 local daily: 2025-10-26 02:30 happens twice → the first (CEST)
    ['2025-10-25T00:30:00.000Z', 1, '2025-10-26T00:30:00.000Z'],
    ['2025-10-25T00:30:00.000Z', 2, '2025-10-27T01:30:00.000Z'], // 02:30 CET
  ])('02:30 anchor %s + %i day(s) = %s', (anchor, times, expected) => {
    expect(addDuration(at(anchor), dur('1D'), times, BERLIN).toISOString()).toBe(expected);
  });
});

describe('other time zones', () => {
  it.each([
    // America/New_York, monthly from 2025-01-31 00:00 EST
    [NEW_YORK, '2025-01-31T05:00:00.000Z', '1M', 1, '2025-02-28T05:00:00.000Z'],
    [NEW_YORK, '2025-01-31T05:00:00.000Z', '1M', 2, '2025-03-31T04:00:00.000Z'], // EDT
    [NEW_YORK, '2025-01-31T05:00:00.000Z', '1M', 10, '2025-11-30T05:00:00.000Z'], // EST again
    // New York gap: 2025-03-09 02:30 does not exist → 03:30 EDT
    [NEW_YORK, '2025-03-08T07:30:00.000Z', '1D', 1, '2025-03-09T07:30:00.000Z'],
    [NEW_YORK, '2025-03-08T07:30:00.000Z', '1D', 2, '2025-03-10T06:30:00.000Z'],
    // New York overlap: 2025-11-02 01:30 happens twice → the first (EDT)
    [NEW_YORK, '2025-11-01T05:30:00.000Z', '1D', 1, '2025-11-02T05:30:00.000Z'],
    [NEW_YORK, '2025-11-01T05:30:00.000Z', '1D', 2, '2025-11-03T06:30:00.000Z'],
    // Asia/Kolkata (+05:30), monthly from 2025-01-31 00:00 IST
    [KOLKATA, '2025-01-30T18:30:00.000Z', '1M', 1, '2025-02-27T18:30:00.000Z'],
    [KOLKATA, '2025-01-30T18:30:00.000Z', '1M', 2, '2025-03-30T18:30:00.000Z'],
    [KOLKATA, '2025-01-30T18:30:00.000Z', '1Y', 1, '2026-01-30T18:30:00.000Z'],
    // UTC
    [UTC, '2024-01-31T00:00:00.000Z', '1M', 1, '2024-02-29T00:00:00.000Z'],
    [UTC, '2024-01-31T00:00:00.000Z', '1M', 2, '2024-03-31T00:00:00.000Z'],
    [UTC, '2024-02-29T12:00:00.000Z', '1Y', 1, '2025-02-28T12:00:00.000Z'],
  ])('%s: %s + %s × %i = %s', (tz, anchor, d, times, expected) => {
    expect(addDuration(at(anchor), dur(d), times, tz).toISOString()).toBe(expected);
  });

  it('the same instant is a different local day in different zones', () => {
    // 2025-02-01T03:00Z is Jan 31 22:00 in New York, Feb 1 04:00 in Berlin, Feb 1 08:30 in Kolkata
    expect(toLocalDateTime(at('2025-02-01T03:00:00.000Z'), NEW_YORK)).toEqual({ year: 2025, month: 1, day: 31, hour: 22, minute: 0, second: 0, millisecond: 0 });
    expect(toLocalDateTime(at('2025-02-01T03:00:00.000Z'), KOLKATA)).toEqual({ year: 2025, month: 2, day: 1, hour: 8, minute: 30, second: 0, millisecond: 0 });
    expect(fromLocalDateTime({ year: 2025, month: 2, day: 1 }, KOLKATA).toISOString()).toBe('2025-01-31T18:30:00.000Z');
    expect(startOfLocalDay(at('2025-02-01T03:00:00.000Z'), NEW_YORK).toISOString()).toBe('2025-01-31T05:00:00.000Z');
    expect(startOfLocalDay(at('2025-02-01T03:00:00.000Z'), BERLIN).toISOString()).toBe('2025-01-31T23:00:00.000Z');
  });
});

describe('end_of_month anchors keep the last day of the month', () => {
  const group: BillingGroupRule = { type: 'end_of_month', customDay: null, customMonth: null };
  // subscription starts 2025-01-15 10:00 CET → anchor 2025-01-31 00:00 CET
  const anchor = alignToBillingGroup(at('2025-01-15T09:00:00.000Z'), group, BERLIN);
  it('aligns to Jan 31', () => {
    expect(anchor.toISOString()).toBe('2025-01-30T23:00:00.000Z');
  });
  it.each([
    [1, '2025-02-27T23:00:00.000Z'], // Feb 28
    [2, '2025-03-30T22:00:00.000Z'], // Mar 31
    [3, '2025-04-29T22:00:00.000Z'], // Apr 30
    [4, '2025-05-30T22:00:00.000Z'], // May 31
  ])('period %i starts %s', (times, expected) => {
    expect(addDuration(anchor, dur('1M'), times, BERLIN, billingGroupStepOptions(group)).toISOString()).toBe(expected);
  });
  it.each([
    // anchor 2025-04-30 00:00 CEST + 1M: May 31 with endOfMonth, May 30 without
    ['2025-04-29T22:00:00.000Z', '1M', 1, true, '2025-05-30T22:00:00.000Z'],
    ['2025-04-29T22:00:00.000Z', '1M', 1, false, '2025-05-29T22:00:00.000Z'],
    // anchor 2025-02-28 + 1M = Mar 31 with endOfMonth
    ['2025-02-27T23:00:00.000Z', '1M', 1, true, '2025-03-30T22:00:00.000Z'],
    // anchor 2027-02-28 + 1Y = 2028-02-29 with endOfMonth
    ['2027-02-27T23:00:00.000Z', '1Y', 1, true, '2028-02-28T23:00:00.000Z'],
    // the flag changes nothing when the anchor is not the last day: Apr 29 + 1M = May 29
    ['2025-04-28T22:00:00.000Z', '1M', 1, true, '2025-05-28T22:00:00.000Z'],
  ])('%s + %s × %i (endOfMonth %s) = %s', (from, d, times, endOfMonth, expected) => {
    expect(addDuration(at(from), dur(d), times, BERLIN, { endOfMonth }).toISOString()).toBe(expected);
  });
});

describe('alignToBillingGroup', () => {
  const g = (type: BillingGroupRule['type'], customDay: number | null = null, customMonth: number | null = null): BillingGroupRule => ({ type, customDay, customMonth });
  it.each([
    // start 2025-04-10 14:30 CEST
    ['start_of_month', g('start_of_month'), '2025-04-10T12:30:00.000Z', BERLIN, '2025-04-30T22:00:00.000Z'], // May 1
    ['end_of_month', g('end_of_month'), '2025-04-10T12:30:00.000Z', BERLIN, '2025-04-29T22:00:00.000Z'], // Apr 30
    ['start_of_year', g('start_of_year'), '2025-04-10T12:30:00.000Z', BERLIN, '2025-12-31T23:00:00.000Z'], // 2026-01-01
    ['end_of_year', g('end_of_year'), '2025-04-10T12:30:00.000Z', BERLIN, '2025-12-30T23:00:00.000Z'], // 2025-12-31
    ['custom day 15', g('custom', 15), '2025-04-10T12:30:00.000Z', BERLIN, '2025-04-14T22:00:00.000Z'], // Apr 15
    ['custom day 5', g('custom', 5), '2025-04-10T12:30:00.000Z', BERLIN, '2025-05-04T22:00:00.000Z'], // May 5
    ['custom day 10 after 00:00 on the 10th', g('custom', 10), '2025-04-10T12:30:00.000Z', BERLIN, '2025-05-09T22:00:00.000Z'], // May 10
    ['custom day 31 in a 30-day month', g('custom', 31), '2025-04-10T12:30:00.000Z', BERLIN, '2025-04-29T22:00:00.000Z'], // Apr 30
    ['custom day 31 in November', g('custom', 31), '2025-11-05T12:00:00.000Z', BERLIN, '2025-11-29T23:00:00.000Z'], // Nov 30
    ['custom day 30 in February', g('custom', 30), '2025-02-10T12:00:00.000Z', BERLIN, '2025-02-27T23:00:00.000Z'], // Feb 28
    ['custom Jul 1 yearly', g('custom', 1, 7), '2025-04-10T12:30:00.000Z', BERLIN, '2025-06-30T22:00:00.000Z'], // 2025-07-01
    ['custom Mar 1 yearly (passed)', g('custom', 1, 3), '2025-04-10T12:30:00.000Z', BERLIN, '2026-02-28T23:00:00.000Z'], // 2026-03-01
    ['custom Feb 29 yearly in a non-leap year', g('custom', 29, 2), '2025-04-10T12:30:00.000Z', BERLIN, '2026-02-27T23:00:00.000Z'], // 2026-02-28
    ['custom Feb 29 yearly in a leap year', g('custom', 29, 2), '2027-04-10T12:30:00.000Z', BERLIN, '2028-02-28T23:00:00.000Z'], // 2028-02-29
    // exactly on a boundary: start itself
    ['start_of_month at 00:00 on the 1st', g('start_of_month'), '2025-04-30T22:00:00.000Z', BERLIN, '2025-04-30T22:00:00.000Z'],
    ['start_of_month 1 ms after 00:00 on the 1st', g('start_of_month'), '2025-04-30T22:00:00.001Z', BERLIN, '2025-05-31T22:00:00.000Z'],
    ['end_of_month at 00:00 on the last day', g('end_of_month'), '2025-04-29T22:00:00.000Z', BERLIN, '2025-04-29T22:00:00.000Z'],
    ['end_of_month later on the last day', g('end_of_month'), '2025-04-30T06:00:00.000Z', BERLIN, '2025-05-30T22:00:00.000Z'], // May 31
    ['start_of_year at 00:00 on Jan 1', g('start_of_year'), '2024-12-31T23:00:00.000Z', BERLIN, '2024-12-31T23:00:00.000Z'],
    ['end_of_year at noon on Dec 31', g('end_of_year'), '2025-12-31T11:00:00.000Z', BERLIN, '2026-12-30T23:00:00.000Z'], // 2026-12-31
    // other zones: the local date decides
    ['New York: Jan 31 22:00 local', g('start_of_month'), '2025-02-01T03:00:00.000Z', NEW_YORK, '2025-02-01T05:00:00.000Z'], // Feb 1 00:00 EST
    ['New York start_of_month in March', g('start_of_month'), '2025-03-15T12:00:00.000Z', NEW_YORK, '2025-04-01T04:00:00.000Z'], // Apr 1 00:00 EDT
    ['Kolkata: Apr 1 00:30 local', g('start_of_month'), '2025-03-31T19:00:00.000Z', KOLKATA, '2025-04-30T18:30:00.000Z'], // May 1 00:00 IST
    ['Kolkata: Apr 1 00:00 local exactly', g('start_of_month'), '2025-03-31T18:30:00.000Z', KOLKATA, '2025-03-31T18:30:00.000Z'],
    ['UTC end_of_month in a leap February', g('end_of_month'), '2024-02-10T08:00:00.000Z', UTC, '2024-02-29T00:00:00.000Z'],
  ])('%s', (_name, group, start, tz, expected) => {
    expect(alignToBillingGroup(at(start), group, tz).toISOString()).toBe(expected);
  });

  it.each([
    // custom day 31 anchored on Apr 30 keeps day 31 later on
    [g('custom', 31), '2025-04-29T22:00:00.000Z', 1, '2025-05-30T22:00:00.000Z'], // May 31
    [g('custom', 31), '2025-04-29T22:00:00.000Z', 2, '2025-06-29T22:00:00.000Z'], // Jun 30
    // custom day 30 anchored on Feb 28: Mar 30 (the DST day, 00:00 is still CET)
    [g('custom', 30), '2025-02-27T23:00:00.000Z', 1, '2025-03-29T23:00:00.000Z'],
    // custom Feb 29 yearly anchored on 2026-02-28: 2028-02-29
    [g('custom', 29, 2), '2026-02-27T23:00:00.000Z', 2, '2028-02-28T23:00:00.000Z'],
    // start_of_month needs nothing: May 1 + 1M = Jun 1
    [g('start_of_month'), '2025-04-30T22:00:00.000Z', 1, '2025-05-31T22:00:00.000Z'],
  ])('step options of %o: %s + %i periods = %s', (group, anchor, times, expected) => {
    const interval = group.customMonth === null ? dur('1M') : dur('1Y');
    expect(addDuration(at(anchor), interval, times, BERLIN, billingGroupStepOptions(group)).toISOString()).toBe(expected);
  });

  it.each([
    [g('custom')],
    [g('custom', 0)],
    [g('custom', 32)],
    [g('custom', 1, 13)],
    [{ type: 'weekly', customDay: null, customMonth: null } as unknown as BillingGroupRule],
  ])('rejects %o', (group) => {
    expect(() => alignToBillingGroup(at('2025-04-10T12:30:00.000Z'), group, BERLIN)).toThrow(RangeError);
  });
});

describe('periodAt', () => {
  const jan31 = at('2025-01-30T23:00:00.000Z'); // 2025-01-31 00:00 CET
  it.each([
    ['exactly on a boundary belongs to the new period', jan31, '1M', '2025-02-27T23:00:00.000Z', 1, '2025-02-27T23:00:00.000Z', '2025-03-30T22:00:00.000Z'],
    ['1 ms before the boundary', jan31, '1M', '2025-02-27T22:59:59.999Z', 0, '2025-01-30T23:00:00.000Z', '2025-02-27T23:00:00.000Z'],
    ['the anchor itself', jan31, '1M', '2025-01-30T23:00:00.000Z', 0, '2025-01-30T23:00:00.000Z', '2025-02-27T23:00:00.000Z'],
    ['before the anchor → period 0', jan31, '1M', '2024-12-01T00:00:00.000Z', 0, '2025-01-30T23:00:00.000Z', '2025-02-27T23:00:00.000Z'],
    // index 1200 of a monthly plan = 100 years: 2125-01-31 00:00 CET to 2125-02-28 (2125 is no leap year)
    ['far future: index 1200 of Jan 31 monthly', jan31, '1M', '2125-02-10T12:00:00.000Z', 1200, '2125-01-30T23:00:00.000Z', '2125-02-27T23:00:00.000Z'],
    ['far future: on boundary 1200', jan31, '1M', '2125-01-30T23:00:00.000Z', 1200, '2125-01-30T23:00:00.000Z', '2125-02-27T23:00:00.000Z'],
    ['far future: just before boundary 1200', jan31, '1M', '2125-01-30T22:59:59.999Z', 1199, '2124-12-30T23:00:00.000Z', '2125-01-30T23:00:00.000Z'],
    // 2025-01-15 00:00 CET monthly, index 1200 = 2125-01-15
    ['far future: index 1200 of Jan 15 monthly', at('2025-01-14T23:00:00.000Z'), '1M', '2125-02-01T12:00:00.000Z', 1200, '2125-01-14T23:00:00.000Z', '2125-02-14T23:00:00.000Z'],
    // 2025-01-01 daily: +3650 days = 2034-12-30 (leap days 2028-02-29, 2032-02-29)
    ['daily, index 3650', at('2024-12-31T23:00:00.000Z'), '1D', '2034-12-30T11:00:00.000Z', 3650, '2034-12-29T23:00:00.000Z', '2034-12-30T23:00:00.000Z'],
    // every 2 weeks from Mon 2025-01-06: Jan 6, 20, Feb 3, 17, Mar 3, 17, 31 (index 6), Apr 14
    ['two-weekly across DST', at('2025-01-05T23:00:00.000Z'), '2W', '2025-04-01T12:00:00.000Z', 6, '2025-03-30T22:00:00.000Z', '2025-04-13T22:00:00.000Z'],
    // yearly from Feb 29 2024: 2028 period
    ['yearly from Feb 29', at('2024-02-28T23:00:00.000Z'), '1Y', '2028-06-01T00:00:00.000Z', 4, '2028-02-28T23:00:00.000Z', '2029-02-27T23:00:00.000Z'],
  ])('%s', (_name, anchor, d, instant, index, start, end) => {
    expect(periodIso(periodAt(anchor, dur(d), at(instant), BERLIN))).toEqual({ index, start, end });
  });

  it('Kolkata: boundary instant', () => {
    // monthly from 2025-01-31 00:00 IST; Mar 31 00:00 IST = 2025-03-30T18:30Z starts period 2
    expect(periodIso(periodAt(at('2025-01-30T18:30:00.000Z'), dur('1M'), at('2025-03-30T18:30:00.000Z'), KOLKATA))).toEqual({
      index: 2,
      start: '2025-03-30T18:30:00.000Z',
      end: '2025-04-29T18:30:00.000Z',
    });
  });

  it('with end-of-month step options', () => {
    // anchor Apr 30 00:00 CEST, endOfMonth: period 1 = [May 31, Jun 30)
    expect(periodIso(periodAt(at('2025-04-29T22:00:00.000Z'), dur('1M'), at('2025-06-10T00:00:00.000Z'), BERLIN, { endOfMonth: true }))).toEqual({
      index: 1,
      start: '2025-05-30T22:00:00.000Z',
      end: '2025-06-29T22:00:00.000Z',
    });
  });

  it('rejects a zero interval', () => {
    expect(() => periodAt(jan31, { years: 0, months: 0, weeks: 0, days: 0 }, at('2025-06-01T00:00:00.000Z'), BERLIN)).toThrow(RangeError);
  });
});

describe('periodsBetween', () => {
  const jan31 = at('2025-01-30T23:00:00.000Z');
  it.each([
    [
      'starts in March to June',
      '2025-03-01T00:00:00.000Z',
      '2025-07-01T00:00:00.000Z',
      [
        [2, '2025-03-30T22:00:00.000Z', '2025-04-29T22:00:00.000Z'],
        [3, '2025-04-29T22:00:00.000Z', '2025-05-30T22:00:00.000Z'],
        [4, '2025-05-30T22:00:00.000Z', '2025-06-29T22:00:00.000Z'],
        [5, '2025-06-29T22:00:00.000Z', '2025-07-30T22:00:00.000Z'],
      ],
    ],
    [
      'from inclusive, to exclusive',
      '2025-02-27T23:00:00.000Z',
      '2025-04-29T22:00:00.000Z',
      [
        [1, '2025-02-27T23:00:00.000Z', '2025-03-30T22:00:00.000Z'],
        [2, '2025-03-30T22:00:00.000Z', '2025-04-29T22:00:00.000Z'],
      ],
    ],
    [
      'from before the anchor',
      '2024-01-01T00:00:00.000Z',
      '2025-03-01T00:00:00.000Z',
      [
        [0, '2025-01-30T23:00:00.000Z', '2025-02-27T23:00:00.000Z'],
        [1, '2025-02-27T23:00:00.000Z', '2025-03-30T22:00:00.000Z'],
      ],
    ],
    ['no start inside the range', '2025-03-01T00:00:00.000Z', '2025-03-30T22:00:00.000Z', []],
    ['empty range', '2025-06-01T00:00:00.000Z', '2025-06-01T00:00:00.000Z', []],
    ['reversed range', '2025-07-01T00:00:00.000Z', '2025-03-01T00:00:00.000Z', []],
  ])('%s', (_name, from, to, expected) => {
    const got = periodsBetween(jan31, dur('1M'), at(from), at(to), BERLIN).map(periodIso);
    expect(got).toEqual((expected as [number, string, string][]).map(([index, start, end]) => ({ index, start, end })));
  });

  it('daily across both DST changes of 2025', () => {
    // anchor 2025-03-29 00:00 CET, billing run from Mar 29 to Apr 1 (Berlin)
    const got = periodsBetween(at('2025-03-28T23:00:00.000Z'), dur('1D'), at('2025-03-28T23:00:00.000Z'), at('2025-03-31T22:00:00.000Z'), BERLIN).map(periodIso);
    expect(got).toEqual([
      { index: 0, start: '2025-03-28T23:00:00.000Z', end: '2025-03-29T23:00:00.000Z' },
      { index: 1, start: '2025-03-29T23:00:00.000Z', end: '2025-03-30T22:00:00.000Z' },
      { index: 2, start: '2025-03-30T22:00:00.000Z', end: '2025-03-31T22:00:00.000Z' },
    ]);
    // the same anchor, Oct 25 to Oct 28 (indexes 210..212: Mar 29 + 210 days = Oct 25)
    const autumn = periodsBetween(at('2025-03-28T23:00:00.000Z'), dur('1D'), at('2025-10-24T22:00:00.000Z'), at('2025-10-27T23:00:00.000Z'), BERLIN).map(periodIso);
    expect(autumn).toEqual([
      { index: 210, start: '2025-10-24T22:00:00.000Z', end: '2025-10-25T22:00:00.000Z' },
      { index: 211, start: '2025-10-25T22:00:00.000Z', end: '2025-10-26T23:00:00.000Z' },
      { index: 212, start: '2025-10-26T23:00:00.000Z', end: '2025-10-27T23:00:00.000Z' },
    ]);
  });

  it.each([
    [5, 5],
    [undefined, 1000],
  ])('max %s caps the list at %i', (max, expectedLength) => {
    const got = periodsBetween(at('2024-12-31T23:00:00.000Z'), dur('1D'), at('2024-12-31T23:00:00.000Z'), at('2035-01-01T00:00:00.000Z'), BERLIN, max === undefined ? {} : { max });
    expect(got).toHaveLength(expectedLength);
    expect(got[0]?.start.toISOString()).toBe('2024-12-31T23:00:00.000Z');
  });
});

describe('contractTerm', () => {
  const start = at('2024-12-31T23:00:00.000Z'); // 2025-01-01 00:00 CET
  it.each([
    ['during the first term', '2025-09-30T10:00:00.000Z', 0, '2024-12-31T23:00:00.000Z', '2025-12-31T23:00:00.000Z'],
    ['exactly at the renewal', '2025-12-31T23:00:00.000Z', 1, '2025-12-31T23:00:00.000Z', '2026-12-31T23:00:00.000Z'],
    ['in the second term', '2026-03-01T00:00:00.000Z', 1, '2025-12-31T23:00:00.000Z', '2026-12-31T23:00:00.000Z'],
    ['before the contract start', '2024-06-01T00:00:00.000Z', 0, '2024-12-31T23:00:00.000Z', '2025-12-31T23:00:00.000Z'],
  ])('12M contract, %s', (_name, now, index, termStart, termEnd) => {
    expect(periodIso(contractTerm(start, dur('12M'), at(now), BERLIN))).toEqual({ index, start: termStart, end: termEnd });
  });

  it('no contract period: open-ended', () => {
    expect(periodIso(contractTerm(start, null, at('2030-01-01T00:00:00.000Z'), BERLIN))).toEqual({ index: 0, start: '2024-12-31T23:00:00.000Z', end: null });
  });
});

describe('nextPossibleCancellationDates', () => {
  const contractStart = at('2024-12-31T23:00:00.000Z'); // 2025-01-01 00:00 CET
  it.each([
    // 12M contract, 3M notice: the deadline for 2026-01-01 is 2025-10-01 00:00 CEST = 2025-09-30T22:00Z
    ['on 2025-09-30 (before the deadline)', '12M', '3M', '2025-09-30T10:00:00.000Z', 3, ['2025-12-31T23:00:00.000Z', '2026-12-31T23:00:00.000Z', '2027-12-31T23:00:00.000Z']],
    ['exactly at the deadline', '12M', '3M', '2025-09-30T22:00:00.000Z', 1, ['2025-12-31T23:00:00.000Z']],
    ['1 ms after the deadline', '12M', '3M', '2025-09-30T22:00:00.001Z', 1, ['2026-12-31T23:00:00.000Z']],
    ['on 2025-10-02 (after the deadline)', '12M', '3M', '2025-10-02T10:00:00.000Z', 3, ['2026-12-31T23:00:00.000Z', '2027-12-31T23:00:00.000Z', '2028-12-31T23:00:00.000Z']],
    ['in the third term', '12M', '3M', '2027-05-01T00:00:00.000Z', 2, ['2027-12-31T23:00:00.000Z', '2028-12-31T23:00:00.000Z']],
    ['before the contract start', '12M', '3M', '2024-06-01T00:00:00.000Z', 1, ['2025-12-31T23:00:00.000Z']],
    // 1M contract, 3M notice, on 2025-02-15: ends Jun 1 (deadline Mar 1), Jul 1, Aug 1
    ['notice longer than the contract period', '1M', '3M', '2025-02-15T12:00:00.000Z', 3, ['2025-05-31T22:00:00.000Z', '2025-06-30T22:00:00.000Z', '2025-07-31T22:00:00.000Z']],
    // 12M contract without notice: the term end itself, as long as it lies after now
    ['no cancellation period, just before the end', '12M', null, '2025-12-31T22:59:59.999Z', 2, ['2025-12-31T23:00:00.000Z', '2026-12-31T23:00:00.000Z']],
    ['no cancellation period, at the end', '12M', null, '2025-12-31T23:00:00.000Z', 1, ['2026-12-31T23:00:00.000Z']],
  ])('%s', (_name, contractPeriod, cancellationPeriod, now, count, expected) => {
    const got = nextPossibleCancellationDates({
      contractStart,
      contractPeriod: dur(contractPeriod),
      cancellationPeriod: cancellationPeriod === null ? null : dur(cancellationPeriod),
      now: at(now),
      count,
      timeZone: BERLIN,
    });
    expect(got.map(isoOf)).toEqual(expected);
  });

  it('defaults to 3 dates', () => {
    const got = nextPossibleCancellationDates({ contractStart, contractPeriod: dur('1Y'), cancellationPeriod: dur('1M'), now: at('2025-03-01T00:00:00.000Z'), timeZone: BERLIN });
    expect(got.map(isoOf)).toEqual(['2025-12-31T23:00:00.000Z', '2026-12-31T23:00:00.000Z', '2027-12-31T23:00:00.000Z']);
  });

  it.each([
    // now 2025-03-10 15:45 CET
    ['1M notice', '1M', '2025-04-10T13:45:00.000Z'], // Apr 10 15:45 CEST
    ['14D notice', '14D', '2025-03-24T14:45:00.000Z'], // Mar 24 15:45 CET
    ['no notice', null, '2025-03-10T14:45:00.000Z'], // now
  ])('no contract period, %s: one date', (_name, cancellationPeriod, expected) => {
    const got = nextPossibleCancellationDates({
      contractStart,
      contractPeriod: null,
      cancellationPeriod: cancellationPeriod === null ? null : dur(cancellationPeriod),
      now: at('2025-03-10T14:45:00.000Z'),
      count: 3,
      timeZone: BERLIN,
    });
    expect(got.map(isoOf)).toEqual([expected]);
  });

  it('New York contract: deadline in local time', () => {
    // contract from 2025-01-01 00:00 EST (05:00Z), 12M, 3M: deadline 2025-10-01 00:00 EDT = 04:00Z
    const input = { contractStart: at('2025-01-01T05:00:00.000Z'), contractPeriod: dur('12M'), cancellationPeriod: dur('3M'), count: 1, timeZone: NEW_YORK };
    expect(nextPossibleCancellationDates({ ...input, now: at('2025-10-01T03:59:59.999Z') }).map(isoOf)).toEqual(['2026-01-01T05:00:00.000Z']);
    expect(nextPossibleCancellationDates({ ...input, now: at('2025-10-01T04:00:00.001Z') }).map(isoOf)).toEqual(['2027-01-01T05:00:00.000Z']);
  });
});

describe('prorationFactor', () => {
  it.each([
    // April 2025 in Berlin (30 days), used Apr 16 – May 1
    ['half a 30-day month', BERLIN, ['2025-03-31T22:00:00.000Z', '2025-04-30T22:00:00.000Z'], ['2025-04-15T22:00:00.000Z', '2025-04-30T22:00:00.000Z'], 15, 30, '0.5'],
    // January 2025 (31 days), used Jan 1 – Jan 11
    ['10 days of a 31-day month', BERLIN, ['2024-12-31T23:00:00.000Z', '2025-01-31T23:00:00.000Z'], ['2024-12-31T23:00:00.000Z', '2025-01-10T23:00:00.000Z'], 10, 31, '0.3225806451612903225806451612903225806452'],
    // March 2025 (31 days, one of them 23 hours), used Mar 16 – Apr 1
    ['across spring-forward', BERLIN, ['2025-02-28T23:00:00.000Z', '2025-03-31T22:00:00.000Z'], ['2025-03-15T23:00:00.000Z', '2025-03-31T22:00:00.000Z'], 16, 31, '0.5161290322580645161290322580645161290323'],
    // October 2025 (31 days, one of them 25 hours), used Oct 20 – Oct 30
    ['across fall-back', BERLIN, ['2025-09-30T22:00:00.000Z', '2025-10-31T23:00:00.000Z'], ['2025-10-19T22:00:00.000Z', '2025-10-29T23:00:00.000Z'], 10, 31, '0.3225806451612903225806451612903225806452'],
    // the DST day alone counts as one day of 31
    ['only the 25-hour day', BERLIN, ['2025-09-30T22:00:00.000Z', '2025-10-31T23:00:00.000Z'], ['2025-10-25T22:00:00.000Z', '2025-10-26T23:00:00.000Z'], 1, 31, '0.03225806451612903225806451612903225806452'],
    // used starts mid-day (Apr 10 10:00 CEST): Apr 10 counts, 21 days
    ['a change mid-day counts that day for the new state', BERLIN, ['2025-03-31T22:00:00.000Z', '2025-04-30T22:00:00.000Z'], ['2025-04-10T08:00:00.000Z', '2025-05-15T00:00:00.000Z'], 21, 30, '0.7'],
    ['the whole period', BERLIN, ['2025-03-31T22:00:00.000Z', '2025-04-30T22:00:00.000Z'], ['2025-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'], 30, 30, '1'],
    ['nothing used', BERLIN, ['2025-03-31T22:00:00.000Z', '2025-04-30T22:00:00.000Z'], ['2025-05-01T00:00:00.000Z', '2025-06-01T00:00:00.000Z'], 0, 30, '0'],
    // year 2024 (366 days), used Jul 1 – Jan 1 (184 days)
    ['half of a leap year', BERLIN, ['2023-12-31T23:00:00.000Z', '2024-12-31T23:00:00.000Z'], ['2024-06-30T22:00:00.000Z', '2024-12-31T23:00:00.000Z'], 184, 366, '0.5027322404371584699453551912568306010929'],
    // February 2025 in Kolkata (28 days), used Feb 15 – Mar 1
    ['Kolkata half February', KOLKATA, ['2025-01-31T18:30:00.000Z', '2025-02-28T18:30:00.000Z'], ['2025-02-14T18:30:00.000Z', '2025-02-28T18:30:00.000Z'], 14, 28, '0.5'],
    // March 2025 in New York (DST Mar 9), used Mar 1 – Mar 11 (10 days)
    ['New York across DST', NEW_YORK, ['2025-03-01T05:00:00.000Z', '2025-04-01T04:00:00.000Z'], ['2025-03-01T05:00:00.000Z', '2025-03-11T04:00:00.000Z'], 10, 31, '0.3225806451612903225806451612903225806452'],
    // a quarter in UTC: 2025-01-01 – 2025-04-01 = 90 days, 30 used
    ['UTC quarter', UTC, ['2025-01-01T00:00:00.000Z', '2025-04-01T00:00:00.000Z'], ['2025-02-01T00:00:00.000Z', '2025-03-03T00:00:00.000Z'], 30, 90, '0.3333333333333333333333333333333333333333'],
  ])('%s', (_name, tz, [ps, pe], [us, ue], usedDays, periodDays, factor) => {
    expect(prorationFactor({ start: at(ps as string), end: at(pe as string) }, { start: at(us as string), end: at(ue as string) }, tz)).toEqual({ usedDays, periodDays, factor });
  });

  it('rejects an empty period', () => {
    expect(() => prorationFactor({ start: at('2025-04-01T00:00:00.000Z'), end: at('2025-04-01T00:00:00.000Z') }, { start: at('2025-04-01T00:00:00.000Z'), end: at('2025-04-01T00:00:00.000Z') }, BERLIN)).toThrow(RangeError);
  });

  it.each([
    ['2025-03-29T23:00:00.000Z', '2025-03-30T22:00:00.000Z', 1], // the 23-hour day
    ['2025-10-25T22:00:00.000Z', '2025-10-26T23:00:00.000Z', 1], // the 25-hour day
    ['2025-01-01T00:30:00.000Z', '2025-01-01T22:00:00.000Z', 0], // same local day
    ['2024-12-31T22:59:59.999Z', '2024-12-31T23:00:00.000Z', 1], // Dec 31 23:59:59.999 → Jan 1 00:00
  ])('localDaysBetween(%s, %s) = %i in Berlin', (from, to, expected) => {
    expect(localDaysBetween(at(from), at(to), BERLIN)).toBe(expected);
  });
});

describe('trialEnd', () => {
  it.each([
    ['2025-03-19T23:00:00.000Z', 14, BERLIN, '2025-04-02T22:00:00.000Z'], // Mar 20 00:00 CET + 14 = Apr 3 00:00 CEST
    ['2025-10-20T07:15:00.000Z', 30, BERLIN, '2025-11-19T08:15:00.000Z'], // Oct 20 09:15 CEST + 30 = Nov 19 09:15 CET
    ['2025-03-19T23:00:00.000Z', 0, BERLIN, '2025-03-19T23:00:00.000Z'],
    ['2025-02-20T10:00:00.000Z', 10, UTC, '2025-03-02T10:00:00.000Z'],
    ['2025-03-01T05:00:00.000Z', 14, NEW_YORK, '2025-03-15T04:00:00.000Z'], // Mar 1 00:00 EST + 14 = Mar 15 00:00 EDT
    ['2025-02-20T18:30:00.000Z', 7, KOLKATA, '2025-02-27T18:30:00.000Z'],
  ])('%s + %i days (%s) = %s', (start, days, tz, expected) => {
    expect(trialEnd(at(start), days, tz).toISOString()).toBe(expected);
  });

  it.each([[-1], [1.5]])('rejects %s days', (days) => {
    expect(() => trialEnd(at('2025-03-19T23:00:00.000Z'), days, BERLIN)).toThrow(RangeError);
  });
});

describe('input checks', () => {
  it('rejects an unknown time zone', () => {
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(() => addDuration(at('2025-01-01T00:00:00.000Z'), dur('1M'), 1, 'Mars/Olympus')).toThrow(RangeError);
  });
  it('rejects a non-integer times and an invalid date', () => {
    expect(() => addDuration(at('2025-01-01T00:00:00.000Z'), dur('1M'), 0.5, BERLIN)).toThrow(RangeError);
    expect(() => addDuration(new Date(Number.NaN), dur('1M'), 1, BERLIN)).toThrow(RangeError);
  });
});
