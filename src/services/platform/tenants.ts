import { desc } from 'drizzle-orm';
import type { Db, Tenant } from '../../db/client';
import { apiKeys, tenants } from '../../db/schema';
import { fetchPage } from '../../db/paging';
import type { Page } from '../../http/pagination';
import { systemNow } from '../../lib/clock';
import { newId } from '../../lib/ids';
import type { TenantCreated, TenantResource } from '../../schemas/platform';
import { buildApiKey, renderApiKey } from './api-keys';

export function renderTenant(t: Tenant): TenantResource {
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
): Promise<TenantCreated> {
  const tenant: Tenant = { id: newId(), ...input, testClockNow: null, createdAt: systemNow().toISOString() };
  const { key, row } = await buildApiKey(tenant, { name: 'Initial key', permissions: ['*'], expiresAt: null });
  await db.batch([db.insert(tenants).values(tenant), db.insert(apiKeys).values(row)]);
  return { tenant: renderTenant(tenant), apiKey: { ...renderApiKey(row), key } };
}

export async function listTenants(db: Db, page: Page) {
  return fetchPage(db, tenants, undefined, [desc(tenants.createdAt), desc(tenants.id)], page, renderTenant);
}
