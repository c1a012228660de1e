import { z } from '@hono/zod-openapi';
import { and, asc, count, desc, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import { inJson, outer, tenantRowsById } from '../../db/client';
import { customers, dunningDocuments, invoicePositions, invoices, media } from '../../db/schema';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import { collection, pageOffset, paginationQuery, sortDirection, type Page } from '../../http/pagination';
import { timestamp } from '../../http/schemas';
import { type InvoiceAggregate, type InvoiceResource, renderInvoice } from './render';
import { embedsFrom, embedStatements } from './embeds';
import { effectiveStatusSql } from './status';

export function byId(ctx: ServiceContext, id: string) {
  return and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.id, id));
}

export async function loadInvoice(ctx: ServiceContext, id: string, customerScope?: string): Promise<InvoiceAggregate> {
  const row = await ctx.db.select().from(invoices).where(and(byId(ctx, id), customerScope ? eq(invoices.customerId, customerScope) : undefined)).get();
  if (!row) throw ApiError.notFound('Invoice');
  const [positions, customerRows, cancellation, files, openDunning, credited, methods, referenced] = await ctx.db.batch([
    ctx.db.select().from(invoicePositions).where(and(eq(invoicePositions.tenantId, ctx.tenant.id), eq(invoicePositions.invoiceId, id))).orderBy(asc(invoicePositions.sort)),
    ctx.db.select().from(customers).where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, row.customerId))),
    ctx.db
      .select({ id: invoices.id, number: invoices.number })
      .from(invoices)
      .where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.referencedInvoiceId, id), eq(invoices.type, 'TYPE_CANCEL'))),
    ctx.db.select().from(media).where(and(eq(media.tenantId, ctx.tenant.id), eq(media.ownerType, 'invoice'), eq(media.ownerId, id))),
    ctx.db.select().from(dunningDocuments).where(and(eq(dunningDocuments.tenantId, ctx.tenant.id), eq(dunningDocuments.invoiceId, id), eq(dunningDocuments.status, 'open'))),
    creditedQuery(ctx, [id]),
    ...embedStatements(ctx, [row]),
  ]);
  const embeds = await embedsFrom(ctx, methods, referenced);
  const agg: InvoiceAggregate = { row, embeds, positions, customer: customerRows[0]!, media: files, openDunning, credited: credited[0]?.amount ?? 0 };
  (agg as InvoiceAggregate & { cancellation?: { id: string; number: string | null } }).cancellation = cancellation[0];
  return agg;
}

/**
 * What finalized credit notes took off these invoices (minor units, positive), by invoice: no
 * longer owed, so a payment of the rest settles the invoice and dunning does not ask for it.
 */
export function creditedQuery(ctx: ServiceContext, ids: string[]) {
  return ctx.db
    .select({ invoiceId: invoices.referencedInvoiceId, amount: sql<number>`sum(-${invoices.grossAmount})`.mapWith(Number) })
    .from(invoices)
    .where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.type, 'TYPE_CREDIT'), sql`${invoices.status} <> 'STATUS_DRAFT'`, inJson(invoices.referencedInvoiceId, ids)))
    .groupBy(invoices.referencedInvoiceId);
}

export function renderLoaded(agg: InvoiceAggregate): InvoiceResource {
  const resource = renderInvoice(agg);
  const cancellation = (agg as InvoiceAggregate & { cancellation?: { id: string; number: string | null } }).cancellation;
  return { ...resource, cancellationDocument: cancellation ? { id: cancellation.id, number: cancellation.number } : null };
}

const code = z.string().max(40).optional();
const codes = z.union([z.string().max(40), z.array(z.string().max(40)).max(20)]).optional();

/** GET /invoices: filters and sort order. */
export const invoiceListQuery = z.object({
  ...paginationQuery,
  status: code,
  'status[]': codes,
  type: code,
  'type[]': codes,
  customer: z.string().max(64).optional(),
  subscription: z.string().max(64).optional(),
  number: z.string().max(255).optional(),
  'creationDate[after]': timestamp.optional(),
  'creationDate[before]': timestamp.optional(),
  'dueDate[after]': timestamp.optional(),
  'dueDate[before]': timestamp.optional(),
  'order[number]': sortDirection.optional(),
  'order[creationDate]': sortDirection.optional(),
  'order[dueDate]': sortDirection.optional(),
  'order[grossAmount]': sortDirection.optional(),
});

const listOf = (...given: (string | string[] | undefined)[]) => given.flat().filter((x): x is string => typeof x === 'string' && x !== '');
const iso = (v: string | undefined) => (v ? new Date(v).toISOString() : undefined);

/**
 * A page of documents. A customer principal (`customerScope`) sees only its own documents, and
 * no drafts.
 */
export function listInvoices(ctx: ServiceContext, q: z.output<typeof invoiceListQuery>, customerScope?: string) {
  return listFiltered(ctx, {
    page: q.page,
    limit: q.limit,
    status: listOf(q.status, q['status[]']),
    type: listOf(q.type, q['type[]']),
    customer: q.customer,
    subscription: q.subscription,
    number: q.number,
    createdFrom: iso(q['creationDate[after]']),
    createdTo: iso(q['creationDate[before]']),
    dueFrom: iso(q['dueDate[after]']),
    dueTo: iso(q['dueDate[before]']),
    order: (['number', 'creationDate', 'dueDate', 'grossAmount'] as const).flatMap((field) => {
      const dir = q[`order[${field}]`];
      return dir ? [{ field, dir }] : [];
    }),
    customerScope,
  });
}

