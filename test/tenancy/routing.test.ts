import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { shardSweeps } from '../../src/db/directory';
import { binding, shardNames } from '../../src/db/shards';
import { sha256Hex } from '../../src/lib/crypto';
import { api, countRows, expectProblem, expectStatus, get, patch, query, type TestTenant } from '../support/api';
import { createCustomer, createTenant, ok } from '../support/builders';
import { backgroundSettled } from '../../src/lib/background';

// Every request reaches its tenant's shard, and only it: isolation whichever shard the other
// tenant is on, authentication by key, customer token, refresh token and X-Tenant-Id on both shards,
// and a tenant that is being moved (docs/decisions.md, Tenancy and shards).

const SHARDS = shardNames(env);
const otherShard = (shard: string) => SHARDS.find((s) => s !== shard)!;

async function session(t: TestTenant, customerId: string) {
  const res = await api(`/customers/${customerId}/authenticate`, { method: 'POST', token: t.key });
  expectStatus(res, 201);
  return res.body.data as { accessToken: string; refreshToken: string };
}

const setMoving = (t: TestTenant, since: string | null) => env.DB.prepare('UPDATE tenant_directory SET moving_since = ? WHERE tenant_id = ?').bind(since, t.id).run();

describe('a tenant on either shard', () => {
  it.each(SHARDS)('on %s: sees its own records, and another tenant on the other shard sees none of them (404, never 403)', async (shard) => {
    const a = await createTenant({ shard });
    const b = await createTenant({ shard: otherShard(shard) });
    const mine = await createCustomer(a, { firstName: 'Mine' });
    const theirs = await createCustomer(b, { firstName: 'Theirs' });
    expect((await ok(get(a, `/customers/${mine.id}`))).firstName).toBe('Mine');
    expectProblem(await get(b, `/customers/${mine.id}`), 404);
    expectProblem(await patch(b, `/customers/${mine.id}`, { firstName: 'Stolen' }), 404);
    expectProblem(await get(a, `/customers/${theirs.id}`), 404);
    expect((await ok(get(a, '/customers?limit=100'))).data.map((c: { id: string }) => c.id)).toEqual([mine.id]);
    expect((await ok(get(a, `/customers/${mine.id}`))).firstName).toBe('Mine');
  });

  it.each(SHARDS)('on %s: authenticates its first key, a key made later, customer access and refresh tokens; a revoked key is 401', async (shard) => {
    const t = await createTenant({ shard });
    const c = await createCustomer(t);
    const made = await api('/api-keys', { token: t.key, body: { name: 'Later', permissions: ['customer:read'] } });
    expectStatus(made, 201);
    // The key's hash went to the directory (shard 0), its row to the tenant's shard.
    const hash = await sha256Hex(made.body.key);
    expect(await env.DB.prepare('SELECT tenant_id FROM api_key_directory WHERE key_hash = ?').bind(hash).first()).toEqual({ tenant_id: t.id });
    expect(await query(t, 'SELECT id FROM api_keys WHERE key_hash = ?', hash)).toEqual([{ id: made.body.id }]);
    expect((await api(`/customers/${c.id}`, { token: made.body.key })).status).toBe(200);

    const s = await session(t, c.id);
    expect(s.refreshToken.startsWith(`rt_${t.id}.`)).toBe(true);
    expect((await api(`/customers/${c.id}`, { token: s.accessToken })).status).toBe(200);
    const refreshed = await api('/auth/refresh', { body: { refreshToken: s.refreshToken } });
    expectStatus(refreshed, 200);
    expect((await api(`/customers/${c.id}`, { token: refreshed.body.data.accessToken })).status).toBe(200);
    // Spent once: the same token again closes the session.
    expectProblem(await api('/auth/refresh', { body: { refreshToken: s.refreshToken } }), 401);

    expectStatus(await api(`/api-keys/${made.body.id}`, { token: t.key, method: 'DELETE' }), 204);
    expectProblem(await api(`/customers/${c.id}`, { token: made.body.key }), 401);
  });

  it('a refresh token that names another tenant, or none, is 401', async () => {
    const a = await createTenant({ shard: 'DB' });
    const b = await createTenant({ shard: 'DB_1' });
    const s = await session(a, (await createCustomer(a)).id);
    const secret = s.refreshToken.slice(`rt_${a.id}.`.length);
    for (const token of [`rt_${b.id}.${secret}`, `rt_${secret}`, `rt_.${secret}`, 'rt_x']) {
      expectProblem(await api('/auth/refresh', { body: { refreshToken: token } }), 401);
    }
    expectStatus(await api('/auth/refresh', { body: { refreshToken: s.refreshToken } }), 200);
  });

  it.each(SHARDS)('on %s: the public OTP routes find the tenant of X-Tenant-Id', async (shard) => {
    const t = await createTenant({ shard });
    await createCustomer(t, { email: 'ada@example.com' });
    expectStatus(await api('/public/customer/request-otp', { body: { email: 'ada@example.com' }, headers: { 'X-Tenant-Id': t.id } }), 200);
    await backgroundSettled(); // the code is mailed after the answer
    // The mail is written to the tenant's own shard.
    expect(await countRows('outgoing_mails', t)).toBe(1);
    expect((await binding(env, otherShard(shard)).prepare('SELECT count(*) AS n FROM outgoing_mails WHERE tenant_id = ?').bind(t.id).first())).toEqual({ n: 0 });
  });
});

