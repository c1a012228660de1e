import { describe, expect, it } from 'vitest';
import { checkDecimal } from '../../src/billing/money';
import { decimalPattern, decimalString, timestamp, type DecimalRule } from '../../src/http/schemas';
import { illFormedString, nestedDeeperThan } from '../../src/http/json';
import { runInRequestScope } from '../../src/http/request-scope';

// The shared field schemas (src/http/schemas.ts) and the JSON body checks (src/http/json.ts).

const CANDIDATES = [
  '0', '00', '05', '05.00', '5', '5.', '.5', '5.0', '-0', '-5', '-05', '+5', '1e3', '1E3', ' 5', '5 ', '١٢', '0x10',
  '0.0000000001', '0.00000000001', '999999999999999', '1000000000000000', '100', '100.0001', '19.99', '1.23456', '', '-', '1.2.3',
];

describe('decimalString', () => {
  const rules: DecimalRule[] = [
    { scale: 10 },
    { scale: 4 },
    { scale: 10, signed: true },
    { scale: 4, integerDigits: 3 },
    { scale: 6, integerDigits: 9 },
  ];

  it.each(rules)('accepts exactly what checkDecimal accepts under the same limits (%j)', (rule) => {
    const schema = decimalString(rule.scale, rule);
    for (const v of CANDIDATES) {
      const byPattern = decimalPattern(rule).test(v);
      const bySchema = schema.safeParse(v).success;
      expect(bySchema, v).toBe(byPattern);
      // Everything the schema accepts, the domain parser accepts (the reverse only differs on "-0").
      if (bySchema) expect(checkDecimal(v, { maxDecimals: rule.scale, allowNegative: rule.signed ?? false, maxIntegerDigits: rule.integerDigits ?? 15 }), v).toBeNull();
    }
  });

  it('refuses leading zeros, which the domain parser refuses ("05.00", "07")', () => {
    expect(decimalString(4).safeParse('05.00').success).toBe(false);
    expect(checkDecimal('05.00')).not.toBeNull();
  });
});

describe('timestamp', () => {
  it('normalizes offsets to UTC in the stored form', () => {
    expect(timestamp.parse('2030-01-15T10:00:00+14:00')).toBe('2030-01-14T20:00:00.000Z');
    expect(timestamp.parse('2030-01-15T10:00:00Z')).toBe('2030-01-15T10:00:00.000Z');
    expect(timestamp.parse('2030-01-15T10:00:00.123456-02:30')).toBe('2030-01-15T12:30:00.123Z');
  });

  it('reads a wall time in the request scope time zone, and refuses it outside a scope', () => {
    expect(runInRequestScope({ timeZone: 'Asia/Tokyo' }, () => timestamp.parse('2030-01-15T09:00:00'))).toBe('2030-01-15T00:00:00.000Z');
    expect(runInRequestScope({ timeZone: 'UTC' }, () => timestamp.parse('2030-01-15T09:00'))).toBe('2030-01-15T09:00:00.000Z');
    expect(timestamp.safeParse('2030-01-15T09:00:00').success).toBe(false);
  });
});

describe('JSON body checks', () => {
  it('measures nesting on the text, ignoring brackets in strings and escaped quotes', () => {
    expect(nestedDeeperThan('[[[]]]', 3)).toBe(false);
    expect(nestedDeeperThan('[[[[]]]]', 3)).toBe(true);
    expect(nestedDeeperThan('{"a":"[[[[\\"[[[["}', 1)).toBe(false);
    expect(nestedDeeperThan('['.repeat(100_000), 64)).toBe(true);
  });

  it('finds lone surrogates in values and keys, and lets pairs through', () => {
    expect(illFormedString({ a: ['ok', 'b\ud800'] }, [])).toEqual(['a', 1]);
    expect(illFormedString({ ['k\udc00']: 1 }, [])).toEqual(['k\udc00']);
    expect(illFormedString({ a: '😀 \ud83d\ude00' }, [])).toBeUndefined();
  });
});
