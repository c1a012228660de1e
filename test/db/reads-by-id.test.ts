import { dbOf, shardOf } from '../support/api';
import { describe, expect, it } from 'vitest';
import { createCustomer, createTenant } from '../support/builders';

// Reads by id (tenantRowsById in src/db/client.ts): by primary key, within the tenant.

describe('reads by id', () => {
  it('find a tenant\'s rows by primary key and never another tenant\'s', async () => {
    const { createDb, tenantRowsById } = await import('../../src/db/client');
    const { customers } = await import('../../src/db/schema');
    // Both on one shard: the tenant condition, not the shard, must keep b's rows out.
    const a = await createTenant();
    const b = await createTenant({ shard: await shardOf(a) });
    const [a1, a2, b1] = [await createCustomer(a), await createCustomer(a), await createCustomer(b)];
    const db = createDb((await dbOf(a)));
    const found = await db.select({ id: customers.id }).from(customers).where(tenantRowsById(customers, a.id, [a1.id, b1.id, a2.id, 'missing']));
    expect(found.map((r) => r.id).sort()).toEqual([a1.id, a2.id].sort());
    expect(await db.select().from(customers).where(tenantRowsById(customers, b.id, [a1.id, a2.id]))).toEqual([]);
    // The plan looks rows up by primary key rather than walking the tenant's (tenant_id, …) index.
    const query = db.select().from(customers).where(tenantRowsById(customers, a.id, [a1.id])).toSQL();
    const plan = await (await dbOf(a)).prepare(`EXPLAIN QUERY PLAN ${query.sql}`).bind(...query.params).all<{ detail: string }>();
    expect(plan.results.map((r) => r.detail).join('\n')).toMatch(/SEARCH customers USING INDEX sqlite_autoindex_customers_1 \(id=\?\)/);
  });
});
