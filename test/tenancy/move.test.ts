import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deleteStatements, insertStatements, MAX_STATEMENT_BYTES, rowsQuery, sqlLiteral, TENANT_TABLES_SQL } from '../../scripts/lib/tenant-export.mjs';
import { DIRECTORY_CACHE_MS } from '../../src/db/directory';
import { binding } from '../../src/db/shards';
import { api, expectProblem, get, post, shardOf, type TestTenant } from '../support/api';
import { created, createCustomer, createTenant, ok } from '../support/builders';
import { finalizedInvoice, line } from '../documents/builders';

// Moving a tenant to another shard as docs/deploy.md describes, with the SQL the export script
// writes (scripts/lib/tenant-export.mjs): mark it moving, wait out the directory cache, copy its
// rows, switch its entry, delete the old rows, end the move.

afterEach(() => vi.useRealTimers());

async function exportTenant(from: string, tenantId: string) {
  const d1 = binding(env, from);
  const tables = ['tenants', ...(await d1.prepare(TENANT_TABLES_SQL).all<{ name: string }>()).results.map((r) => r.name)];
  const exported = [];
  for (const name of tables) exported.push({ name, rows: (await d1.prepare(rowsQuery(name, tenantId)).all<Record<string, unknown>>()).results });
  return { tables, exported };
}

const countsIn = async (shard: string, tables: string[], tenantId: string) =>
  Object.fromEntries(await Promise.all(tables.map(async (name) => [name, ((await binding(env, shard).prepare(`SELECT count(*) AS n FROM (${rowsQuery(name, tenantId)})`).first<{ n: number }>())!).n])));

async function execute(shard: string, statements: string[]) {
  const d1 = binding(env, shard);
  for (let i = 0; i < statements.length; i += 50) await d1.batch(statements.slice(i, i + 50).map((s) => d1.prepare(s)));
}

const directory = (t: TestTenant, set: string, value: string | null) => env.DB.prepare(`UPDATE tenant_directory SET ${set} = ? WHERE tenant_id = ?`).bind(value, t.id).run();

describe('moving a tenant between shards', () => {
  it('copies every row of the tenant, serves it from the new shard after the switch, and leaves nothing behind', async () => {
    const t = await createTenant({ shard: 'DB' });
    const c = await createCustomer(t, { firstName: 'Movable', street: 'Hauptstr.', houseNumber: '1', zip: '10115', city: 'Berlin' });
    const first = await finalizedInvoice(t, c.id, [line('100.00')]);
    await created(post(t, '/webhooks', { url: 'https://hooks.example.com/moved', events: ['invoice.finalized'] }));
    const neighbour = await createTenant({ shard: 'DB_1' });
    const neighbourCustomer = await createCustomer(neighbour);

    // 1. Marked moving: from now on (once every isolate has dropped its cached entry) nothing writes.
    await directory(t, 'moving_since', new Date().toISOString());
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + DIRECTORY_CACHE_MS + 1_000 });
    expectProblem(await get(t, '/customers'), 503, '/problems/tenant-moving');

    // 2. Export from DB, import into DB_1 (twice: an import that stopped is simply run again).
    const { tables, exported } = await exportTenant('DB', t.id);
    const before = await countsIn('DB', tables, t.id);
    expect(before.tenants).toBe(1);
    expect(before.customers).toBe(1);
    expect(before.invoices).toBe(1);
    expect(tables).not.toContain('tenant_directory');
    const inserts = insertStatements(exported);
    expect(inserts[0]).toMatch(/^INSERT OR REPLACE INTO "tenants"/);
    await execute('DB_1', inserts);
    await execute('DB_1', inserts);
    expect(await countsIn('DB_1', tables, t.id)).toEqual(before);

    // 3. Switch the entry, delete the old rows, end the move.
    await directory(t, 'shard', 'DB_1');
    await execute('DB', deleteStatements(tables, t.id));
    expect(Object.values(await countsIn('DB', tables, t.id)).every((n) => n === 0)).toBe(true);
    await directory(t, 'moving_since', null);

    expect(await shardOf(t)).toBe('DB_1');
    const customer = await ok(get(t, `/customers/${c.id}`));
    expect(customer.firstName).toBe('Movable');
    expect((await ok(get(t, `/invoices/${first.id}`))).number).toBe(first.number);
    // Numbering goes on from the moved invoices.
    const second = await finalizedInvoice(t, c.id, [line('50.00')]);
    expect(second.number).toBe('RE-0000000002');
    // The neighbour on DB_1 is untouched and still apart.
    expect((await ok(get(neighbour, `/customers/${neighbourCustomer.id}`))).id).toBe(neighbourCustomer.id);
    expectProblem(await get(neighbour, `/customers/${c.id}`), 404);
    expect((await api(`/customers/${c.id}`, { token: t.key })).status).toBe(200);
  });

  it('writes values as SQL literals, and refuses a row D1 could not take in one statement', () => {
    expect([sqlLiteral(null), sqlLiteral(12), sqlLiteral(1.5), sqlLiteral(true), sqlLiteral("O'Brien"), sqlLiteral('{"a":"b"}')]).toEqual(['NULL', '12', '1.5', '1', "'O''Brien'", `'{"a":"b"}'`]);
    expect(() => sqlLiteral(new Uint8Array(2))).toThrow(/blobs/);
    expect(() => insertStatements([{ name: 'events', rows: [{ id: 'e', data: 'x'.repeat(MAX_STATEMENT_BYTES) }] }])).toThrow(/over 100000 bytes/);
    expect(deleteStatements(['tenants', 'customers', 'api_keys'], "t'1")).toEqual([
      `DELETE FROM "api_keys" WHERE tenant_id = 't''1';`,
      `DELETE FROM "customers" WHERE tenant_id = 't''1';`,
      `DELETE FROM "tenants" WHERE id = 't''1';`,
    ]);
  });
});
