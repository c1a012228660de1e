import { and, asc, count, desc, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { invoiceTotals, lineNet } from '../../billing/invoice-totals';
import { Dec, formatMoney, fromMinorUnits, toMinorUnitsSafe } from '../../billing/money';
import { resolveTax, TaxRateUnavailableError } from '../../billing/tax';
import { inJson, isGuardFailure, outer, requirePreviousChange, tenantRowsById } from '../../db/client';
import { customerAddresses, customers, events, invoicePositions, invoices, taxGroups } from '../../db/schema';
import { EVENT_VERSION, type EventType } from '../../events/catalogue';
import { insertEvent } from '../../events/outbox';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { collection, pageOffset, type Page } from '../../http/pagination';
import { newId } from '../../lib/ids';
import { renderAddress } from '../customers/customers';
import { loadSettings } from '../platform/settings';
import { taxOverrides } from '../catalogue/taxes';
import { memo } from '../shared/memo';
import type { FinalizeRequest } from '../ports/numbering';

export type InvoiceRow = typeof invoices.$inferSelect;
export type PositionRow = typeof invoicePositions.$inferSelect;
type CustomerRow = typeof customers.$inferSelect;

export const INVOICE_TYPES = ['TYPE_INVOICE', 'TYPE_CREDIT', 'TYPE_REFUND', 'TYPE_REMINDER', 'TYPE_CANCEL', 'TYPE_DUNNING'] as const;
export type InvoiceType = (typeof INVOICE_TYPES)[number];

/** Each document type's number format setting. */
const NUMBER_FORMAT_SETTING: Record<InvoiceType, string> = {
  TYPE_INVOICE: 'invoice.numberFormat',
  TYPE_CREDIT: 'credit.numberFormat',
  TYPE_CANCEL: 'cancellation.numberFormat',
  TYPE_REFUND: 'refund.numberFormat',
  TYPE_REMINDER: 'reminder.numberFormat',
  TYPE_DUNNING: 'dunningLetter.numberFormat',
};

export interface InvoiceAggregate {
  row: InvoiceRow;
  positions: PositionRow[];
  customer: CustomerRow;
}

const money = (minor: number, currency: string) => formatMoney(fromMinorUnits(minor, currency), currency);

export function renderPosition(p: PositionRow, currency: string) {
  return {
    id: p.id,
    parent: p.parentId,
    sort: p.sort,
    name: p.name,
    description: p.description,
    quantity: p.quantity,
    unitPrice: { amount: p.unitPrice, currencyCode: currency },
    discountAmount: money(p.discountAmount, currency),
    netAmount: money(p.netAmount, currency),
    taxRate: p.taxRate,
    taxCategory: p.taxCategory,
    taxNote: p.taxNote,
    serviceDateFrom: p.serviceFrom,
    serviceDateTo: p.serviceTo,
    kind: p.kind,
    product: p.productId,
    subscriptionItem: p.subscriptionItemId,
  };
}

/** The invoice as the API shows it; every amount a money object in the invoice currency. */
export function renderInvoice(agg: InvoiceAggregate) {
  const r = agg.row;
  const c = r.currencyCode;
  const c0 = agg.customer;
  return {
    id: r.id,
    type: r.type,
    status: r.status,
    number: r.number,
    customer: {
      id: c0.id,
      customerNumber: c0.customerNumber,
      timeZone: c0.timeZone,
      firstName: c0.firstName,
      lastName: c0.lastName,
      currencyCode: c0.currencyCode,
      companyName: c0.companyName,
      ledgerId: c0.ledgerId,
      status: c0.status,
    },
    subscription: r.subscriptionId,
    referencedInvoice: r.referencedInvoiceId,
    currencyCode: c,
    creationDate: r.createdAt,
    finalizationDate: r.finalizationDate,
    dueDate: r.dueDate,
    payDate: r.payDate,
    lastSentAt: r.lastSentAt,
    lastReminderDate: r.lastReminderDate,
    dunningLevel: r.dunningLevel,
    dunningStatus: r.dunningStatus,
    dunningDisabled: r.dunningDisabled,
    invoiceAddress: r.invoiceAddress,
    paymentMethod: r.paymentMethodId,
    internalNote: r.internalNote,
    title: r.title,
    introduction: r.introduction,
    closing: r.closing,
    netAmount: money(r.netAmount, c),
    taxAmount: money(r.taxAmount, c),
    grossAmount: money(r.grossAmount, c),
    discountAmount: money(r.discountAmount, c),
    unpaidAmount: money(Math.max(0, r.grossAmount - r.paidAmount), c),
    taxes: (r.taxBreakdown ?? []).map((t) => ({ ...t, taxableAmount: { amount: t.taxableAmount, currencyCode: c }, taxAmount: { amount: t.taxAmount, currencyCode: c } })),
    positions: agg.positions.map((p) => renderPosition(p, c)),
    applicatedExchangeRates: r.exchangeRates ?? [],
    serviceDateFrom: r.serviceDateFrom,
    serviceDateTo: r.serviceDateTo,
    sourceType: r.sourceType,
    customFields: r.customFields,
    file: r.documentKey ? { id: r.documentKey, isPrivate: true, mimeType: 'application/json', fileExtension: 'json', fileName: `${r.number ?? r.id}.json` } : null,
    xmlFile: null,
    eInvoiceType: null,
    leitwegId: null,
    usageBreakdownUrl: null,
    cancellationDocument: null as { id: string; number: string | null } | null,
    updatedAt: r.updatedAt,
  };
}

export type InvoiceResource = ReturnType<typeof renderInvoice>;

function byId(ctx: ServiceContext, id: string) {
  return and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.id, id));
}

