import { eq, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Env } from '../env';
import { ApiError } from '../http/errors';
import { createDb, type Db, type Tenant } from './client';
import { tenantDirectory, tenants } from './schema';
import { binding, DIRECTORY_SHARD, isShard, openShard, shardNames } from './shards';

// The one door to a tenant's database: the directory says which shard holds the tenant, and every
// query of the tenant goes there (docs/decisions.md, Tenancy and shards).

/**
 * How long an isolate trusts a directory entry. A tenant only changes shards by a move, which marks
 * it moving and then waits longer than this before it copies anything, so no isolate still writes
 * to the old shard by then.
 */
export const DIRECTORY_CACHE_MS = 60_000;
/** Entries an isolate keeps; beyond it the cache starts again (each entry is a few dozen bytes). */
const MAX_CACHED = 10_000;

const cache = new Map<string, { shard: string; slug: string | null; until: number }>();
/** Public tenant slug → tenant id (null: no tenant has it), for as long as directory entries are trusted. */
const slugCache = new Map<string, { tenantId: string | null; until: number }>();

/** 503 while a tenant is moved between shards; clients retry, queue messages wait, cron skips it. */
export class TenantMovingError extends ApiError {
  constructor() {
    super(503, 'tenant-moving', 'The tenant is being moved to another database; try again in a minute.', undefined, { 'Retry-After': '60' });
  }
}

/**
 * A directory read: from a replica first, and a miss again from the primary, since a tenant or key
 * created a moment ago may not have reached the replica yet.
 */
export async function readDirectory<T>(env: Env, read: (db: Db) => Promise<T | undefined>): Promise<T | undefined> {
  const d1 = binding(env, DIRECTORY_SHARD);
  return (await read(createDb(d1.withSession('first-unconstrained')))) ?? (await read(createDb(d1)));
}

/** The directory on the primary, for writes and for what must not be stale (placement, sweeps). */
export const directoryDb = (env: Env): Db => createDb(binding(env, DIRECTORY_SHARD));

/**
 * The shard of a tenant, undefined for an unknown one; TenantMovingError while it is moved. One
 * directory read per tenant, isolate and minute (DIRECTORY_CACHE_MS); moving entries are never cached.
 */
export async function tenantShard(env: Env, tenantId: string): Promise<string | undefined> {
  return (await directoryEntry(env, tenantId))?.shard;
}

/**
 * The tenant's public slug (null when it has set none), undefined for an unknown tenant; from the
 * same cached directory entry as its shard, so another isolate may show the previous slug for up
 * to DIRECTORY_CACHE_MS after a change.
 */
export async function tenantSlug(env: Env, tenantId: string): Promise<string | null | undefined> {
  return (await directoryEntry(env, tenantId))?.slug;
}

/** The tenant a public slug names, undefined when none does (cached like the entries, misses too). */
export async function tenantIdBySlug(env: Env, slug: string): Promise<string | undefined> {
  const now = Date.now();
  const hit = slugCache.get(slug);
  if (hit && hit.until > now) return hit.tenantId ?? undefined;
  const row = await readDirectory(env, (db) => db.select({ tenantId: tenantDirectory.tenantId }).from(tenantDirectory).where(eq(tenantDirectory.slug, slug)).get());
  if (slugCache.size >= MAX_CACHED) slugCache.clear();
  slugCache.set(slug, { tenantId: row?.tenantId ?? null, until: now + DIRECTORY_CACHE_MS });
  return row?.tenantId;
}

/** Drops what this isolate cached of a tenant's entry and of slugs (after its slug changed). */
export function forgetDirectoryEntry(tenantId: string, ...slugs: (string | null | undefined)[]): void {
  cache.delete(tenantId);
  for (const slug of slugs) if (slug) slugCache.delete(slug);
}

