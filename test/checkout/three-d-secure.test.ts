import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { stripeSignatureHeader } from '../../src/services/ports/gateways/stripe-webhooks';
import { api, eventsOf, expectProblem, expectStatus, get, put, type TestTenant } from '../support/api';
import { createTenant, countedStatus } from '../support/builders';
import { cartGet, cartPut, checkoutCatalogue, GERMAN_ADDRESS, openCart } from './builders';

// A card that wants 3-D Secure at checkout (Stripe's test card 4000 0027 6000 3184, the fake's
// pm_card_authenticationRequired): the first charge waits for the buyer, the cart and the invoice
// wait with it, prepare-stripe hands the card client the charge's client secret, and the gateway's
// webhook (or the page asking after the challenge) completes the cart or opens it again.

const SECRET = 'whsec_checkoutThreeDSecure0123456789';
const fake = (path: string, init: RequestInit = {}) => env.STRIPE_API!.fetch(`http://stripe.fake${path}`, init);

async function shopWithStripe() {
  const t = await createTenant();
  await checkoutCatalogue(t);
  const stripe = (await (await fake('/__fake/accounts', { method: 'POST', body: '{}' })).json()) as { secretKey: string; publishableKey: string };
  const res = await put(t, '/settings/gateways/card_provider', { secretKey: stripe.secretKey, publishableKey: stripe.publishableKey, webhookSecret: SECRET });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { t, stripe, webhookUrl: res.body.webhookUrl.replace('http://billing.test', '') as string };
}

/** Confirms with the card that wants authentication; answers the cart and its waiting charge. */
async function waitingCart(t: TestTenant, email: string) {
  const cart = (await openCart(t)).body;
  const res = await cartPut(cart.id, 'confirm', { email, newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: { type: 'card', token: 'pm_card_authenticationRequired' } });
  expectStatus(res, 200);
  expect(res.body).toMatchObject({ status: 'redirect_to_payment', action: 'none' });
  const view = (await cartGet(cart.id)).body;
  const [tx] = (await get(t, `/transactions?invoice=${view.invoice}`)).body.data;
  return { cartId: cart.id as string, view, tx };
}

/** What Stripe.js does after the buyer's challenge: confirms the PaymentIntent with the publishable key and the client secret. */
async function authenticate(publishableKey: string, intentId: string, clientSecret: string, result: 'succeeded' | 'failed') {
  const res = await fake(`/v1/payment_intents/${intentId}/confirm`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${publishableKey}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_secret: clientSecret, three_d_secure_result: result }).toString(),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { status: string };
}

async function deliver(path: string, type: string, object: Record<string, unknown>) {
  const body = JSON.stringify({ id: `evt_${crypto.randomUUID().replaceAll('-', '')}`, object: 'event', created: Math.floor(Date.now() / 1000), livemode: false, type, data: { object } });
  const header = await stripeSignatureHeader(body, SECRET, Math.floor(Date.now() / 1000));
  return api(path, { method: 'POST', rawBody: body, contentType: 'application/json; charset=utf-8', headers: { 'Stripe-Signature': header } });
}

