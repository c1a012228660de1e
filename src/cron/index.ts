import { and, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import { tenantObject } from '../objects/tenant-stub';
import { settled, shardSweeps, sweepTenants, type ShardSweep } from '../db/directory';
import { carts, idempotencyKeys, invoices, subscriptions, tenants } from '../db/schema';
import { sweepSubscriptions } from '../services/subscriptions/sweep';
import { importRates } from '../services/billing/exchange-rates';
import { createServiceContext, platformPorts } from '../services/context';
import { openSql } from '../services/invoices/status';
import { sweepDeliveries } from '../events/publish';
import { purgeOldEvents } from '../events/retention';
import { sweepUnrendered } from '../services/documents/jobs';
import { sweepUndeliveredDunning } from '../services/dunning/delivery';
import { sweepOffers } from '../services/offers/signing';
import { sweepAllCollections } from '../services/payments/collection-jobs';
import { expirePaymentMethods } from '../services/payments/methods-expiry';
import { syncAllOpenBankingAccounts } from '../services/payments/open-banking';
import { sweepPendingMail } from '../services/mail/delivery';
import type { Env } from '../env';
import { systemNow } from '../lib/clock';
import { logError } from '../lib/log';

/** Nightly clean-up: a shard's idempotency records past their 24 h retention. */
export async function purgeExpiredIdempotencyKeys(sweep: ShardSweep): Promise<number> {
  const deleted = await sweep.db
    .delete(idempotencyKeys)
    .where(and(lt(idempotencyKeys.expiresAt, systemNow().toISOString()), settled(sweep, idempotencyKeys.tenantId)))
    .returning({ key: idempotencyKeys.key });
  return deleted.length;
}

/** Applies due subscription transitions for every tenant of a shard, each at its own `now` (test clock or real). */
export async function sweepAllTenants(env: Env, sweep: ShardSweep): Promise<number> {
  let changed = 0;
  for (const tenant of await sweepTenants(sweep)) {
    const ctx = createServiceContext({ env, db: sweep.db, tenant });
    for (let more = true; more; ) {
      const result = await sweepSubscriptions(ctx);
      changed += result.changed;
      more = result.more;
    }
  }
  return changed;
}

/** Marks the cards whose expiry month has passed `expired`, every tenant of a shard at its own now. */
export async function expireAllPaymentMethods(env: Env, sweep: ShardSweep): Promise<number> {
  let expired = 0;
  for (const tenant of await sweepTenants(sweep)) {
    try {
      expired += await expirePaymentMethods(createServiceContext({ env, db: sweep.db, tenant }));
    } catch (err) {
      logError({ job: 'payment-method-expiry', tenantId: tenant.id }, err);
    }
  }
  return expired;
}

/** Starts a billing run in the TenantObject of every tenant of a shard with live subscriptions; the objects work them through alarms. */
export async function dispatchBilling(env: Env, sweep: ShardSweep): Promise<number> {
  const due = (
    await sweep.db
      .selectDistinct({ tenantId: subscriptions.tenantId })
      .from(subscriptions)
      .where(and(inArray(subscriptions.status, ['active', 'paused', 'cancelled']), isNotNull(subscriptions.billingAnchor)))
  ).filter((d) => sweep.tenants.has(d.tenantId));
  for (const { tenantId } of due) await tenantObject(env, tenantId).runBilling(tenantId, { trigger: 'cron', sync: false });
  return due.length;
}

/** How long an abandoned cart's record is kept after it expired (the tenant may look at it meanwhile). */
const ABANDONED_CART_RETENTION_MS = 30 * 86_400_000;

/** Nightly clean-up: a shard's carts never completed, expired more than 30 days ago (their buyer's details with them). */
export async function purgeAbandonedCarts(sweep: ShardSweep): Promise<number> {
  const before = new Date(systemNow().getTime() - ABANDONED_CART_RETENTION_MS).toISOString();
  const deleted = await sweep.db
    .delete(carts)
    .where(and(inArray(carts.status, ['open', 'confirming']), lt(carts.expiresAt, before), settled(sweep, carts.tenantId)))
    .returning({ id: carts.id });
  return deleted.length;
}

/** Tenants whose dunning runs the nightly job starts at once. */
const DUNNING_TENANTS_AT_ONCE = 6;

/** Runs dunning in the TenantObject of every tenant of a shard with open invoices past their due date, each at its own now. */
export async function dispatchDunning(env: Env, sweep: ShardSweep): Promise<number> {
  // Only tenants with an invoice past its due date at the tenant's own now (a test clock, else the real one).
  const found = await sweep.db
    .selectDistinct({ tenantId: invoices.tenantId })
    .from(invoices)
    .innerJoin(tenants, eq(tenants.id, invoices.tenantId))
    .where(
      and(
        openSql('invoices'),
        eq(invoices.dunningDisabled, false),
        isNotNull(invoices.dueDate),
        sql`${invoices.dueDate} < COALESCE(${tenants.testClockNow}, ${systemNow().toISOString()})`,
      ),
    );
  const due = found.filter((d) => sweep.tenants.has(d.tenantId));
  // A few tenants at a time: each run is its own object's work, with a bounded part done inline.
  let issued = 0;
  for (let i = 0; i < due.length; i += DUNNING_TENANTS_AT_ONCE) {
    const runs = await Promise.allSettled(due.slice(i, i + DUNNING_TENANTS_AT_ONCE).map(({ tenantId }) => tenantObject(env, tenantId).runDunning(tenantId, {})));
    runs.forEach((r, j) => {
      if (r.status === 'fulfilled') issued += r.value.issued;
      else logError({ job: 'dunning', tenantId: due[i + j]!.tenantId }, r.reason);
    });
  }
  return issued;
}

/**
 * Dispatches cron triggers (wrangler.toml) to their jobs, shard by shard (docs/decisions.md, Tenancy
 * and shards): every 15 minutes the subscription sweep, billing dispatch, outbox sweeper, render,
 * collection, dunning-delivery, offer and mail sweepers; nightly the rate import (into every shard), open-banking
 * pulls, card expiry, clean-up and dunning. A shard whose jobs fail does not keep the others from theirs.
 */
export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  if (controller.cron === '0 3 * * *') {
    try {
      const imported = await importRates(env, platformPorts(env).rateSource, systemNow());
      console.log(JSON.stringify({ level: 'info', job: 'exchange-rates', imported }));
    } catch (err) {
      logError({ job: 'exchange-rates' }, err);
    }
  }
  for (const sweep of await shardSweeps(env)) {
    try {
      await runShardJobs(controller.cron, env, sweep);
    } catch (err) {
      logError({ job: 'cron', cron: controller.cron, shard: sweep.shard }, err);
    }
  }
}

