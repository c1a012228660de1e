import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/billing/durations';

describe('parseDuration', () => {
  it.each([
    ['14D', { years: 0, months: 0, weeks: 0, days: 14 }],
    ['2W', { years: 0, months: 0, weeks: 2, days: 0 }],
    ['1M', { years: 0, months: 1, weeks: 0, days: 0 }],
    ['1Y6M', { years: 1, months: 6, weeks: 0, days: 0 }],
    ['1Y2M3W4D', { years: 1, months: 2, weeks: 3, days: 4 }],
  ])('%s', (text, expected) => {
    expect(parseDuration(text)).toEqual(expected);
    expect(formatDuration(expected)).toBe(text);
  });

  it.each(['', '0M', '0Y0M', 'M', '1m', '6M1Y', 'P1M', '1.5M', '-1M', '1M ', '12345D', '1X'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});
