import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { collectJob } from '../../src/services/payments/collection-jobs';
import { api, del, eventsOf, expect422, get, put, query, type TestTenant } from '../support/api';
import { createCustomer, createTenant, keyWith, setClock } from '../support/builders';
import { finalizedInvoice, line } from '../documents/builders';
import { createPaymentMethod } from './builders';

// The card gateway (Stripe) as a tenant uses it: credentials checked with Stripe and stored sealed,
// cards bound through Stripe, invoices collected with PaymentIntents. Stripe is the local fake
// (test/support/stripe-fake.ts) behind the STRIPE_API binding; each test makes its own account.

interface FakeKeys {
  secretKey: string;
  publishableKey: string;
  restrictedKey: string;
}

const fake = (path: string, init: RequestInit = {}) => env.STRIPE_API!.fetch(`http://stripe.fake${path}`, init);
async function stripeAccount(live = false): Promise<FakeKeys> {
  return (await (await fake('/__fake/accounts', { method: 'POST', body: JSON.stringify({ live }) })).json()) as FakeKeys;
}
async function stripeCalls(secretKey: string): Promise<{ method: string; path: string; idempotencyKey: string | null; params: any; replayed: boolean }[]> {
  return ((await (await fake('/__fake/calls', { headers: { Authorization: `Bearer ${secretKey}` } })).json()) as { calls: any[] }).calls;
}
type FakeObjects = Record<'customers' | 'paymentMethods' | 'paymentIntents' | 'charges' | 'refunds', any[]>;
async function stripeObjects(secretKey: string): Promise<FakeObjects> {
  return (await (await fake('/__fake/objects', { headers: { Authorization: `Bearer ${secretKey}` } })).json()) as FakeObjects;
}
async function stripeFault(secretKey: string, fault: { mode: string; path?: string; times?: number }) {
  await fake('/__fake/faults', { method: 'POST', headers: { Authorization: `Bearer ${secretKey}` }, body: JSON.stringify(fault) });
}

const WEBHOOK_SECRET = 'whsec_localTestSecret0123456789';

