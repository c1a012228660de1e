import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { binding, shardNames } from '../../src/db/shards';
import { ADMIN_TOKEN, api, expect422, expectStatus, shardOf } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';

// Placement: a new tenant goes to the shard with the fewest tenants (the first listed on a tie),
// unless the operator pins one; its rows go to that shard only, its directory entry to shard 0
// (docs/decisions.md, Tenancy and shards).

const SHARDS = shardNames(env);

async function tenantsPerShard(): Promise<Map<string, number>> {
  const rows = (await env.DB.prepare('SELECT shard, count(*) AS n FROM tenant_directory GROUP BY shard').all<{ shard: string; n: number }>()).results;
  return new Map(SHARDS.map((s) => [s, rows.find((r) => r.shard === s)?.n ?? 0]));
}

const fewest = (counts: Map<string, number>) => SHARDS.reduce((best, s) => (counts.get(s)! < counts.get(best)! ? s : best));

const rowsIn = async (shard: string, sql: string, ...params: unknown[]) =>
  (await binding(env, shard).prepare(sql).bind(...params).all()).results;

describe('placement', () => {
  it('runs the suite with two shards, and the suite places tenants on both', async () => {
    expect(SHARDS).toEqual(['DB', 'DB_1']);
    await createTenant();
    await createTenant();
    const counts = await tenantsPerShard();
    expect(counts.get('DB')).toBeGreaterThan(0);
    expect(counts.get('DB_1')).toBeGreaterThan(0);
  });

  it('puts each new tenant on the shard with the fewest tenants, so tenants made one after another spread', async () => {
    const gap = (m: Map<string, number>) => Math.abs(m.get('DB')! - m.get('DB_1')!);
    const start = await tenantsPerShard();
    for (let i = 0; i < 6; i++) {
      const before = await tenantsPerShard();
      const res = await api('/admin/tenants', { token: ADMIN_TOKEN, body: { name: `Spread ${i}`, countryCode: 'DE' } });
      expectStatus(res, 201);
      expect(res.body.tenant.shard).toBe(fewest(before));
    }
    // Each tenant closes the gap by one until the shards are level; then they alternate.
    expect(gap(await tenantsPerShard())).toBeLessThanOrEqual(Math.max(1, gap(start) - 6));
  });

  it('honours a pinned shard, and refuses a shard the deployment does not have without making anything', async () => {
    for (const shard of SHARDS) {
      const res = await api('/admin/tenants', { token: ADMIN_TOKEN, body: { name: `Pinned ${shard}`, countryCode: 'DE', shard } });
      expectStatus(res, 201);
      expect(res.body.tenant.shard).toBe(shard);
      expect(await shardOf(res.body.tenant.id)).toBe(shard);
    }
    const before = await tenantsPerShard();
    expect422(await api('/admin/tenants', { token: ADMIN_TOKEN, body: { name: 'Nowhere', countryCode: 'DE', shard: 'DB_7' } }), ['shard']);
    expect422(await api('/admin/tenants', { token: ADMIN_TOKEN, body: { name: 'Nowhere', countryCode: 'DE', shard: 'x'.repeat(65) } }), ['shard']);
    expect(await tenantsPerShard()).toEqual(before);
  });

  it.each(SHARDS)('writes a tenant on %s to that shard only, and its directory entry (tenant and key hash) to shard 0', async (shard) => {
    const t = await createTenant({ shard });
    const other = SHARDS.find((s) => s !== shard)!;
    const c = await createCustomer(t);
    expect(await rowsIn(shard, 'SELECT id FROM tenants WHERE id = ?', t.id)).toHaveLength(1);
    expect(await rowsIn(shard, 'SELECT id FROM customers WHERE tenant_id = ? AND id = ?', t.id, c.id)).toHaveLength(1);
    expect(await rowsIn(shard, 'SELECT id FROM api_keys WHERE tenant_id = ?', t.id)).toHaveLength(1);
    expect(await rowsIn(shard, "SELECT id FROM events WHERE tenant_id = ? AND type = 'customer.created'", t.id)).toHaveLength(1);
    for (const table of ['customers', 'api_keys', 'events']) expect(await rowsIn(other, `SELECT * FROM ${table} WHERE tenant_id = ?`, t.id)).toEqual([]);
    expect(await rowsIn(other, 'SELECT id FROM tenants WHERE id = ?', t.id)).toEqual([]);
    expect(await rowsIn('DB', 'SELECT shard, moving_since FROM tenant_directory WHERE tenant_id = ?', t.id)).toEqual([{ shard, moving_since: null }]);
    expect(await rowsIn('DB', 'SELECT tenant_id FROM api_key_directory WHERE tenant_id = ?', t.id)).toEqual([{ tenant_id: t.id }]);
    // Shard 1's copy of the directory tables stays empty: the directory lives in shard 0 alone.
    expect(await rowsIn('DB_1', 'SELECT * FROM tenant_directory')).toEqual([]);
  });

  it('lists the tenants of every shard, newest first, each with its shard', async () => {
    const a = await createTenant({ shard: 'DB' });
    const b = await createTenant({ shard: 'DB_1' });
    const res = await api('/admin/tenants?limit=100', { token: ADMIN_TOKEN });
    expectStatus(res, 200);
    const listed = res.body.data as { id: string; shard: string }[];
    expect(listed.slice(0, 2).map((x) => [x.id, x.shard])).toEqual([
      [b.id, 'DB_1'],
      [a.id, 'DB'],
    ]);
    const total = (await env.DB.prepare('SELECT count(*) AS n FROM tenant_directory').first<{ n: number }>())!.n;
    expect(res.body.meta.pagination.totalItems).toBe(total);
  });
});
