import type { BatchItem } from 'drizzle-orm/batch';
import { commitGuarded } from '../../db/commit';
import { invoices } from '../../db/schema';
import { type EventType } from '../../events/catalogue';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import { type InvoiceAggregate, type InvoiceRow, type PositionRow } from './render';
import { renderLoaded } from './read';
import { invoiceEmbeds, movesEmbeds } from './embeds';
import { withdrawDunningStatements } from '../dunning/documents';

/**
 * Writes a change of an invoice with its statements and events in one batch through the guarded
 * write path (`commitGuarded`), so concurrent changes never overwrite each other.
 */
export async function commitInvoiceChange(
  ctx: ServiceContext,
  before: InvoiceAggregate,
  changes: Partial<InvoiceRow>,
  eventTypes: EventType[],
  options: { positions?: PositionRow[]; statements?: BatchItem<'sqlite'>[] } = {},
) {
  // An open invoice that is closed or cancelled is no longer dunned: its open documents are withdrawn.
  const ended = (changes.status === 'STATUS_CLOSED' || changes.status === 'STATUS_CANCELLED') && before.row.status !== changes.status;
  const withdrawn = ended && before.openDunning?.length ? withdrawDunningStatements(ctx, before.row, before.openDunning, changes.status === 'STATUS_CLOSED' ? 'invoice closed' : 'invoice cancelled') : [];
  // A change of the method or the referenced document shows the new one.
  const embeds = movesEmbeds(before.row, changes) ? await invoiceEmbeds(ctx, [{ ...before.row, ...changes }]) : before.embeds;
  const { resource } = await commitGuarded(ctx, {
    table: invoices,
    current: before.row,
    changes,
    render: (row) => renderLoaded({ ...before, row, embeds, positions: options.positions ?? before.positions }),
    statements: [...(options.statements ?? []), ...withdrawn],
    events: eventTypes,
    conflict: 'The invoice was changed concurrently; reload and retry.',
  });
  return resource;
}

export function requireDraft(agg: InvoiceAggregate, action: string) {
  if (agg.row.status !== 'STATUS_DRAFT') throw ApiError.conflict(`Cannot ${action} an invoice in status ${agg.row.status}; only drafts.`, 'invalid-transition');
}
