import { and, eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { isGuardFailure, requirePreviousChange } from '../../db/client';
import { invoices } from '../../db/schema';
import { type EventType } from '../../events/catalogue';
import { insertEvent } from '../../events/outbox';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import { type InvoiceAggregate, type InvoiceRow, type PositionRow } from './render';
import { byId, renderLoaded } from './read';

export function nextUpdatedAt(ctx: ServiceContext, row: InvoiceRow): string {
  const now = ctx.now.toISOString();
  return now > row.updatedAt ? now : new Date(new Date(row.updatedAt).getTime() + 1).toISOString();
}

/**
 * Writes a change of an invoice with its event in one batch, guarded by the `updatedAt` that was
 * read (and, with `fromStatuses`, by the status), so concurrent changes never overwrite each other.
 */
export async function commitInvoiceChange(
  ctx: ServiceContext,
  before: InvoiceAggregate,
  changes: Partial<InvoiceRow>,
  eventTypes: EventType[],
  options: { positions?: PositionRow[]; statements?: BatchItem<'sqlite'>[] } = {},
) {
  const row: InvoiceRow = { ...before.row, ...changes, updatedAt: nextUpdatedAt(ctx, before.row) };
  const agg = { ...before, row, positions: options.positions ?? before.positions };
  const resource = renderLoaded(agg);
  const { id: _i, tenantId: _t, createdAt: _c, ...set } = row;
  try {
    await ctx.db.batch([
      ctx.db.update(invoices).set(set).where(and(byId(ctx, row.id), eq(invoices.updatedAt, before.row.updatedAt))),
      requirePreviousChange(ctx.db),
      ...(options.statements ?? []),
      ...eventTypes.map((type) => insertEvent(ctx.db, { tenantId: ctx.tenant.id, type, resourceId: row.id, data: resource, now: ctx.now })),
    ]);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.conflict('The invoice was changed concurrently; reload and retry.', 'concurrent-update');
    throw err;
  }
  return resource;
}

export function requireDraft(agg: InvoiceAggregate, action: string) {
  if (agg.row.status !== 'STATUS_DRAFT') throw ApiError.conflict(`Cannot ${action} an invoice in status ${agg.row.status}; only drafts.`, 'invalid-transition');
}