describe('what can never be reached', () => {
  it('a key whose directory entry exists without its row (made before the row, never finished) is 401', async () => {
    const t = await createTenant({ shard: 'DB_1' });
    const key = `sk_test_${'A'.repeat(32)}${Date.now()}`;
    await env.DB.prepare('INSERT INTO api_key_directory (key_hash, tenant_id, created_at) VALUES (?, ?, ?)').bind(await sha256Hex(key), t.id, new Date().toISOString()).run();
    expectProblem(await api('/customers', { token: key }), 401);
  });

  it("a tenant's rows on a shard without a directory entry (a creation that stopped before its entry) are reached by nothing", async () => {
    const id = crypto.randomUUID();
    const key = `sk_test_${'B'.repeat(32)}${Date.now()}`;
    const now = new Date().toISOString();
    const d1 = binding(env, 'DB_1');
    await d1.batch([
      d1.prepare(`INSERT INTO tenants (id, name, country_code, default_currency, time_zone, mode, created_at) VALUES (?, 'Half', 'DE', 'EUR', 'Europe/Berlin', 'test', ?)`).bind(id, now),
      d1.prepare(`INSERT INTO api_keys (id, tenant_id, key_prefix, key_hash, permissions, created_at) VALUES (?, ?, 'sk_test_BBBB', ?, '["*"]', ?)`).bind(crypto.randomUUID(), id, await sha256Hex(key), now),
    ]);
    expectProblem(await api('/customers', { token: key }), 401);
    expectProblem(await api('/public/customer/request-otp', { body: { email: 'x@example.com' }, headers: { 'X-Tenant-Id': id } }), 400);
    for (const sweep of await shardSweeps(env)) expect(sweep.tenants.has(id)).toBe(false);
  });
});

describe('a tenant being moved to another shard', () => {
  it('answers 503 tenant-moving with Retry-After to every way in, and serves again once the move is over', async () => {
    const t = await createTenant({ shard: 'DB_1' });
    const c = await createCustomer(t);
    // Marked before this isolate cached the tenant's entry (entries are cached for a minute; the
    // documented move waits longer than that after marking).
    const fresh = await createTenant({ shard: 'DB_1' });
    await setMoving(fresh, new Date().toISOString());
    const res = await api('/customers', { token: fresh.key });
    expectProblem(res, 503, '/problems/tenant-moving');
    expect(res.headers.get('Retry-After')).toBe('60');
    expectProblem(await api('/public/customer/request-otp', { body: { email: 'x@example.com' }, headers: { 'X-Tenant-Id': fresh.id } }), 503);
    expect((await shardSweeps(env)).some((s) => s.tenants.has(fresh.id))).toBe(false);
    expect((await shardSweeps(env))[0]!.moving).toContain(fresh.id);
    await setMoving(fresh, null);
    // A moving entry is never cached, so the end of a move shows at once.
    expectStatus(await api('/customers', { token: fresh.key }), 200);
    expectStatus(await get(t, `/customers/${c.id}`), 200);
  });
});
