import { and, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import { createDb } from '../db/client';
import { carts, idempotencyKeys, invoices, subscriptions, tenants } from '../db/schema';
import { sweepSubscriptions } from '../services/subscriptions/sweep';
import { importRates } from '../services/billing/exchange-rates';
import { createServiceContext, platformPorts } from '../services/context';
import { sweepDeliveries } from '../events/publish';
import { sweepUnrendered } from '../services/documents/jobs';
import { sweepUndeliveredDunning } from '../services/dunning/delivery';
import { sweepAllCollections } from '../services/payments/collection-jobs';
import { expirePaymentMethods } from '../services/payments/methods-expiry';
import { syncAllOpenBankingAccounts } from '../services/payments/open-banking';
import type { Env } from '../env';
import { systemNow } from '../lib/clock';
import { logError } from '../lib/log';

/** Nightly clean-up: idempotency records past their 24 h retention. */
export async function purgeExpiredIdempotencyKeys(env: Env): Promise<number> {
  const db = createDb(env.DB);
  const deleted = await db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, systemNow().toISOString())).returning({ key: idempotencyKeys.key });
  return deleted.length;
}

/** Applies due subscription transitions for every tenant, each at its own `now` (test clock or real). */
export async function sweepAllTenants(env: Env): Promise<number> {
  const db = createDb(env.DB);
  let changed = 0;
  for (const tenant of await db.select().from(tenants)) {
    const ctx = createServiceContext({ env, db, tenant });
    for (let more = true; more; ) {
      const result = await sweepSubscriptions(ctx);
      changed += result.changed;
      more = result.more;
    }
  }
  return changed;
}

/** Marks the cards whose expiry month has passed `expired`, every tenant at its own now. */
export async function expireAllPaymentMethods(env: Env): Promise<number> {
  const db = createDb(env.DB);
  let expired = 0;
  for (const tenant of await db.select().from(tenants)) {
    try {
      expired += await expirePaymentMethods(createServiceContext({ env, db, tenant }));
    } catch (err) {
      logError({ job: 'payment-method-expiry', tenantId: tenant.id }, err);
    }
  }
  return expired;
}

/** Starts a billing run in the TenantObject of every tenant with live subscriptions; the objects work them through alarms. */
export async function dispatchBilling(env: Env): Promise<number> {
  const db = createDb(env.DB);
  const due = await db
    .selectDistinct({ tenantId: subscriptions.tenantId })
    .from(subscriptions)
    .where(and(inArray(subscriptions.status, ['active', 'paused', 'cancelled']), isNotNull(subscriptions.billingAnchor)));
  for (const { tenantId } of due) await env.TENANT.getByName(tenantId).runBilling(tenantId, { trigger: 'cron', sync: false });
  return due.length;
}

/** How long an abandoned cart's record is kept after it expired (the tenant may look at it meanwhile). */
const ABANDONED_CART_RETENTION_MS = 30 * 86_400_000;

/** Nightly clean-up: carts never completed, expired more than 30 days ago (their buyer's details with them). */
export async function purgeAbandonedCarts(env: Env): Promise<number> {
  const db = createDb(env.DB);
  const before = new Date(systemNow().getTime() - ABANDONED_CART_RETENTION_MS).toISOString();
  const deleted = await db
    .delete(carts)
    .where(and(inArray(carts.status, ['open', 'confirming']), lt(carts.expiresAt, before)))
    .returning({ id: carts.id });
  return deleted.length;
}

/** Tenants whose dunning runs the nightly job starts at once. */
const DUNNING_TENANTS_AT_ONCE = 6;

/** Runs dunning in the TenantObject of every tenant with open invoices past their due date, each at its own now. */
export async function dispatchDunning(env: Env): Promise<number> {
  const db = createDb(env.DB);
  // Only tenants with an invoice past its due date at the tenant's own now (a test clock, else the real one).
  const due = await db
    .selectDistinct({ tenantId: invoices.tenantId })
    .from(invoices)
    .innerJoin(tenants, eq(tenants.id, invoices.tenantId))
    .where(
      and(
        inArray(invoices.status, ['STATUS_UNPAID', 'STATUS_REMINDED']),
        eq(invoices.dunningDisabled, false),
        isNotNull(invoices.dueDate),
        sql`${invoices.dueDate} < COALESCE(${tenants.testClockNow}, ${systemNow().toISOString()})`,
      ),
    );
  // A few tenants at a time: each run is its own object's work, with a bounded part done inline.
  let issued = 0;
  for (let i = 0; i < due.length; i += DUNNING_TENANTS_AT_ONCE) {
    const runs = await Promise.allSettled(due.slice(i, i + DUNNING_TENANTS_AT_ONCE).map(({ tenantId }) => env.TENANT.getByName(tenantId).runDunning(tenantId, {})));
    runs.forEach((r, j) => {
      if (r.status === 'fulfilled') issued += r.value.issued;
      else logError({ job: 'dunning', tenantId: due[i + j]!.tenantId }, r.reason);
    });
  }
  return issued;
}

/** Dispatches cron triggers (wrangler.toml) to their jobs: every 15 minutes the subscription sweep, billing dispatch, outbox sweeper and render sweeper; nightly the rate import, open-banking pulls, card expiry, dunning and clean-up. */
export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  if (controller.cron === '*/15 * * * *') {
    const changed = await sweepAllTenants(env);
    console.log(JSON.stringify({ level: 'info', job: 'subscription-sweep', changed }));
    const dispatched = await dispatchBilling(env);
    console.log(JSON.stringify({ level: 'info', job: 'billing-dispatch', tenants: dispatched }));
    const swept = await sweepDeliveries(env);
    console.log(JSON.stringify({ level: 'info', job: 'outbox-sweeper', ...swept }));
    const renders = await sweepUnrendered(env);
    console.log(JSON.stringify({ level: 'info', job: 'render-sweeper', queued: renders }));
    const collections = await sweepAllCollections(env);
    console.log(JSON.stringify({ level: 'info', job: 'collection-sweeper', moved: collections }));
    const reminders = await sweepUndeliveredDunning(env);
    console.log(JSON.stringify({ level: 'info', job: 'dunning-delivery-sweeper', queued: reminders }));
  }
  if (controller.cron === '0 3 * * *') {
    try {
      const imported = await importRates(createDb(env.DB), platformPorts(env).rateSource, systemNow());
      console.log(JSON.stringify({ level: 'info', job: 'exchange-rates', imported }));
    } catch (err) {
      logError({ job: 'exchange-rates' }, err);
    }
    const banking = await syncAllOpenBankingAccounts(env);
    console.log(JSON.stringify({ level: 'info', job: 'open-banking-sync', ...banking }));
    const expired = await expireAllPaymentMethods(env);
    console.log(JSON.stringify({ level: 'info', job: 'payment-method-expiry', expired }));
    const purged = await purgeExpiredIdempotencyKeys(env);
    console.log(JSON.stringify({ level: 'info', job: 'purge-idempotency-keys', purged }));
    const abandoned = await purgeAbandonedCarts(env);
    console.log(JSON.stringify({ level: 'info', job: 'purge-abandoned-carts', deleted: abandoned }));
    const dunning = await dispatchDunning(env);
    console.log(JSON.stringify({ level: 'info', job: 'dunning', issued: dunning }));
  }
}
