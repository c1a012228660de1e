import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, dbOf, get, put } from '../support/api';
import { createCustomer, createTenant, keyWith } from '../support/builders';
import { PRINCIPAL_TTL_MS } from '../../src/http/principal-cache';

// The API key → tenant lookup is remembered per isolate for PRINCIPAL_TTL_MS (docs/decisions.md,
// Auth and tenancy). Changes made through the API are seen by the very next request; a change this
// isolate did not make (another isolate's, written straight to D1 here) within the TTL. Time is
// moved with fake timers, which the Worker shares with the tests (one isolate).

afterEach(() => {
  vi.useRealTimers();
});

/** Moves the wall clock (key expiry, the cache's age) forward by `ms`. */
function advanceWallClock(ms: number) {
  const now = Date.now();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(now + ms);
}

describe('API keys remembered per isolate', () => {
  it('refuses a revoked key on the next request', async () => {
    const t = await createTenant();
    const created = await api('/api-keys', { token: t.key, body: { permissions: ['customer:read'] } });
    expect((await api('/customers', { token: created.body.key })).status).toBe(200);
    expect((await api(`/api-keys/${created.body.id}`, { method: 'DELETE', token: t.key })).status).toBe(204);
    expect((await api('/customers', { token: created.body.key })).status).toBe(401);
    // Still refused once the remembered entry is gone: the revocation is stored, not only remembered.
    advanceWallClock(PRINCIPAL_TTL_MS);
    expect((await api('/customers', { token: created.body.key })).status).toBe(401);
  });

  it('sees a revocation written by another isolate within the TTL', async () => {
    const t = await createTenant();
    const created = await api('/api-keys', { token: t.key, body: { permissions: ['customer:read'] } });
    expect((await api('/customers', { token: created.body.key })).status).toBe(200);
    await (await dbOf(t)).prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').bind(new Date().toISOString(), created.body.id).run();
    advanceWallClock(PRINCIPAL_TTL_MS);
    expect((await api('/customers', { token: created.body.key })).status).toBe(401);
  });

  it('gives a key whose permissions changed its new permissions within the TTL', async () => {
    const t = await createTenant();
    const created = await api('/api-keys', { token: t.key, body: { permissions: ['customer:read'] } });
    expect((await api('/customers', { token: created.body.key })).status).toBe(200);
    expect((await api('/settings', { token: created.body.key })).status).toBe(403);
    await (await dbOf(t)).prepare('UPDATE api_keys SET permissions = ? WHERE id = ?').bind(JSON.stringify(['settings:read']), created.body.id).run();
    advanceWallClock(PRINCIPAL_TTL_MS);
    expect((await api('/settings', { token: created.body.key })).status).toBe(200);
    const refused = await api('/customers', { token: created.body.key });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('customer:read');
  });

  it('refuses an expired key although it was remembered as valid a moment before', async () => {
    const t = await createTenant();
    const expiresAt = new Date(Date.now() + 2_000).toISOString();
    const created = await api('/api-keys', { token: t.key, body: { permissions: ['*'], expiresAt } });
    expect(created.status).toBe(201);
    expect((await api('/customers', { token: created.body.key })).status).toBe(200);
    // Past the expiry, still inside the TTL: the entry is there, and the key is refused all the same.
    advanceWallClock(Math.min(3_000, PRINCIPAL_TTL_MS - 1));
    const res = await api('/customers', { token: created.body.key });
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/expired/);
  });

  it('lets the next request see a moved test clock', async () => {
    const t = await createTenant();
    expect((await get(t, '/test-clock')).body.frozen).toBe(false);
    expect((await put(t, '/test-clock', { now: '2031-03-01T00:00:00Z' })).status).toBe(200);
    expect((await get(t, '/test-clock')).body).toEqual({ now: '2031-03-01T00:00:00.000Z', frozen: true });
    const customer = await createCustomer(t);
    expect(customer.createdAt).toBe('2031-03-01T00:00:00.000Z');
    expect((await put(t, '/test-clock', { now: '2031-04-01T00:00:00Z' })).status).toBe(200);
    expect((await get(t, '/test-clock')).body.now).toBe('2031-04-01T00:00:00.000Z');
  });

  it('sees a tenant row changed by another isolate within the TTL', async () => {
    const t = await createTenant();
    expect((await get(t, '/test-clock')).body.frozen).toBe(false);
    await (await dbOf(t)).prepare('UPDATE tenants SET test_clock_now = ? WHERE id = ?').bind('2032-01-01T00:00:00.000Z', t.id).run();
    advanceWallClock(PRINCIPAL_TTL_MS);
    expect((await get(t, '/test-clock')).body).toEqual({ now: '2032-01-01T00:00:00.000Z', frozen: true });
  });

  it('never answers one tenant with what it remembered of another', async () => {
    const a = await createTenant();
    const b = await createTenant();
    const readerB = await keyWith(b, ['customer:read']);
    const ca = await createCustomer(a);
    const cb = await createCustomer(b);
    for (let round = 0; round < 3; round++) {
      // Alternating keys of both tenants, each remembered after its first use.
      expect((await api('/customers', { token: a.key })).body.data.map((c: { id: string }) => c.id)).toEqual([ca.id]);
      expect((await api('/customers', { token: readerB })).body.data.map((c: { id: string }) => c.id)).toEqual([cb.id]);
      expect((await api(`/customers/${cb.id}`, { token: a.key })).status).toBe(404);
      expect((await api(`/customers/${ca.id}`, { token: b.key })).status).toBe(404);
    }
    // Moving one tenant's clock leaves the other's as it was.
    expect((await put(a, '/test-clock', { now: '2030-06-01T00:00:00Z' })).status).toBe(200);
    expect((await get(a, '/test-clock')).body.frozen).toBe(true);
    expect((await get(b, '/test-clock')).body.frozen).toBe(false);
  });
});
