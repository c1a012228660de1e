import { createHmac } from 'node:crypto';
import { env } from 'cloudflare:workers';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { publishOutbox } from '../../src/events/publish';
import { api, violations, dbOf } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { consume, deliveries, fake, hook, standardHeaders, useFakeReceiver, type Received } from './receiver';

// The requests of the n8n Fynn trigger and its credential test, as its source sends them
// (docs/n8n-fynn-node-requests.md §2, §6), and deliveries as Fynn's verifiers check them.

useFakeReceiver();

/** The 57 event names the n8n trigger offers, verbatim, and the 4 more Fynn's docs list. */
const N8N_EVENTS = `product.created product.updated product.deleted product.archived
coupon.created coupon.updated coupon.deleted coupon.toggled
customer.created customer.updated customer.archived customer.unarchived customer.deleted
payment_method.created payment_method.updated
invoice.created invoice.finalized invoice.credited invoice.updated invoice.refunded invoice.canceled
invoice.paid invoice.closed invoice.unpaid invoice.remindered invoice.requires_approval
invoice.payment_method.updated
price_plan.archived
subscription.activated subscription.billed subscription.created subscription.changed
subscription.invoice_address.updated subscription.delivery_address.updated
subscription.payment_method.updated subscription.item.instant_metered subscription.item.metered
subscription.item.quantity_changed subscription.products.ordered subscription.trial_expired
subscription.trial_extended subscription.updated subscription.paused subscription.resumed
subscription.canceled subscription.cancellation_revoked subscription.terminated
subscription_item.terminated
dunning_document.created dunning_document.paid dunning_document.canceled
cart.completed cart.paid
feature.created feature.activated feature.archived entitlement.state.updated`.split(/\s+/);
const DOCS_EVENTS = ['customer.merged', 'customer.parent.assigned', 'customer.parent.removed', 'invoice.pdf.generation_requested'];

/** The trigger's `create`: exactly these headers and this body, key order included. */
const register = (token: string, event: string, url: string) =>
  api('/webhooks', {
    method: 'POST',
    rawBody: JSON.stringify({ version: 'v1', events: [event], enabled: true, url }),
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, Accept: 'application/json' },
  });

/** Verification as the n8n trigger (versions A and B) does it: HMAC of the re-serialised parsed body, compared whole. */
function n8nAccepts(secret: string, r: Received): boolean {
  const expected = createHmac('sha256', secret).update(JSON.stringify(JSON.parse(r.body))).digest('hex');
  return r.headers['x-webhook-signature'] === expected;
}

/** Verification as Fynn's docs show it: `hash_hmac('sha256', $body, $secret)` over the unchanged body. */
const docsSignature = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

describe('the n8n Fynn trigger', () => {
  it('passes its credential test, registers with version "v1", reads the id at the top level, and unregisters', async () => {
    const t = await createTenant({ mode: 'live' });
    // Credential test: only Authorization (axios' default Accept, no Content-Type).
    const probe = await api('/available-webhook-events', { headers: { Authorization: `Bearer ${t.key}`, Accept: 'application/json, text/plain, */*' } });
    expect(probe.status).toBe(200);
    expect((await api('/available-webhook-events', { headers: { Authorization: 'Bearer sk_live_wrong' } })).status).toBe(401);

    const url = 'https://n8n.acme.de/webhook/6f1c7d52-5b0e-4a5e-9d53-0f0c1a2b3c4d/webhook';
    const created = await register(t.key, 'customer.created', url);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ id: expect.any(String), url, events: ['customer.created'], enabled: true, version: '1.0.0', secret: expect.stringMatching(/^whsec_/) });
    expect((await api(`/webhooks/${created.body.id}`, { token: t.key })).body.version).toBe('1.0.0');

    // The trigger's `delete`: only Authorization, no Content-Type, no body.
    const removed = await api(`/webhooks/${created.body.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${t.key}`, Accept: 'application/json, text/plain, */*' } });
    expect(removed.status).toBe(204);
    expect((await api(`/webhooks/${created.body.id}`, { token: t.key })).status).toBe(404);
  });

  it('can register for every event it offers and every event of the docs; the catalogue lists them', async () => {
    const t = await createTenant({ mode: 'live' });
    expect(N8N_EVENTS).toHaveLength(57);
    for (const event of [...N8N_EVENTS, ...DOCS_EVENTS]) {
      const res = await register(t.key, event, 'https://n8n.acme.de/webhook/x/webhook');
      expect(res.status, `${event}: ${JSON.stringify(res.body)}`).toBe(201);
    }
    const catalogue = (await api('/available-webhook-events', { token: t.key })).body.data as { name: string; description: string; version: string }[];
    const names = catalogue.map((e) => e.name);
    for (const name of [...N8N_EVENTS, ...DOCS_EVENTS, 'subscription.billing_failed']) expect(names, name).toContain(name);
    for (const e of catalogue) expect(e).toMatchObject({ description: expect.stringMatching(/\w{3,}/), version: '1.0.0' });
  });

  it('accepts the payload versions real clients send and refuses others', async () => {
    const t = await createTenant();
    for (const version of ['v1', '1.0.0', '2026-11-01']) expect((await hook(t, { version })) as any).toMatchObject({ version: '1.0.0' });
    const bad = await api('/webhooks', { token: t.key, body: { url: 'http://localhost:9/hook', events: ['*'], version: 'v2' } });
    expect(violations(bad)).toEqual(['version: unknown_version']);
    const doc = (await api('/openapi.json')).body;
    expect(doc.components.schemas.WebhookWrite.properties.version.enum).toEqual(['v1', '1.0.0', '2026-11-01']);
  });
});

