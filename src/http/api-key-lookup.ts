import { and, eq } from 'drizzle-orm';
import type { Tenant } from '../db/client';
import { readDirectory, tenantDb } from '../db/directory';
import { apiKeyDirectory, apiKeys, tenants } from '../db/schema';
import type { Env } from '../env';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** What authentication needs of a key: its row (permissions, expiry, revocation) and its tenant's row. */
export interface ApiKeyRecord {
  key: ApiKeyRow;
  tenant: Tenant;
}

/**
 * Finds an API key by the SHA-256 of its secret, across shards: the directory names the key's
 * tenant (and so its shard), the shard holds the key and the tenant (docs/decisions.md, Tenancy
 * and shards). Two reads, the first of them a replica's. Undefined for an unknown key; revocation
 * and expiry are the caller's to judge. A per-isolate cache may sit in front of this function:
 * only the key's row and tenant change, never the key's tenant.
 */
export async function lookupApiKey(env: Env, keyHash: string): Promise<ApiKeyRecord | undefined> {
  const entry = await readDirectory(env, (db) => db.select({ tenantId: apiKeyDirectory.tenantId }).from(apiKeyDirectory).where(eq(apiKeyDirectory.keyHash, keyHash)).get());
  const db = entry && (await tenantDb(env, entry.tenantId));
  if (!entry || !db) return undefined;
  const row = await db
    .select({ key: apiKeys, tenant: tenants })
    .from(apiKeys)
    .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
    .where(and(eq(apiKeys.keyHash, keyHash), eq(apiKeys.tenantId, entry.tenantId)))
    .get();
  return row ?? undefined;
}
