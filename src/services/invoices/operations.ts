import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { creditableAmount, splitPayment } from '../../billing/invoice-totals';
import { Dec, formatMoney, fromMinorUnits, roundMoney, toMinorUnitsSafe } from '../../billing/money';
import { customerAddresses, customerEmailAddresses, invoiceComments, invoicePayments, invoicePositions, invoices, outgoingMails, paymentMethods } from '../../db/schema';
import { renderAddress } from '../customers/customers';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import type { Page } from '../../http/pagination';
import { fetchPage } from '../../db/paging';
import { sha256Hex } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import {
  billingAddress,
  buildPositions,
  commitInvoiceChange,
  createDraft,
  finalizeInvoice,
  loadInvoice,
  renderLoaded,
  totalsOf,
  type InvoiceAggregate,
  type InvoiceRow,
  type PositionInput,
  type PositionRow,
} from './invoices';

/**
 * Invoice status transitions (docs/state-machines.md). Finalization is in invoices.ts; payments,
 * cancellation, credit and closing are here. Every other transition is 409.
 */
const OPEN = ['STATUS_UNPAID', 'STATUS_REMINDED'];

function requireStatus(agg: InvoiceAggregate, allowed: string[], action: string) {
  if (!allowed.includes(agg.row.status)) throw ApiError.conflict(`Cannot ${action} a document in status ${agg.row.status}.`, 'invalid-transition');
}

const money = (minor: number, currency: string) => fromMinorUnits(minor, currency).toString();

export interface PaymentInput {
  amount: string;
  paymentDate: string;
  description: string | null;
  paymentMethod: string | null;
}

/** Records a (partial) payment; a payment covering the rest makes the invoice paid. Overpayments are refused. */
export async function addPayment(ctx: ServiceContext, id: string, input: PaymentInput) {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, OPEN, 'record a payment on');
  const currency = before.row.currencyCode;
  const v = new Violations();
  if (!roundMoney(input.amount, currency).eq(new Dec(input.amount))) v.add('amount', `Has more decimals than ${currency} allows.`, 'too_many_decimals');
  if (new Dec(input.amount).lte(0)) v.add('amount', 'Must be greater than 0.', 'too_small');
  v.throwIfAny();
  const unpaid = money(before.row.grossAmount - before.row.paidAmount, currency);
  const split = splitPayment(unpaid, input.amount, currency);
  if (new Dec(split.overpayment).gt(0)) {
    throw ApiError.violation('amount', `The payment exceeds the unpaid amount of ${unpaid} ${currency}.`, 'overpayment');
  }
  const paidAmount = before.row.paidAmount + toMinorUnitsSafe(input.amount, currency);
  const settled = paidAmount >= before.row.grossAmount;
  const payment = {
    id: newId(),
    tenantId: ctx.tenant.id,
    invoiceId: id,
    amount: toMinorUnitsSafe(input.amount, currency),
    paymentDate: new Date(input.paymentDate).toISOString(),
    description: input.description,
    paymentMethod: input.paymentMethod,
    createdAt: ctx.now.toISOString(),
  };
  const changes: Partial<InvoiceRow> = settled ? { paidAmount, status: 'STATUS_PAID', payDate: payment.paymentDate } : { paidAmount };
  return commitInvoiceChange(ctx, before, changes, settled ? ['invoice.updated', 'invoice.paid'] : ['invoice.updated'], {
    statements: [ctx.db.insert(invoicePayments).values(payment)],
  });
}

