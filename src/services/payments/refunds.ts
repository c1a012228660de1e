import { and, count, eq, sql } from 'drizzle-orm';
import { Dec, currencyScale, formatDecimal, fromMinorUnits, roundMoney, toMinorUnitsSafe } from '../../billing/money';
import { isGuardFailure, isUniqueViolation, requirePreviousChange } from '../../db/client';
import { invoices, transactions } from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { loadInvoice } from '../invoices/read';
import { issueRefundDocument, refundableByDocument } from '../invoices/refund-documents';
import { commitInvoiceChange } from '../invoices/write';
import { CHARGED_GATEWAYS } from '../ports/gateways';
import { GatewayUnavailableError, type RefundOutcome } from '../ports/gateways/port';
import { newTransactionRow, renderTransaction, type TransactionRow } from './transaction-render';
import { effectiveStatus } from '../invoices/status';

// Refunds (docs/decisions.md, Payments): a refund transaction is written, and the amount reserved on
// the payment (`refunded_amount`, guarded so concurrent refunds never give back more than was paid),
// before the gateway is asked. SEPA and transfer payments are paid back by credit transfer: their
// refunds stay pending until a pain.001 file carries them.

export interface RefundInput {
  /** Decimal string; null: everything not yet refunded. */
  amount: string | null;
  reason: string | null;
  /** Whether a refund document corrects the invoice (default: yes, when the payment paid one). */
  createDocument: boolean | null;
}

async function loadTransaction(ctx: ServiceContext, id: string) {
  const tx = await ctx.db.select().from(transactions).where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.id, id))).get();
  if (!tx) throw ApiError.notFound('Transaction');
  return tx;
}

export async function refundTransaction(ctx: ServiceContext, paymentId: string, input: RefundInput) {
  const payment = await loadTransaction(ctx, paymentId);
  if (payment.type !== 'payment' || payment.status !== 'succeeded') {
    throw ApiError.conflict(`Only succeeded payments can be refunded; this is a ${payment.status} ${payment.type}.`, 'not-refundable');
  }
  const currency = payment.currencyCode;
  const left = payment.amount - payment.refundedAmount;
  if (left <= 0) throw ApiError.conflict('The payment is refunded in full already.', 'not-refundable');
  const v = new Violations();
  let amount = left;
  if (input.amount !== null) {
    const dec = new Dec(input.amount);
    if (!roundMoney(dec, currency).eq(dec)) v.add('amount', `Has more decimals than ${currency} allows.`, 'too_many_decimals');
    else if (dec.lte(0)) v.add('amount', 'Must be greater than 0.', 'too_small');
    else if (dec.gt(fromMinorUnits(left, currency))) v.add('amount', `At most ${formatDecimal(fromMinorUnits(left, currency), currencyScale(currency))} ${currency} is left to refund.`, 'exceeds_refundable');
    else amount = toMinorUnitsSafe(dec, currency);
  }
  v.throwIfAny();
  const createDocument = input.createDocument ?? payment.invoiceId !== null;
  if (createDocument) {
    // The document's limit is checked before any money moves: credit notes and refund documents
    // together never give back more than the invoice charged.
    const invoice = payment.invoiceId ? await ctx.db.select({ type: invoices.type, gross: invoices.grossAmount, number: invoices.number }).from(invoices).where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.id, payment.invoiceId))).get() : undefined;
    if (!invoice) throw ApiError.violation('createDocument', 'This payment paid no invoice a refund document could correct.', 'no_invoice');
    if (invoice.type === 'TYPE_INVOICE') {
      const room = (await refundableByDocument(ctx, payment.invoiceId!, invoice.gross)) - (await pendingRefundDocuments(ctx, payment.invoiceId!));
      if (amount > room) {
        throw ApiError.violation('amount', `Credit notes and refunds leave ${formatDecimal(fromMinorUnits(Math.max(0, room), currency), currencyScale(currency))} ${currency} to correct on ${invoice.number}; refund without a document (createDocument: false) to give back more.`, 'exceeds_creditable');
      }
    }
  }
  const earlier = await ctx.db.select({ n: count() }).from(transactions).where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.parentTransactionId, payment.id), eq(transactions.type, 'refund'))).get();
  const nowIso = ctx.now.toISOString();
  const refund = newTransactionRow(ctx, {
    customerId: payment.customerId,
    invoiceId: payment.invoiceId,
    paymentMethodId: payment.paymentMethodId,
    type: 'refund',
    gateway: payment.gateway,
    status: 'pending',
    description: input.reason ?? `Refund of ${payment.documentNumber ?? 'payment'}`,
    documentNumber: payment.documentNumber,
    currencyCode: payment.currencyCode,
    amount,
    idempotencyKey: `refund:${payment.id}:${(earlier?.n ?? 0) + 1}`,
    parentTransactionId: payment.id,
    refundDocument: createDocument,
  });
  try {
    await ctx.db.batch([
      // Reserve the amount on the payment as it was read: a concurrent refund makes this match nothing.
      ctx.db
        .update(transactions)
        .set({ refundedAmount: sql`${transactions.refundedAmount} + ${amount}`, updatedAt: nowIso })
        .where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.id, payment.id), eq(transactions.status, 'succeeded'), eq(transactions.refundedAmount, payment.refundedAmount))),
      requirePreviousChange(ctx.db),
      ctx.db.insert(transactions).values(refund),
    ]);
  } catch (err) {
    if (isGuardFailure(err) || isUniqueViolation(err)) {
      throw ApiError.conflict('Another refund of this payment was made at the same time; reload and retry.', 'concurrent-update');
    }
    throw err;
  }
  if (!CHARGED_GATEWAYS.has(payment.gateway)) return { refund: renderTransaction(refund), createDocument };
  return { refund: renderTransaction(await sendRefund(ctx, refund, payment)), createDocument };
}

