import { and, count, eq, inArray, isNull } from 'drizzle-orm';
import { formatDecimal, fromMinorUnits, currencyScale, toMinorUnitsSafe } from '../../billing/money';
import { isGuardFailure, requirePreviousChange } from '../../db/client';
import { customers, invoices, paymentMethods, transactions } from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import { paymentChange } from '../invoices/payments';
import { loadInvoice, renderLoaded } from '../invoices/read';
import { isOpen } from '../invoices/status';
import { creditedSql, owedOf } from '../invoices/owed';
import { owedAmount } from '../../billing/owed';
import { commitInvoiceChange } from '../invoices/write';
import { loadSettings } from '../platform/settings';
import { CHARGED_GATEWAYS } from '../ports/gateways';
import type { ChargeOutcome, GatewayEvent } from '../ports/gateways/port';
import { payingMethodWhere } from './paying-method';
import { applyRefundOutcome } from './refunds';
import { cartPaymentFailedStatements } from '../checkout/paid-later';
import { newTransactionRow, renderTransaction, type TransactionRow } from './transaction-render';

// Automatic collection (docs/decisions.md, Payments): a finalized invoice whose payment method is
// charged by a gateway gets one collection attempt per job. The transaction row is written before
// the gateway is called and its idempotency key goes to the gateway, so a job that runs twice (a
// redelivered message, a crash after the call) finds the row and repeats the same request, which
// the gateway answers with the same charge: money is never collected twice.

const LIVE = ['pending', 'processing', 'action_required'] as const;

export type CollectResult =
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'waiting'; transaction: TransactionRow }
  | { outcome: 'succeeded' | 'failed' | 'processing' | 'action_required'; transaction: TransactionRow };

/** The method that pays an invoice: its own, else the customer's default. Null when it has none. */
export async function invoicePaymentMethod(ctx: ServiceContext, invoice: { customerId: string; paymentMethodId: string | null }) {
  return (await ctx.db.select().from(paymentMethods).where(payingMethodWhere(ctx.tenant.id, invoice)).get()) ?? null;
}

/** A method the collection job can charge now. */
export function isChargeable(method: typeof paymentMethods.$inferSelect | null): method is typeof paymentMethods.$inferSelect {
  return !!method && method.enabled && method.status === 'active' && CHARGED_GATEWAYS.has(method.gatewayName);
}

const liveOf = (ctx: ServiceContext, invoiceId: string) =>
  ctx.db
    .select()
    .from(transactions)
    .where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.invoiceId, invoiceId), eq(transactions.type, 'payment'), inArray(transactions.status, [...LIVE])))
    .get();

/**
 * One collection attempt of an invoice. Nothing happens for a document that is not an open invoice,
 * has nothing unpaid, or whose method is not charged by a gateway (SEPA debits leave in files,
 * transfers are matched on the statement). A live transaction (a job that ran before) is continued,
 * never doubled.
 */