describe('3-D Secure at checkout', () => {
  it('waits for the buyer, hands out the client secret, and completes when the gateway reports the authenticated charge', async () => {
    const { t, stripe, webhookUrl } = await shopWithStripe();
    const { cartId, view, tx } = await waitingCart(t, 'sca@example.com');
    // The cart and its first invoice wait; the charge waits for the buyer on a PaymentIntent.
    expect(view).toMatchObject({ status: 'redirect_to_payment', completion: { paid: false, amount: '23.80', email: 'sca@example.com' } });
    expect(view.completion.invoiceNumber).toMatch(/^RE-/);
    // Unpaid, while its documents may still render.
    expect(countedStatus((await get(t, `/invoices/${view.invoice}`)).body)).toBe('STATUS_UNPAID');
    expect(tx).toMatchObject({ status: 'action_required', gateway: 'card_provider' });
    expect((await get(t, '/checkout/carts')).body.data[0]).toMatchObject({ id: cartId, status: 'redirect_to_payment' });

    const prepared = await cartPut(cartId, 'prepare-stripe');
    expectStatus(prepared, 200);
    expect(prepared.body).toMatchObject({ gateway: 'card_provider', publishableKey: stripe.publishableKey, paymentIntentId: expect.stringMatching(/^pi_/) });
    expect(prepared.body.clientSecret).toMatch(new RegExp(`^${prepared.body.paymentIntentId}_secret_`));
    // Locked while it waits.
    expectProblem(await cartPut(cartId, 'change-quantity', { cartItemId: 'item-1', quantity: 3 }), 409, '/problems/cart-locked');
    expectProblem(await cartPut(cartId, 'confirm', { email: 'sca@example.com', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: { type: 'card', token: 'pm_card_visa' } }), 409, '/problems/cart-locked');

    expect((await authenticate(stripe.publishableKey, prepared.body.paymentIntentId, prepared.body.clientSecret, 'succeeded')).status).toBe('succeeded');
    const hook = await deliver(webhookUrl, 'payment_intent.succeeded', { id: prepared.body.paymentIntentId, object: 'payment_intent', status: 'succeeded', amount: 2380, currency: 'eur' });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);

    const done = (await cartGet(cartId)).body;
    expect(done).toMatchObject({ status: 'paid', completion: { paid: true, amount: '23.80' } });
    expect((await get(t, `/invoices/${done.invoice}`)).body.status).toBe('STATUS_PAID');
    expect((await get(t, `/transactions/${tx.id}`)).body).toMatchObject({ status: 'succeeded', amount: 23.8 });
    expect((await eventsOf(t, cartId)).map((e) => e.type).filter((e) => e.startsWith('cart.'))).toEqual(['cart.completed', 'cart.paid']);
    // Nothing is waiting any more: no client secret to hand out, and a redelivered event changes nothing.
    expectProblem(await cartPut(cartId, 'prepare-stripe'), 409, '/problems/cart-locked');
    await deliver(webhookUrl, 'payment_intent.succeeded', { id: prepared.body.paymentIntentId, object: 'payment_intent', status: 'succeeded', amount: 2380, currency: 'eur' });
    expect((await eventsOf(t, cartId)).filter((e) => e.type === 'cart.paid')).toHaveLength(1);
  });

  it('opens the cart again when the authentication fails, and completes with another card', async () => {
    const { t, stripe, webhookUrl } = await shopWithStripe();
    const { cartId } = await waitingCart(t, 'sca-fail@example.com');
    const prepared = (await cartPut(cartId, 'prepare-stripe')).body;
    expect((await authenticate(stripe.publishableKey, prepared.paymentIntentId, prepared.clientSecret, 'failed')).status).toBe('requires_payment_method');
    const hook = await deliver(webhookUrl, 'payment_intent.payment_failed', {
      id: prepared.paymentIntentId,
      object: 'payment_intent',
      status: 'requires_payment_method',
      last_payment_error: { type: 'card_error', code: 'payment_intent_authentication_failure' },
    });
    expect(hook.status).toBe(200);
    const reopened = (await cartGet(cartId)).body;
    expect(reopened).toMatchObject({ status: 'open', paymentMethod: null, completion: null });
    expect(countedStatus((await get(t, `/invoices/${reopened.invoice}`)).body)).toBe('STATUS_UNPAID');

    const again = await cartPut(cartId, 'confirm', { newPaymentMethod: { type: 'card', token: 'pm_card_visa' } });
    expectStatus(again, 200);
    expect(again.body.status).toBe('paid');
    const attempts = (await get(t, `/transactions?invoice=${reopened.invoice}`)).body.data.map((x: { attempt: number; status: string }) => [x.attempt, x.status]);
    expect(attempts).toEqual([
      [2, 'succeeded'],
      [1, 'failed'],
    ]);
  });

  it('is settled through the JSON API after the challenge, for a checkout of the tenant\'s own', async () => {
    const { t, stripe } = await shopWithStripe();
    const { cartId } = await waitingCart(t, 'sca-json@example.com');
    const prepared = (await cartPut(cartId, 'prepare-stripe')).body;
    expect((await cartPut(cartId, 'check-payment')).body.status).toBe('redirect_to_payment');
    await authenticate(stripe.publishableKey, prepared.paymentIntentId, prepared.clientSecret, 'succeeded');
    const settled = await cartPut(cartId, 'check-payment');
    expectStatus(settled, 200);
    expect(settled.body).toMatchObject({ status: 'paid', completion: { paid: true } });
    expect((await get(t, `/invoices/${settled.body.invoice}`)).body.status).toBe('STATUS_PAID');
  });

  it('completes from the page after the challenge, asking the gateway rather than the browser', async () => {
    const { t, stripe } = await shopWithStripe();
    const { cartId } = await waitingCart(t, 'sca-page@example.com');
    const page = (path: string, init: RequestInit = {}) => exports.default.fetch(new Request(`http://billing.test${path}`, { redirect: 'manual', ...init }));
    const form = { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' };

    // The waiting page carries the client secret for the card client, under a CSP that allows it.
    const waitingPage = await page(`/checkout/cart/${cartId}?lang=en`);
    const html = await waitingPage.text();
    expect(html).toContain('Confirm your payment');
    const secret = /data-client-secret="([^"]+)"/.exec(html)![1]!;
    expect(secret).toMatch(/^pi_[A-Za-z0-9]+_secret_/);
    // Not authenticated yet: asking changes nothing.
    expect((await page(`/checkout/cart/${cartId}/payment`, form)).status).toBe(303);
    expect((await cartGet(cartId)).body.status).toBe('redirect_to_payment');

    await authenticate(stripe.publishableKey, secret.split('_secret_')[0]!, secret, 'succeeded');
    expect((await page(`/checkout/cart/${cartId}/payment`, form)).status).toBe(303);
    const done = (await cartGet(cartId)).body;
    expect(done.status).toBe('paid');
    expect((await get(t, `/invoices/${done.invoice}`)).body.status).toBe('STATUS_PAID');
    expect(await (await page(`/checkout/cart/${cartId}?lang=en`)).text()).toContain('Thank you for your order');
  });
});