async function directoryEntry(env: Env, tenantId: string): Promise<{ shard: string; slug: string | null } | undefined> {
  const now = Date.now();
  const hit = cache.get(tenantId);
  if (hit && hit.until > now) return hit;
  if (tenantId.length > 64) return undefined;
  const row = await readDirectory(env, (db) => db.select().from(tenantDirectory).where(eq(tenantDirectory.tenantId, tenantId)).get());
  if (!row) return undefined;
  if (row.movingSince) {
    cache.delete(tenantId);
    throw new TenantMovingError();
  }
  if (!isShard(env, row.shard)) throw new Error(`tenant ${tenantId} lives on shard ${row.shard}, which D1_SHARDS does not list`);
  if (cache.size >= MAX_CACHED) cache.clear();
  const entry = { shard: row.shard, slug: row.slug ?? null, until: now + DIRECTORY_CACHE_MS };
  cache.set(tenantId, entry);
  return entry;
}

/** The tenant's database (in a request: the request's handle on its shard), undefined for an unknown tenant. */
export async function tenantDb(env: Env, tenantId: string): Promise<Db | undefined> {
  const shard = await tenantShard(env, tenantId);
  return shard === undefined ? undefined : openShard(env, shard, { tenant: true });
}

/** A tenant's row and database, undefined when unknown: where queue consumers, the TenantObject, cron and public routes start. */
export async function openTenant(env: Env, tenantId: string): Promise<{ db: Db; tenant: Tenant } | undefined> {
  const db = await tenantDb(env, tenantId);
  if (!db) return undefined;
  const tenant = await db.select().from(tenants).where(eq(tenants.id, tenantId)).get();
  return tenant ? { db, tenant } : undefined;
}

/**
 * One shard as a sweep sees it: its database, the tenants the directory places there (and not
 * moving), and the tenants being moved, whose rows (on either shard) no sweep may touch meanwhile.
 */
export interface ShardSweep {
  shard: string;
  db: Db;
  tenants: ReadonlySet<string>;
  moving: readonly string[];
}

/** Every shard with what its sweeps may touch, read from the directory once (cron). */
export async function shardSweeps(env: Env): Promise<ShardSweep[]> {
  const rows = await directoryDb(env).select({ tenantId: tenantDirectory.tenantId, shard: tenantDirectory.shard, movingSince: tenantDirectory.movingSince }).from(tenantDirectory);
  const moving = rows.filter((r) => r.movingSince).map((r) => r.tenantId);
  return shardNames(env).map((shard) => ({
    shard,
    db: createDb(binding(env, shard)),
    tenants: new Set(rows.filter((r) => r.shard === shard && !r.movingSince).map((r) => r.tenantId)),
    moving,
  }));
}

/** Rows of a shard a tenant-less sweep may touch: not those of a tenant being moved. */
export function settled(sweep: ShardSweep, tenantColumn: SQLiteColumn): SQL | undefined {
  return sweep.moving.length ? sql`${tenantColumn} NOT IN (SELECT value FROM json_each(${JSON.stringify(sweep.moving)}))` : undefined;
}

/** The tenants a sweep works on this shard: the rows of `tenants` the directory places here. */
export async function sweepTenants(sweep: ShardSweep): Promise<Tenant[]> {
  if (sweep.tenants.size === 0) return [];
  return (await sweep.db.select().from(tenants)).filter((t) => sweep.tenants.has(t.id));
}

/**
 * A row found by a unique id that names no tenant (a public cart whose object lost it): every shard
 * is asked at once, and only the copy on the shard the directory names for the row's tenant counts
 * (a tenant being moved has rows on two shards). Costs a lookup per shard; only rare paths use it.
 */
export async function findOnAnyShard<T extends { tenantId: string }>(env: Env, read: (db: Db) => Promise<T | undefined>): Promise<T | undefined> {
  const found = await Promise.all(shardNames(env).map(async (shard) => ({ shard, row: await read(openShard(env, shard)) })));
  for (const { shard, row } of found) if (row && (await tenantShard(env, row.tenantId)) === shard) return row;
  return undefined;
}