interface InvoiceFilters extends Page {
  status?: string[];
  type?: string[];
  customer?: string;
  subscription?: string;
  number?: string;
  createdFrom?: string;
  createdTo?: string;
  dueFrom?: string;
  dueTo?: string;
  order: { field: 'number' | 'creationDate' | 'dueDate' | 'grossAmount'; dir: 'asc' | 'desc' }[];
  /** A customer principal sees only its own documents, and no drafts. */
  customerScope?: string;
}

const ORDER = { number: invoices.numberSeq, creationDate: invoices.createdAt, dueDate: invoices.dueDate, grossAmount: invoices.grossAmount };

async function listFiltered(ctx: ServiceContext, q: InvoiceFilters) {
  const filters: (SQL | undefined)[] = [eq(invoices.tenantId, ctx.tenant.id)];
  // A finalizing document is found under the status it counts as, and under STATUS_FINALIZING.
  if (q.status?.length) filters.push(sql`(${inJson(invoices.status, q.status)} OR ${inJson(effectiveStatusSql('invoices'), q.status)})`);
  if (q.type?.length) filters.push(inJson(invoices.type, q.type));
  if (q.customer) filters.push(eq(invoices.customerId, q.customer));
  if (q.customerScope) filters.push(eq(invoices.customerId, q.customerScope), sql`${invoices.status} <> 'STATUS_DRAFT'`);
  if (q.subscription) {
    // A consolidated invoice (billing group) bills several subscriptions: match any of its lines.
    filters.push(sql`(${invoices.subscriptionId} = ${q.subscription} OR EXISTS (SELECT 1 FROM invoice_positions p JOIN subscription_items i
      ON i.tenant_id = p.tenant_id AND i.id = p.subscription_item_id WHERE p.tenant_id = ${outer(invoices.tenantId)} AND p.invoice_id = ${outer(invoices.id)} AND i.subscription_id = ${q.subscription}))`);
  }
  if (q.number) filters.push(eq(invoices.number, q.number));
  if (q.createdFrom) filters.push(gte(invoices.createdAt, q.createdFrom));
  if (q.createdTo) filters.push(lte(invoices.createdAt, q.createdTo));
  if (q.dueFrom) filters.push(gte(invoices.dueDate, q.dueFrom));
  if (q.dueTo) filters.push(lte(invoices.dueDate, q.dueTo));
  const where = and(...filters);
  const order = q.order.map((o) => (o.dir === 'asc' ? asc(ORDER[o.field]) : desc(ORDER[o.field])));
  const [[total], rows] = await ctx.db.batch([
    ctx.db.select({ n: count() }).from(invoices).where(where),
    ctx.db
      .select()
      .from(invoices)
      .where(where)
      .orderBy(...order, desc(invoices.createdAt), desc(invoices.id))
      .limit(q.limit)
      .offset(pageOffset(q)),
  ]);
  const aggregates = await aggregatesOf(ctx, rows);
  return collection(
    rows.map((row) => renderInvoice(aggregates.get(row.id)!)),
    total?.n ?? 0,
    q,
  );
}

/**
 * Invoice rows with what their rendering shows (positions in order, customer, files), in one
 * round trip for any number of them: for lists, and for writers that touch many invoices at once
 * (the bank import).
 */
export async function aggregatesOf(ctx: ServiceContext, rows: InvoiceAggregate['row'][]): Promise<Map<string, InvoiceAggregate>> {
  const out = new Map<string, InvoiceAggregate>();
  if (rows.length === 0) return out;
  const ids = rows.map((r) => r.id);
  const customerIds = [...new Set(rows.map((r) => r.customerId))];
  const [positions, customerRows, files, openDunning, credited, methods, referenced] = await ctx.db.batch([
    ctx.db
      .select()
      .from(invoicePositions)
      .where(and(eq(invoicePositions.tenantId, ctx.tenant.id), inJson(invoicePositions.invoiceId, ids)))
      .orderBy(asc(invoicePositions.sort)),
    ctx.db.select().from(customers).where(tenantRowsById(customers, ctx.tenant.id, customerIds)),
    ctx.db.select().from(media).where(and(eq(media.tenantId, ctx.tenant.id), eq(media.ownerType, 'invoice'), inJson(media.ownerId, ids))),
    ctx.db.select().from(dunningDocuments).where(and(eq(dunningDocuments.tenantId, ctx.tenant.id), inJson(dunningDocuments.invoiceId, ids), eq(dunningDocuments.status, 'open'))),
    creditedQuery(ctx, ids),
    ...embedStatements(ctx, rows),
  ]);
  const embeds = await embedsFrom(ctx, methods, referenced);
  const creditedOf = new Map(credited.map((c) => [c.invoiceId!, c.amount]));
  const positionsOf = new Map<string, typeof positions>();
  for (const p of positions) positionsOf.set(p.invoiceId, [...(positionsOf.get(p.invoiceId) ?? []), p]);
  const filesOf = new Map<string, typeof files>();
  for (const f of files) filesOf.set(f.ownerId, [...(filesOf.get(f.ownerId) ?? []), f]);
  const customerMap = new Map(customerRows.map((c) => [c.id, c]));
  for (const row of rows) {
    out.set(row.id, {
      row,
      embeds,
      positions: positionsOf.get(row.id) ?? [],
      customer: customerMap.get(row.customerId)!,
      media: filesOf.get(row.id) ?? [],
      openDunning: openDunning.filter((d) => d.invoiceId === row.id),
      credited: creditedOf.get(row.id) ?? 0,
    });
  }
  return out;
}
