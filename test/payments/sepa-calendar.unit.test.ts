import { describe, expect, it } from 'vitest';
import { easterSunday, isTargetBusinessDay, nextTargetBusinessDay, targetClosure } from '../../src/billing/sepa-calendar';

// The TARGET2 closing days as the ECB publishes them: weekends, 1 January, Good Friday, Easter
// Monday, 1 May, 25 and 26 December. Easter dates from the published tables (e.g. timeanddate.com).

describe('TARGET calendar', () => {
  it.each([
    [2024, '2024-03-31'],
    [2025, '2025-04-20'],
    [2026, '2026-04-05'],
    [2027, '2027-03-28'],
    [2028, '2028-04-16'],
    [2038, '2038-04-25'],
    [2285, '2285-03-22'],
  ])('Easter %i is %s', (year, day) => expect(easterSunday(year)).toBe(day));

  it.each([
    ['2026-11-23', null, 'a Monday'],
    ['2026-11-28', 'weekend', 'a Saturday'],
    ['2026-11-29', 'weekend', 'a Sunday'],
    ['2027-01-01', 'holiday', 'New Year (a Friday)'],
    ['2026-04-03', 'holiday', 'Good Friday 2026'],
    ['2026-04-06', 'holiday', 'Easter Monday 2026'],
    ['2027-03-26', 'holiday', 'Good Friday 2027'],
    ['2027-03-29', 'holiday', 'Easter Monday 2027'],
    ['2026-05-01', 'holiday', 'Labour Day (a Friday)'],
    ['2026-12-24', null, 'Christmas Eve: open'],
    ['2026-12-25', 'holiday', 'Christmas Day'],
    ['2026-12-28', null, 'the Monday after Christmas'],
    ['2027-12-26', 'weekend', 'Boxing Day on a Sunday is a weekend day first'],
    ['2026-12-31', null, "New Year's Eve: open"],
    ['2026-10-03', 'weekend', 'German Unity Day 2026 (a Saturday)'],
    ['2025-10-03', null, 'German Unity Day is no TARGET holiday'],
  ] as [string, 'weekend' | 'holiday' | null, string][])('%s: %s (%s)', (day, closure) => {
    expect(targetClosure(day)).toBe(closure);
    expect(isTargetBusinessDay(day)).toBe(closure === null);
  });

  it.each([
    ['2026-11-23', '2026-11-24', 'Monday → Tuesday'],
    ['2026-11-27', '2026-11-30', 'Friday → Monday'],
    ['2026-11-28', '2026-11-30', 'Saturday → Monday'],
    ['2026-12-24', '2026-12-28', 'over Christmas and a Sunday'],
    ['2026-12-31', '2027-01-04', 'over New Year and a weekend'],
    ['2026-04-02', '2026-04-07', 'over Easter'],
    ['2026-04-30', '2026-05-04', 'over 1 May and a weekend'],
  ])('the next business day after %s is %s (%s)', (day, next) => expect(nextTargetBusinessDay(day)).toBe(next));

  it('refuses what is not a calendar date', () => {
    expect(() => targetClosure('2026-02-30')).toThrow(RangeError);
    expect(() => nextTargetBusinessDay('2026-1-5')).toThrow(RangeError);
  });
});
