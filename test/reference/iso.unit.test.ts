import { describe, expect, it } from 'vitest';
import { CURRENCY_MINOR_UNITS, isCountryCode, isCurrencyCode, isTimeZone } from '../../src/reference/iso';

describe('reference data', () => {
  it.each([
    ['DE', true],
    ['GR', true],
    ['XK', false],
    ['de', false],
    ['EU', false],
    ['DEU', false],
  ])('country %s → %s', (code, ok) => expect(isCountryCode(code)).toBe(ok));

  it.each([
    ['EUR', 2],
    ['JPY', 0],
    ['KWD', 3],
    ['CLF', 4],
    ['USD', 2],
  ])('currency %s has %i minor digits', (code, digits) => expect(CURRENCY_MINOR_UNITS.get(code)).toBe(digits));

  it.each(['DEM', 'eur', 'EURO', 'XXX'])('rejects currency %s', (code) => expect(isCurrencyCode(code)).toBe(false));

  it.each([
    ['Europe/Berlin', true],
    ['America/Argentina/Buenos_Aires', true],
    ['UTC', true],
    ['Mars/Base', false],
    ['+02:00', false],
    ['Europe/Berlin/../x', false],
  ])('time zone %s → %s', (zone, ok) => expect(isTimeZone(zone)).toBe(ok));
});
