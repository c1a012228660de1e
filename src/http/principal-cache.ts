import type { Tenant } from '../db/client';
import { systemNow } from '../lib/clock';
import { TtlCache } from '../lib/ttl-cache';

// API key → tenant, remembered per isolate for a few seconds, so a request pays no D1 read to find
// out who is calling (docs/decisions.md, Auth and tenancy). A change made through this isolate
// (revoking a key, moving the test clock) drops the entry at once; other isolates keep theirs until
// it is PRINCIPAL_TTL_MS old, which bounds how long such a change takes to be seen everywhere.

/** What authenticating an API key needs: the key's row (as far as auth reads it) and its tenant's row. */
export interface CachedPrincipal {
  keyId: string;
  permissions: readonly string[];
  /** Checked against the wall clock on every request, so a cached key still expires on time. */
  expiresAt: string | null;
  revokedAt: string | null;
  tenant: Readonly<Tenant>;
}

/** How long another isolate may go on using what it read: the bound documented for revocations and tenant changes. */
export const PRINCIPAL_TTL_MS = 5_000;
/** Keys remembered per isolate; the least recently used one goes first. */
export const PRINCIPAL_CACHE_ENTRIES = 1_000;

export class PrincipalCache {
  private readonly entries: TtlCache<CachedPrincipal>;

  constructor(options: { ttlMs: number; maxEntries: number; now: () => number }) {
    this.entries = new TtlCache(options);
  }

  /** The entry of a key hash while it is younger than the TTL. */
  get(hash: string): CachedPrincipal | undefined {
    return this.entries.get(hash);
  }

  /**
   * A mark to pass to `set` with what is read after it: an invalidation between the mark and the
   * `set` means the read may predate the change, and it is not stored.
   */
  mark(): number {
    return this.entries.mark();
  }

  /** Remembers what was read for a key hash (frozen: every request of the isolate shares it). */
  set(hash: string, value: CachedPrincipal, mark?: number): void {
    const frozen: CachedPrincipal = Object.freeze({ ...value, permissions: Object.freeze([...value.permissions]), tenant: Object.freeze({ ...value.tenant }) });
    this.entries.set(hash, frozen, mark);
  }

  /** A key changed (revoked, its permissions, its expiry): its entry goes. */
  invalidateKey(keyId: string): void {
    this.entries.invalidate((entry) => entry.keyId === keyId);
  }

  /** A tenant's row changed (its test clock, its mode, …): the entries of all its keys go. */
  invalidateTenant(tenantId: string): void {
    this.entries.invalidate((entry) => entry.tenant.id === tenantId);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The isolate's cache, on the wall clock (infrastructure time, like key expiry). */
export const principalCache = new PrincipalCache({ ttlMs: PRINCIPAL_TTL_MS, maxEntries: PRINCIPAL_CACHE_ENTRIES, now: () => systemNow().getTime() });