/**
 * Asks the gateway to refund (the first time, or again with the same key after no answer came).
 * A gateway that cannot be reached leaves the refund pending, its amount reserved: the collection
 * sweeper asks again with the same key, which the gateway answers with the first refund.
 */
export async function sendRefund(ctx: ServiceContext, refund: TransactionRow, payment: Pick<TransactionRow, 'id' | 'gateway' | 'referenceId'>): Promise<TransactionRow> {
  const gateway = await ctx.gateways.get(payment.gateway);
  let outcome: RefundOutcome;
  try {
    outcome = gateway
      ? await gateway.refund({
          idempotencyKey: refund.idempotencyKey,
          chargeReferenceId: payment.referenceId ?? '',
          amount: formatDecimal(fromMinorUnits(refund.amount, refund.currencyCode), currencyScale(refund.currencyCode)),
          currencyCode: refund.currencyCode,
          metadata: { tenant_id: ctx.tenant.id, transaction_id: refund.id, payment_id: payment.id },
        })
      : { status: 'failed', referenceId: null, reason: 'gateway_unconfigured' };
  } catch (err) {
    if (err instanceof GatewayUnavailableError) return refund;
    throw err;
  }
  return applyRefundOutcome(ctx, refund, outcome);
}

/** Refund documents still to come: refunds with a document that have not gone through yet. */
async function pendingRefundDocuments(ctx: ServiceContext, invoiceId: string): Promise<number> {
  const row = await ctx.db
    .select({ amount: sql<number>`coalesce(sum(${transactions.amount}), 0)` })
    .from(transactions)
    .where(
      and(
        eq(transactions.tenantId, ctx.tenant.id),
        eq(transactions.invoiceId, invoiceId),
        eq(transactions.type, 'refund'),
        sql`${transactions.status} IN ('pending', 'processing')`,
        sql`coalesce(${transactions.refundDocument}, 1) = 1`,
      ),
    )
    .get();
  return row?.amount ?? 0;
}

/**
 * Moves a refund to the gateway's (or the bank's) answer, once. Success: the refund is done, the
 * invoice gets its refund document (when it corrects it) and `invoice.refunded`, and becomes
 * STATUS_REFUNDED when everything it received went back. Failure releases the reserved amount.
 */
