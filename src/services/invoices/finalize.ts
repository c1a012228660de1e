import { nextUpdatedAt } from '../../db/commit';
import { EVENT_VERSION, type EventType } from '../../events/catalogue';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { newId } from '../../lib/ids';
import { loadSettings } from '../platform/settings';
import { memo } from '../common/memo';
import type { FinalizeRequest } from '../ports/numbering';
import { type InvoiceAggregate, type InvoiceRow, type InvoiceType, NUMBER_FORMAT_SETTING } from './render';
import { loadInvoice, renderLoaded } from './read';
import { requireDraft } from './write';
import { loadDocumentSettings } from '../documents/settings';
import { afterFinalization } from './after-finalization';
import { randomToken } from '../../lib/ids';

/**
 * Finalizes a draft: the TenantObject assigns the next number of the type's range in the same D1
 * batch as the status change and the events, so numbers are consecutive and gap-free.
 */
export async function finalizeInvoice(ctx: ServiceContext, id: string, dueDate: string | null, extraEvents: EventType[] = [], known?: InvoiceAggregate) {
  // Billing passes the draft it just wrote instead of reading it back.
  const before = known ?? (await loadInvoice(ctx, id));
  const { request, after } = await finalizationRequest(ctx, before, dueDate, extraEvents);
  const result = await ctx.numbering.finalize(request);
  if (!result.ok) throw ApiError.conflict('The invoice was changed or finalized meanwhile; reload and retry.', 'concurrent-update');
  await afterFinalization(ctx.env, ctx.tenant.id, [id]);
  return { ...after, number: result.number };
}

/**
 * Checks a draft can be finalized and builds what the TenantObject needs to number it: the status
 * change, the due date (payment term from the settings) and the events, `{number}` left to fill in.
 */
export async function finalizationRequest(ctx: ServiceContext, before: InvoiceAggregate, dueDate: string | null, extraEvents: EventType[] = []) {
  const id = before.row.id;
  requireDraft(before, 'finalize');
  const v = new Violations();
  if (before.positions.length === 0) v.add('positions', 'An invoice needs at least one position.', 'required');
  if (before.row.type === 'TYPE_INVOICE' && before.row.grossAmount < 0) v.add('positions', 'An invoice cannot total less than zero; issue a credit note.', 'negative_total');
  if (dueDate !== null && new Date(dueDate) < ctx.now) v.add('dueDate', 'Must not lie before the finalization.', 'in_past');
  v.throwIfAny();
  const settings = await memo(ctx, 'settings', () => loadSettings(ctx.db, ctx.tenant.id));
  const documents = await memo(ctx, 'documentSettings', () => loadDocumentSettings(ctx.db, ctx.tenant.id));
  // What the customer receives is fixed now: a later change of the setting does not change a document.
  const eInvoiceType = before.customer.eInvoiceType ?? documents.defaultEInvoiceType;
  const nowIso = ctx.now.toISOString();
  const due = dueDate ? new Date(dueDate).toISOString() : new Date(ctx.now.getTime() + settings['invoice.paymentTermDays'] * 86_400_000).toISOString();
  // Reversing documents (negative totals) are settled against the invoice they reverse.
  const paid = before.row.grossAmount <= before.row.paidAmount;
  const announcePaid = paid && before.row.grossAmount > 0;
  // Finalizing until its files are rendered: the render moves it to STATUS_PAID or STATUS_UNPAID
  // (renderedStatus), and meanwhile it counts as that status (docs/decisions.md, Invoices and
  // billing, "Document state").
  const changes: Partial<InvoiceRow> = {
    status: 'STATUS_FINALIZING',
    finalizationDate: nowIso,
    dueDate: due,
    payDate: paid ? nowIso : null,
    eInvoiceType,
    leitwegId: eInvoiceType === 'xrechnung' ? before.customer.leitwegId : null,
    usageToken: before.positions.some((p) => p.kind === 'usage') ? randomToken() : null,
    updatedAt: nextUpdatedAt(ctx.now, before.row.updatedAt),
  };
  const after = renderLoaded({ ...before, row: { ...before.row, ...changes, number: '{number}' } });
  const eventRows = [
    ...extraEvents,
    'invoice.finalized' as const,
    ...(announcePaid ? (['invoice.paid'] as const) : paid ? [] : (['invoice.unpaid'] as const)),
    // The files are rendered by a queue job (docs/decisions.md, Documents); invoice.updated follows.
    'invoice.pdf.generation_requested' as const,
  ].map((type) => ({
    id: newId(),
    type,
    version: EVENT_VERSION,
    resourceId: id,
    data: after as unknown as Record<string, unknown>,
    createdAt: nowIso,
  }));
  const formatKey = NUMBER_FORMAT_SETTING[before.row.type as InvoiceType] as keyof typeof settings;
  const request: FinalizeRequest = {
    tenantId: ctx.tenant.id,
    invoiceId: id,
    type: before.row.type,
    expectedUpdatedAt: before.row.updatedAt,
    format: String(settings[formatKey]),
    timeZone: before.customer.timeZone,
    customerNumber: before.customer.customerNumber,
    date: nowIso,
    set: changes,
    events: eventRows,
  };
  return { request, after };
}
