import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { stripeSignatureHeader } from '../../src/services/ports/gateways/stripe-webhooks';
import { api, get, put, type TestTenant } from '../support/api';
import { createCustomer, createTenant, eventTypes, setClock } from '../support/builders';
import { finalizedInvoice, line } from '../documents/builders';
import { createPaymentMethod } from './builders';

// Incoming gateway webhooks: POST /gateway-webhooks/{gateway}/{tenant}, verified with the tenant's
// stored signing secret before anything is read; whatever fails is the same 400.

const SECRET = 'whsec_webhookTestSecret0123456789';
const START = '2027-03-01T09:00:00.000Z';

const fake = (path: string, init: RequestInit = {}) => env.STRIPE_API!.fetch(`http://stripe.fake${path}`, init);
const stripeAccount = async () => (await (await fake('/__fake/accounts', { method: 'POST', body: '{}' })).json()) as { secretKey: string; publishableKey: string };

async function tenantWithStripe(webhookSecret: string | null = SECRET) {
  const t = await createTenant();
  await setClock(t, START);
  const stripe = await stripeAccount();
  const res = await put(t, '/settings/gateways/card_provider', { secretKey: stripe.secretKey, ...(webhookSecret ? { webhookSecret } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { t, webhookUrl: res.body.webhookUrl.replace('http://billing.test', '') as string };
}

/** A card charge the bank wants authenticated: its transaction waits as action_required on a PaymentIntent. */
async function waitingCharge(t: TestTenant) {
  const c = await createCustomer(t);
  await createPaymentMethod(t, { customer: c.id, type: 'card', token: 'pm_card_authenticationRequired', default: true });
  const inv = await finalizedInvoice(t, c.id, [line('100.00')]);
  for (let i = 0; i < 100; i++) {
    const [tx] = (await get(t, `/transactions?invoice=${inv.id}`)).body.data;
    if (tx && tx.status !== 'pending') {
      expect(tx.status).toBe('action_required');
      return { invoiceId: inv.id, transactionId: tx.id as string, intentId: tx.referenceId as string };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the charge did not settle');
}

const stripeEvent = (type: string, object: Record<string, unknown>, id = `evt_${crypto.randomUUID().replaceAll('-', '')}`) =>
  JSON.stringify({ id, object: 'event', api_version: '2024-06-20', created: Math.floor(Date.now() / 1000), livemode: false, type, data: { object } });

async function deliver(path: string, body: string, options: { secret?: string; at?: number; header?: string } = {}) {
  const header = options.header ?? (await stripeSignatureHeader(body, options.secret ?? SECRET, options.at ?? Math.floor(Date.now() / 1000)));
  return api(path, { method: 'POST', rawBody: body, contentType: 'application/json; charset=utf-8', headers: { 'Stripe-Signature': header } });
}

describe('gateway webhooks', () => {
  it('a signed payment_intent.succeeded settles the waiting charge once; the same event again changes nothing', async () => {
    const { t, webhookUrl } = await tenantWithStripe();
    const { invoiceId, transactionId, intentId } = await waitingCharge(t);
    const body = stripeEvent('payment_intent.succeeded', { id: intentId, object: 'payment_intent', status: 'succeeded', amount: 11900, currency: 'eur' });

    const res = await deliver(webhookUrl, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ received: true });
    expect((await get(t, `/transactions/${transactionId}`)).body).toMatchObject({ status: 'succeeded' });
    expect((await get(t, `/invoices/${invoiceId}`)).body).toMatchObject({ status: 'STATUS_PAID' });
    const events = await eventTypes(t);

    const again = await deliver(webhookUrl, body);
    expect(again.status).toBe(200);
    expect(await eventTypes(t)).toEqual(events);
  });

  it('a payment_failed event fails the waiting charge with the decline reason', async () => {
    const { t, webhookUrl } = await tenantWithStripe();
    const { transactionId, intentId } = await waitingCharge(t);
    const body = stripeEvent('payment_intent.payment_failed', { id: intentId, object: 'payment_intent', status: 'requires_payment_method', last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds' } });
    expect((await deliver(webhookUrl, body)).status).toBe(200);
    expect((await get(t, `/transactions/${transactionId}`)).body).toMatchObject({ status: 'failed', failReason: expect.stringContaining('insufficient_funds') });
  });

  it('events it does not act on, and events of charges it does not know, are acknowledged', async () => {
    const { webhookUrl } = await tenantWithStripe();
    expect(await deliver(webhookUrl, stripeEvent('customer.created', { id: 'cus_1', object: 'customer' }))).toMatchObject({ status: 200, body: { received: true } });
    expect(await deliver(webhookUrl, stripeEvent('payment_intent.succeeded', { id: 'pi_unknownToUs', object: 'payment_intent' }))).toMatchObject({ status: 200, body: { received: true } });
  });

  it("never applies an event to another tenant's charge", async () => {
    const a = await tenantWithStripe();
    const b = await tenantWithStripe();
    const { transactionId, intentId } = await waitingCharge(b.t);
    const body = stripeEvent('payment_intent.succeeded', { id: intentId, object: 'payment_intent', status: 'succeeded' });
    expect((await deliver(a.webhookUrl, body)).status).toBe(200);
    expect((await get(b.t, `/transactions/${transactionId}`)).body.status).toBe('action_required');
  });

  it('refuses with the same 400 whatever did not verify, and changes nothing', async () => {
    const { t, webhookUrl } = await tenantWithStripe();
    const noSecret = await tenantWithStripe(null);
    const bare = await createTenant();
    const { transactionId, intentId } = await waitingCharge(t);
    const body = stripeEvent('payment_intent.succeeded', { id: intentId, object: 'payment_intent', status: 'succeeded' });
    const now = Math.floor(Date.now() / 1000);
    const refusals = await Promise.all([
      deliver(webhookUrl, body, { secret: 'whsec_anotherEndpointsSecret' }),
      deliver(webhookUrl, body.replace('succeeded', 'succeeded '), { header: await stripeSignatureHeader(body, SECRET, now) }),
      deliver(webhookUrl, body, { at: now - 301 }),
      deliver(webhookUrl, body, { header: 'garbage' }),
      api(webhookUrl, { method: 'POST', rawBody: body, contentType: 'application/json' }),
      deliver(noSecret.webhookUrl, body),
      deliver(`/gateway-webhooks/card_provider/${bare.id}`, body),
      deliver('/gateway-webhooks/card_provider/no-such-tenant', body),
      deliver(`/gateway-webhooks/testing/${t.id}`, body),
      deliver(`/gateway-webhooks/paypal/${t.id}`, body),
    ]);
    for (const res of refusals) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: '/problems/webhook-not-verified', detail: 'The webhook could not be verified.' });
      expect(res.body.violations).toBeUndefined();
    }
    expect((await get(t, `/transactions/${transactionId}`)).body.status).toBe('action_required');
  });

  it('needs no API key, and an API key does not replace the signature', async () => {
    const { t, webhookUrl } = await tenantWithStripe();
    const body = stripeEvent('customer.created', { id: 'cus_1' });
    const res = await api(webhookUrl, { method: 'POST', token: t.key, rawBody: body, contentType: 'application/json', headers: { 'Stripe-Signature': 't=1,v1=00' } });
    expect(res.status).toBe(400);
  });
});