export async function listPayments(ctx: ServiceContext, id: string) {
  const inv = await loadInvoice(ctx, id);
  const rows = await ctx.db
    .select()
    .from(invoicePayments)
    .where(and(eq(invoicePayments.tenantId, ctx.tenant.id), eq(invoicePayments.invoiceId, id)))
    .orderBy(asc(invoicePayments.createdAt));
  return rows.map((p) => ({ id: p.id, amount: formatMoney(fromMinorUnits(p.amount, inv.row.currencyCode), inv.row.currencyCode), paymentDate: p.paymentDate, description: p.description, paymentMethod: p.paymentMethod }));
}

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
  const currency = original.row.currencyCode;
  const now = ctx.now.toISOString();
  const row: InvoiceRow = {
    ...original.row,
    id,
    type,
    status: 'STATUS_DRAFT',
    number: null,
    numberSeq: null,
    createdAt: now,
    updatedAt: now,
    referencedInvoiceId: original.row.id,
    finalizationDate: null,
    dueDate: null,
    payDate: null,
    lastSentAt: null,
    lastReminderDate: null,
    dunningLevel: 0,
    dunningStatus: 'none',
    dunningDisabled: true,
    paidAmount: 0,
    title: texts.title,
    internalNote: texts.internalNote,
    documentKey: null,
    billingRunId: null,
    ...totalsOf(positions, currency),
  };
  const statements: BatchItem<'sqlite'>[] = [ctx.db.insert(invoices).values(row)];
  for (let i = 0; i < positions.length; i += 4) statements.push(ctx.db.insert(invoicePositions).values(positions.slice(i, i + 4)));
  await ctx.db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
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
  const gross = Math.abs(totalsOf(positions, currency).grossAmount);
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

export async function closeInvoice(ctx: ServiceContext, id: string) {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, OPEN, 'close');
  return commitInvoiceChange(ctx, before, { status: 'STATUS_CLOSED' }, ['invoice.closed']);
}

export async function setDunning(ctx: ServiceContext, id: string, dunningDisabled: boolean) {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, OPEN, 'change dunning of');
  return commitInvoiceChange(ctx, before, { dunningDisabled }, ['invoice.updated']);
}

export async function setNote(ctx: ServiceContext, id: string, input: { internalNote: string | null }) {
  const before = await loadInvoice(ctx, id);
  return commitInvoiceChange(ctx, before, { internalNote: input.internalNote }, ['invoice.updated']);
}

/** Drafts take a new address (one of the customer's, or the current billing address); finalized documents keep theirs. */
export async function setAddress(ctx: ServiceContext, id: string, addressId: string | null) {
  const before = await loadInvoice(ctx, id);
  if (before.row.status !== 'STATUS_DRAFT') throw ApiError.conflict('The address of a finalized document cannot change.', 'invalid-transition');
  let address = await billingAddress(ctx, before.row.customerId);
  if (addressId) {
    const row = await ctx.db
      .select()
      .from(customerAddresses)
      .where(and(eq(customerAddresses.tenantId, ctx.tenant.id), eq(customerAddresses.id, addressId), eq(customerAddresses.customerId, before.row.customerId)))
      .get();
    if (!row) throw ApiError.violation('address', 'No such address of this customer.', 'not_found');
    address = renderAddress(row) as unknown as Record<string, unknown>;
  }
  return commitInvoiceChange(ctx, before, { invoiceAddress: address }, ['invoice.updated']);
}

export async function setPaymentMethod(ctx: ServiceContext, id: string, paymentMethodId: string | null) {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, ['STATUS_DRAFT', ...OPEN], 'change the payment method of');
  if (paymentMethodId) {
    const m = await ctx.db
      .select({ id: paymentMethods.id })
      .from(paymentMethods)
      .where(and(eq(paymentMethods.tenantId, ctx.tenant.id), eq(paymentMethods.id, paymentMethodId), eq(paymentMethods.customerId, before.row.customerId)))
      .get();
    if (!m) throw ApiError.violation('paymentMethod', 'No such payment method of this customer.', 'not_found');
  }
  return commitInvoiceChange(ctx, before, { paymentMethodId }, ['invoice.updated']);
}