describe('a delivery as Fynn documents it', () => {
  it('verifies with the Fynn HMAC and with the standardwebhooks library from the same secret', async () => {
    const t = await createTenant();
    const w = await hook(t, { version: 'v1', events: ['customer.created'] });
    await createCustomer(t, { firstName: 'Jürgen', lastName: 'Ø\'Brien "QA" </x>', companyName: 'Müller & Söhne GmbH 😀' });
    await publishOutbox(env, t.id);
    await consume();
    expect(fake.received).toHaveLength(1);
    const r = fake.received[0]!;
    expect(r.headers['content-type']).toBe('application/json');
    // Fynn: hex HMAC-SHA256 keyed with the secret string exactly as shown, over the body as sent
    // (the docs) and over the re-serialised parsed body (the n8n trigger): the same value.
    expect(r.headers['x-webhook-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(r.headers['x-webhook-signature']).toBe(docsSignature(w.secret, r.body));
    expect(n8nAccepts(w.secret, r)).toBe(true);
    expect(n8nAccepts(`${w.secret}x`, r)).toBe(false);
    // Standard Webhooks: the library, given the same secret string.
    const payload = new Webhook(w.secret).verify(r.body, standardHeaders(r)) as any;
    // The docs' payload; the trigger (version B) reads event.type.
    expect(payload).toEqual({ event: { type: 'customer.created', id: r.headers['webhook-id'], version: '1.0.0', created: expect.any(String) }, tenantId: t.id, data: expect.objectContaining({ firstName: 'Jürgen' }) });
    expect((await deliveries(t, w.id))[0]).toMatchObject({ status: 'delivered' });
  });

  it('sends a body that survives JSON.stringify(JSON.parse(body)) byte for byte, whatever the stored data', async () => {
    const t = await createTenant();
    const w = await hook(t, { events: ['customer.updated'] });
    // Stored JSON text that is not in JavaScript's form: integer-like keys after others, 1.0, 1E2,
    // -0, escaped slashes and non-ASCII, a lone surrogate, U+2028, nested arrays.
    const stored =
      '{"z":1,"10":"ten","2":"two","a\\/b":"<\\u00fc>\\u2028","emoji":"\\ud83d\\ude00","lone":"a\\udc00b","n":1.0,"e":1E2,"neg":-0,' +
      '"tiny":0.000001,"big":123456789012345678901234567890,"nested":{"b":[1,2.50,{"1":true,"0":null}],"a":"\\"q\\"\\n\\t"},"__proto__":{"x":1}}';
    await (await dbOf(t)).prepare(`INSERT INTO events (id, tenant_id, type, version, resource_id, data, created_at) VALUES (?, ?, 'customer.updated', '1.0.0', 'r', ?, ?)`)
      .bind(`ev-${Date.now()}`, t.id, stored, new Date().toISOString())
      .run();
    await publishOutbox(env, t.id);
    await consume();
    const r = fake.received[0]!;
    expect(r.body).toBe(JSON.stringify(JSON.parse(r.body)));
    // Compact, slashes and non-ASCII as they are (no \/ or \u00fc), a lone surrogate escaped (valid UTF-8 on the wire).
    expect(r.body).toContain('"a/b":"<ü>\u2028"');
    expect(r.body).toContain('"lone":"a\\udc00b"');
    const data = JSON.parse(r.body).data;
    expect(Object.keys(data)).toEqual(['2', '10', 'z', 'a/b', 'emoji', 'lone', 'n', 'e', 'neg', 'tiny', 'big', 'nested', '__proto__']);
    expect(data).toMatchObject({ 'a/b': '<ü>\u2028', emoji: '😀', lone: 'a\udc00b', n: 1, e: 100, tiny: 0.000001 });
    expect(n8nAccepts(w.secret, r)).toBe(true);
    expect(r.headers['x-webhook-signature']).toBe(docsSignature(w.secret, r.body));
    expect(() => new Webhook(w.secret).verify(r.body, standardHeaders(r))).not.toThrow();
  });
});
