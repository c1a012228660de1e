import { createExecutionContext, createMessageBatch, getQueueResult, runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../src/index';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { publishOutbox } from '../../src/events/publish';
import { EVENT_CATALOGUE } from '../../src/events/catalogue';
import { api, query, violations, type TestTenant, dbOf, everyShard } from '../support/api';
import { countedStatus, createCustomer, createTenant, flatMonthlyFee, keyWith } from '../support/builders';
import { consume, deliveries, fake, hook, standardHeaders, useFakeReceiver } from './receiver';

// Webhooks: the resource, delivery of the outbox (signed, retried, in order, per tenant) through the
// queue consumer, and the cron jobs that schedule billing runs and sweep the outbox. Every webhook
// POST goes to the fake receiver and the queue is driven by the tests themselves (receiver.ts).

useFakeReceiver();

/** A draft subscription to a flat 5 EUR monthly fee, with the catalogue it needs. */
async function draftSubscription(t: TestTenant) {
  const { product, price } = await flatMonthlyFee(t, '5', 'P');
  const c = await createCustomer(t);
  return (await api('/subscriptions', { token: t.key, body: { customer: c.id, items: [{ product: product.id, pricePlan: price.id }] } })).body;
}

/** Fynn's X-Webhook-Signature, computed independently: hex HMAC-SHA256 keyed with the secret string as shown. */
async function hmacHex(secret: string, body: string) {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const sig = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(body)));
  return [...sig].map((b) => b.toString(16).padStart(2, '0')).join('');
}