export async function loadInvoice(ctx: ServiceContext, id: string, customerScope?: string): Promise<InvoiceAggregate> {
  const row = await ctx.db.select().from(invoices).where(and(byId(ctx, id), customerScope ? eq(invoices.customerId, customerScope) : undefined)).get();
  if (!row) throw ApiError.notFound('Invoice');
  const [positions, customerRows, cancellation] = await ctx.db.batch([
    ctx.db.select().from(invoicePositions).where(and(eq(invoicePositions.tenantId, ctx.tenant.id), eq(invoicePositions.invoiceId, id))).orderBy(asc(invoicePositions.sort)),
    ctx.db.select().from(customers).where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, row.customerId))),
    ctx.db
      .select({ id: invoices.id, number: invoices.number })
      .from(invoices)
      .where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.referencedInvoiceId, id), eq(invoices.type, 'TYPE_CANCEL'))),
  ]);
  const agg = { row, positions, customer: customerRows[0]! };
  (agg as InvoiceAggregate & { cancellation?: { id: string; number: string | null } }).cancellation = cancellation[0];
  return agg;
}

export function renderLoaded(agg: InvoiceAggregate) {
  const resource = renderInvoice(agg);
  const cancellation = (agg as InvoiceAggregate & { cancellation?: { id: string; number: string | null } }).cancellation;
  return { ...resource, cancellationDocument: cancellation ? { id: cancellation.id, number: cancellation.number } : null };
}

