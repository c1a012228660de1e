import { principalCache } from '../../http/principal-cache';
import { count, desc, eq } from 'drizzle-orm';
import { inJson, type Tenant } from '../../db/client';
import { directoryDb, tenantShard } from '../../db/directory';
import { apiKeyDirectory, apiKeys, tenantDirectory, tenants } from '../../db/schema';
import { isShard, openShard, shardNames } from '../../db/shards';
import type { Env } from '../../env';
import { ApiError } from '../../http/errors';
import { defaultPlan, planNames } from '../../http/rate-limit';
import { collection, pageOffset, type Page } from '../../http/pagination';
import { systemNow } from '../../lib/clock';
import { newId } from '../../lib/ids';
import type { TenantCreated, TenantResource } from '../../schemas/platform';
import { buildApiKey, renderApiKey } from './api-keys';

export function renderTenant(t: Tenant, shard: string): TenantResource {
  return {
    id: t.id,
    name: t.name,
    countryCode: t.countryCode,
    defaultCurrency: t.defaultCurrency,
    timeZone: t.timeZone,
    mode: t.mode,
    shard,
    plan: t.plan,
    createdAt: t.createdAt,
  };
}

/**
 * Where a new tenant goes: the shard with the fewest tenants, the first listed on a tie, so tenants
 * made one after another alternate and a newly added shard fills first (docs/decisions.md, Tenancy
 * and shards). Counting reads the directory's shard index, once per new tenant.
 */
export async function placeTenant(env: Env): Promise<string> {
  const names = shardNames(env);
  if (names.length === 1) return names[0]!;
  const db = directoryDb(env);
  const counts = new Map((await db.select({ shard: tenantDirectory.shard, n: count() }).from(tenantDirectory).groupBy(tenantDirectory.shard)).map((r) => [r.shard, r.n]));
  return names.reduce((best, s) => ((counts.get(s) ?? 0) < (counts.get(best) ?? 0) ? s : best));
}

/** A plan the operator names must be one of the deployment's (422 `unknown_plan`), since its limit is configuration. */
function checkPlan(env: Env, plan: string): void {
  const plans = planNames(env);
  if (!plans.includes(plan)) throw ApiError.violation('plan', `Not a plan of this deployment (${plans.join(', ') || 'none configured'}).`, 'unknown_plan');
}

/**
 * A new tenant and its first key, on `shard` when the operator pins one (422 `unknown_shard` for a name D1_SHARDS lacks),
 * else where `placeTenant` puts it; on `plan`, else the deployment's DEFAULT_TENANT_PLAN. The tenant's rows go to its shard first and its directory entry
 * (tenant and key hash, one batch) last: until that entry exists nothing can reach the tenant, so a
 * crash in between leaves only unreachable rows on the shard, never a half-made tenant.
 */
export async function createTenant(
  env: Env,
  input: { name: string; countryCode: string; defaultCurrency: string; timeZone: string; mode: 'live' | 'test'; shard?: string | undefined; plan?: string | undefined },
): Promise<TenantCreated> {
  const { shard: pinned, plan = defaultPlan(env), ...fields } = input;
  if (pinned !== undefined && !isShard(env, pinned)) throw ApiError.violation('shard', `Not a shard of this deployment (${shardNames(env).join(', ')}).`, 'unknown_shard');
  if (input.plan !== undefined) checkPlan(env, plan);
  const shard = pinned ?? (await placeTenant(env));
  const tenant: Tenant = { id: newId(), ...fields, testClockNow: null, createdAt: systemNow().toISOString(), plan };
  const { key, row } = await buildApiKey(tenant, { name: 'Initial key', permissions: ['*'], expiresAt: null });
  const db = openShard(env, shard);
  await db.batch([db.insert(tenants).values(tenant), db.insert(apiKeys).values(row)]);
  const dir = directoryDb(env);
  await dir.batch([
    dir.insert(tenantDirectory).values({ tenantId: tenant.id, shard, movingSince: null, createdAt: tenant.createdAt }),
    dir.insert(apiKeyDirectory).values({ keyHash: row.keyHash, tenantId: tenant.id, createdAt: row.createdAt }),
  ]);
  return { tenant: renderTenant(tenant, shard), apiKey: { ...renderApiKey(row), key } };
}

/**
 * Moves a tenant to another plan: one UPDATE of its row on its shard (503 while it is moved, 404
 * for an unknown id). Requests see it at once, except through an isolate's remembered API key,
 * which lapses within seconds (docs/decisions.md, Rate limits).
 */
export async function setTenantPlan(env: Env, tenantId: string, plan: string): Promise<TenantResource> {
  checkPlan(env, plan);
  const shard = await tenantShard(env, tenantId);
  if (shard === undefined) throw ApiError.notFound('Tenant');
  const row = await openShard(env, shard).update(tenants).set({ plan }).where(eq(tenants.id, tenantId)).returning().get();
  if (!row) throw ApiError.notFound('Tenant');
  // Remembered keys carry their tenant's plan: this isolate sees the new one at once, others within the cache's TTL.
  principalCache.invalidateTenant(tenantId);
  return renderTenant(row, shard);
}

/** The tenants of every shard, newest first: a page of the directory, then each shard's rows of it. */
export async function listTenants(env: Env, page: Page) {
  const dir = directoryDb(env);
  const [[total], entries] = await dir.batch([
    dir.select({ n: count() }).from(tenantDirectory),
    dir.select().from(tenantDirectory).orderBy(desc(tenantDirectory.createdAt), desc(tenantDirectory.tenantId)).limit(page.limit).offset(pageOffset(page)),
  ]);
  const byShard = new Map<string, string[]>();
  for (const e of entries) byShard.set(e.shard, [...(byShard.get(e.shard) ?? []), e.tenantId]);
  const rows = new Map<string, Tenant>();
  for (const [shard, ids] of byShard) {
    const db = openShard(env, shard);
    for (const t of await db.select().from(tenants).where(inJson(tenants.id, ids))) rows.set(t.id, t);
  }
  // An entry whose shard rows are gone (a tenant being moved right now) is left out of the page.
  const data = entries.flatMap((e) => {
    const t = rows.get(e.tenantId);
    return t ? [renderTenant(t, e.shard)] : [];
  });
  return collection(data, total?.n ?? 0, page);
}