export async function collectInvoice(ctx: ServiceContext, invoiceId: string, options: { onSession?: boolean } = {}): Promise<CollectResult> {
  // A pending charge (a job that died after, or during, the gateway call) is continued whatever
  // became of the invoice meanwhile: the gateway may have charged, and only repeating the same
  // request tells; a success on a settled invoice is then recorded, never lost.
  const pending = await liveOf(ctx, invoiceId);
  if (pending?.status === 'pending') return chargePending(ctx, pending, options);
  const found = await ctx.db
    .select({ invoice: invoices, credited: creditedSql(ctx.tenant.id, 'invoices').mapWith(Number) })
    .from(invoices)
    .where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.id, invoiceId)))
    .get();
  if (!found) return { outcome: 'skipped', reason: 'not_found' };
  const invoice = found.invoice;
  if (invoice.type !== 'TYPE_INVOICE' || !isOpen(invoice)) return { outcome: 'skipped', reason: 'not_open' };
  // A card charge takes what is owed (credit notes off), never the dunning fees: collection comes before dunning.
  const unpaid = owedAmount({ ...invoice, creditedAmount: found.credited });
  if (unpaid <= 0) return { outcome: 'skipped', reason: 'nothing_unpaid' };

  if (pending) return { outcome: 'waiting', transaction: pending };
  const method = await invoicePaymentMethod(ctx, invoice);
  if (!isChargeable(method)) return { outcome: 'skipped', reason: method ? 'not_chargeable' : 'no_payment_method' };
  // Every earlier payment row of the invoice is an attempt (failed, returned, or succeeded without
  // settling it), so the key of this one is new.
  const earlier = await ctx.db
    .select({ n: count() })
    .from(transactions)
    .where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.invoiceId, invoiceId), eq(transactions.type, 'payment')))
    .get();
  const attempt = (earlier?.n ?? 0) + 1;
  const row = newTransactionRow(ctx, {
    customerId: invoice.customerId,
    invoiceId,
    paymentMethodId: method.id,
    type: 'payment',
    gateway: method.gatewayName,
    status: 'pending',
    description: `Payment of ${invoice.number}`,
    documentNumber: invoice.number,
    currencyCode: invoice.currencyCode,
    amount: unpaid,
    idempotencyKey: `collect:${invoiceId}:${attempt}`,
    attempt,
  });
  // The live-payment index admits one live collection per invoice: a job racing this one loses here.
  const inserted = await ctx.db.insert(transactions).values(row).onConflictDoNothing().returning({ id: transactions.id });
  if (inserted.length === 0) {
    const other = await liveOf(ctx, invoiceId);
    return other ? { outcome: 'waiting', transaction: other } : { outcome: 'skipped', reason: 'concurrent' };
  }
  return chargePending(ctx, row, options);
}

/** Calls the gateway for a pending transaction (first time or again, with the same idempotency key) and applies its answer. */
async function chargePending(ctx: ServiceContext, tx: TransactionRow, options: { onSession?: boolean } = {}): Promise<CollectResult> {
  const method = tx.paymentMethodId
    ? await ctx.db.select().from(paymentMethods).where(and(eq(paymentMethods.tenantId, ctx.tenant.id), eq(paymentMethods.id, tx.paymentMethodId))).get()
    : undefined;
  const gateway = await ctx.gateways.get(tx.gateway);
  if (!gateway || !method) {
    // A key removed for now may come back: that failure is retried; a method that is gone is not.
    const applied = await applyChargeOutcome(ctx, tx, gateway ? { status: 'failed', referenceId: null, reason: 'payment_method_gone', retryable: false } : { status: 'failed', referenceId: null, reason: 'gateway_unconfigured', retryable: true });
    return { outcome: 'failed', transaction: applied };
  }
  const customer = await ctx.db.select().from(customers).where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, tx.customerId))).get();
  const name = customer ? (customer.companyName ?? ([customer.firstName, customer.lastName].filter(Boolean).join(' ') || null)) : null;
  // GatewayUnavailableError propagates: whether the charge happened is unknown, so the row stays
  // pending and the same request is repeated later (the queue's retry, then the sweeper), which the
  // gateway deduplicates by its idempotency key.
  const outcome: ChargeOutcome = await gateway.charge({
      idempotencyKey: tx.idempotencyKey,
      amount: formatDecimal(fromMinorUnits(tx.amount, tx.currencyCode), currencyScale(tx.currencyCode)),
      currencyCode: tx.currencyCode,
      description: tx.description ?? 'Payment',
      customer: { id: tx.customerId, email: customer?.email ?? null, name },
      method: { id: method.id, token: method.gatewayToken, details: method.details },
      metadata: { tenant_id: ctx.tenant.id, invoice_id: tx.invoiceId ?? '', transaction_id: tx.id, invoice_number: tx.documentNumber ?? '' },
      ...(options.onSession ? { onSession: true } : {}),
    });
  const applied = await applyChargeOutcome(ctx, tx, outcome);
  return { outcome: outcome.status, transaction: applied } as CollectResult;
}

/**
 * Moves a transaction to what the gateway said, once: the UPDATE is guarded by the status it had,
 * so a webhook and a job that both report the same success apply it one time. Success pays the
 * invoice through the one payment path; failure schedules the next attempt from `payments.retryDays`.
 */