async function runShardJobs(cron: string, env: Env, sweep: ShardSweep): Promise<void> {
  const log = (job: string, figures: Record<string, unknown>) => console.log(JSON.stringify({ level: 'info', job, shard: sweep.shard, ...figures }));
  if (cron === '*/15 * * * *') {
    log('subscription-sweep', { changed: await sweepAllTenants(env, sweep) });
    log('billing-dispatch', { tenants: await dispatchBilling(env, sweep) });
    log('outbox-sweeper', await sweepDeliveries(env, sweep));
    log('render-sweeper', { queued: await sweepUnrendered(env, sweep) });
    log('collection-sweeper', { moved: await sweepAllCollections(env, sweep) });
    log('dunning-delivery-sweeper', { queued: await sweepUndeliveredDunning(env, sweep) });
    log('offer-sweeper', await sweepOffers(env, sweep));
    log('mail-sweeper', { queued: await sweepPendingMail(env, sweep) });
  }
  if (cron === '0 3 * * *') {
    log('open-banking-sync', await syncAllOpenBankingAccounts(env, sweep));
    log('payment-method-expiry', { expired: await expireAllPaymentMethods(env, sweep) });
    log('purge-idempotency-keys', { purged: await purgeExpiredIdempotencyKeys(sweep) });
    log('purge-abandoned-carts', { deleted: await purgeAbandonedCarts(sweep) });
    log('purge-old-events', await purgeOldEvents(env, sweep, systemNow()));
    log('dunning', { issued: await dispatchDunning(env, sweep) });
  }
}
