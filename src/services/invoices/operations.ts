import { effectiveStatus, OPEN } from './status';
import { and, asc, eq } from 'drizzle-orm';
import { fromMinorUnits } from '../../billing/money';
import { customerAddresses, invoiceComments } from '../../db/schema';
import { requireCustomerPaymentMethod } from '../customers/payment-methods';
import { renderAddress } from '../customers/render';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import type { Page } from '../../http/pagination';
import { fetchPage } from '../../db/paging';
import { newId } from '../../lib/ids';
import { logError } from '../../lib/log';
import { billingAddress, createDraft } from './drafts';
import type { PositionItem } from './position-input';
import { commitInvoiceChange } from './write';
import { loadInvoice, renderLoaded } from './read';
import { type InvoiceAggregate } from './render';
import type { InvoiceComment } from '../../schemas/invoices';
import { tenantObject } from '../../objects/tenant-stub';

/**
 * Invoice status transitions (docs/state-machines.md). Finalization is in invoices.ts; payments,
 * cancellation, credit and closing are here. Every other transition is 409.
 */
export { OPEN } from './status';

/** A finalizing document counts as the status it will become (effectiveStatus). */
export function requireStatus(agg: InvoiceAggregate, allowed: string[], action: string) {
  if (!allowed.includes(effectiveStatus(agg.row))) throw ApiError.conflict(`Cannot ${action} a document in status ${agg.row.status}.`, 'invalid-transition');
}

export const money = (minor: number, currency: string) => fromMinorUnits(minor, currency).toString();

export async function closeInvoice(ctx: ServiceContext, id: string) {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, OPEN, 'close');
  return commitInvoiceChange(ctx, before, { status: 'STATUS_CLOSED' }, ['invoice.closed']);
}

export async function setDunning(ctx: ServiceContext, id: string, dunningDisabled: boolean) {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, OPEN, 'change dunning of');
  const changed = await commitInvoiceChange(ctx, before, { dunningDisabled }, ['invoice.updated']);
  if (dunningDisabled || !before.row.dunningDisabled) return changed;
  // Resumed: the level that fell due meanwhile is applied now, in the tenant's one dunning path. The
  // change is saved either way; a failed run is left to the nightly one.
  try {
    const summary = await tenantObject(ctx.env, ctx.tenant.id).runDunning(ctx.tenant.id, { invoiceId: id, asOf: ctx.now.toISOString() });
    return summary.issued > 0 ? renderLoaded(await loadInvoice(ctx, id)) : changed;
  } catch (err) {
    logError({ job: 'dunning', tenantId: ctx.tenant.id, invoiceId: id }, err);
    return changed;
  }
}

export async function setNote(ctx: ServiceContext, id: string, input: { internalNote: string | null }) {
  const before = await loadInvoice(ctx, id);
  return commitInvoiceChange(ctx, before, { internalNote: input.internalNote }, ['invoice.updated']);
}

/**
 * Drafts take a new address (one of the customer's, or the current billing address); finalized
 * documents keep theirs: 409, they are corrected by cancelling and duplicating (docs/decisions.md,
 * Response shapes). `path` names the field the address was sent in.
 */
export async function setAddress(ctx: ServiceContext, id: string, addressId: string | null, path = 'address') {
  const before = await loadInvoice(ctx, id);
  if (before.row.status !== 'STATUS_DRAFT') throw ApiError.conflict('The address of a finalized document cannot change.', 'invalid-transition');
  let address = await billingAddress(ctx, before.row.customerId);
  if (addressId) {
    const row = await ctx.db
      .select()
      .from(customerAddresses)
      .where(and(eq(customerAddresses.tenantId, ctx.tenant.id), eq(customerAddresses.id, addressId), eq(customerAddresses.customerId, before.row.customerId)))
      .get();
    if (!row) throw ApiError.violation(path, 'No such address of this customer.', 'not_found');
    address = renderAddress(row) as unknown as Record<string, unknown>;
  }
  return commitInvoiceChange(ctx, before, { invoiceAddress: address }, ['invoice.updated']);
}

export async function setPaymentMethod(ctx: ServiceContext, id: string, paymentMethodId: string | null, path = 'paymentMethod') {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, ['STATUS_DRAFT', ...OPEN], 'change the payment method of');
  if (paymentMethodId) await requireCustomerPaymentMethod(ctx, before.row.customerId, paymentMethodId, path);
  return commitInvoiceChange(ctx, before, { paymentMethodId }, ['invoice.updated', 'invoice.payment_method.updated']);
}

/** A new draft with the same customer, texts and positions. */
export async function duplicateInvoice(ctx: ServiceContext, id: string) {
  const before = await loadInvoice(ctx, id);
  if (before.row.type !== 'TYPE_INVOICE') throw ApiError.conflict('Only invoices can be duplicated.', 'invalid-transition');
  const positions = before.positions.map(
    (p): PositionItem => ({
      name: p.name,
      description: p.description,
      quantity: p.quantity,
      unitPrice: p.unitPrice,
      currencyCode: null,
      discount: p.discountAmount && !p.discountPercentage ? fromMinorUnits(Math.abs(p.discountAmount), before.row.currencyCode).toString() : null,
      discountPercentage: p.discountPercentage ?? null,
      // The rate as billed, not resolved again.
      taxGroup: null,
      taxRate: p.taxRate,
      taxCategory: p.taxCategory,
      unit: p.unit?.id ?? null,
      unitPriceInterval: p.unitPriceInterval ?? null,
      product: null,
      subscriptionItem: null,
      serviceDateFrom: null,
      serviceDateTo: null,
      parent: p.parentId ? String(before.positions.findIndex((x) => x.id === p.parentId)) : null,
      children: [],
    }),
  );
  return createDraft(ctx, {
    customer: before.row.customerId,
    currencyCode: before.row.currencyCode,
    title: before.row.title,
    introduction: before.row.introduction,
    closing: before.row.closing,
    internalNote: before.row.internalNote,
    customFields: before.row.customFields,
    positions,
  });
}

export async function addComment(ctx: ServiceContext, id: string, text: string, author: string | null): Promise<InvoiceComment> {
  await loadInvoice(ctx, id);
  const row = { id: newId(), tenantId: ctx.tenant.id, invoiceId: id, text, author, createdAt: ctx.now.toISOString() };
  await ctx.db.insert(invoiceComments).values(row);
  return { id: row.id, text, author, createdAt: row.createdAt };
}

export async function listComments(ctx: ServiceContext, id: string, page: Page) {
  await loadInvoice(ctx, id);
  const where = and(eq(invoiceComments.tenantId, ctx.tenant.id), eq(invoiceComments.invoiceId, id));
  return fetchPage(ctx.db, invoiceComments, where, [asc(invoiceComments.createdAt), asc(invoiceComments.id)], page, (r): InvoiceComment => ({ id: r.id, text: r.text, author: r.author, createdAt: r.createdAt }));
}