describe('webhooks resource', () => {
  it('shows the secret once and validates url, events and version', async () => {
    const t = await createTenant({ mode: 'test' });
    const created = await hook(t, { events: ['customer.created', 'invoice.paid'] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await api(`/webhooks/${created.id}`, { token: t.key });
    expect(read.body).toMatchObject({ url: 'http://localhost:9/hook', events: ['customer.created', 'invoice.paid'], enabled: true, failureCount: 0 });
    expect(JSON.stringify(read.body)).not.toContain(created.secret);
    expect(JSON.stringify((await api('/webhooks', { token: t.key })).body)).not.toContain(created.secret);
    const bad = await api('/webhooks', { token: t.key, body: { url: 'http://example.com/hook', events: ['customer.created', 'nope.happened'], version: '1999-01-01' } });
    expect(violations(bad).sort()).toEqual(['events[1]: unknown_event', 'url: https_required', 'version: unknown_version']);
    const live = await createTenant({ mode: 'live' });
    // Live tenants: https to a public host only (test/webhooks/urls.test.ts has the address rules).
    expect(violations(await api('/webhooks', { token: live.key, body: { url: 'http://localhost:9/hook', events: ['*'] } }))).toEqual(['url: https_required', 'url: private_address']);
    expect((await api('/webhooks', { token: live.key, body: { url: 'https://hooks.example.com/billing', events: ['*'] } })).status).toBe(201);
    expect(violations(await api('/webhooks', { token: t.key, body: { url: 'https://user:pw@example.com/x', events: ['*'] } }))).toEqual(['url: invalid_url']);
    const patched = await api(`/webhooks/${created.id}`, { method: 'PATCH', token: t.key, body: { enabled: false } });
    expect(patched.body.enabled).toBe(false);
    expect((await api(`/webhooks/${created.id}`, { method: 'DELETE', token: t.key })).status).toBe(204);
    expect((await api('/webhooks', { token: await keyWith(t, ['customer:read']) })).status).toBe(403);
  });

  it('lists every event a webhook can subscribe to', async () => {
    const t = await createTenant();
    const res = await api('/available-webhook-events', { token: t.key });
    expect(res.body.data.map((e: any) => e.name).sort()).toEqual(Object.keys(EVENT_CATALOGUE).sort());
    for (const e of res.body.data) expect(e.description.length).toBeGreaterThan(5);
    for (const name of ['customer.created', 'subscription.activated', 'invoice.finalized', 'invoice.paid', 'entitlement.state.updated', 'subscription.billed']) {
      expect(res.body.data.map((e: any) => e.name)).toContain(name);
    }
  });
});

describe('delivery', () => {
  it('publishes right after the write and delivers a payload signed both ways', async () => {
    const t = await createTenant();
    const w = await hook(t);
    const customer = await createCustomer(t);
    // The response does not wait for publishing; it happens in the request's waitUntil.
    await vi.waitUntil(() => fake.queued.length > 0, { timeout: 2000 });
    const published = await (await dbOf(t)).prepare(`SELECT published_at FROM events WHERE tenant_id = ? AND type = 'customer.created'`).bind(t.id).first<{ published_at: string | null }>();
    expect(published!.published_at).toEqual(expect.any(String));
    const result = await consume();
    expect(result.explicitAcks).toHaveLength(1);
    expect(fake.received).toHaveLength(1);
    const r = fake.received[0]!;
    const payload = JSON.parse(r.body);
    expect(payload).toMatchObject({ event: { type: 'customer.created', version: '1.0.0' }, tenantId: t.id, data: { id: customer.id, email: customer.email } });
    // Fynn's HMAC, computed independently over the raw body (fynn-trigger.test.ts verifies as the n8n trigger does).
    expect(r.headers['x-webhook-signature']).toBe(await hmacHex(w.secret, r.body));
    // The Standard Webhooks library accepts it.
    const verified = new Webhook(w.secret).verify(r.body, standardHeaders(r));
    expect(verified).toEqual(payload);
    expect(r.headers['webhook-id']).toBe(payload.event.id);
    expect(() => new Webhook(w.secret).verify(r.body.replace(customer.email, 'x@y.z'), standardHeaders(r))).toThrow();
    expect((await deliveries(t, w.id))[0]).toMatchObject({ status: 'delivered', attempts: 1, last_response_code: 200 });
  });

  it('sends only subscribed events, only to the tenant that owns them', async () => {
    const a = await createTenant();
    const b = await createTenant();
    const wa = await hook(a, { events: ['customer.archived'] });
    const wb = await hook(b);
    const c = await createCustomer(a);
    await api(`/customers/${c.id}/archive`, { method: 'PUT', token: a.key });
    await publishOutbox(env, a.id);
    await publishOutbox(env, b.id);
    await consume();
    expect(fake.received.map((r) => JSON.parse(r.body).event.type)).toEqual(['customer.archived']);
    expect((await deliveries(a, wa.id)).map((d) => d.event_type)).toEqual(['customer.archived']);
    expect(await deliveries(b, wb.id)).toEqual([]);
  });

  it("delivers one subscription's events in the order they happened", async () => {
    const t = await createTenant();
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2026-01-10T10:00:00Z' } });
    await hook(t, { events: ['subscription.created', 'subscription.activated', 'subscription.paused', 'subscription.resumed', 'subscription.canceled'] });
    const s = await draftSubscription(t);
    for (const op of ['activate', 'pause', 'resume']) await api(`/subscriptions/${s.id}/${op}`, { method: 'PUT', token: t.key, body: {} });
    await api(`/subscriptions/${s.id}/cancel`, { method: 'PUT', token: t.key, body: { cancellationDateType: 'next_possible' } });
    await publishOutbox(env, t.id);
    await consume();
    expect(fake.received.map((r) => JSON.parse(r.body).event.type)).toEqual([
      'subscription.created',
      'subscription.activated',
      'subscription.paused',
      'subscription.resumed',
      'subscription.canceled',
    ]);
  });

  it('retries failures with backoff, keeps the schedule in D1, and fails after the last attempt', async () => {
    const t = await createTenant();
    const w = await hook(t, { events: ['customer.created'] });
    await createCustomer(t);
    await publishOutbox(env, t.id);
    fake.answer = () => 503;
    await consume();
    let [d] = await deliveries(t, w.id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_response_code: 503 });
    // Re-queued with the first backoff delay (30 s ± 20 %), and the due time stored.
    expect(fake.queued).toHaveLength(1);
    expect(fake.queued[0]!.delaySeconds).toBeGreaterThanOrEqual(24);
    expect(fake.queued[0]!.delaySeconds).toBeLessThanOrEqual(36);
    expect(Date.parse(d!.next_attempt_at) - Date.parse(d!.last_attempt_at)).toBeGreaterThanOrEqual(24_000);
    // An early message (before the due time) does not attempt.
    const early = fake.queued.splice(0);
    await consume(early);
    expect(fake.received).toHaveLength(1);
    // Each attempt once due: fast-forward by moving the stored due time into the past.
    const { attemptDelivery } = await import('../../src/events/delivery');
    for (let attempt = 2; attempt <= 13; attempt++) {
      await (await dbOf(t)).prepare('UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ?').bind(new Date(Date.now() - 1000).toISOString(), d!.id).run();
      expect(await attemptDelivery(env, t.id, d!.id, () => 0.5)).toBe(attempt < 13 ? 'retry' : 'failed');
    }
    [d] = await deliveries(t, w.id);
    expect(d).toMatchObject({ status: 'failed', attempts: 13, last_response_code: 503 });
    expect((await api(`/webhooks/${w.id}`, { token: t.key })).body.failureCount).toBe(1);
    // Waits longer than a queue's 12 h delay are not queued; the sweeper picks them up when due.
    expect(fake.queued.filter((q) => q.delaySeconds > 12 * 3600)).toEqual([]);
  });

  it('treats a timeout or a network error as a failure to retry', async () => {
    const t = await createTenant();
    const w = await hook(t, { events: ['customer.created'] });
    await createCustomer(t);
    await publishOutbox(env, t.id);
    fake.answer = () => {
      throw new TypeError('connection refused');
    };
    await consume();
    expect((await deliveries(t, w.id))[0]).toMatchObject({ status: 'pending', attempts: 1, last_response_code: null, last_error: 'connection refused' });
  });

  it('disables the webhook on 410 Gone', async () => {
    const t = await createTenant();
    const w = await hook(t, { events: ['customer.created', 'customer.updated'] });
    const c = await createCustomer(t);
    await publishOutbox(env, t.id);
    fake.answer = () => 410;
    await consume();
    expect((await deliveries(t, w.id))[0]).toMatchObject({ status: 'failed', last_response_code: 410 });
    const after = (await api(`/webhooks/${w.id}`, { token: t.key })).body;
    expect(after).toMatchObject({ enabled: false, disabledReason: 'receiver answered 410 Gone' });
    await api(`/customers/${c.id}`, { method: 'PATCH', token: t.key, body: { firstName: 'Later' } });
    await publishOutbox(env, t.id);
    expect(await deliveries(t, w.id)).toHaveLength(1);
  });

  it('after a rotation: both secrets sign the Standard Webhooks header for a day, the Fynn header carries the new one only', async () => {
    const t = await createTenant();
    const w = await hook(t, { events: ['customer.created'] });
    const rotated = await api(`/webhooks/${w.id}/rotate-secret`, { token: t.key, method: 'POST' });
    expect(rotated.body.secret).not.toBe(w.secret);
    expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    await createCustomer(t);
    await publishOutbox(env, t.id);
    await consume();
    const r = fake.received[0]!;
    expect(r.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(rotated.body.secret).verify(r.body, standardHeaders(r))).not.toThrow();
    expect(() => new Webhook(w.secret).verify(r.body, standardHeaders(r))).not.toThrow();
    // The n8n trigger compares the whole header with its one expected value: one value, the new secret's.
    expect(r.headers['x-webhook-signature']).toBe(await hmacHex(rotated.body.secret, r.body));
  });

  it('lists deliveries, redelivers, and records dead letters instead of dropping them', async () => {
    const t = await createTenant();
    const w = await hook(t, { events: ['customer.created'] });
    await createCustomer(t);
    await publishOutbox(env, t.id);
    fake.answer = () => 500;
    await consume();
    fake.queued = [];
    const list = await api(`/webhooks/${w.id}/deliveries`, { token: t.key });
    expect(list.body.data[0]).toMatchObject({ status: 'pending', attempts: 1, lastResponseCode: 500, event: { type: 'customer.created' } });
    expect(list.body.data[0].nextAttemptAt).toEqual(expect.any(String));
    const deliveryId = list.body.data[0].id;
    // The dead-letter queue's consumer records the message; the sweeper will retry it.
    const dlq = createMessageBatch('edge-billing-events-dlq', [{ id: 'd1', timestamp: new Date(), attempts: 4, body: { deliveryId, tenantId: t.id } }]);
    const ctx = createExecutionContext();
    await worker.queue(dlq, env, ctx);
    expect((await getQueueResult(dlq, ctx)).explicitAcks).toEqual(['d1']);
    expect((await deliveries(t, w.id))[0]!.dead_lettered_at).toEqual(expect.any(String));
    fake.answer = () => 204;
    const again = await api(`/webhook-deliveries/${deliveryId}/redeliver`, { token: t.key, method: 'POST' });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ status: 'pending', attempts: 0 });
    await consume();
    expect((await deliveries(t, w.id))[0]).toMatchObject({ status: 'delivered', last_response_code: 204 });
    const other = await createTenant();
    expect((await api(`/webhook-deliveries/${deliveryId}/redeliver`, { token: other.key, method: 'POST' })).status).toBe(404);
    expect((await api(`/webhooks/${w.id}/deliveries`, { token: other.key })).status).toBe(404);
  });

  it('writes no event for a refused or failed change', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const before = await (await dbOf(t)).prepare('SELECT count(*) AS n FROM events WHERE tenant_id = ?').bind(t.id).first<{ n: number }>();
    expect((await api('/customers', { token: t.key, body: { email: c.email, countryCode: 'DE' } })).status).toBe(422);
    expect((await api(`/customers/${c.id}/unarchive`, { method: 'PUT', token: t.key })).status).toBe(409);
    expect((await api(`/customers/${c.id}`, { method: 'PATCH', token: t.key, body: { countryCode: 'XX' } })).status).toBe(422);
    const after = await (await dbOf(t)).prepare('SELECT count(*) AS n FROM events WHERE tenant_id = ?').bind(t.id).first<{ n: number }>();
    expect(after).toEqual(before);
  });
});

