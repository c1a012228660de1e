import { describe, expect, it } from 'vitest';
import { parseEurofxref } from '../../src/billing/ecb';
import { ecbDailyFeed, ecb90DayHistory } from '../fixtures/feeds';

describe('parseEurofxref', () => {
  it('reads the daily feed (single quotes, original ECB layout)', () => {
    const rates = parseEurofxref(ecbDailyFeed);
    expect(rates).toHaveLength(32);
    expect(rates.find((r) => r.currency === 'USD')).toEqual({ date: '2014-06-10', currency: 'USD', rate: '1.3547' });
    expect(rates.find((r) => r.currency === 'GBP')).toEqual({ date: '2014-06-10', currency: 'GBP', rate: '0.80750' });
  });

  it('reads a 90-day history (double quotes) with one entry per day and currency', () => {
    const rates = parseEurofxref(ecb90DayHistory);
    const days = new Set(rates.map((r) => r.date));
    expect(days.size).toBe(62);
    expect(rates.find((r) => r.date === '2014-06-13' && r.currency === 'USD')?.rate).toBe('1.3534');
    expect(new Set(rates.map((r) => `${r.date}/${r.currency}`)).size).toBe(rates.length);
  });

  it.each([
    ['no rates', '<Envelope><Cube></Cube></Envelope>'],
    ['a malformed rate', "<Cube><Cube time='2020-01-01'><Cube currency='USD' rate='1.2.3'/></Cube></Cube>"],
  ])('refuses %s', (_name, xml) => {
    expect(() => parseEurofxref(xml)).toThrow(RangeError);
  });
});
