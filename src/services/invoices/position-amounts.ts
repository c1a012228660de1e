// Display amounts of invoice positions (docs/decisions.md, Invoices and billing, "Positions").
// Pure: no I/O. The document's tax is EN16931's, per (category, rate) on the sum of the line nets,
// rounded once per group; a position's tax is that group tax shared out over the group's lines, so
// position taxes add up to the document's tax and position grosses to its gross, to the cent.
import { Dec } from '../../billing/money';

export interface TaxedLine {
  kind: string;
  /** Minor units, after the line's discount. */
  netAmount: number;
  taxRate: string;
  taxCategory: string;
}

/**
 * Each position's share of its group's tax, in minor units (headers 0). Largest remainder: every
 * line first gets its exact share (net × rate / 100) rounded down, then the minor units still
 * missing to the group's tax (rounded half-up once, as the totals) go one each to the lines with
 * the largest cut-off fractions (the earlier line on a tie). So each line is within one minor unit
 * of its exact share, a group of one line carries the group tax, and the shares sum to the total.
 */
export function positionTaxes(lines: readonly TaxedLine[]): number[] {
  const out = lines.map(() => 0);
  const groups = new Map<string, number[]>();
  lines.forEach((l, i) => {
    if (l.kind === 'header') return;
    const key = `${l.taxCategory}|${new Dec(l.taxRate).toString()}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  for (const members of groups.values()) {
    const rate = new Dec(lines[members[0]!]!.taxRate).div(100);
    const exact = members.map((i) => new Dec(lines[i]!.netAmount).times(rate));
    const total = exact.reduce((sum, e) => sum.plus(e), new Dec(0)).toDecimalPlaces(0, Dec.ROUND_HALF_UP);
    const base = exact.map((e) => e.floor());
    let missing = total.minus(base.reduce((sum, b) => sum.plus(b), new Dec(0))).toNumber();
    const byFraction = members.map((_, k) => k).sort((a, b) => exact[b]!.minus(base[b]!).comparedTo(exact[a]!.minus(base[a]!)) || a - b);
    members.forEach((i, k) => (out[i] = base[k]!.toNumber()));
    for (const k of byFraction) {
      if (missing <= 0) break;
      const i = members[k]!;
      out[i] = out[i]! + 1;
      missing -= 1;
    }
  }
  return out;
}