export async function applyChargeOutcome(ctx: ServiceContext, tx: TransactionRow, outcome: ChargeOutcome): Promise<TransactionRow> {
  const nowIso = ctx.now.toISOString();
  const fromLive = and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.id, tx.id), inArray(transactions.status, [...LIVE]));
  const referenceId = outcome.referenceId ?? tx.referenceId;
  if (outcome.status === 'succeeded') {
    const feeAmount = outcome.feeAmount ? toMinorUnitsSafe(outcome.feeAmount, tx.currencyCode) : tx.feeAmount;
    const next: TransactionRow = { ...tx, status: 'succeeded', referenceId, chargedAmount: tx.amount, feeAmount, paidAt: nowIso, failReason: null, updatedAt: nowIso };
    const update = [
      ctx.db.update(transactions).set({ status: 'succeeded', referenceId, chargedAmount: tx.amount, feeAmount, paidAt: nowIso, failReason: null, updatedAt: nowIso }).where(fromLive),
      requirePreviousChange(ctx.db),
      insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'transaction.succeeded', resourceId: tx.id, data: renderTransaction(next), now: ctx.now }),
    ];
    if (!tx.invoiceId) {
      await ctx.db.batch(update as never);
      return next;
    }
    return settleInvoice(ctx, tx, next, update);
  }
  if (outcome.status === 'failed') {
    const retryDays = (await loadSettings(ctx.db, ctx.tenant.id))['payments.retryDays'];
    const delay = outcome.retryable ? retryDays[tx.attempt - 1] : undefined;
    const nextRetryAt = delay === undefined ? null : new Date(ctx.now.getTime() + delay * 86_400_000).toISOString();
    const next: TransactionRow = { ...tx, status: 'failed', referenceId, failReason: outcome.reason, nextRetryAt, updatedAt: nowIso };
    const statements: unknown[] = [
      ctx.db.update(transactions).set({ status: 'failed', referenceId, failReason: outcome.reason, nextRetryAt, updatedAt: nowIso }).where(fromLive),
      requirePreviousChange(ctx.db),
      insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'transaction.failed', resourceId: tx.id, data: renderTransaction(next), now: ctx.now }),
    ];
    if (tx.invoiceId) {
      // The invoice is still waiting for its money: announce it, as Fynn does after a failed charge.
      const invoice = await loadInvoice(ctx, tx.invoiceId);
      statements.push(insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'invoice.unpaid', resourceId: tx.invoiceId, data: renderLoaded(invoice), now: ctx.now }));
      // A checkout waiting for this charge's authentication is open again for another method.
      if (invoice.row.sourceType === 'cart') statements.push(...cartPaymentFailedStatements(ctx, tx.invoiceId));
    }
    return runOnce(ctx, statements, next, tx);
  }
  const status = outcome.status;
  const failReason = outcome.status === 'action_required' ? outcome.reason : null;
  const next: TransactionRow = { ...tx, status, referenceId, failReason, updatedAt: nowIso };
  if (tx.status === status && tx.referenceId === referenceId) return tx;
  return runOnce(ctx, [ctx.db.update(transactions).set({ status, referenceId, failReason, updatedAt: nowIso }).where(fromLive), requirePreviousChange(ctx.db)], next, tx);
}

/** Runs a guarded transition; losing the race (another path applied it first) returns the stored row. */
async function runOnce(ctx: ServiceContext, statements: unknown[], next: TransactionRow, tx: TransactionRow): Promise<TransactionRow> {
  try {
    await ctx.db.batch(statements as never);
    return next;
  } catch (err) {
    if (!isGuardFailure(err)) throw err;
    return (await ctx.db.select().from(transactions).where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.id, tx.id))).get()) ?? tx;
  }
}

/**
 * Success with an invoice: the transaction's transition and the invoice payment in one batch,
 * guarded by both. An invoice changed meanwhile is read again (a few times); one paid meanwhile by
 * other means keeps the charge as a succeeded transaction without paying twice (the tenant refunds it).
 */