async function configured(t: TestTenant, keys?: FakeKeys) {
  const stripe = keys ?? (await stripeAccount());
  const res = await put(t, '/settings/gateways/card_provider', { secretKey: stripe.secretKey, webhookSecret: WEBHOOK_SECRET, publishableKey: stripe.publishableKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return stripe;
}

describe('gateway credentials', () => {
  it('are checked with Stripe, stored sealed and shown without their secrets', async () => {
    const t = await createTenant();
    const stripe = await stripeAccount();
    const res = await put(t, '/settings/gateways/card_provider', { secretKey: stripe.secretKey, webhookSecret: WEBHOOK_SECRET, publishableKey: stripe.publishableKey });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      gateway: 'card_provider',
      configured: true,
      mode: 'test',
      secretKeyHint: `sk_test_…${stripe.secretKey.slice(-4)}`,
      publishableKey: stripe.publishableKey,
      webhookSecretSet: true,
      webhookUrl: `http://billing.test/gateway-webhooks/card_provider/${t.id}`,
      updatedAt: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toContain(stripe.secretKey);
    expect(JSON.stringify(res.body)).not.toContain(WEBHOOK_SECRET);
    // The key was tried with one authenticated read.
    expect(await stripeCalls(stripe.secretKey)).toEqual([expect.objectContaining({ method: 'GET', path: '/v1/payment_intents', params: { limit: '1' } })]);

    const [row] = await query<Record<string, string>>(t, 'SELECT * FROM gateway_credentials WHERE tenant_id = ?', t.id);
    expect(row!.gateway).toBe('card_provider');
    expect(row!.secret_key).not.toContain(stripe.secretKey.slice(8));
    expect(row!.webhook_secret).not.toContain('localTestSecret');
    expect(row!.publishable_key).toBe(stripe.publishableKey);
    // Sealed: base64 of a 12-byte IV, the ciphertext and a 16-byte tag.
    expect(atob(row!.secret_key!).length).toBe(12 + stripe.secretKey.length + 16);

    const list = await get(t, '/settings/gateways');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([res.body]);
    expect((await get(t, '/settings/gateways/card_provider')).body).toEqual(res.body);
  });

  it('refuses a key Stripe does not accept (422 secretKey) and stores nothing', async () => {
    const t = await createTenant();
    const res = await put(t, '/settings/gateways/card_provider', { secretKey: 'sk_test_51NeverIssuedByStripe000' });
    expect422(res, ['secretKey']);
    expect(res.body.violations[0].code).toBe('invalid_key');
    expect(JSON.stringify(res.body)).not.toContain('sk_test_51NeverIssuedByStripe000');
    expect(await query(t, 'SELECT * FROM gateway_credentials WHERE tenant_id = ?', t.id)).toEqual([]);
    expect((await get(t, '/settings/gateways/card_provider')).status).toBe(404);
  });

  it("refuses a key of the other mode before asking Stripe: a test tenant's clock never charges real cards", async () => {
    const t = await createTenant();
    const live = await stripeAccount(true);
    const res = await put(t, '/settings/gateways/card_provider', { secretKey: live.secretKey, publishableKey: 'pk_test_abcdefgh12' });
    expect422(res, ['secretKey', 'publishableKey']);
    expect(res.body.violations.map((v: { code: string }) => v.code)).toEqual(['mode_mismatch', 'mode_mismatch']);
    expect(await stripeCalls(live.secretKey)).toEqual([]);
  });

  it('accepts a restricted key; keeps only what is sent (PUT); empty strings are absent', async () => {
    const t = await createTenant();
    const stripe = await configured(t);
    const res = await put(t, '/settings/gateways/card_provider', { secretKey: stripe.restrictedKey, webhookSecret: '', publishableKey: '' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ mode: 'test', secretKeyHint: `rk_test_…${stripe.restrictedKey.slice(-4)}`, publishableKey: null, webhookSecretSet: false });
    const [row] = await query<Record<string, string | null>>(t, 'SELECT webhook_secret FROM gateway_credentials WHERE tenant_id = ?', t.id);
    expect(row!.webhook_secret).toBeNull();
  });

  it('validates the body shape: every broken rule at once', async () => {
    const t = await createTenant();
    const res = await put(t, '/settings/gateways/card_provider', { secretKey: 'pk_test_notASecretKey', webhookSecret: 'secret', publishableKey: 'sk_test_abcdefghij', extra: 1 });
    expect422(res, ['secretKey', 'webhookSecret', 'publishableKey', 'extra']);
    expect((await put(t, '/settings/gateways/paypal', { secretKey: 'sk_test_abcdefghij' })).status).toBe(400);
  });

  it('need settings:write to change and settings:read to see', async () => {
    const t = await createTenant();
    const stripe = await configured(t);
    const reader = await keyWith(t, ['settings:read']);
    expect((await api('/settings/gateways/card_provider', { token: reader, method: 'PUT', body: { secretKey: stripe.secretKey } })).status).toBe(403);
    expect((await api('/settings/gateways/card_provider', { token: reader, method: 'DELETE' })).status).toBe(403);
    expect((await api('/settings/gateways', { token: reader })).status).toBe(200);
    const other = await keyWith(t, ['customer:read']);
    expect((await api('/settings/gateways', { token: other })).status).toBe(403);
  });

  it('are removed by DELETE; then cards wait as gateway_unconfigured', async () => {
    const t = await createTenant();
    await configured(t);
    expect((await del(t, '/settings/gateways/card_provider')).status).toBe(204);
    expect((await get(t, '/settings/gateways')).body.data).toEqual([]);
    expect((await del(t, '/settings/gateways/card_provider')).status).toBe(404);
    const c = await createCustomer(t);
    const m = await createPaymentMethod(t, { customer: c.id, type: 'card', token: 'pm_card_visa' });
    expect(m.status).toBe('gateway_unconfigured');
    const unknown = await createPaymentMethod(t, { customer: c.id, type: 'card', token: 'pm_noSuchMethod' });

    // Storing a key again binds the waiting cards Stripe knows; the others keep waiting.
    const stripe = await configured(t);
    expect((await get(t, `/payment-methods/${m.id}`)).body).toMatchObject({ status: 'active', card: { brand: 'visa', last4: '4242' } });
    expect((await get(t, `/payment-methods/${unknown.id}`)).body).toMatchObject({ status: 'gateway_unconfigured', card: null });
    const { customers, paymentMethods } = await stripeObjects(stripe.secretKey);
    const [row] = await query<{ gateway_token: string }>(t, 'SELECT gateway_token FROM payment_methods WHERE id = ?', m.id);
    expect(row!.gateway_token).toBe(`${customers![0]!.id}/${paymentMethods![0]!.id}`);
    expect((await eventsOf(t, m.id)).map((e) => [e.type, (e.data as any).status])).toEqual([
      ['payment_method.created', 'gateway_unconfigured'],
      ['payment_method.updated', 'active'],
    ]);
  });

  it('a Stripe that cannot be reached is 503 and stores nothing', async () => {
    const t = await createTenant();
    const stripe = await stripeAccount();
    await stripeFault(stripe.secretKey, { mode: 'unavailable' });
    const res = await put(t, '/settings/gateways/card_provider', { secretKey: stripe.secretKey });
    expect(res.status).toBe(503);
    expect(await query(t, 'SELECT * FROM gateway_credentials WHERE tenant_id = ?', t.id)).toEqual([]);
  });
});

describe('cards through Stripe', () => {
  it('POST /payment-methods binds the PaymentMethod to a Stripe customer and shows the card, never the token', async () => {
    const t = await createTenant();
    const stripe = await configured(t);
    const c = await createCustomer(t, { email: 'card.holder@example.com' });
    const m = await createPaymentMethod(t, { customer: c.id, type: 'card', token: 'pm_card_visa' });
    expect(m).toMatchObject({ type: 'card', gatewayName: 'card_provider', status: 'active', card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 } });
    const { customers, paymentMethods } = await stripeObjects(stripe.secretKey);
    expect(customers).toEqual([expect.objectContaining({ email: 'card.holder@example.com', metadata: { customer_id: c.id } })]);
    expect(paymentMethods).toEqual([expect.objectContaining({ customer: customers[0]!.id })]);
    const token = `${customers[0]!.id}/${paymentMethods[0]!.id}`;
    const [row] = await query<{ gateway_token: string }>(t, 'SELECT gateway_token FROM payment_methods WHERE id = ?', m.id);
    expect(row!.gateway_token).toBe(token);
    expect(JSON.stringify(m)).not.toContain(paymentMethods[0]!.id);
    expect(JSON.stringify((await get(t, `/payment-methods/${m.id}`)).body)).not.toContain(paymentMethods[0]!.id);
    for (const call of (await stripeCalls(stripe.secretKey)).filter((x) => x.method === 'POST')) expect(call.idempotencyKey).toBeTruthy();
  });

  it('a PaymentMethod Stripe does not know is 422 at token', async () => {
    const t = await createTenant();
    await configured(t);
    const c = await createCustomer(t);
    const res = await api('/payment-methods', { token: t.key, body: { customer: c.id, type: 'card', token: 'pm_noSuchMethod' } });
    expect422(res, ['token']);
  });
});

describe('collection through Stripe', () => {
  const START = '2027-03-01T09:00:00.000Z';

  async function setup(pm: string) {
    const t = await createTenant();
    await setClock(t, START);
    const stripe = await configured(t);
    const c = await createCustomer(t);
    const method = await createPaymentMethod(t, { customer: c.id, type: 'card', token: pm, default: true });
    return { t, c, stripe, method };
  }

  async function settled(t: TestTenant, invoiceId: string) {
    for (let i = 0; i < 100; i++) {
      const tx = (await get(t, `/transactions?invoice=${invoiceId}`)).body.data;
      if (tx.length > 0 && tx.every((x: { status: string }) => x.status !== 'pending')) return { invoice: (await get(t, `/invoices/${invoiceId}`)).body, transactions: tx };
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`collection of ${invoiceId} did not settle`);
  }

  const intentPosts = async (secretKey: string) => (await stripeCalls(secretKey)).filter((x) => x.method === 'POST' && x.path === '/v1/payment_intents');

  it('charges a finalized invoice with one PaymentIntent under the transaction key; a repeated job charges nothing more', async () => {
    const { t, c, stripe } = await setup('pm_card_visa');
    const inv = await finalizedInvoice(t, c.id, [line('100.00')]);
    const { invoice, transactions } = await settled(t, inv.id);
    expect(invoice).toMatchObject({ status: 'STATUS_PAID', unpaidAmount: { amount: '0.00', currencyCode: 'EUR' } });
    const { paymentIntents } = await stripeObjects(stripe.secretKey);
    expect(paymentIntents).toHaveLength(1);
    expect(paymentIntents[0]).toMatchObject({ amount: 11900, currency: 'eur', status: 'succeeded', metadata: expect.objectContaining({ invoice_id: inv.id }) });
    expect(transactions[0]).toMatchObject({ status: 'succeeded', gateway: 'card_provider', referenceId: paymentIntents[0]!.id });
    const [post] = await intentPosts(stripe.secretKey);
    const [stored] = await query<{ idempotency_key: string }>(t, 'SELECT idempotency_key FROM transactions WHERE id = ?', transactions[0].id);
    expect(post!.idempotencyKey).toBe(stored!.idempotency_key);

    await collectJob(env, { tenantId: t.id, invoiceId: inv.id });
    expect((await stripeObjects(stripe.secretKey)).paymentIntents).toHaveLength(1);
  });

  it('a lost answer leaves the transaction pending; the retried job repeats the same request and Stripe answers with the first PaymentIntent', async () => {
    const { t, c, stripe } = await setup('pm_card_visa');
    await stripeFault(stripe.secretKey, { mode: 'lost', path: '/v1/payment_intents' });
    const inv = await finalizedInvoice(t, c.id, [line('100.00')]);
    // The background job met the lost answer.
    for (let i = 0; i < 100 && (await intentPosts(stripe.secretKey)).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    const tx = (await get(t, `/transactions?invoice=${inv.id}`)).body.data;
    expect(tx).toMatchObject([{ status: 'pending' }]);

    await collectJob(env, { tenantId: t.id, invoiceId: inv.id });
    const { invoice, transactions } = await settled(t, inv.id);
    expect(invoice.status).toBe('STATUS_PAID');
    expect(transactions).toHaveLength(1);
    const posts = await intentPosts(stripe.secretKey);
    expect(posts.map((p) => [p.idempotencyKey, p.replayed])).toEqual([
      [posts[0]!.idempotencyKey, false],
      [posts[0]!.idempotencyKey, true],
    ]);
    expect((await stripeObjects(stripe.secretKey)).paymentIntents).toHaveLength(1);
  });

  it.each([
    ['pm_card_chargeDeclinedInsufficientFunds', 'failed', 'insufficient_funds'],
    ['pm_card_chargeDeclinedExpiredCard', 'failed', 'expired_card'],
    ['pm_card_authenticationRequired', 'action_required', null],
  ])('%s → transaction %s', async (pm, status, reason) => {
    const { t, c } = await setup(pm);
    const inv = await finalizedInvoice(t, c.id, [line('100.00')]);
    const { invoice, transactions } = await settled(t, inv.id);
    expect(invoice.status).not.toBe('STATUS_PAID');
    expect(transactions[0]).toMatchObject({ status, gateway: 'card_provider', referenceId: expect.stringMatching(/^pi_/) });
    if (reason) expect(transactions[0].failReason).toContain(reason);
  });
});

describe('refunds through Stripe', () => {
  it('a refund whose answer is lost stays pending with its amount reserved; the sweeper repeats it under the same key and Stripe refunds once', async () => {
    const t = await createTenant();
    await setClock(t, '2027-03-01T09:00:00.000Z');
    const stripe = await configured(t);
    const c = await createCustomer(t);
    await createPaymentMethod(t, { customer: c.id, type: 'card', token: 'pm_card_visa', default: true });
    const inv = await finalizedInvoice(t, c.id, [line('100.00')]);
    let payment: any;
    for (let i = 0; i < 100 && !payment; i++) {
      payment = (await get(t, `/transactions?invoice=${inv.id}&status=succeeded`)).body.data[0];
      await new Promise((r) => setTimeout(r, 50));
    }
    await stripeFault(stripe.secretKey, { mode: 'lost', path: '/v1/refunds' });
    const res = await api(`/transactions/${payment.id}/refund`, { token: t.key, method: 'POST', body: { amount: '19.00' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', amount: 19 });
    expect((await get(t, `/transactions/${payment.id}`)).body.refundedAmount).toBe(19);
    // A second refund of everything cannot take the reserved part again.
    expect((await api(`/transactions/${payment.id}/refund`, { token: t.key, method: 'POST', body: { amount: '100.01' } })).status).toBe(422);

    await setClock(t, '2027-03-01T09:11:00.000Z');
    expect((await get(t, `/transactions/${res.body.id}`)).body).toMatchObject({ status: 'succeeded', referenceId: expect.stringMatching(/^re_/) });
    const refundPosts = (await stripeCalls(stripe.secretKey)).filter((x) => x.method === 'POST' && x.path === '/v1/refunds');
    expect(refundPosts.map((p) => p.idempotencyKey)).toEqual([`refund:${payment.id}:1`, `refund:${payment.id}:1`]);
    expect((await stripeObjects(stripe.secretKey)).refunds).toHaveLength(1);
    const docs = await query<{ gross_amount: number }>(t, "SELECT gross_amount FROM invoices WHERE tenant_id = ? AND type = 'TYPE_REFUND'", t.id);
    expect(docs).toEqual([{ gross_amount: -1900 }]);
  });
});
