import { AsyncLocalStorage } from 'node:async_hooks';
import type { Env } from '../env';
import { createDb, type Db } from './client';
import { metered } from './meter';

// Shards: the D1 databases that hold tenants' data, and how a request reaches one of them
// (docs/decisions.md, Tenancy and shards). Which shard a tenant lives on is the directory's
// business (src/db/directory.ts); this module knows the shards and the request's D1 sessions.

/** The directory lives in this shard's database (shard 0). */
export const DIRECTORY_SHARD = 'DB';

const SHARD_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;

const parsedLists = new Map<string, string[]>();

/**
 * The shard names of this deployment (D1 binding names), from `D1_SHARDS` ("DB,DB_1"), in the order
 * placement prefers them on a tie. Without the variable there is one shard, `DB`. A name that is no
 * D1 binding is a deployment error, reported at the first request rather than when a tenant lands there.
 */
export function shardNames(env: Env): string[] {
  const raw = env.D1_SHARDS ?? DIRECTORY_SHARD;
  let names = parsedLists.get(raw);
  if (!names) {
    names = [...new Set(raw.split(',').map((s) => s.trim()).filter(Boolean))];
    if (names[0] !== DIRECTORY_SHARD) throw new Error(`D1_SHARDS must start with ${DIRECTORY_SHARD}, the directory's database (got "${raw}")`);
    for (const name of names) if (!SHARD_NAME.test(name)) throw new Error(`D1_SHARDS: "${name}" is not a binding name`);
    parsedLists.set(raw, names);
  }
  for (const name of names) binding(env, name);
  return names;
}

export function isShard(env: Env, name: string): boolean {
  return shardNames(env).includes(name);
}

/** The D1 binding of a shard. */
export function binding(env: Env, shard: string): D1Database {
  const b = (env as unknown as Record<string, unknown>)[shard] as Partial<D1Database> | undefined;
  if (!b || typeof b.prepare !== 'function' || typeof b.withSession !== 'function') throw new Error(`shard ${shard} has no D1 binding`);
  return metered(b as D1Database, env.D1_METER === '1');
}

// ---------------------------------------------------------------------------------------------
// Read replication: one D1 session per request and shard (docs/decisions.md, Tenancy and shards).

/** The header that carries a D1 bookmark from one response to the client's next request. */
export const BOOKMARK_HEADER = 'x-d1-bookmark';

/**
 * A bookmark as we hand it out: `<shard>:<D1 bookmark>`. The shard is part of it because a D1
 * bookmark only means something to the database that issued it: a client that talks to tenants on
 * two shards (or to a tenant that moved) must never have one shard's bookmark applied to another.
 */
const BOOKMARK = /^([A-Z][A-Z0-9_]{0,63}):([A-Za-z0-9-]{1,128})$/;

export interface GivenBookmark {
  shard: string;
  bookmark: string;
}

/** The client's `x-d1-bookmark`, or undefined when absent or malformed (a bookmark is a hint: a bad one is ignored, never an error). */
export function parseBookmark(value: string | undefined | null): GivenBookmark | undefined {
  const m = value === undefined || value === null ? null : BOOKMARK.exec(value.trim());
  return m ? { shard: m[1]!, bookmark: m[2]! } : undefined;
}

/**
 * Where a read-only request's session starts on `shard`: after the client's bookmark when it names
 * this shard, else anywhere (`first-unconstrained`: the nearest replica).
 */
export function sessionStart(given: GivenBookmark | undefined, shard: string): string {
  return given?.shard === shard ? given.bookmark : 'first-unconstrained';
}

/**
 * A request's D1 session on one shard, as Drizzle's client (Drizzle calls only `prepare` and
 * `batch`). After the TenantObject wrote (numbers, a billing or dunning run) outside this session,
 * the next statement starts a new `first-primary` session: the old one's reads could go to a
 * replica that has not seen those writes yet, the new one's first read is the primary's and the
 * rest are at least as new.
 */
class RequestSession {
  private session: D1DatabaseSession;
  private previous: string | null = null;
  /** The object wrote since this session's last statement. */
  stale = false;

  constructor(
    private readonly d1: D1Database,
    start: string,
  ) {
    this.session = d1.withSession(start);
  }

  prepare(query: string): D1PreparedStatement {
    if (this.stale) {
      this.previous = this.session.getBookmark() ?? this.previous;
      this.session = this.d1.withSession('first-primary');
      this.stale = false;
    }
    return this.session.prepare(query);
  }

  batch<T = unknown>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    return this.session.batch<T>(statements);
  }

  /**
   * The latest bookmark; when the object wrote after the last statement, the primary's position
   * now (one `SELECT 1` through a `first-primary` session), so the object's writes are covered.
   */
  async bookmark(): Promise<string | null> {
    if (this.stale) {
      const probe = this.d1.withSession('first-primary');
      await probe.prepare('SELECT 1').run();
      return probe.getBookmark();
    }
    return this.session.getBookmark() ?? this.previous;
  }
}

interface D1Scope {
  /** GET and HEAD may start at the nearest replica; other methods start at the primary. */
  readOnly: boolean;
  given: GivenBookmark | undefined;
  opened: Map<string, { db: Db; session: RequestSession }>;
  /** The shard of the request's tenant: the response carries its bookmark. */
  tenantShard?: string;
}

const scopes = new AsyncLocalStorage<D1Scope>();

/** Runs a request (`fn`) with its D1 access: sessions for reads, the client's bookmark honoured. */
export function runWithD1Scope<R>(method: string, bookmarkHeader: string | undefined, fn: () => R): R {
  const readOnly = method === 'GET' || method === 'HEAD';
  return scopes.run({ readOnly, given: parseBookmark(bookmarkHeader), opened: new Map() }, fn);
}

/**
 * A Drizzle handle on a shard. Inside a request: the request's session of the shard — for GET and
 * HEAD started after the client's bookmark, else at the nearest replica; for writes at the primary
 * (writes go there anyway, and a write computed from a fresh read meets fewer conflicts). Outside
 * a request (queues, cron, Durable Objects): the primary itself. `tenant` marks the shard of the
 * request's tenant, whose bookmark the response carries.
 */
export function openShard(env: Env, shard: string, options: { tenant?: boolean } = {}): Db {
  const b = binding(env, shard);
  const scope = scopes.getStore();
  if (!scope) return createDb(b);
  if (options.tenant) scope.tenantShard ??= shard;
  let opened = scope.opened.get(shard);
  if (!opened) {
    const session = new RequestSession(b, scope.readOnly ? sessionStart(scope.given, shard) : 'first-primary');
    opened = { db: createDb(session), session };
    scope.opened.set(shard, opened);
  }
  return opened.db;
}

/**
 * The TenantObject wrote to D1 outside the request's sessions (it runs in its own invocation, on
 * the primary): the request's next statements must see that.
 */
export function objectWrote(): void {
  for (const opened of scopes.getStore()?.opened.values() ?? []) opened.session.stale = true;
}

/**
 * The bookmark the response carries (`<shard>:<bookmark>`): the latest of the request's session on
 * its tenant's shard. Undefined when the request never reached a tenant's shard (no credentials,
 * admin routes) or ran no statement there.
 */
export async function responseBookmark(): Promise<string | undefined> {
  const scope = scopes.getStore();
  const shard = scope?.tenantShard;
  const opened = shard ? scope.opened.get(shard) : undefined;
  if (!shard || !opened) return undefined;
  const bookmark = await opened.session.bookmark();
  return bookmark && BOOKMARK.test(`${shard}:${bookmark}`) ? `${shard}:${bookmark}` : undefined;
}
