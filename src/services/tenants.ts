import { desc, eq, sql } from 'drizzle-orm';
import type { Db, Tenant } from '../db/client';
import { apiKeys, tenants } from '../db/schema';
import { ApiError } from '../http/errors';
import { fetchPage } from '../db/paging';
import type { Page } from '../http/pagination';
import { systemNow, tenantNow } from '../lib/clock';
import { newId } from '../lib/ids';
import { buildApiKey, renderApiKey } from './api-keys';

export function renderTenant(t: Tenant) {
  return {
    id: t.id,
    name: t.name,
    countryCode: t.countryCode,
    defaultCurrency: t.defaultCurrency,
    timeZone: t.timeZone,
    mode: t.mode,
    createdAt: t.createdAt,
  };
}

export async function createTenant(
  db: Db,
  input: { name: string; countryCode: string; defaultCurrency: string; timeZone: string; mode: 'live' | 'test' },
) {
  const tenant: Tenant = { id: newId(), ...input, testClockNow: null, createdAt: systemNow().toISOString() };
  const { key, row } = await buildApiKey(tenant, { name: 'Initial key', permissions: ['*'], expiresAt: null });
  await db.batch([db.insert(tenants).values(tenant), db.insert(apiKeys).values(row)]);
  return { tenant: renderTenant(tenant), apiKey: { ...renderApiKey(row), key } };
}

export async function listTenants(db: Db, page: Page) {
  return fetchPage(db, tenants, undefined, [desc(tenants.createdAt), desc(tenants.id)], page, renderTenant);
}

export function renderTestClock(t: Tenant) {
  return { now: tenantNow(t).toISOString(), frozen: t.testClockNow !== null };
}

/**
 * Moves a test-mode tenant's clock. The first setting may pick any instant (to simulate from a past
 * date); after that the clock only moves forward, enforced by a guarded UPDATE.
 */
export async function advanceTestClock(db: Db, tenant: Tenant, to: Date) {
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
  if (!updated) {
    const current = await db.select().from(tenants).where(eq(tenants.id, tenant.id)).get();
    throw ApiError.violation('now', `The test clock only moves forward; it is at ${current?.testClockNow}.`, 'clock_backwards');
  }
  return renderTestClock(updated);
}
