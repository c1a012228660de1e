import Decimal from 'decimal.js';
import { describe, expect, it } from 'vitest';
import {
  checkDecimal,
  currencyScale,
  Dec,
  DecimalFormatError,
  formatDisplayAmount,
  formatMoney,
  fromMinorUnits,
  parseDecimal,
  parseUnitPrice,
  roundMoney,
  toDecimalString,
  toMinorUnits,
  toMinorUnitsSafe,
} from '../../src/billing/money';

describe('parseDecimal', () => {
  it.each([
    ['0', '0'],
    ['12.50', '12.5'],
    ['-3.2', '-3.2'],
    ['-0', '0'],
    ['-0.000', '0'],
    ['0.0000000001', '0.0000000001'],
    ['123456789012345678', '123456789012345678'],
    ['0.123456789012345678901234567890', '0.12345678901234567890123456789'],
  ])('%s → %s', (input, expected) => {
    expect(toDecimalString(parseDecimal(input))).toBe(expected);
  });

  it.each([
    ['1e5', 'invalid_decimal'],
    ['1E-5', 'invalid_decimal'],
    ['NaN', 'invalid_decimal'],
    ['Infinity', 'invalid_decimal'],
    ['-Infinity', 'invalid_decimal'],
    ['', 'invalid_decimal'],
    [' 1', 'invalid_decimal'],
    ['1 ', 'invalid_decimal'],
    ['+1', 'invalid_decimal'],
    ['.5', 'invalid_decimal'],
    ['5.', 'invalid_decimal'],
    ['01', 'invalid_decimal'],
    ['1,5', 'invalid_decimal'],
    ['0x10', 'invalid_decimal'],
    ['1.2.3', 'invalid_decimal'],
    ['--1', 'invalid_decimal'],
    ['1234567890123456789', 'too_large'],
  ])('rejects %j (%s)', (input, code) => {
    expect(checkDecimal(input)?.code).toBe(code);
    expect(() => parseDecimal(input)).toThrow(DecimalFormatError);
  });

  it.each([[5], [null], [undefined], [{}], [['1']]])('rejects the non-string %j', (input) => {
    expect(checkDecimal(input)?.code).toBe('invalid_decimal');
  });

  it.each([
    ['-1', { allowNegative: false }, 'negative'],
    ['-0', { allowNegative: false }, null],
    ['1.234', { maxDecimals: 2 }, 'too_many_decimals'],
    ['1.23', { maxDecimals: 2 }, null],
    ['1000', { maxIntegerDigits: 3 }, 'too_large'],
    ['999.99', { maxIntegerDigits: 3 }, null],
  ])('%s with %j → %s', (input, options, code) => {
    expect(checkDecimal(input, options)?.code ?? null).toBe(code);
  });

  it.each([
    ['0.0000000001', '0.0000000001'],
    ['0.0125', '0.0125'],
    ['19.99', '19.99'],
  ])('parseUnitPrice accepts %s', (input, expected) => {
    expect(toDecimalString(parseUnitPrice(input))).toBe(expected);
  });

  it('parseUnitPrice rejects 11 decimals', () => {
    expect(() => parseUnitPrice('0.00000000001')).toThrow(/at most 10 decimals/);
  });
});

describe('Dec', () => {
  it('is a clone: the global Decimal configuration is untouched', () => {
    expect(Dec.precision).toBe(40);
    expect(Dec.rounding).toBe(Decimal.ROUND_HALF_UP);
    expect(Decimal.precision).toBe(20);
    expect(Decimal.toExpPos).toBe(21);
    expect(Decimal.toExpNeg).toBe(-7);
  });

  it.each([
    ['0.00001', '0.00001', '0.0000000001'],
    ['100000000000000000', '1000000', '100000000000000000000000'],
    ['0.1', '0.2', '0.02'],
  ])('%s × %s prints as %s, never in exponent notation', (a, b, expected) => {
    expect(toDecimalString(parseDecimal(a).times(parseDecimal(b)))).toBe(expected);
  });
});

