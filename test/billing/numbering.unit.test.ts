import { describe, expect, it } from 'vitest';
import { checkNumberFormat, formatNumber } from '../../src/billing/numbering';

describe('formatNumber', () => {
  const date = new Date('2026-12-31T23:30:00Z'); // already 2027-01-01 in Berlin
  it.each([
    // Fynn's default: ten digits, no year.
    ['RE-{number:10}', 1, 'Europe/Berlin', 'RE-0000000001'],
    ['RE-{yearLong}-{number:5}', 42, 'Europe/Berlin', 'RE-2027-00042'],
    ['RE-{yearLong}-{number:5}', 42, 'UTC', 'RE-2026-00042'],
    // Fynn: {year} is the two-digit year, {yearLong} the four-digit one.
    ['RE-{year}-{number:5}', 42, 'Europe/Berlin', 'RE-27-00042'],
    ['RE-{year}-{number:5}', 42, 'UTC', 'RE-26-00042'],
    ['{number}', 7, 'UTC', '7'],
    ['{number:3}', 12345, 'UTC', '12345'],
    ['INV/{yearLong}/{month}/{day}/{number:4}', 9, 'Europe/Berlin', 'INV/2027/01/01/0009'],
    ['{customerNumber}-{number:2}', 3, 'UTC', 'C-00010-03'],
  ])('%s with %i in %s → %s', (format, number, timeZone, expected) => {
    expect(formatNumber(format, { number, date, timeZone, customerNumber: 'C-00010' })).toBe(expected);
  });
});

describe('checkNumberFormat', () => {
  it.each([
    ['RE-{yearLong}-{number:5}', null],
    ['RE-{year}{month}{day}-{number:10}', null],
    ['{number}', null],
    ['RE-{year}', 'Must contain the placeholder {number} exactly once.'],
    ['{number}-{number}', 'Must contain the placeholder {number} exactly once.'],
    ['{number}-{week}', 'Unknown placeholder; use {number}, {yearLong}, {year}, {month}, {day} or {customerNumber}.'],
    ['{year:4}-{number}', 'Only {number} takes a padding width, not {year}.'],
    ['{yearLong:4}-{number}', 'Only {number} takes a padding width, not {yearLong}.'],
    ['{number:0}', 'The padding width must be 1 to 20.'],
    ['RE {number}', 'Literal text may only use letters, digits and - _ / . #'],
    ['', 'Must be 1 to 64 characters long.'],
  ])('%j → %j', (format, message) => {
    expect(checkNumberFormat(format)?.message ?? null).toBe(message);
  });
});