export interface InvoiceListQuery extends Page {
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

export async function listInvoices(ctx: ServiceContext, q: InvoiceListQuery) {
  const filters: (SQL | undefined)[] = [eq(invoices.tenantId, ctx.tenant.id)];
  if (q.status?.length) filters.push(inJson(invoices.status, q.status));
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
  const ids = rows.map((r) => r.id);
  const customerIds = [...new Set(rows.map((r) => r.customerId))];
  const [positions, customerRows] = ids.length
    ? await ctx.db.batch([
        ctx.db
          .select()
          .from(invoicePositions)
          .where(and(eq(invoicePositions.tenantId, ctx.tenant.id), inJson(invoicePositions.invoiceId, ids)))
          .orderBy(asc(invoicePositions.sort)),
        ctx.db.select().from(customers).where(tenantRowsById(customers, ctx.tenant.id, customerIds)),
      ])
    : [[], []];
  const customerMap = new Map(customerRows.map((c) => [c.id, c]));
  return collection(
    rows.map((row) => renderInvoice({ row, positions: positions.filter((p) => p.invoiceId === row.id), customer: customerMap.get(row.customerId)! })),
    total?.n ?? 0,
    q,
  );
}

// ── Drafts and positions ──────────────────────────────────────────────────────────────────────

export interface PositionInput {
  name: string;
  description: string | null;
  quantity: string;
  unitPrice: string;
  discount: string | null;
  /** A tax group resolves rate and category for the customer; or give taxRate (and taxCategory). */
  taxGroup: string | null;
  taxRate: string | null;
  taxCategory: string | null;
  serviceDateFrom: string | null;
  serviceDateTo: string | null;
  /** Index (within the same request) or id of the header this line belongs to. */
  parent: string | null;
}

export interface DraftInput {
  customer: string;
  currencyCode: string | null;
  title: string | null;
  introduction: string | null;
  closing: string | null;
  internalNote: string | null;
  customFields: Record<string, unknown> | null;
  positions: PositionInput[];
}

/** The invoice currency: the customer's, else the tenant's default (DESIGN §7). */
export function invoiceCurrency(customer: Pick<CustomerRow, 'currencyCode'>, tenant: { defaultCurrency: string }) {
  return customer.currencyCode ?? tenant.defaultCurrency;
}

/** The address billing uses: the customer's default invoice address, else its default address. */
export async function billingAddress(ctx: ServiceContext, customerId: string) {
  const rows = await ctx.db
    .select()
    .from(customerAddresses)
    .where(and(eq(customerAddresses.tenantId, ctx.tenant.id), eq(customerAddresses.customerId, customerId), eq(customerAddresses.isDefault, true)));
  return chooseBillingAddress(rows);
}

/** The address an invoice goes to, from a customer's default addresses: the invoice address, else the default one. */
export function chooseBillingAddress(rows: (typeof customerAddresses.$inferSelect)[]) {
  const chosen = rows.find((a) => a.type === 'TYPE_INVOICE' && a.status === 'active') ?? rows.find((a) => a.type === 'TYPE_DEFAULT') ?? null;
  return chosen ? (renderAddress(chosen) as unknown as Record<string, unknown>) : null;
}

/** Computes position rows (nets rounded once each) for an invoice, resolving taxes per line. */
export async function buildPositions(
  ctx: ServiceContext,
  invoiceId: string,
  customer: CustomerRow,
  currency: string,
  inputs: PositionInput[],
  v: Violations,
  startSort = 0,
  date = ctx.now,
): Promise<PositionRow[]> {
  const groupIds = [...new Set(inputs.map((p) => p.taxGroup).filter((x): x is string => x !== null))];
  const groups = groupIds.length
    ? await ctx.db.select().from(taxGroups).where(tenantRowsById(taxGroups, ctx.tenant.id, groupIds))
    : [];
  const ids = inputs.map(() => newId());
  const rows: PositionRow[] = [];
  for (const [i, p] of inputs.entries()) {
    const at = `positions[${i}]`;
    let taxRate = p.taxRate;
    let taxCategory = p.taxCategory ?? (p.taxRate !== null && new Dec(p.taxRate).isZero() ? 'Z' : 'S');
    let taxNote: string | null = null;
    if (p.taxGroup !== null) {
      const group = groups.find((g) => g.id === p.taxGroup);
      if (!group) {
        v.add(`${at}.taxGroup`, 'No such tax group.', 'not_found');
        continue;
      }
      try {
        const t = resolveTax({
          taxGroup: { type: group.type, reverseChargeType: group.reverseChargeType },
          sellerCountry: ctx.tenant.countryCode,
          customerCountry: customer.countryCode,
          vatIdValid: customer.isVatIdValid,
          isBusiness: customer.companyName !== null || customer.vatId !== null,
          taxExempt: customer.taxExempt,
          date,
          overrides: await taxOverrides(ctx, group),
        });
        taxRate = t.rate;
        taxCategory = t.category;
        taxNote = t.legalNote;
      } catch (err) {
        if (!(err instanceof TaxRateUnavailableError)) throw err;
        v.add(`${at}.taxGroup`, `No tax rate is known for ${err.country}; add one under /taxes.`, 'rate_unavailable');
        continue;
      }
    } else if (taxRate === null) {
      v.add(`${at}.taxRate`, 'Give a taxGroup, or a taxRate (and taxCategory).', 'required');
      continue;
    }
    let parentId: string | null = null;
    if (p.parent !== null) {
      const index = /^\d+$/.test(p.parent) ? Number(p.parent) : -1;
      if (index >= 0 && index < i && inputs[index]!.parent === null) parentId = ids[index]!;
      else v.add(`${at}.parent`, 'Must be the index of an earlier top-level position (the tree is at most two levels deep).', 'invalid_parent');
    }
    let net;
    try {
      net = lineNet({ quantity: p.quantity, unitPrice: p.unitPrice, discount: p.discount ?? undefined }, currency);
    } catch (err) {
      v.add(at, (err as Error).message, 'invalid_amount');
      continue;
    }
    rows.push({
      id: ids[i]!,
      tenantId: ctx.tenant.id,
      invoiceId,
      parentId,
      sort: startSort + i,
      name: p.name,
      description: p.description,
      quantity: p.quantity,
      unitPrice: p.unitPrice,
      discountAmount: toMinorUnitsSafe(net.discount, currency),
      netAmount: toMinorUnitsSafe(net.net, currency),
      taxRate: taxRate!,
      taxCategory,
      taxNote,
      serviceFrom: p.serviceDateFrom ? new Date(p.serviceDateFrom).toISOString() : null,
      serviceTo: p.serviceDateTo ? new Date(p.serviceDateTo).toISOString() : null,
      kind: 'manual',
      productId: null,
      subscriptionItemId: null,
      createdAt: ctx.now.toISOString(),
    });
  }
  return rows;
}

/** Totals of a set of positions (EN16931: tax per rate on the sum of the nets), in minor units. */
export function totalsOf(all: PositionRow[], currency: string) {
  // Header positions group lines (a subscription's name); they carry no amount.
  const positions = all.filter((p) => p.kind !== 'header');
  const t = invoiceTotals(
    positions.map((p) => ({
      net: fromMinorUnits(p.netAmount, currency).toString(),
      taxRate: p.taxRate,
      taxCategory: p.taxCategory,
      discount: fromMinorUnits(p.discountAmount, currency).toString(),
    })),
    currency,
  );
  const froms = positions.map((p) => p.serviceFrom).filter((x): x is string => x !== null).sort();
  const tos = positions.map((p) => p.serviceTo).filter((x): x is string => x !== null).sort();
  return {
    netAmount: toMinorUnitsSafe(t.net, currency),
    taxAmount: toMinorUnitsSafe(t.tax, currency),
    grossAmount: toMinorUnitsSafe(t.gross, currency),
    discountAmount: toMinorUnitsSafe(t.discount, currency),
    taxBreakdown: t.taxes,
    serviceDateFrom: froms[0] ?? null,
    serviceDateTo: tos[tos.length - 1] ?? null,
  };
}

export async function createDraft(ctx: ServiceContext, input: DraftInput, type: InvoiceType = 'TYPE_INVOICE', extra: Partial<InvoiceRow> = {}) {
  const customer = await ctx.db.select().from(customers).where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, input.customer))).get();
  const v = new Violations();
  if (!customer) throw ApiError.violation('customer', 'No such customer.', 'not_found');
  const currency = input.currencyCode ?? invoiceCurrency(customer, ctx.tenant);
  const id = newId();
  const positions = await buildPositions(ctx, id, customer, currency, input.positions, v);
  v.throwIfAny();
  const now = ctx.now.toISOString();
  const row: InvoiceRow = {
    id,
    tenantId: ctx.tenant.id,
    customerId: customer.id,
    type,
    status: 'STATUS_DRAFT',
    number: null,
    createdAt: now,
    subscriptionId: null,
    currencyCode: currency,
    numberSeq: null,
    finalizationDate: null,
    dueDate: null,
    payDate: null,
    lastSentAt: null,
    lastReminderDate: null,
    dunningLevel: 0,
    dunningStatus: 'none',
    dunningDisabled: false,
    invoiceAddress: await billingAddress(ctx, customer.id),
    paymentMethodId: null,
    referencedInvoiceId: null,
    internalNote: input.internalNote,
    title: input.title,
    introduction: input.introduction,
    closing: input.closing,
    ...totalsOf(positions, currency),
    paidAmount: 0,
    sourceType: 'manual',
    customFields: input.customFields,
    exchangeRates: null,
    billingRunId: null,
    documentKey: null,
    updatedAt: now,
    ...extra,
  };
  const resource = renderInvoice({ row, positions, customer });
  const statements: BatchItem<'sqlite'>[] = [ctx.db.insert(invoices).values(row), insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'invoice.created', resourceId: id, data: resource, now: ctx.now })];
  // 20 columns a position: 4 a statement stay under D1's 100 bound parameters.
  for (let i = 0; i < positions.length; i += 4) statements.push(ctx.db.insert(invoicePositions).values(positions.slice(i, i + 4)));
  await ctx.db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
  return resource;
}

