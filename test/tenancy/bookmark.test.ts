import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { binding, parseBookmark, sessionStart, shardNames } from '../../src/db/shards';
import { api, type TestTenant } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';

// Read replication: a request reads through a D1 session that starts after the bookmark the client
// sends in x-d1-bookmark, and the response carries the bookmark to send next (docs/decisions.md,
// Tenancy and shards). Local D1 has no replicas, so what is checked is the round trip: the header
// is there (errors included), it is handed to D1 when it names the tenant's shard, and a bad one
// changes nothing.

const HEADER = 'x-d1-bookmark';
const SHARDS = shardNames(env);

afterEach(() => vi.restoreAllMocks());

const withBookmark = (t: TestTenant, path: string, bookmark?: string) => api(path, { token: t.key, ...(bookmark === undefined ? {} : { headers: { [HEADER]: bookmark } }) });

describe('the bookmark header', () => {
  it.each([
    { value: 'DB_1:0000002a-00000003-00004ff0-8e5a1c', expected: { shard: 'DB_1', bookmark: '0000002a-00000003-00004ff0-8e5a1c' } },
    { value: ' DB:abc ', expected: { shard: 'DB', bookmark: 'abc' } },
    { value: undefined, expected: undefined },
    { value: '', expected: undefined },
    { value: '0000002a-00000003', expected: undefined },
    { value: 'DB_1:', expected: undefined },
    { value: 'db_1:abc', expected: undefined },
    { value: 'DB_1:abc def', expected: undefined },
    { value: 'DB_1:abc;drop', expected: undefined },
    { value: `DB_1:${'a'.repeat(129)}`, expected: undefined },
  ])('reads $value as $expected', ({ value, expected }) => {
    expect(parseBookmark(value)).toEqual(expected);
  });

  it('starts a session after the bookmark only when it names the same shard', () => {
    expect(sessionStart({ shard: 'DB_1', bookmark: 'b1' }, 'DB_1')).toBe('b1');
    expect(sessionStart({ shard: 'DB', bookmark: 'b0' }, 'DB_1')).toBe('first-unconstrained');
    expect(sessionStart(undefined, 'DB')).toBe('first-unconstrained');
  });

  it.each(SHARDS)('on %s: comes with reads and writes, names the shard, and is honoured on the next read', async (shard) => {
    const t = await createTenant({ shard });
    const read = await withBookmark(t, '/customers');
    expect(read.status).toBe(200);
    expect(read.headers.get(HEADER)).toMatch(new RegExp(`^${shard}:[A-Za-z0-9-]+$`));

    const write = await api('/customers', { token: t.key, body: { email: `bookmark-${shard}@example.com`, countryCode: 'DE' } });
    expect(write.status).toBe(201);
    const afterWrite = write.headers.get(HEADER)!;
    expect(afterWrite).toMatch(new RegExp(`^${shard}:[A-Za-z0-9-]+$`));

    const sessions = vi.spyOn(binding(env, shard), 'withSession');
    const next = await withBookmark(t, `/customers/${write.body.id}`, afterWrite);
    expect(next.status).toBe(200);
    expect(next.body.email).toBe(`bookmark-${shard}@example.com`);
    // The read's session started at the bookmark the write handed out.
    expect(sessions).toHaveBeenCalledWith(afterWrite.slice(shard.length + 1));
    expect(next.headers.get(HEADER)).toMatch(new RegExp(`^${shard}:[A-Za-z0-9-]+$`));
  });

  it("reads after the TenantObject wrote go to the primary: a write request starts there, and again once the object's call returns", async () => {
    const t = await createTenant({ shard: 'DB_1' });
    const sessions = vi.spyOn(binding(env, 'DB_1'), 'withSession');
    const moved = await api('/test-clock', { token: t.key, method: 'PUT', body: { now: '2026-01-10T09:00:00.000Z' } });
    expect(moved.status).toBe(200);
    // One session from the start, one after the object's billing run, one after its dunning run.
    expect(sessions.mock.calls.map((c) => c[0])).toEqual(['first-primary', 'first-primary', 'first-primary']);
    expect(moved.headers.get(HEADER)).toMatch(/^DB_1:[A-Za-z0-9-]+$/);
    sessions.mockClear();
    const read = await withBookmark(t, '/test-clock', moved.headers.get(HEADER)!);
    expect(read.status).toBe(200);
    expect(read.body.now).toBe('2026-01-10T09:00:00.000Z');
    expect(sessions.mock.calls.map((c) => c[0])).toEqual([moved.headers.get(HEADER)!.slice('DB_1:'.length)]);
  });

  it('a malformed bookmark, or one of another shard, is ignored: the read starts anywhere and succeeds', async () => {
    const t = await createTenant({ shard: 'DB_1' });
    const c = await createCustomer(t);
    const sessions = vi.spyOn(binding(env, 'DB_1'), 'withSession');
    for (const bad of ['garbage', 'DB_1:', `DB_1:${'f'.repeat(500)}`, 'DB:0000002a-00000003', 'DB_7:0000002a', 'DB_1:abc def']) {
      sessions.mockClear();
      const res = await withBookmark(t, `/customers/${c.id}`, bad);
      expect(res.status, bad).toBe(200);
      expect(res.headers.get(HEADER), bad).toMatch(/^DB_1:[A-Za-z0-9-]+$/);
      expect(sessions.mock.calls.map((c) => c[0]), bad).toEqual(['first-unconstrained']);
    }
  });

  it('comes with errors of a tenant (404), not with answers that never reached a tenant (401, /health)', async () => {
    const t = await createTenant();
    const missing = await withBookmark(t, `/customers/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get(HEADER)).toMatch(/^DB(_1)?:[A-Za-z0-9-]+$/);
    const refused = await api('/customers', { token: 'sk_test_nobody' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get(HEADER)).toBeNull();
    expect((await api('/health')).headers.get(HEADER)).toBeNull();
  });
});
