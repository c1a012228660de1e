import { z } from '@hono/zod-openapi';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { commitGuarded } from '../../db/commit';
import { fetchPage } from '../../db/paging';
import { dunningDocuments, invoices } from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import { ApiError } from '../../http/errors';
import { filterValues, listFilter, paginationQuery } from '../../http/pagination';
import { DUNNING_STATUSES, DUNNING_TYPES, type DunningDocumentResource } from '../../schemas/dunning';
import type { ServiceContext } from '../context';
import { safeFileName } from '../documents/media';
import { moneyOf } from './rules';

// Dunning documents as the API shows them (spec §2.5), their list and cancellation, and what a
// payment that settles the invoice does to them (docs/decisions.md, Dunning).

export type DunningDocumentRow = typeof dunningDocuments.$inferSelect;

/** The invoice number a document is about, selected with it. */
const invoiceNumberSql = sql<string | null>`(SELECT i.number FROM invoices i WHERE i.tenant_id = ${dunningDocuments.tenantId} AND i.id = ${dunningDocuments.invoiceId})`;

export function renderDunningDocument(r: DunningDocumentRow, invoiceNumber: string | null): DunningDocumentResource {
  const recipient = r.recipient as Record<string, string | null>;
  const c = r.currencyCode;
  return {
    id: r.id,
    customer: { id: r.customerId },
    recipient: {
      name: recipient.name ?? '',
      email: recipient.email ?? null,
      companyName: recipient.companyName ?? null,
      street: recipient.street ?? null,
      zip: recipient.zip ?? null,
      city: recipient.city ?? null,
      countryCode: recipient.countryCode ?? null,
    },
    title: r.title,
    introduction: r.introduction,
    closing: r.closing,
    documentDate: r.documentDate,
    dueDate: r.dueDate,
    media: r.fileId ? { id: r.fileId, fileName: safeFileName(`${r.number}.pdf`), mimeType: 'application/pdf' } : null,
    template: r.documentTemplate,
    invoice: { id: r.invoiceId, number: invoiceNumber },
    level: r.level,
    type: r.type,
    status: r.status,
    reason: r.reason,
    dunningFeeCents: r.feeAmount,
    dunningFee: moneyOf(r.feeAmount, c),
    openAmount: moneyOf(r.openAmount, c),
    amountDue: moneyOf(r.amountDue, c),
    positions: r.positions.map((p) => ({ type: p.type, name: p.name, amount: moneyOf(p.amount, c), level: p.level ?? null })),
    number: r.number,
    sentAt: r.sentAt,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

const id = z.string().min(1).max(64);

export const dunningDocumentListQuery = z.object({
  ...paginationQuery,
  ...listFilter('customer', id),
  ...listFilter('invoice', id),
  ...listFilter('level', z.coerce.number().int().min(1).max(100)),
  ...listFilter('status', z.enum(DUNNING_STATUSES)),
  ...listFilter('type', z.enum(DUNNING_TYPES)),
});

/** A page of dunning documents, newest first; a customer principal (`customerScope`) sees only its own. */
export function listDunningDocuments(ctx: ServiceContext, q: z.output<typeof dunningDocumentListQuery>, customerScope?: string) {
  const d = dunningDocuments;
  const customers = filterValues(q.customer, q['customer[]']);
  const invoiceIds = filterValues(q.invoice, q['invoice[]']);
  const levels = filterValues(q.level, q['level[]']);
  const statuses = filterValues(q.status, q['status[]']);
  const types = filterValues(q.type, q['type[]']);
  const where = and(
    eq(d.tenantId, ctx.tenant.id),
    customerScope ? eq(d.customerId, customerScope) : undefined,
    customers ? inArray(d.customerId, customers) : undefined,
    invoiceIds ? inArray(d.invoiceId, invoiceIds) : undefined,
    levels ? inArray(d.level, levels) : undefined,
    statuses ? inArray(d.status, statuses) : undefined,
    types ? inArray(d.type, types) : undefined,
  );
  return fetchPage(ctx.db, d, where, [desc(d.createdAt), desc(d.id)], q, (r) => renderDunningDocument(r, (r as typeof r & { invoiceNumber: string | null }).invoiceNumber), { invoiceNumber: invoiceNumberSql });
}

async function findDocument(ctx: ServiceContext, documentId: string, customerScope?: string) {
  const row = await ctx.db
    .select({ doc: dunningDocuments, invoiceNumber: invoices.number })
    .from(dunningDocuments)
    .leftJoin(invoices, and(eq(invoices.tenantId, dunningDocuments.tenantId), eq(invoices.id, dunningDocuments.invoiceId)))
    .where(and(eq(dunningDocuments.tenantId, ctx.tenant.id), eq(dunningDocuments.id, documentId), customerScope ? eq(dunningDocuments.customerId, customerScope) : undefined))
    .get();
  if (!row) throw ApiError.notFound('Dunning document');
  return row;
}

export async function getDunningDocument(ctx: ServiceContext, documentId: string, customerScope?: string) {
  const { doc, invoiceNumber } = await findDocument(ctx, documentId, customerScope);
  return renderDunningDocument(doc, invoiceNumber);
}

/** PUT /dunning/documents/{id}/cancel: an open document is withdrawn; its fee is no longer asked for. */
export async function cancelDunningDocument(ctx: ServiceContext, documentId: string, reason: string | null) {
  const { doc, invoiceNumber } = await findDocument(ctx, documentId);
  if (doc.status !== 'open') throw ApiError.conflict(`Cannot cancel a dunning document in status ${doc.status}; only open ones.`, 'invalid-transition');
  const { resource } = await commitGuarded(ctx, {
    table: dunningDocuments,
    current: doc,
    changes: { status: 'cancelled', reason },
    where: eq(dunningDocuments.status, 'open'),
    render: (row) => renderDunningDocument(row, invoiceNumber),
    events: ['dunning_document.canceled'],
    conflict: 'The dunning document was changed concurrently; reload and retry.',
  });
  return resource;
}

/**
 * What a payment that settles an invoice does to its dunning: every open document is paid, with
 * `dunning_document.paid` each. The invoice's guarded write in the same batch makes sure none was
 * added since they were read (a new document moves the invoice's updatedAt).
 */
export function settleDunningStatements(ctx: ServiceContext, invoice: { id: string; number: string | null }, open: readonly DunningDocumentRow[]): BatchItem<'sqlite'>[] {
  if (open.length === 0) return [];
  const now = ctx.now.toISOString();
  return [
    ctx.db
      .update(dunningDocuments)
      .set({ status: 'paid', updatedAt: now })
      .where(and(eq(dunningDocuments.tenantId, ctx.tenant.id), eq(dunningDocuments.invoiceId, invoice.id), eq(dunningDocuments.status, 'open'))),
    ...open.map((d) =>
      insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'dunning_document.paid', resourceId: d.id, data: renderDunningDocument({ ...d, status: 'paid', updatedAt: now }, invoice.number), now: ctx.now }),
    ),
  ];
}

/** What closing or cancelling an invoice does to its dunning: every open document is cancelled with `reason`. */
export function withdrawDunningStatements(ctx: ServiceContext, invoice: { id: string; number: string | null }, open: readonly DunningDocumentRow[], reason: string): BatchItem<'sqlite'>[] {
  const now = ctx.now.toISOString();
  return [
    ctx.db
      .update(dunningDocuments)
      .set({ status: 'cancelled', reason, updatedAt: now })
      .where(and(eq(dunningDocuments.tenantId, ctx.tenant.id), eq(dunningDocuments.invoiceId, invoice.id), eq(dunningDocuments.status, 'open'))),
    ...open.map((d) =>
      insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'dunning_document.canceled', resourceId: d.id, data: renderDunningDocument({ ...d, status: 'cancelled', reason, updatedAt: now }, invoice.number), now: ctx.now }),
    ),
  ];
}