function nextUpdatedAt(ctx: ServiceContext, row: InvoiceRow): string {
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

export async function updateDraft(ctx: ServiceContext, id: string, input: DraftInput) {
  const before = await loadInvoice(ctx, id);
  requireDraft(before, 'update');
  if (input.customer !== before.row.customerId) throw ApiError.violation('customer', 'The customer of an invoice cannot change.', 'immutable');
  const v = new Violations();
  const currency = input.currencyCode ?? before.row.currencyCode;
  const positions = await buildPositions(ctx, id, before.customer, currency, input.positions, v);
  v.throwIfAny();
  const t = ctx.tenant.id;
  const statements: BatchItem<'sqlite'>[] = [ctx.db.delete(invoicePositions).where(and(eq(invoicePositions.tenantId, t), eq(invoicePositions.invoiceId, id)))];
  for (let i = 0; i < positions.length; i += 4) statements.push(ctx.db.insert(invoicePositions).values(positions.slice(i, i + 4)));
  return commitInvoiceChange(
    ctx,
    before,
    { currencyCode: currency, title: input.title, introduction: input.introduction, closing: input.closing, internalNote: input.internalNote, customFields: input.customFields, ...totalsOf(positions, currency) },
    ['invoice.updated'],
    { positions, statements },
  );
}

export async function deleteDraft(ctx: ServiceContext, id: string) {
  const before = await loadInvoice(ctx, id);
  requireDraft(before, 'delete');
  try {
    await ctx.db.batch([
      ctx.db.delete(invoices).where(and(byId(ctx, id), eq(invoices.status, 'STATUS_DRAFT'))),
      requirePreviousChange(ctx.db),
      ctx.db.delete(invoicePositions).where(and(eq(invoicePositions.tenantId, ctx.tenant.id), eq(invoicePositions.invoiceId, id))),
      insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'invoice.deleted', resourceId: id, data: { id }, now: ctx.now }),
    ]);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.conflict('Only drafts can be deleted.', 'invalid-transition');
    throw err;
  }
}