async function settleInvoice(ctx: ServiceContext, tx: TransactionRow, next: TransactionRow, update: unknown[]): Promise<TransactionRow> {
  for (let round = 0; round < 3; round++) {
    const invoice = await loadInvoice(ctx, tx.invoiceId!);
    const unpaid = owedOf(invoice);
    if (!isOpen(invoice.row) || unpaid <= 0) {
      const description = `${next.description ?? 'Payment'} (invoice already settled: refund it)`;
      const note = ctx.db.update(transactions).set({ description }).where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.id, tx.id)));
      return runOnce(ctx, [...update, note], { ...next, description }, tx);
    }
    // Paid in part by other means meanwhile: what is still open is paid, the rest stays visible on
    // the transaction for the tenant to refund.
    const applied = Math.min(unpaid, tx.amount);
    const change = paymentChange(ctx, invoice, {
      amount: applied,
      paymentDate: next.paidAt!,
      description: tx.description,
      paymentMethod: tx.paymentMethodId,
      feeAmount: next.feeAmount || null,
      transactionId: tx.id,
    });
    const excess = tx.amount - applied;
    const noted = excess > 0 ? { ...next, description: `${next.description ?? 'Payment'} (${formatDecimal(fromMinorUnits(excess, tx.currencyCode), currencyScale(tx.currencyCode))} ${tx.currencyCode} more than was open: refund it)` } : next;
    const statements = excess > 0 ? [ctx.db.update(transactions).set({ description: noted.description }).where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.id, tx.id))), ...change.statements] : change.statements;
    try {
      await commitInvoiceChange(ctx, invoice, change.changes, change.events, { statements: [...(update as never[]), ...statements] });
      return noted;
    } catch (err) {
      if (err instanceof ApiError && err.type === 'concurrent-update') {
        // Either the invoice moved (read it again) or the transaction was applied by another path.
        const stored = await ctx.db.select().from(transactions).where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.id, tx.id))).get();
        if (stored && !LIVE.includes(stored.status as (typeof LIVE)[number])) return stored;
        continue;
      }
      throw err;
    }
  }
  throw ApiError.conflict('The invoice kept changing while its payment was recorded; the job retries.', 'concurrent-update');
}

/**
 * A verified gateway webhook moves the transaction it names (by the gateway's reference). Applying
 * the same event twice, or after the job already applied the answer, changes nothing.
 */
export async function applyGatewayEvent(ctx: ServiceContext, gateway: string, event: GatewayEvent): Promise<{ applied: boolean }> {
  if (event.kind === 'ignored') return { applied: false };
  const byReference = and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.gateway, gateway), eq(transactions.referenceId, event.referenceId));
  // A charge whose answer was lost has no reference yet: the event names our transaction in its metadata.
  const byOurId = event.transactionId ? and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.gateway, gateway), eq(transactions.id, event.transactionId), isNull(transactions.referenceId)) : undefined;
  const tx = (await ctx.db.select().from(transactions).where(byReference).get()) ?? (byOurId ? await ctx.db.select().from(transactions).where(byOurId).get() : undefined);
  if (!tx) return { applied: false };
  if (event.kind === 'refund.succeeded' || event.kind === 'refund.failed') {
    if (tx.type !== 'refund' || !LIVE.includes(tx.status as (typeof LIVE)[number])) return { applied: false };
    await applyRefundOutcome(ctx, tx, event.kind === 'refund.succeeded' ? { status: 'succeeded', referenceId: tx.referenceId! } : { status: 'failed', referenceId: tx.referenceId, reason: event.reason });
    return { applied: true };
  }
  if (tx.type !== 'payment' || !LIVE.includes(tx.status as (typeof LIVE)[number])) return { applied: false };
  const outcome: ChargeOutcome =
    event.kind === 'charge.succeeded'
      ? { status: 'succeeded', referenceId: event.referenceId, ...(event.feeAmount ? { feeAmount: event.feeAmount } : {}) }
      : event.kind === 'charge.failed'
        ? { status: 'failed', referenceId: event.referenceId, reason: event.reason, retryable: event.retryable }
        : { status: 'action_required', referenceId: event.referenceId, reason: event.reason };
  const after = await applyChargeOutcome(ctx, tx, outcome);
  return { applied: after.status !== tx.status };
}
