import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { publishOutbox } from '../../src/events/publish';
import { binding, shardNames } from '../../src/db/shards';
import { api, expectStatus, get, put, query } from '../support/api';
import { countedStatus, createCustomer, createTenant, flatMonthlyFee, ok } from '../support/builders';
import { consume, deliveries, fake, hook, useFakeReceiver } from '../webhooks/receiver';

// Billing and webhooks on each shard: the test clock's billing run in the TenantObject, the numbers
// it gives, the documents' rows, and the webhook delivery through the queue consumer all reach the
// tenant's own shard (docs/decisions.md, Tenancy and shards).

useFakeReceiver();

describe.each(shardNames(env))('a tenant on %s', (shard) => {
  it('is billed by PUT /test-clock: one invoice a month, numbered in order, stored on its shard only', async () => {
    const t = await createTenant({ shard });
    expectStatus(await put(t, '/test-clock', { now: '2026-01-10T09:00:00.000Z' }), 200);
    const { product, price } = await flatMonthlyFee(t, '20.00', 'Seat');
    const c = await createCustomer(t);
    const s = (await api('/subscriptions', { token: t.key, body: { customer: c.id, items: [{ product: product.id, pricePlan: price.id }] } })).body;
    expectStatus(await api(`/subscriptions/${s.id}/activate`, { method: 'PUT', token: t.key, body: {} }), 200);
    for (const now of ['2026-01-10T10:00:00.000Z', '2026-02-10T10:00:00.000Z', '2026-03-10T10:00:00.000Z']) expectStatus(await put(t, '/test-clock', { now }), 200);

    const invoices = (await ok(get(t, `/invoices?subscription=${s.id}&order[creationDate]=asc`))).data as { number: string; status: string; grossAmount: { amount: string } }[];
    // 20.00 a month in advance, 19 % VAT; the test clock's dunning run reminded the two overdue ones.
    expect(invoices.map((i) => [i.number, countedStatus(i), i.grossAmount.amount])).toEqual([
      ['RE-0000000001', 'STATUS_REMINDED', '23.80'],
      ['RE-0000000002', 'STATUS_REMINDED', '23.80'],
      ['RE-0000000003', 'STATUS_UNPAID', '23.80'],
    ]);
    expect(await query(t, 'SELECT count(*) AS n FROM billing_ledger WHERE tenant_id = ?', t.id)).toEqual([{ n: 3 }]);
    expect(await query(t, 'SELECT count(DISTINCT invoice_id) AS n FROM dunning_documents WHERE tenant_id = ?', t.id)).toEqual([{ n: 2 }]);
    const other = shardNames(env).find((x) => x !== shard)!;
    for (const table of ['invoices', 'billing_ledger', 'dunning_documents', 'billing_runs']) {
      expect(await binding(env, other).prepare(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = ?`).bind(t.id).first(), table).toEqual({ n: 0 });
    }
  });

  it('gets its webhooks through the queue: signed deliveries of its own events, recorded on its shard', async () => {
    const t = await createTenant({ shard });
    const w = await hook(t, { events: ['customer.created'] });
    const c = await createCustomer(t, { firstName: 'Queued' });
    await publishOutbox(env, t.id);
    expect(fake.queued.length).toBeGreaterThan(0);
    expect(fake.queued.every((q) => q.tenantId === t.id)).toBe(true);
    await consume();
    expect(fake.received).toHaveLength(1);
    const body = JSON.parse(fake.received[0]!.body);
    expect(body).toMatchObject({ tenantId: t.id, event: { type: 'customer.created' }, data: { id: c.id, firstName: 'Queued' } });
    expect(fake.received[0]!.headers['webhook-signature']).toMatch(/^v1,/);
    expect((await deliveries(t, w.id)).map((d) => [d.status, d.attempts, d.last_response_code])).toEqual([['delivered', 1, 200]]);
  });
});