export async function applyRefundOutcome(ctx: ServiceContext, refund: TransactionRow, outcome: RefundOutcome): Promise<TransactionRow> {
  const nowIso = ctx.now.toISOString();
  const live = and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.id, refund.id), sql`${transactions.status} IN ('pending', 'processing')`);
  if (outcome.status === 'failed') {
    const next: TransactionRow = { ...refund, status: 'failed', failReason: outcome.reason, referenceId: outcome.referenceId ?? refund.referenceId, updatedAt: nowIso };
    await ctx.db
      .batch([
        ctx.db.update(transactions).set({ status: 'failed', failReason: outcome.reason, referenceId: next.referenceId, updatedAt: nowIso }).where(live),
        requirePreviousChange(ctx.db),
        ctx.db
          .update(transactions)
          .set({ refundedAmount: sql`${transactions.refundedAmount} - ${refund.amount}`, updatedAt: nowIso })
          .where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.id, refund.parentTransactionId!))),
        insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'transaction.failed', resourceId: refund.id, data: renderTransaction(next), now: ctx.now }),
      ])
      .catch((err) => {
        if (!isGuardFailure(err)) throw err;
      });
    return next;
  }
  if (outcome.status === 'processing') {
    await ctx.db.update(transactions).set({ status: 'processing', referenceId: outcome.referenceId, updatedAt: nowIso }).where(live);
    return { ...refund, status: 'processing', referenceId: outcome.referenceId, updatedAt: nowIso };
  }
  const next: TransactionRow = { ...refund, status: 'succeeded', referenceId: outcome.referenceId, chargedAmount: refund.amount, paidAt: nowIso, updatedAt: nowIso };
  const done = [
    ctx.db.update(transactions).set({ status: 'succeeded', referenceId: outcome.referenceId, chargedAmount: refund.amount, paidAt: nowIso, updatedAt: nowIso }).where(live),
    requirePreviousChange(ctx.db),
    insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'transaction.succeeded', resourceId: refund.id, data: renderTransaction(next), now: ctx.now }),
  ];
  try {
    await ctx.db.batch(done as never);
  } catch (err) {
    if (isGuardFailure(err)) return (await loadTransaction(ctx, refund.id)) as TransactionRow;
    throw err;
  }
  if (refund.invoiceId) await markInvoiceRefunded(ctx, refund);
  return next;
}

/** The invoice's side of a refund that went through: the document, the status, the event. */
async function markInvoiceRefunded(ctx: ServiceContext, refund: TransactionRow) {
  const invoiceId = refund.invoiceId!;
  if (refund.refundDocument !== false) {
    const before = await loadInvoice(ctx, invoiceId);
    if (before.row.type === 'TYPE_INVOICE') {
      // The money went back already, so this never fails the refund: a document that no longer fits
      // (a credit note issued since the refund was asked for) is given back as far as it fits.
      const room = await refundableByDocument(ctx, invoiceId, before.row.grossAmount);
      const gross = Math.min(refund.amount, room);
      if (gross > 0) await issueRefundDocument(ctx, invoiceId, gross, refund.description);
    }
  }
  const payments = await ctx.db
    .select({ paid: sql<number>`coalesce(sum(${transactions.amount}), 0)`, refunded: sql<number>`coalesce(sum(${transactions.refundedAmount}), 0)` })
    .from(transactions)
    .where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.invoiceId, invoiceId), eq(transactions.type, 'payment'), eq(transactions.status, 'succeeded')))
    .get();
  const invoice = await loadInvoice(ctx, invoiceId);
  const all = payments !== undefined && payments.paid > 0 && payments.refunded >= payments.paid && effectiveStatus(invoice.row) === 'STATUS_PAID';
  await commitInvoiceChange(ctx, invoice, all ? { status: 'STATUS_REFUNDED' } : {}, ['invoice.updated', 'invoice.refunded']);
}
