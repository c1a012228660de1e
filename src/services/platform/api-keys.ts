import { and, desc, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { Tenant } from '../../db/client';
import { directoryDb } from '../../db/directory';
import { apiKeyDirectory, apiKeys } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { fetchPage } from '../../db/paging';
import type { Page } from '../../http/pagination';
import { hasPermission, isKnownPermission } from '../../http/permissions';
import { systemNow } from '../../lib/clock';
import { principalCache } from '../../http/principal-cache';
import { sha256Hex } from '../../lib/crypto';
import { newId, randomToken } from '../../lib/ids';
import type { ApiKeyCreated, ApiKeyResource } from '../../schemas/platform';

type ApiKeyRow = typeof apiKeys.$inferSelect;

export function renderApiKey(row: ApiKeyRow): ApiKeyResource {
  return {
    id: row.id,
    name: row.name,
    prefix: row.keyPrefix,
    permissions: row.permissions,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
    createdAt: row.createdAt,
  };
}

/** Makes a new secret key and the row that stores only its hash; the key itself is shown once. */
export async function buildApiKey(tenant: Pick<Tenant, 'id' | 'mode'>, input: { name: string | null; permissions: string[]; expiresAt: string | null }) {
  const key = `sk_${tenant.mode}_${randomToken(24)}`;
  const row: ApiKeyRow = {
    id: newId(),
    tenantId: tenant.id,
    name: input.name,
    keyPrefix: key.slice(0, 12),
    keyHash: await sha256Hex(key),
    permissions: input.permissions,
    expiresAt: input.expiresAt,
    revokedAt: null,
    createdAt: systemNow().toISOString(),
  };
  return { key, row };
}

export async function createApiKey(
  ctx: ServiceContext,
  creatorPermissions: readonly string[],
  input: { name: string | null; permissions: string[]; expiresAt: string | null },
): Promise<ApiKeyCreated> {
  const v = new Violations();
  input.permissions.forEach((p, i) => {
    if (!isKnownPermission(p)) v.add(`permissions[${i}]`, `Unknown permission "${p}"; use <resource>:<read|write> or *.`, 'unknown_permission');
    else if (p === '*' ? !creatorPermissions.includes('*') : !hasPermission(creatorPermissions, p)) {
      v.add(`permissions[${i}]`, `A key cannot grant "${p}", which it does not hold itself.`, 'permission_not_held');
    }
  });
  if (input.expiresAt && new Date(input.expiresAt) <= systemNow()) v.add('expiresAt', 'Must lie in the future.', 'in_past');
  v.throwIfAny();
  const { key, row } = await buildApiKey(ctx.tenant, { ...input, permissions: [...new Set(input.permissions)] });
  // The directory entry first: without the key row it authenticates nothing (401), whereas a key
  // row without its entry would be listed but never work (docs/decisions.md, Tenancy and shards).
  await directoryDb(ctx.env).insert(apiKeyDirectory).values({ keyHash: row.keyHash, tenantId: row.tenantId, createdAt: row.createdAt });
  await ctx.db.insert(apiKeys).values(row);
  return { ...renderApiKey(row), key };
}

/**
 * The keys a key may manage (see and revoke): those whose every permission it holds itself, so a
 * narrower key can never list or revoke a broader one. `*` is only held by `*`.
 */
function manageableBy(managerPermissions: readonly string[]): SQL | undefined {
  if (managerPermissions.includes('*')) return undefined;
  const held = [...new Set(managerPermissions.flatMap((p) => (p.endsWith(':write') ? [p, `${p.slice(0, -':write'.length)}:read`] : [p])))];
  return sql`NOT EXISTS (SELECT 1 FROM json_each(${apiKeys.permissions}) AS p WHERE p.value NOT IN (SELECT value FROM json_each(${JSON.stringify(held)})))`;
}

export async function listApiKeys(ctx: ServiceContext, managerPermissions: readonly string[], page: Page) {
  const where = and(eq(apiKeys.tenantId, ctx.tenant.id), manageableBy(managerPermissions));
  return fetchPage(ctx.db, apiKeys, where, [desc(apiKeys.createdAt), desc(apiKeys.id)], page, renderApiKey);
}

/** Revokes a key the caller may manage; a key it may not manage is reported like an unknown one. */
export async function revokeApiKey(ctx: ServiceContext, managerPermissions: readonly string[], id: string) {
  const visible = and(eq(apiKeys.tenantId, ctx.tenant.id), eq(apiKeys.id, id), manageableBy(managerPermissions));
  const row = await ctx.db
    .update(apiKeys)
    .set({ revokedAt: systemNow().toISOString() })
    .where(and(visible, isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
    .get();
  if (row) {
    // This isolate refuses the key from the next request on; others within PRINCIPAL_TTL_MS.
    principalCache.invalidateKey(id);
    return;
  }
  const exists = await ctx.db.select({ id: apiKeys.id }).from(apiKeys).where(visible).get();
  if (!exists) throw ApiError.notFound('API key');
  throw ApiError.conflict('The API key is already revoked.');
}

