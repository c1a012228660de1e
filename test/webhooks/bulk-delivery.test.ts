import { createExecutionContext, createMessageBatch, getQueueResult, runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { publishOutbox } from '../../src/events/publish';
import { api, post, query } from '../support/api';
import { SENDING_LANES } from '../../src/events/delivery';
import { createCustomer, createTenant } from '../support/builders';
import { item, local, offer, subscribe, tenantAt } from '../billing/scenario';
import { deliveries, fake, hook, useFakeReceiver } from './receiver';

// Webhooks at the scale of a billing run: a run publishes its events as it goes (not at the next
// sweep), a queue message names many deliveries of one webhook, and the consumer sends them in
// order, each once, however often the message comes.

useFakeReceiver();

/** Runs the consumer over messages as the Queues runtime would deliver them. */
async function consumeMessages(bodies: unknown[]) {
  const batch = createMessageBatch('edge-billing-events', bodies.map((body, i) => ({ id: `bulk-${i}`, timestamp: new Date(), attempts: 1, body })));
  const ctx = createExecutionContext();
  await worker.queue(batch as never, env, ctx);
  return getQueueResult(batch, ctx);
}

describe('webhooks at billing scale', () => {
  it('a billing run publishes its events to the webhooks as it goes: every delivery is written and queued when the run ends', async () => {
    const start = local('2025-01-01');
    const { t, c } = await tenantAt(start);
    const w = await hook(t, { events: ['invoice.finalized'] });
    const pro = await offer(t, c, 'Pro', '10.00');
    const customer = await createCustomer(t);
    // 30 subscriptions: two chunks of the run (25 + 5).
    for (let i = 0; i < 30; i++) await subscribe(t, customer.id, [item(pro)], { name: `Seat ${i}` });
    fake.queued = [];
    // A background run, worked by the object's alarms (one chunk each here): no request is around
    // to publish afterwards, and no sweeper runs. The run itself publishes.
    expect((await post(t, '/billing-runs')).status).toBe(202);
    while (await runDurableObjectAlarm(env.TENANT.getByName(t.id)));
    const rows = await deliveries(t, w.id);
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((d) => d.event_type))).toEqual(new Set(['invoice.finalized']));
    // Every event the run wrote is published (the renders that follow it write invoice.updated later).
    const runEvents = await query<{ type: string; n: number; published: number }>(t, `SELECT type, count(*) AS n, count(published_at) AS published FROM events WHERE tenant_id = ? AND created_at = ?
        AND type IN ('invoice.created', 'invoice.finalized', 'invoice.pdf.generation_requested', 'invoice.unpaid', 'subscription.billed') GROUP BY type ORDER BY type`,
      t.id,
      start,
    );
    expect(runEvents).toEqual(
      ['invoice.created', 'invoice.finalized', 'invoice.pdf.generation_requested', 'invoice.unpaid', 'subscription.billed'].map((type) => ({ type, n: 30, published: 30 })),
    );
    // Other files' tenants share the fake's queue.
    expect(fake.queued.filter((q) => q.tenantId === t.id).map((q) => q.deliveryId).sort()).toEqual(rows.map((d) => d.id).sort());
  });

  it('a message names many deliveries of one webhook: sent in order, each once, and a repeated message sends nothing again', async () => {
    const t = await createTenant();
    const w = await hook(t, { events: ['customer.created'] });
    for (let i = 0; i < 5; i++) await createCustomer(t);
    await publishOutbox(env, t.id);
    const rows = await deliveries(t, w.id);
    expect(rows).toHaveLength(5);
    const message = { tenantId: t.id, deliveryIds: rows.map((d) => d.id) };
    fake.received = [];
    // The same message twice, as at-least-once delivery may bring it, in one batch.
    const result = await consumeMessages([message, message]);
    expect(result.explicitAcks).toHaveLength(2);
    expect(fake.received).toHaveLength(5);
    const sentEvents = fake.received.map((r) => JSON.parse(r.body).event.id);
    const published = await query<{ id: string }>(t, "SELECT id FROM events WHERE tenant_id = ? AND type = 'customer.created' ORDER BY created_at, id", t.id);
    expect(sentEvents).toEqual(published.map((e) => e.id));
    expect((await deliveries(t, w.id)).map((d) => [d.status, d.attempts])).toEqual(rows.map(() => ['delivered', 1]));
  });

  it('a message whose webhook answers 410 midway disables it: the deliveries after it are failed, not sent', async () => {
    const t = await createTenant();
    const w = await hook(t, { events: ['customer.created', 'customer.updated'] });
    // One customer's events: one lane, sent one after the other.
    const customer = await createCustomer(t);
    for (const lastName of ['Second', 'Third']) expect((await api(`/customers/${customer.id}`, { method: 'PUT', token: t.key, body: { lastName } })).status).toBe(200);
    await publishOutbox(env, t.id);
    const rows = await deliveries(t, w.id);
    let calls = 0;
    fake.received = [];
    fake.answer = () => (++calls === 2 ? 410 : 200);
    await consumeMessages([{ tenantId: t.id, deliveryIds: rows.map((d) => d.id) }]);
    expect(fake.received).toHaveLength(2);
    expect((await deliveries(t, w.id)).map((d) => [d.status, d.last_response_code])).toEqual([
      ['delivered', 200],
      ['failed', 410],
      ['failed', null],
    ]);
    const [hookRow] = await query<{ enabled: number; disabled_reason: string }>(t, 'SELECT enabled, disabled_reason FROM webhooks WHERE id = ?', w.id);
    expect(hookRow).toEqual({ enabled: 0, disabled_reason: 'receiver answered 410 Gone' });
  });

  it("different resources' deliveries go out side by side, at most six at once; one resource's one after the other, in order", async () => {
    const t = await createTenant();
    const w = await hook(t, { events: ['customer.created', 'customer.updated'] });
    const customers = [];
    for (let i = 0; i < 9; i++) customers.push(await createCustomer(t));
    const first = customers[0]!;
    for (const lastName of ['Bauer', 'Chen', 'Diaz']) expect((await api(`/customers/${first.id}`, { method: 'PUT', token: t.key, body: { lastName } })).status).toBe(200);
    await publishOutbox(env, t.id);
    const rows = await deliveries(t, w.id);
    expect(rows).toHaveLength(12);
    // The receiver answers after a moment and notes how many requests it holds at once, and which.
    let open = 0;
    let most = 0;
    let firstOpen = 0;
    let firstMost = 0;
    fake.received = [];
    fake.answer = async (r) => {
      const ofFirst = JSON.parse(r.body).data.id === first.id;
      open++;
      if (ofFirst) firstOpen++;
      most = Math.max(most, open);
      firstMost = Math.max(firstMost, firstOpen);
      await new Promise((resolve) => setTimeout(resolve, 100));
      open--;
      if (ofFirst) firstOpen--;
      return 200;
    };
    await consumeMessages([{ tenantId: t.id, deliveryIds: rows.map((d) => d.id) }]);
    expect(fake.received).toHaveLength(12);
    expect(most).toBe(SENDING_LANES);
    expect(firstMost).toBe(1);
    // The first customer's four events arrived in the order they happened.
    const firstEvents = fake.received.filter((r) => JSON.parse(r.body).data.id === first.id).map((r) => JSON.parse(r.body));
    expect(firstEvents.map((b) => [b.event.type, b.data.lastName ?? null])).toEqual([
      ['customer.created', first.lastName ?? null],
      ['customer.updated', 'Bauer'],
      ['customer.updated', 'Chen'],
      ['customer.updated', 'Diaz'],
    ]);
    expect((await deliveries(t, w.id)).map((d) => d.status)).toEqual(rows.map(() => 'delivered'));
  });
});
