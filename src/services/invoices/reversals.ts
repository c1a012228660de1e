import { runBatch } from '../../db/client';
import { positionTotals } from '../../billing/invoice-totals';
import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { creditableAmount } from '../../billing/invoice-totals';
import { Dec } from '../../billing/money';
import { insertRows } from '../../db/insert';
import { invoicePositions, invoices } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { newId } from '../../lib/ids';
import { buildPositions, type PositionInput } from './drafts';
import { commitInvoiceChange } from './write';
import { finalizeInvoice } from './finalize';
import { loadInvoice } from './read';
import { type InvoiceAggregate, type InvoiceRow, type PositionRow } from './render';
import { newInvoiceRow } from './row';
import { OPEN, money, requireStatus } from './operations';

/** Negated copies of positions, for documents that reverse an invoice. */
function reversed(ctx: ServiceContext, invoiceId: string, source: PositionRow[]): PositionRow[] {
  const ids = new Map(source.map((p) => [p.id, newId()]));
  return source.map((p) => ({
    ...p,
    id: ids.get(p.id)!,
    invoiceId,
    parentId: p.parentId ? (ids.get(p.parentId) ?? null) : null,
    quantity: new Dec(p.quantity).neg().toString(),
    discountAmount: -p.discountAmount,
    netAmount: -p.netAmount,
    createdAt: ctx.now.toISOString(),
  }));
}

async function issueReversal(
  ctx: ServiceContext,
  original: InvoiceAggregate,
  type: 'TYPE_CANCEL' | 'TYPE_CREDIT',
  positions: PositionRow[],
  texts: { title: string; internalNote: string | null },
) {
  const id = positions[0]?.invoiceId ?? newId();
  const o = original.row;
  // What a reversing document takes over from the invoice it reverses; nothing else is copied.
  const row = newInvoiceRow(ctx, {
    id,
    type,
    referencedInvoiceId: o.id,
    customerId: o.customerId,
    subscriptionId: o.subscriptionId,
    currencyCode: o.currencyCode,
    invoiceAddress: o.invoiceAddress,
    paymentMethodId: o.paymentMethodId,
    introduction: o.introduction,
    closing: o.closing,
    sourceType: o.sourceType,
    customFields: o.customFields,
    exchangeRates: o.exchangeRates,
    dunningDisabled: true,
    title: texts.title,
    internalNote: texts.internalNote,
    ...positionTotals(positions, o.currencyCode),
  });
  const statements: BatchItem<'sqlite'>[] = [ctx.db.insert(invoices).values(row)];
  statements.push(...insertRows(ctx.db, invoicePositions, positions));
  await runBatch(ctx.db, statements);
  return row;
}

/**
 * Cancels a finalized invoice with a cancellation document (TYPE_CANCEL) that reverses every line:
 * it gets its own number from the cancellation range, and the invoice becomes cancelled.
 */
export async function cancelInvoice(ctx: ServiceContext, id: string) {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, OPEN, 'cancel');
  if (before.row.type !== 'TYPE_INVOICE') throw ApiError.conflict('Only invoices can be cancelled; credit notes are reversed with a new invoice.', 'invalid-transition');
  if (before.row.paidAmount > 0) throw ApiError.conflict('The invoice has payments; issue a credit note instead.', 'invalid-transition');
  const credited = await creditedSoFar(ctx, id);
  if (credited > 0) throw ApiError.conflict('The invoice has credit notes; credit the rest instead.', 'invalid-transition');
  const cancelId = newId();
  const cancellation = await issueReversal(ctx, before, 'TYPE_CANCEL', reversed(ctx, cancelId, before.positions), {
    title: `Cancellation of ${before.row.number}`,
    internalNote: null,
  });
  // A reversing document is settled against the invoice it reverses (finalized as paid).
  const fin = await finalizeInvoice(ctx, cancellation.id, null);
  const after = await commitInvoiceChange(ctx, await loadInvoice(ctx, id), { status: 'STATUS_CANCELLED' }, ['invoice.canceled']);
  return { ...after, cancellationDocument: { id: cancellation.id, number: fin.number } };
}

async function creditedSoFar(ctx: ServiceContext, id: string): Promise<number> {
  const rows = await ctx.db
    .select({ gross: invoices.grossAmount })
    .from(invoices)
    .where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.referencedInvoiceId, id), eq(invoices.type, 'TYPE_CREDIT'), sql`${invoices.status} <> 'STATUS_DRAFT'`));
  return rows.reduce((sum, r) => sum + Math.abs(r.gross), 0);
}

export interface CreditInput {
  positions: PositionInput[] | null;
  reason: string | null;
  comment: string | null;
}

/**
 * A credit note (TYPE_CREDIT) against a finalized invoice: the given positions (as positive
 * amounts to credit), or the whole rest. Never more than the remaining creditable amount.
 */
export async function creditInvoice(ctx: ServiceContext, id: string, input: CreditInput) {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, ['STATUS_UNPAID', 'STATUS_REMINDED', 'STATUS_PAID', 'STATUS_CLOSED'], 'credit');
  if (before.row.type !== 'TYPE_INVOICE') throw ApiError.conflict('Only invoices can be credited.', 'invalid-transition');
  const currency = before.row.currencyCode;
  const creditId = newId();
  const v = new Violations();
  let positions: PositionRow[];
  if (input.positions && input.positions.length) {
    const built = await buildPositions(ctx, creditId, before.customer, currency, input.positions, v);
    positions = built.map((p) => ({ ...p, quantity: new Dec(p.quantity).neg().toString(), netAmount: -p.netAmount, discountAmount: -p.discountAmount, kind: 'credit' }));
  } else {
    positions = reversed(ctx, creditId, before.positions);
  }
  v.throwIfAny();
  const gross = Math.abs(positionTotals(positions, currency).grossAmount);
  const credited = await creditedSoFar(ctx, id);
  const left = creditableAmount(money(before.row.grossAmount, currency), [money(credited, currency)], currency);
  if (new Dec(money(gross, currency)).gt(left.creditable)) {
    throw ApiError.violation('positions', `The credit of ${money(gross, currency)} exceeds the creditable ${left.creditable} ${currency}.`, 'exceeds_creditable');
  }
  if (gross === 0) throw ApiError.violation('positions', 'A credit note needs an amount.', 'required');
  const credit = await issueReversal(ctx, before, 'TYPE_CREDIT', positions, {
    title: `Credit note for ${before.row.number}${input.reason ? `: ${input.reason}` : ''}`,
    internalNote: input.comment,
  });
  const fin = await finalizeInvoice(ctx, credit.id, null);
  const fullyCredited = credited + gross >= before.row.grossAmount;
  // What is credited is no longer owed: an unpaid invoice credited in full is settled.
  const changes: Partial<InvoiceRow> =
    fullyCredited && OPEN.includes(before.row.status) ? { status: 'STATUS_CLOSED' } : {};
  await commitInvoiceChange(ctx, await loadInvoice(ctx, id), changes, ['invoice.credited']);
  return fin;
}