/** Adds positions to a draft; a position's parent may name an existing top-level position by id. */
export async function addPositions(ctx: ServiceContext, id: string, inputs: PositionInput[]) {
  const before = await loadInvoice(ctx, id);
  requireDraft(before, 'add positions to');
  const v = new Violations();
  const topLevel = new Set(before.positions.filter((p) => p.parentId === null).map((p) => p.id));
  const local = inputs.map((p) => (p.parent !== null && topLevel.has(p.parent) ? { ...p, parent: null, existingParent: p.parent } : { ...p, existingParent: null }));
  const added = await buildPositions(ctx, id, before.customer, before.row.currencyCode, local, v, before.positions.length);
  local.forEach((p, i) => {
    if (p.existingParent && added[i]) added[i]!.parentId = p.existingParent;
  });
  v.throwIfAny();
  const positions = [...before.positions, ...added];
  const statements: BatchItem<'sqlite'>[] = [];
  for (let i = 0; i < added.length; i += 4) statements.push(ctx.db.insert(invoicePositions).values(added.slice(i, i + 4)));
  return commitInvoiceChange(ctx, before, totalsOf(positions, before.row.currencyCode), ['invoice.updated'], { positions, statements });
}

async function loadPosition(ctx: ServiceContext, positionId: string) {
  const p = await ctx.db
    .select()
    .from(invoicePositions)
    .where(and(eq(invoicePositions.tenantId, ctx.tenant.id), eq(invoicePositions.id, positionId)))
    .get();
  if (!p) throw ApiError.notFound('Invoice position');
  const invoice = await loadInvoice(ctx, p.invoiceId);
  requireDraft(invoice, 'change positions of');
  return { p, invoice };
}

