import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Tenant } from '../../db/client';
import { apiKeys } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import { hasPermission } from '../../http/auth';
import type { ServiceContext } from '../context';
import { fetchPage } from '../../db/paging';
import type { Page } from '../../http/pagination';
import { isKnownPermission } from '../../http/permissions';
import { systemNow } from '../../lib/clock';
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
  creatorPermissions: string[],
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
  await ctx.db.insert(apiKeys).values(row);
  return { ...renderApiKey(row), key };
}

export async function listApiKeys(ctx: ServiceContext, page: Page) {
  return fetchPage(ctx.db, apiKeys, eq(apiKeys.tenantId, ctx.tenant.id), [desc(apiKeys.createdAt), desc(apiKeys.id)], page, renderApiKey);
}

export async function revokeApiKey(ctx: ServiceContext, id: string) {
  const row = await ctx.db
    .update(apiKeys)
    .set({ revokedAt: systemNow().toISOString() })
    .where(and(eq(apiKeys.tenantId, ctx.tenant.id), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
    .get();
  if (row) return;
  const exists = await ctx.db.select({ id: apiKeys.id }).from(apiKeys).where(and(eq(apiKeys.tenantId, ctx.tenant.id), eq(apiKeys.id, id))).get();
  if (!exists) throw ApiError.notFound('API key');
  throw ApiError.conflict('The API key is already revoked.');
}

