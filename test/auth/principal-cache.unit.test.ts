import { describe, expect, it } from 'vitest';
import { PRINCIPAL_CACHE_ENTRIES, PrincipalCache, principalCache, type CachedPrincipal } from '../../src/http/principal-cache';

// The per-isolate memory of API keys on its own, with a clock the test moves: its bound in time,
// its bound in size, and what each invalidation drops.

function cacheAt(options: { ttlMs?: number; maxEntries?: number } = {}) {
  const clock = { now: 1_000_000 };
  const cache = new PrincipalCache({ ttlMs: options.ttlMs ?? 5_000, maxEntries: options.maxEntries ?? 100, now: () => clock.now });
  return { cache, clock };
}

function entry(keyId: string, tenantId: string, overrides: Partial<CachedPrincipal> = {}): CachedPrincipal {
  return {
    keyId,
    permissions: ['customer:read'],
    expiresAt: null,
    revokedAt: null,
    tenant: { id: tenantId, name: tenantId, countryCode: 'DE', defaultCurrency: 'EUR', timeZone: 'Europe/Berlin', mode: 'test', plan: 'standard', testClockNow: null, createdAt: '2026-01-01T00:00:00.000Z' },
    ...overrides,
  };
}

describe('PrincipalCache', () => {
  it('answers an entry until it is as old as the TTL, then forgets it', () => {
    const { cache, clock } = cacheAt({ ttlMs: 5_000 });
    cache.set('h1', entry('k1', 't1'));
    clock.now += 4_999;
    expect(cache.get('h1')?.keyId).toBe('k1');
    clock.now += 1;
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('forgets an entry when the clock goes backwards instead of trusting it longer', () => {
    const { cache, clock } = cacheAt();
    cache.set('h1', entry('k1', 't1'));
    clock.now -= 1;
    expect(cache.get('h1')).toBeUndefined();
  });

  it('holds at most maxEntries, dropping the least recently used', () => {
    const { cache } = cacheAt({ maxEntries: 3 });
    for (const n of [1, 2, 3]) cache.set(`h${n}`, entry(`k${n}`, 't'));
    expect(cache.get('h1')?.keyId).toBe('k1'); // h2 is now the least recently used
    cache.set('h4', entry('k4', 't'));
    expect(cache.size).toBe(3);
    expect(cache.get('h2')).toBeUndefined();
    expect(['h1', 'h3', 'h4'].map((h) => cache.get(h)?.keyId)).toEqual(['k1', 'k3', 'k4']);
  });

  it('is bounded in the isolate as documented', () => {
    const { cache } = cacheAt({ maxEntries: PRINCIPAL_CACHE_ENTRIES });
    for (let n = 0; n < PRINCIPAL_CACHE_ENTRIES + 50; n++) cache.set(`h${n}`, entry(`k${n}`, `t${n % 7}`));
    expect(cache.size).toBe(PRINCIPAL_CACHE_ENTRIES);
    expect(principalCache.size).toBeLessThanOrEqual(PRINCIPAL_CACHE_ENTRIES);
  });

  it('drops one key on invalidateKey, and every key of a tenant on invalidateTenant, nothing else', () => {
    const { cache } = cacheAt();
    cache.set('a1', entry('ka1', 'ta'));
    cache.set('a2', entry('ka2', 'ta'));
    cache.set('b1', entry('kb1', 'tb'));
    cache.invalidateKey('ka1');
    expect(['a1', 'a2', 'b1'].map((h) => cache.get(h)?.keyId)).toEqual([undefined, 'ka2', 'kb1']);
    cache.set('a1', entry('ka1', 'ta'));
    cache.invalidateTenant('ta');
    expect(['a1', 'a2', 'b1'].map((h) => cache.get(h)?.keyId)).toEqual([undefined, undefined, 'kb1']);
    expect(cache.get('b1')?.tenant.id).toBe('tb');
  });

  it('does not store a read that an invalidation overtook', () => {
    const { cache } = cacheAt();
    const mark = cache.mark();
    // The key is revoked while its row is being read: what was read may predate the revocation.
    cache.invalidateKey('k1');
    cache.set('h1', entry('k1', 't1'), mark);
    expect(cache.get('h1')).toBeUndefined();
    const later = cache.mark();
    cache.set('h1', entry('k1', 't1'), later);
    expect(cache.get('h1')?.keyId).toBe('k1');
  });

  it('hands out frozen entries, so no request can change what the next one reads', () => {
    const { cache } = cacheAt();
    const original = entry('k1', 't1');
    cache.set('h1', original);
    const got = cache.get('h1')!;
    expect(Object.isFrozen(got) && Object.isFrozen(got.tenant) && Object.isFrozen(got.permissions)).toBe(true);
    (original.permissions as string[]).push('*');
    expect(cache.get('h1')!.permissions).toEqual(['customer:read']);
  });
});