/** A new draft with the same customer, texts and positions. */
export async function duplicateInvoice(ctx: ServiceContext, id: string) {
  const before = await loadInvoice(ctx, id);
  if (before.row.type !== 'TYPE_INVOICE') throw ApiError.conflict('Only invoices can be duplicated.', 'invalid-transition');
  const positions = before.positions.map((p) => ({
    name: p.name,
    description: p.description,
    quantity: p.quantity,
    unitPrice: p.unitPrice,
    discount: p.discountAmount ? fromMinorUnits(Math.abs(p.discountAmount), before.row.currencyCode).toString() : null,
    taxGroup: null,
    taxRate: p.taxRate,
    taxCategory: p.taxCategory,
    serviceDateFrom: null,
    serviceDateTo: null,
    parent: p.parentId ? String(before.positions.findIndex((x) => x.id === p.parentId)) : null,
  }));
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

export async function addComment(ctx: ServiceContext, id: string, text: string, author: string | null) {
  await loadInvoice(ctx, id);
  const row = { id: newId(), tenantId: ctx.tenant.id, invoiceId: id, text, author, createdAt: ctx.now.toISOString() };
  await ctx.db.insert(invoiceComments).values(row);
  return { id: row.id, text, author, createdAt: row.createdAt };
}

export async function listComments(ctx: ServiceContext, id: string, page: Page) {
  await loadInvoice(ctx, id);
  const where = and(eq(invoiceComments.tenantId, ctx.tenant.id), eq(invoiceComments.invoiceId, id));
  return fetchPage(ctx.db, invoiceComments, where, [asc(invoiceComments.createdAt), asc(invoiceComments.id)], page, (r) => ({ id: r.id, text: r.text, author: r.author, createdAt: r.createdAt }));
}

/**
 * The document as it would be rendered now. Until the documents issue renders PDF and EN16931 XML,
 * the rendition is the JSON representation, stored in R2 under the tenant's prefix.
 */
export async function storeRendition(ctx: ServiceContext, agg: InvoiceAggregate) {
  const key = `${ctx.tenant.id}/invoices/${agg.row.id}/${agg.row.number ?? 'draft'}.json`;
  await ctx.env.DOCUMENTS.put(key, JSON.stringify(renderLoaded(agg), null, 2), { httpMetadata: { contentType: 'application/json' } });
  return key;
}

/** A signed, expiring link to the stored rendition: HMAC over key and expiry with the JWT secret. */
export async function downloadLink(ctx: ServiceContext, id: string, origin: string, secondsValid: number) {
  const agg = await loadInvoice(ctx, id);
  if (agg.row.status === 'STATUS_DRAFT') throw ApiError.conflict('Drafts have no document yet; use GET /invoices/{id}/preview.', 'invalid-transition');
  let key = agg.row.documentKey;
  if (!key) {
    key = await storeRendition(ctx, agg);
    await ctx.db.update(invoices).set({ documentKey: key }).where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.id, id)));
  }
  const expires = Math.floor(ctx.now.getTime() / 1000) + secondsValid;
  const signature = await signDocument(ctx.env.JWT_SECRET, key, expires);
  return {
    url: `${origin}/public/documents/${encodeURIComponent(key)}?expires=${expires}&signature=${signature}`,
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}

export async function signDocument(secret: string, key: string, expires: number): Promise<string> {
  return sha256Hex(`${secret}\n${key}\n${expires}`);
}

/** Sends the document through the mail interface and records lastSentAt. */
export async function resendInvoice(ctx: ServiceContext, id: string) {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, ['STATUS_UNPAID', 'STATUS_REMINDED', 'STATUS_PAID', 'STATUS_CLOSED', 'STATUS_CANCELLED'], 'send');
  const emails = await ctx.db
    .select()
    .from(customerEmailAddresses)
    .where(and(eq(customerEmailAddresses.tenantId, ctx.tenant.id), eq(customerEmailAddresses.customerId, before.row.customerId), eq(customerEmailAddresses.isDefault, true), inArray(customerEmailAddresses.type, ['invoice', 'default'])));
  const to = emails.find((e) => e.type === 'invoice')?.email ?? emails.find((e) => e.type === 'default')?.email ?? before.customer.email;
  await ctx.mailer.send({ tenantId: ctx.tenant.id, to, subject: `${before.row.number}`, body: `Your document ${before.row.number} is attached.`, attachmentKey: before.row.documentKey });
  return commitInvoiceChange(ctx, before, { lastSentAt: ctx.now.toISOString() }, ['invoice.updated']);
}