export async function updatePosition(ctx: ServiceContext, positionId: string, input: PositionInput) {
  const { p, invoice } = await loadPosition(ctx, positionId);
  const v = new Violations();
  const [built] = await buildPositions(ctx, invoice.row.id, invoice.customer, invoice.row.currencyCode, [{ ...input, parent: null }], v, p.sort);
  if (input.parent !== null && input.parent !== p.parentId) {
    const parent = invoice.positions.find((x) => x.id === input.parent);
    if (!parent || parent.parentId !== null || invoice.positions.some((x) => x.parentId === p.id)) {
      v.add('parent', 'Must be a top-level position of the same invoice (the tree is at most two levels deep).', 'invalid_parent');
    }
  }
  v.throwIfAny();
  const next: PositionRow = { ...built!, id: p.id, parentId: input.parent, createdAt: p.createdAt };
  const positions = invoice.positions.map((x) => (x.id === p.id ? next : x));
  const { id: _i, tenantId: _t, invoiceId: _inv, createdAt: _c, ...set } = next;
  return commitInvoiceChange(ctx, invoice, totalsOf(positions, invoice.row.currencyCode), ['invoice.updated'], {
    positions,
    statements: [ctx.db.update(invoicePositions).set(set).where(and(eq(invoicePositions.tenantId, ctx.tenant.id), eq(invoicePositions.id, p.id)))],
  });
}

export async function deletePosition(ctx: ServiceContext, positionId: string) {
  const { p, invoice } = await loadPosition(ctx, positionId);
  const removed = new Set([p.id, ...invoice.positions.filter((x) => x.parentId === p.id).map((x) => x.id)]);
  const positions = invoice.positions.filter((x) => !removed.has(x.id));
  return commitInvoiceChange(ctx, invoice, totalsOf(positions, invoice.row.currencyCode), ['invoice.updated'], {
    positions,
    statements: [...removed].map((rid) => ctx.db.delete(invoicePositions).where(and(eq(invoicePositions.tenantId, ctx.tenant.id), eq(invoicePositions.id, rid)))),
  });
}

// ── Finalization ──────────────────────────────────────────────────────────────────────────────

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
  const nowIso = ctx.now.toISOString();
  const due = dueDate ? new Date(dueDate).toISOString() : new Date(ctx.now.getTime() + settings['invoice.paymentTermDays'] * 86_400_000).toISOString();
  // Reversing documents (negative totals) are settled against the invoice they reverse.
  const paid = before.row.grossAmount <= before.row.paidAmount;
  const announcePaid = paid && before.row.grossAmount > 0;
  const changes: Partial<InvoiceRow> = {
    status: paid ? 'STATUS_PAID' : 'STATUS_UNPAID',
    finalizationDate: nowIso,
    dueDate: due,
    payDate: paid ? nowIso : null,
    updatedAt: nextUpdatedAt(ctx, before.row),
  };
  const after = renderLoaded({ ...before, row: { ...before.row, ...changes, number: '{number}' } });
  const eventRows = [...extraEvents, 'invoice.finalized' as const, ...(announcePaid ? (['invoice.paid'] as const) : paid ? [] : (['invoice.unpaid'] as const))].map((type) => ({
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

export { events };