describe('cron', () => {
  it('every 15 minutes: applies due transitions, schedules billing runs that bill through alarms, sweeps the outbox', async () => {
    const { createScheduledController, waitOnExecutionContext } = await import('cloudflare:test');
    const t = await createTenant();
    await hook(t, { events: ['invoice.finalized'] });
    const s = await draftSubscription(t);
    await api(`/subscriptions/${s.id}/activate`, { method: 'PUT', token: t.key, body: {} });
    fake.queued = [];
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: '*/15 * * * *', scheduledTime: new Date() }), env, ctx);
    await waitOnExecutionContext(ctx);
    // The dispatcher only scheduled a run for every tenant with live subscriptions; their alarms bill.
    const scheduled = await query<{ id: string; status: string }>(t, `SELECT id, status FROM billing_runs WHERE tenant_id = ? AND "trigger" = 'cron'`, t.id);
    expect(scheduled).toEqual([{ id: expect.any(String), status: 'running' }]);
    expect(await query(t, 'SELECT id FROM invoices WHERE tenant_id = ?', t.id)).toEqual([]);
    // Every tenant of the test storage with live subscriptions got a run; this tenant's alarm bills
    // its own (the others' alarms run by themselves). It may have fired by itself and still be at
    // work: wait for the run to finish.
    await runDurableObjectAlarm(env.TENANT.getByName(t.id));
    await vi.waitUntil(async () => (await query<{ status: string }>(t, 'SELECT status FROM billing_runs WHERE id = ?', scheduled[0]!.id))[0]?.status === 'completed', {
      timeout: 10_000,
      interval: 50,
    });
    const invoices = await query<{ status: string; number: string; gross_amount: number; paid_amount: number }>(t, 'SELECT status, number, gross_amount, paid_amount FROM invoices WHERE tenant_id = ?', t.id);
    expect(invoices.map((i) => ({ status: countedStatus({ status: i.status, grossAmount: i.gross_amount, paidAmount: i.paid_amount }), number: i.number }))).toEqual([{ status: 'STATUS_UNPAID', number: 'RE-0000000001' }]);
    expect(await query(t, 'SELECT status FROM billing_runs WHERE id = ?', scheduled[0]!.id)).toEqual([{ status: 'completed' }]);
    // The alarm published the run's events for the webhook as it finished.
    await consume();
    // The sweeper serves every tenant; this tenant's webhook got its invoice event.
    expect(fake.received.map((r) => JSON.parse(r.body)).filter((p) => p.tenantId === t.id).map((p) => p.event.type)).toEqual(['invoice.finalized']);
  });

  it('nightly: imports exchange rates into every shard and purges expired idempotency keys on every shard', async () => {
    const { createScheduledController, waitOnExecutionContext } = await import('cloudflare:test');
    const shards = everyShard();
    expect(shards).toHaveLength(2);
    for (const db of shards) {
      await db.prepare(`INSERT INTO idempotency_keys (tenant_id, key, request_hash, state, created_at, expires_at) VALUES ('t-old', 'k', 'h', 'done', '2020-01-01T00:00:00.000Z', '2020-01-02T00:00:00.000Z')`).run();
    }
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: '0 3 * * *', scheduledTime: new Date() }), env, ctx);
    await waitOnExecutionContext(ctx);
    for (const db of shards) {
      expect((await db.prepare(`SELECT key FROM idempotency_keys WHERE tenant_id = 't-old'`).all()).results).toEqual([]);
      expect((await db.prepare(`SELECT rate FROM exchange_rates WHERE date = '2014-06-13' AND currency = 'USD'`).all()).results).toEqual([{ rate: '1.3534' }]);
    }
  });
});
