import { and, asc, eq, inArray, isNotNull, lt, lte, sql } from 'drizzle-orm';
import { sweepTenants, TenantMovingError, type ShardSweep } from '../../db/directory';
import { invoices, transactions } from '../../db/schema';
import type { Env, PaymentJob } from '../../env';
import { logError } from '../../lib/log';
import { createServiceContext, openTenantContext, type ServiceContext } from '../context';
import { CHARGED_GATEWAYS } from '../ports/gateways';
import { GatewayUnavailableError } from '../ports/gateways/port';
import { applyChargeOutcome, collectInvoice } from './collection';
import { payingMethodJoin } from './paying-method';
import { owedSql } from '../invoices/owed';
import { openSql } from '../invoices/status';
import { sendRefund } from './refunds';

// Collection jobs: after finalization a message per invoice on the payments queue; the consumer
// makes one attempt. Retries of failed charges (days apart, `payments.retryDays`), charges and
// refunds whose result is still open, and invoices whose message was lost are picked up by the
// sweeper (cron, and every move of a test clock), each at the tenant's own time
// (docs/decisions.md, Payments).

/** The payments queue's name (wrangler.toml). */
export const PAYMENT_JOBS_QUEUE = 'edge-billing-payments';

/** Whether finalized invoices are collected in the background (Env.PAYMENT_COLLECTION). */
export const collectsInBackground = (env: Env) => env.PAYMENT_COLLECTION !== 'off';

/** A pending charge older than this is repeated by the sweeper (same idempotency key). */
const STALE_PENDING_MS = 10 * 60_000;
/** A processing charge older than this is asked about by the sweeper. */
const STALE_PROCESSING_MS = 60 * 60_000;

export async function requestCollection(env: Env, jobs: readonly PaymentJob[], options: { delaySeconds?: number } = {}): Promise<void> {
  if (!collectsInBackground(env) || jobs.length === 0) return;
  const delay = options.delaySeconds ? { delaySeconds: options.delaySeconds } : {};
  for (let i = 0; i < jobs.length; i += 100) await env.PAYMENT_JOBS.sendBatch(jobs.slice(i, i + 100).map((body) => ({ body })), delay);
}

export async function collectJob(env: Env, job: PaymentJob) {
  const ctx = await openTenantContext(env, job.tenantId);
  if (!ctx) return { outcome: 'skipped' as const, reason: 'tenant_gone' };
  return collectInvoice(ctx, job.invoiceId);
}

/**
 * The payments queue's consumer. A gateway that could not be reached leaves the transaction pending
 * and the message is retried by the queue (then by the sweeper); anything else is acknowledged.
 */
export async function consumePaymentJobs(batch: MessageBatch<PaymentJob>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const job = message.body;
    if (typeof job?.tenantId !== 'string' || typeof job.invoiceId !== 'string') {
      message.ack();
      continue;
    }
    try {
      await collectJob(env, job);
      message.ack();
    } catch (err) {
      logError({ job: 'collect', tenantId: job.tenantId, invoiceId: job.invoiceId }, err);
      // A tenant being moved between shards waits for the move like an unreachable gateway.
      if (err instanceof GatewayUnavailableError || err instanceof TenantMovingError) message.retry({ delaySeconds: 60 });
      else message.ack();
    }
  }
}

/**
 * Due retries, stale pending charges and processing charges of one tenant, at its now. Each retry
 * is a new attempt (its own transaction and idempotency key); a retry is claimed by clearing its
 * `nextRetryAt` first, so two sweeps never start the same one twice.
 */