describe('roundMoney and formatMoney', () => {
  it.each([
    ['119', 'EUR', '119.00'],
    ['119.5', 'EUR', '119.50'],
    ['0', 'EUR', '0.00'],
    ['2.345', 'EUR', '2.35'],
    ['2.344999', 'EUR', '2.34'],
    ['2.675', 'EUR', '2.68'],
    ['1.005', 'EUR', '1.01'],
    ['-2.345', 'EUR', '-2.35'],
    ['-0.004', 'EUR', '0.00'],
    ['0.004', 'EUR', '0.00'],
    ['0.005', 'EUR', '0.01'],
    ['1234.5', 'JPY', '1235'],
    ['1234.4999', 'JPY', '1234'],
    ['0.5', 'JPY', '1'],
    ['1.0005', 'KWD', '1.001'],
    ['1.00049', 'KWD', '1.000'],
    ['0.0005', 'KWD', '0.001'],
    ['0.125', 'CLF', '0.1250'],
    ['1000000000000.1', 'USD', '1000000000000.10'],
    ['99999999999999.995', 'EUR', '100000000000000.00'],
  ])('%s %s → %s', (amount, currency, expected) => {
    expect(formatMoney(amount, currency)).toEqual({ amount: expected, currencyCode: currency });
  });

  it.each([
    ['2.345', 'EUR', '2.35'],
    ['2.3', 'EUR', '2.3'],
    ['0.5', 'JPY', '1'],
    ['-0.5', 'JPY', '-1'],
    ['-0.004', 'EUR', '0'],
    ['1.23456', 'KWD', '1.235'],
  ])('roundMoney(%s, %s) = %s', (amount, currency, expected) => {
    expect(toDecimalString(roundMoney(amount, currency))).toBe(expected);
  });

  it('accepts a Decimal of the global constructor as input', () => {
    expect(formatMoney(new Decimal('7.125'), 'EUR').amount).toBe('7.13');
  });

  it.each([['XXX'], ['eur'], ['']])('rejects the currency %j', (code) => {
    expect(() => currencyScale(code)).toThrow(RangeError);
    expect(() => formatMoney('1', code)).toThrow(RangeError);
  });

  it('rejects exponent strings instead of guessing', () => {
    expect(() => formatMoney('1e2', 'EUR')).toThrow(DecimalFormatError);
  });
});

describe('minor units', () => {
  it.each([
    ['119.00', 'EUR', 11900n],
    ['119', 'EUR', 11900n],
    ['0.01', 'EUR', 1n],
    ['0', 'EUR', 0n],
    ['-5.5', 'EUR', -550n],
    ['1000', 'JPY', 1000n],
    ['1.234', 'KWD', 1234n],
    ['12.3456', 'CLF', 123456n],
    ['90071992547409.91', 'EUR', 9007199254740991n],
    ['123456789012345678.99', 'EUR', 12345678901234567899n],
  ])('toMinorUnits(%s, %s) = %s', (amount, currency, expected) => {
    expect(toMinorUnits(amount, currency)).toBe(expected);
  });

  it.each([
    ['1.005', 'EUR'],
    ['0.5', 'JPY'],
    ['1.2345', 'KWD'],
  ])('toMinorUnits(%s, %s) refuses to round implicitly', (amount, currency) => {
    expect(() => toMinorUnits(amount, currency)).toThrow(/roundMoney/);
  });

  it.each([
    ['90071992547409.91', 'EUR', 9007199254740991],
    ['-90071992547409.91', 'EUR', -9007199254740991],
    ['19.99', 'EUR', 1999],
  ])('toMinorUnitsSafe(%s, %s) = %i', (amount, currency, expected) => {
    expect(toMinorUnitsSafe(amount, currency)).toBe(expected);
  });

  it('toMinorUnitsSafe refuses integers beyond 2^53 - 1', () => {
    expect(() => toMinorUnitsSafe('90071992547409.92', 'EUR')).toThrow(/safe-integer/);
  });

  it.each([
    [11900n, 'EUR', '119'],
    [1, 'EUR', '0.01'],
    [-550, 'EUR', '-5.5'],
    [1234, 'KWD', '1.234'],
    [5, 'JPY', '5'],
    [0n, 'EUR', '0'],
    [9007199254740991, 'EUR', '90071992547409.91'],
    [12345678901234567899n, 'EUR', '123456789012345678.99'],
  ])('fromMinorUnits(%s, %s) = %s', (minor, currency, expected) => {
    expect(toDecimalString(fromMinorUnits(minor, currency))).toBe(expected);
  });

  it.each([[1.5], [2 ** 53], [Number.NaN], [Number.POSITIVE_INFINITY]])('fromMinorUnits rejects the number %s', (minor) => {
    expect(() => fromMinorUnits(minor, 'EUR')).toThrow(RangeError);
  });

  it('round-trips through minor units with the wire format', () => {
    expect(formatMoney(fromMinorUnits(toMinorUnits(roundMoney('10.005', 'EUR'), 'EUR'), 'EUR'), 'EUR')).toEqual({
      amount: '10.01',
      currencyCode: 'EUR',
    });
  });
});

describe('formatDisplayAmount (estimated-amount netAmount, as Fynn shows it)', () => {
  it.each([
    ['10', 'EUR', '10.00 €'],
    ['1234567.891', 'EUR', '1234567.89 €'],
    ['-5.5', 'EUR', '-5.50 €'],
    ['-0.004', 'EUR', '0.00 €'],
    ['24', 'USD', '24.00 $'],
    ['9.995', 'GBP', '10.00 £'],
    ['1234.5', 'JPY', '1235 ¥'],
    ['10', 'CHF', '10.00 CHF'],
    ['10', 'CAD', '10.00 CAD'],
    ['1.0005', 'KWD', '1.001 KWD'],
  ])('%s %s → %s', (amount, currency, expected) => {
    expect(formatDisplayAmount(amount, currency)).toBe(expected);
  });
});
