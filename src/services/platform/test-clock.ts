import { eq, sql } from 'drizzle-orm';
import type { Db, Tenant } from '../../db/client';
import { tenants } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { tenantNow } from '../../lib/clock';
import { principalCache } from '../../http/principal-cache';
import { at, type ServiceContext } from '../context';
import { sweepSubscriptions } from '../subscriptions/sweep';
import { sweepCollections } from '../payments/collection-jobs';
import type { TestClockResource } from '../../schemas/platform';
import { tenantObject } from '../../objects/tenant-stub';

export function renderTestClock(t: Tenant): TestClockResource {
  return { now: tenantNow(t).toISOString(), frozen: t.testClockNow !== null };
}

/**
 * Moves a test-mode tenant's clock. The first setting may pick any instant (to simulate from a past
 * date); after that the clock only moves forward, enforced by a guarded UPDATE.
 */
async function advanceTestClock(db: Db, tenant: Tenant, to: Date) {
  if (tenant.mode !== 'test') throw ApiError.conflict('Only test-mode tenants have a test clock.', 'not-test-mode');
  const iso = to.toISOString();
  if (tenant.testClockNow && iso < tenant.testClockNow) {
    throw ApiError.violation('now', `The test clock only moves forward; it is at ${tenant.testClockNow}.`, 'clock_backwards');
  }
  const updated = await db
    .update(tenants)
    .set({ testClockNow: iso })
    .where(sql`${tenants.id} = ${tenant.id} AND ${tenants.mode} = 'test' AND (${tenants.testClockNow} IS NULL AND ${tenant.testClockNow === null ? 1 : 0} = 1 OR ${tenants.testClockNow} <= ${iso})`)
    .returning()
    .get();
  // The tenant row moved: requests through this isolate read the new clock from the next one on.
  if (updated) principalCache.invalidateTenant(tenant.id);
  if (!updated) {
    const current = await db.select().from(tenants).where(eq(tenants.id, tenant.id)).get();
    throw ApiError.violation('now', `The test clock only moves forward; it is at ${current?.testClockNow}.`, 'clock_backwards');
  }
  return renderTestClock(updated);
}

export function readTestClock(tenant: Tenant) {
  if (tenant.mode !== 'test') throw ApiError.conflict('Only test-mode tenants have a test clock.', 'not-test-mode');
  return renderTestClock(tenant);
}

/** Due subscription transitions up to the context's now, all of them. */
async function sweepAll(ctx: ServiceContext) {
  for (let more = true; more; ) more = (await sweepSubscriptions(ctx)).more;
}

/**
 * Sets the test clock, then makes everything that became due up to the new time happen before the
 * answer (deterministic scenarios): subscription transitions, a synchronous billing run in the
 * TenantObject, and the transitions that billing made due (a cancellation after the last billed period).
 */
export async function setTestClock(ctx: ServiceContext, to: Date) {
  const clock = await advanceTestClock(ctx.db, ctx.tenant, to);
  const moved = at(ctx, new Date(clock.now), { ...ctx.tenant, testClockNow: clock.now });
  await sweepAll(moved);
  await tenantObject(ctx.env, ctx.tenant.id).runBilling(ctx.tenant.id, { trigger: 'test_clock', sync: true, asOf: clock.now });
  await sweepAll(moved);
  // Collection retries that became due (days after a failed charge) happen at the new time too.
  await sweepCollections(moved);
  // Then dunning, one level per invoice, as the daily run would do at the new time.
  await tenantObject(ctx.env, ctx.tenant.id).runDunning(ctx.tenant.id, { asOf: clock.now });
  return clock;
}
