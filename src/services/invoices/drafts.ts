import { and, eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { isGuardFailure, requireCondition, requirePreviousChange, runBatch } from '../../db/client';
import { insertRows } from '../../db/insert';
import { customerAddresses, customers, invoicePositions, invoices } from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { newId } from '../../lib/ids';
import { renderAddress } from '../customers/render';
import { checkCustomFieldValues, selectCustomFieldDefinitions } from '../customers/custom-fields';
import { customerExists } from '../customers/guards';
import { buildPositions, checkedTotals } from './build-positions';
import { flattenItems, type PositionItem } from './position-input';
import { invoiceEmbeds } from './embeds';
import { type CustomerRow, type InvoiceType, renderInvoice } from './render';
import { type NewInvoiceFields, newInvoiceRow } from './row';
import { byId, loadInvoice } from './read';
import { commitInvoiceChange, requireDraft } from './write';

export interface DraftInput {
  customer: string;
  currencyCode: string | null;
  title: string | null;
  introduction: string | null;
  closing: string | null;
  internalNote: string | null;
  customFields: Record<string, unknown> | null;
  positions: PositionItem[];
}

/** The invoice currency: the customer's, else the tenant's default (docs/decisions.md, Foundations). */
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

export async function createDraft(ctx: ServiceContext, input: DraftInput, type: InvoiceType = 'TYPE_INVOICE', extra: Partial<NewInvoiceFields> = {}) {
  const customer = await ctx.db.select().from(customers).where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, input.customer))).get();
  const v = new Violations();
  if (!customer) throw ApiError.violation('customer', 'No such customer.', 'not_found');
  const currency = input.currencyCode ?? invoiceCurrency(customer, ctx.tenant);
  const id = newId();
  const positions = await buildPositions(ctx, id, customer, currency, flattenItems(input.positions), v);
  const totals = checkedTotals(positions, currency, v);
  checkCustomFieldValues(await selectCustomFieldDefinitions(ctx.db, ctx.tenant.id, 'invoice'), input.customFields, v);
  v.throwIfAny();
  const row = newInvoiceRow(ctx, {
    id,
    customerId: customer.id,
    type,
    currencyCode: currency,
    invoiceAddress: await billingAddress(ctx, customer.id),
    internalNote: input.internalNote,
    title: input.title,
    introduction: input.introduction,
    closing: input.closing,
    customFields: input.customFields,
    ...totals!,
    ...extra,
  });
  const resource = renderInvoice({ row, embeds: await invoiceEmbeds(ctx, [row]), positions, customer });
  const statements: BatchItem<'sqlite'>[] = [ctx.db.insert(invoices).values(row), insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'invoice.created', resourceId: id, data: resource, now: ctx.now })];
  statements.push(...insertRows(ctx.db, invoicePositions, positions));
  // A customer deleted meanwhile must not be left with an invoice (its delete checks the other way).
  statements.push(requireCondition(ctx.db, customerExists(ctx.tenant.id, customer.id)));
  try {
    await runBatch(ctx.db, statements);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.violation('customer', 'No such customer.', 'not_found');
    throw err;
  }
  return resource;
}

export async function updateDraft(ctx: ServiceContext, id: string, input: DraftInput) {
  const before = await loadInvoice(ctx, id);
  requireDraft(before, 'update');
  if (input.customer !== before.row.customerId) throw ApiError.violation('customer', 'The customer of an invoice cannot change.', 'immutable');
  const v = new Violations();
  const currency = input.currencyCode ?? before.row.currencyCode;
  const positions = await buildPositions(ctx, id, before.customer, currency, flattenItems(input.positions), v);
  const totals = checkedTotals(positions, currency, v);
  checkCustomFieldValues(await selectCustomFieldDefinitions(ctx.db, ctx.tenant.id, 'invoice'), input.customFields, v);
  v.throwIfAny();
  const t = ctx.tenant.id;
  const statements: BatchItem<'sqlite'>[] = [
    ctx.db.delete(invoicePositions).where(and(eq(invoicePositions.tenantId, t), eq(invoicePositions.invoiceId, id))),
    ...insertRows(ctx.db, invoicePositions, positions),
  ];
  return commitInvoiceChange(
    ctx,
    before,
    { currencyCode: currency, title: input.title, introduction: input.introduction, closing: input.closing, internalNote: input.internalNote, customFields: input.customFields, ...totals! },
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
