import { positionTotals } from '../../billing/invoice-totals';
import { Dec, formatMoney, fromMinorUnits, toMinorUnitsSafe } from '../../billing/money';
import { ApiError } from '../../http/errors';
import { newId } from '../../lib/ids';
import type { ServiceContext } from '../context';
import { earlierCredits, groupKey, restOf, taxableByGroup } from './credits';
import { finalizeInvoice } from './finalize';
import { money } from './operations';
import { loadInvoice } from './read';
import type { InvoiceAggregate, PositionRow } from './render';
import { issueReversal } from './reversals';

// A refund that corrects an invoice is documented by a refund document (TYPE_REFUND, its own
// number range): a credit note by another name, sharing the credit notes' limits, so credits and
// refunds together never give back more than the invoice charged (docs/decisions.md, Payments).

/**
 * The net of one line at `rate` whose gross, as the totals compute it (tax on the net, half-up), is
 * exactly `gross`; the nearest when no net hits it (a cent can be out of reach at some rates).
 */
function netForGross(template: PositionRow, gross: number, currency: string): number {
  const rate = new Dec(template.taxRate).div(100);
  const start = new Dec(gross).div(rate.plus(1)).toDecimalPlaces(0, Dec.ROUND_HALF_UP).toNumber();
  let best = start;
  for (const net of [start, start - 1, start + 1, start - 2, start + 2]) {
    const g = positionTotals([{ ...template, netAmount: net, discountAmount: 0 }], currency).grossAmount;
    if (g === gross) return net;
    if (Math.abs(g - gross) < Math.abs(positionTotals([{ ...template, netAmount: best, discountAmount: 0 }], currency).grossAmount - gross)) best = net;
  }
  return best;
}

/** Lines of a partial refund: the gross spread over the invoice's tax groups by their gross, the last group taking the rounding rest. */
function partialLines(ctx: ServiceContext, docId: string, original: InvoiceAggregate, gross: number, left: Map<string, number>): PositionRow[] {
  const currency = original.row.currencyCode;
  const groups = (original.row.taxBreakdown ?? [])
    .map((t) => ({ key: groupKey(t.category, t.rate), gross: toMinorUnitsSafe(new Dec(t.taxableAmount).plus(t.taxAmount), currency) }))
    .filter((g) => (left.get(g.key) ?? 0) > 0 && g.gross > 0);
  const total = groups.reduce((s, g) => s + g.gross, 0);
  let given = 0;
  const templates = restOf(ctx, docId, original, new Map(groups.map((g) => [g.key, 1])));
  return groups.map((g, i) => {
    const share = i === groups.length - 1 ? gross - given : new Dec(gross).times(g.gross).div(total).toDecimalPlaces(0, Dec.ROUND_HALF_UP).toNumber();
    given += share;
    const template = templates.find((p) => groupKey(p.taxCategory, p.taxRate) === g.key)!;
    const net = Math.min(netForGross(template, share, currency), left.get(g.key)!);
    return {
      ...template,
      id: newId(),
      name: `Refund of ${original.row.number} (${template.taxRate} %)`,
      unitPrice: formatMoney(fromMinorUnits(net, currency), currency).amount,
      netAmount: -net,
    };
  });
}

/** What a refund document may still give back on an invoice: its gross less earlier credit notes and refund documents. */
export async function refundableByDocument(ctx: ServiceContext, invoiceId: string, grossAmount: number): Promise<number> {
  const earlier = await earlierCredits(ctx, invoiceId);
  return Math.max(0, grossAmount - earlier.gross);
}

/**
 * Issues and finalizes the refund document for `gross` (minor units) given back on an invoice.
 * Refunding all that is left reverses the rest exactly; a part is spread over the tax groups.
 */
export async function issueRefundDocument(ctx: ServiceContext, invoiceId: string, gross: number, reason: string | null) {
  const original = await loadInvoice(ctx, invoiceId);
  const currency = original.row.currencyCode;
  const earlier = await earlierCredits(ctx, invoiceId);
  const charged = taxableByGroup([positionTotals(original.positions, currency).taxBreakdown], currency);
  const credited = taxableByGroup(earlier.taxes, currency);
  const left = new Map([...charged].map(([key, net]) => [key, net + (credited.get(key) ?? 0)]));
  const creditableGross = original.row.grossAmount - earlier.gross;
  if (gross > creditableGross) {
    throw ApiError.violation('amount', `The refund exceeds what is left to correct on ${original.row.number}: ${money(creditableGross, currency)} ${currency}.`, 'exceeds_creditable');
  }
  const docId = newId();
  const positions = gross === creditableGross ? restOf(ctx, docId, original, left) : partialLines(ctx, docId, original, gross, left);
  positions.forEach((p, i) => Object.assign(p, { sort: i, invoiceId: docId, name: `Refund of ${original.row.number} (${p.taxRate} %)` }));
  const totals = positionTotals(positions, currency);
  const doc = await issueReversal(ctx, original, 'TYPE_REFUND', positions, totals, {
    title: `Refund of invoice ${original.row.number}`,
    internalNote: reason,
  });
  return finalizeInvoice(ctx, doc.id, null);
}