export async function sweepCollections(ctx: ServiceContext, limit = 100): Promise<{ retried: number; resumed: number; checked: number }> {
  const t = ctx.tenant.id;
  const nowIso = ctx.now.toISOString();
  const result = { retried: 0, resumed: 0, checked: 0 };
  const due = await ctx.db
    .select({ id: transactions.id, invoiceId: transactions.invoiceId, nextRetryAt: transactions.nextRetryAt })
    .from(transactions)
    .innerJoin(invoices, and(eq(invoices.tenantId, transactions.tenantId), eq(invoices.id, transactions.invoiceId)))
    .where(and(eq(transactions.tenantId, t), eq(transactions.type, 'payment'), eq(transactions.status, 'failed'), isNotNull(transactions.nextRetryAt), lte(transactions.nextRetryAt, nowIso)))
    .orderBy(asc(transactions.nextRetryAt))
    .limit(limit);
  for (const d of due) {
    const claimed = await ctx.db
      .update(transactions)
      .set({ nextRetryAt: null, updatedAt: nowIso })
      .where(and(eq(transactions.tenantId, t), eq(transactions.id, d.id), eq(transactions.nextRetryAt, d.nextRetryAt!)))
      .returning({ id: transactions.id });
    if (claimed.length === 0 || !d.invoiceId) continue;
    await attempt(ctx, () => collectInvoice(ctx, d.invoiceId!));
    result.retried++;
  }
  const stale = await ctx.db
    .select()
    .from(transactions)
    .where(
      and(
        eq(transactions.tenantId, t),
        // Charges still pending or processing, and refunds whose gateway did not answer.
        sql`(${transactions.type} = 'payment' AND ${transactions.status} IN ('pending', 'processing') OR ${transactions.type} = 'refund' AND ${transactions.status} = 'pending')`,
        inArray(transactions.gateway, [...CHARGED_GATEWAYS]),
        lt(transactions.updatedAt, new Date(ctx.now.getTime() - STALE_PENDING_MS).toISOString()),
      ),
    )
    .limit(limit);
  for (const tx of stale) {
    if (tx.type === 'refund') {
      const payment = tx.parentTransactionId ? await ctx.db.select().from(transactions).where(and(eq(transactions.tenantId, t), eq(transactions.id, tx.parentTransactionId))).get() : undefined;
      if (payment) await attempt(ctx, () => sendRefund(ctx, tx, payment));
      result.resumed++;
    } else if (tx.status === 'pending') {
      await attempt(ctx, () => collectInvoice(ctx, tx.invoiceId!));
      result.resumed++;
    } else if (tx.updatedAt < new Date(ctx.now.getTime() - STALE_PROCESSING_MS).toISOString() && tx.referenceId) {
      const gateway = await ctx.gateways.get(tx.gateway);
      if (!gateway) continue;
      await attempt(ctx, async () => applyChargeOutcome(ctx, tx, await gateway.chargeStatus(tx.referenceId!)));
      result.checked++;
    }
  }
  // Invoices whose collection job never ran (its message was lost): open, finalized a while ago,
  // with a method a gateway charges, and no payment attempt at all.
  const missed = await ctx.db.all<{ id: string }>(sql`
    SELECT i.id FROM invoices i
    JOIN payment_methods m ON ${payingMethodJoin(t)}
    WHERE i.tenant_id = ${t} AND i.type = 'TYPE_INVOICE' AND ${openSql('i')} AND ${owedSql(t, 'i')} > 0
      AND i.finalization_date < ${new Date(ctx.now.getTime() - STALE_PENDING_MS).toISOString()}
      AND m.status = 'active' AND m.enabled = 1 AND m.gateway_name IN (${sql.join([...CHARGED_GATEWAYS].map((g) => sql`${g}`), sql`, `)})
      AND NOT EXISTS (SELECT 1 FROM transactions x WHERE x.tenant_id = ${t} AND x.invoice_id = i.id AND x.type = 'payment')
    LIMIT ${limit}`);
  for (const m of missed) {
    await attempt(ctx, () => collectInvoice(ctx, m.id));
    result.resumed++;
  }
  return result;
}

/** One sweep step; a failure is logged and the sweep goes on with the next. */
async function attempt(ctx: ServiceContext, step: () => Promise<unknown>) {
  try {
    await step();
  } catch (err) {
    logError({ job: 'collection-sweep', tenantId: ctx.tenant.id }, err);
  }
}

/** The cron's part: every tenant's collections on a shard, each at its own time. */
export async function sweepAllCollections(env: Env, sweep: ShardSweep): Promise<number> {
  let moved = 0;
  for (const tenant of await sweepTenants(sweep)) {
    const r = await sweepCollections(createServiceContext({ env, db: sweep.db, tenant }));
    moved += r.retried + r.resumed + r.checked;
  }
  return moved;
}
