import type { Tenant } from '../db/client';
import { systemNow } from '../lib/clock';

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

interface Entry {
  value: CachedPrincipal;
  storedAt: number;
}

export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  private epoch = 0;

  constructor(private readonly options: { ttlMs: number; maxEntries: number; now: () => number }) {}

  /** The entry of a key hash while it is younger than the TTL. */
  get(hash: string): CachedPrincipal | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    const age = this.options.now() - entry.storedAt;
    if (age >= this.options.ttlMs || age < 0) {
      this.entries.delete(hash);
      return undefined;
    }
    // Most recently used last, so eviction takes the oldest use.
    this.entries.delete(hash);
    this.entries.set(hash, entry);
    return entry.value;
  }

  /**
   * A mark to pass to `set` with what is read after it: an invalidation between the mark and the
   * `set` means the read may predate the change, and it is not stored.
   */
  mark(): number {
    return this.epoch;
  }

  /** Remembers what was read for a key hash (frozen: every request of the isolate shares it). */
  set(hash: string, value: CachedPrincipal, mark?: number): void {
    if (mark !== undefined && mark !== this.epoch) return;
    const frozen: CachedPrincipal = Object.freeze({ ...value, permissions: Object.freeze([...value.permissions]), tenant: Object.freeze({ ...value.tenant }) });
    this.entries.delete(hash);
    this.entries.set(hash, { value: frozen, storedAt: this.options.now() });
    while (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  /** A key changed (revoked, its permissions, its expiry): its entry goes. */
  invalidateKey(keyId: string): void {
    this.epoch += 1;
    for (const [hash, entry] of this.entries) if (entry.value.keyId === keyId) this.entries.delete(hash);
  }

  /** A tenant's row changed (its test clock, its mode, …): the entries of all its keys go. */
  invalidateTenant(tenantId: string): void {
    this.epoch += 1;
    for (const [hash, entry] of this.entries) if (entry.value.tenant.id === tenantId) this.entries.delete(hash);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The isolate's cache, on the wall clock (infrastructure time, like key expiry). */
export const principalCache = new PrincipalCache({ ttlMs: PRINCIPAL_TTL_MS, maxEntries: PRINCIPAL_CACHE_ENTRIES, now: () => systemNow().getTime() });
