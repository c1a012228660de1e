import { describe, expect, it } from 'vitest';
import { positionTaxes, type TaxedLine } from '../../src/services/invoices/position-amounts';

const l = (netAmount: number, taxRate = '19', taxCategory = 'S', kind = 'manual'): TaxedLine => ({ netAmount, taxRate, taxCategory, kind });

describe('positionTaxes', () => {
  it('shares a group tax out so the lines add up to it (largest remainder, earlier line first on a tie)', () => {
    // 3 × 0.35 at 19 %: each exact share 6.65 cents; the group tax is 105 × 0.19 = 19.95 → 20 cents.
    // Floors 6 + 6 + 6 = 18; the 2 missing cents go to the first two lines (equal fractions .65).
    expect(positionTaxes([l(35), l(35), l(35)])).toEqual([7, 7, 6]);
  });

  it('gives the line with the larger cut-off fraction the missing unit', () => {
    // 10.01 and 0.04 at 19 %: exact 190.19 and 0.76 cents; group 1005 × 0.19 = 190.95 → 191.
    // Floors 190 + 0 = 190; the missing cent goes to the 0.76 line (fraction .76 > .19).
    expect(positionTaxes([l(1001), l(4)])).toEqual([190, 1]);
  });

  it('keeps tax groups apart, gives headers nothing and handles credit lines (negative nets)', () => {
    // 19 %: 1543 × 0.19 = 293.17 → 293 on its own; 7 %: 500 × 0.07 = 35.
    // A credit group: −35 and −35 at 19 %: exact −6.65 each, floors −7 and −7 (−14); the group tax
    // is −70 × 0.19 = −13.3 → −13 (half-up away from zero only at .5): one unit back to the first line.
    expect(positionTaxes([l(0, '0', 'O', 'header'), l(1543), l(500, '7'), l(0, '0', 'Z')])).toEqual([0, 293, 35, 0]);
    expect(positionTaxes([l(-35), l(-35)])).toEqual([-6, -7]);
  });

  it('sums to the EN16931 group tax on every sample', () => {
    // 1.05 at 19 % in 1-cent lines: the group tax 105 × 0.19 = 19.95 → 20, each line 0 or 1.
    const lines = Array.from({ length: 105 }, () => l(1));
    const taxes = positionTaxes(lines);
    expect(taxes.reduce((a, b) => a + b, 0)).toBe(20);
    expect(new Set(taxes)).toEqual(new Set([0, 1]));
  });
});
