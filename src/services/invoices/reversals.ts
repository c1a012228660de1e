import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { positionTotals } from '../../billing/invoice-totals';
import { Dec } from '../../billing/money';
import { isGuardFailure, runBatch } from '../../db/client';
import { guardedUpdate, nextUpdatedAt } from '../../db/commit';
import { insertRows } from '../../db/insert';
import { invoicePositions, invoices } from '../../db/schema';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import { newId } from '../../lib/ids';
import { commitInvoiceChange } from './write';
import { finalizeInvoice } from './finalize';
import { loadInvoice } from './read';
import { type InvoiceAggregate, type InvoiceRow, type PositionRow } from './render';
import { newInvoiceRow } from './row';
import { cancellationTitle } from './reversal-titles';
import { OPEN, requireStatus } from './operations';

/** Negated copies of positions, for documents that reverse an invoice. */
export function reversed(ctx: ServiceContext, invoiceId: string, source: PositionRow[]): PositionRow[] {
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

/** Writes a reversing document's draft; `texts` may replace what it takes over from the original. */
export async function issueReversal(
  ctx: ServiceContext,
  original: InvoiceAggregate,
  type: 'TYPE_CANCEL' | 'TYPE_CREDIT' | 'TYPE_REFUND',
  positions: PositionRow[],
  totals: ReturnType<typeof positionTotals>,
  texts: { title: string; internalNote: string | null } & Partial<Pick<InvoiceRow, 'paymentMethodId' | 'introduction' | 'closing'>>,
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
    ...texts,
    ...totals,
  });
  const statements: BatchItem<'sqlite'>[] = [
    ctx.db.insert(invoices).values(row),
    ...insertRows(ctx.db, invoicePositions, positions),
    // The original as read decided what may be reversed: a reversal written meanwhile (a second
    // credit note at the same time) moved it on, and this one must not pass the same checks again.
    ...guardedUpdate(ctx.db, { table: invoices, tenantId: ctx.tenant.id, id: o.id, expectedUpdatedAt: o.updatedAt, set: { updatedAt: nextUpdatedAt(ctx.now, o.updatedAt) } }),
  ];
  try {
    await runBatch(ctx.db, statements);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.conflict('The invoice was changed concurrently; reload and retry.', 'concurrent-update');
    throw err;
  }
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
  const credits = await ctx.db
    .select({ id: invoices.id })
    .from(invoices)
    .where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.referencedInvoiceId, id), eq(invoices.type, 'TYPE_CREDIT'), sql`${invoices.status} <> 'STATUS_DRAFT'`))
    .limit(1);
  if (credits.length) throw ApiError.conflict('The invoice has credit notes; credit the rest instead.', 'invalid-transition');
  const cancelId = newId();
  const positions = reversed(ctx, cancelId, before.positions);
  const cancellation = await issueReversal(ctx, before, 'TYPE_CANCEL', positions, positionTotals(positions, before.row.currencyCode), {
    title: cancellationTitle(before.row.number!),
    internalNote: null,
  });
  // A reversing document is settled against the invoice it reverses (finalized as paid).
  const fin = await finalizeInvoice(ctx, cancellation.id, null);
  const after = await commitInvoiceChange(ctx, await loadInvoice(ctx, id), { status: 'STATUS_CANCELLED' }, ['invoice.canceled']);
  return { ...after, cancellationDocument: { id: cancellation.id, number: fin.number } };
}
