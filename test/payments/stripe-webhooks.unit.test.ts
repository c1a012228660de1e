import { describe, expect, it } from 'vitest';
import { GatewaySignatureError } from '../../src/services/ports/gateways/port';
import { stripeGateway } from '../../src/services/ports/gateways/stripe';
import { stripeGatewayEvent, stripeSignatureHeader, verifyStripeSignature } from '../../src/services/ports/gateways/stripe-webhooks';
import { StripeFake } from '../support/stripe-fake';

// Stripe's webhook signatures (t=…,v1=HMAC-SHA256 of "t.body" under the whsec_ secret, 300 s of
// tolerance) and how verified events map to gateway events.

const SECRET = 'whsec_test_0123456789abcdefghijklmnop';
const NOW = new Date('2026-11-23T12:00:00Z');
const T = NOW.getTime() / 1000;

/** The signature computed here with WebCrypto directly, independently of the code under test. */
async function sign(body: string, secret: string, t: number): Promise<string> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${t}.${body}`)));
  return [...mac].map((b) => b.toString(16).padStart(2, '0')).join('');
}

const event = (type: string, object: Record<string, unknown>) => JSON.stringify({ id: 'evt_1', object: 'event', type, livemode: false, data: { object } });
const BODY = event('payment_intent.succeeded', { id: 'pi_123', object: 'payment_intent', status: 'succeeded' });

describe('Stripe-Signature', () => {
  it('accepts a valid signature, also among others while a secret is rolled', async () => {
    const v1 = await sign(BODY, SECRET, T);
    await expect(verifyStripeSignature(BODY, `t=${T},v1=${v1}`, SECRET, NOW)).resolves.toBeUndefined();
    await expect(verifyStripeSignature(BODY, `t=${T},v1=${'0'.repeat(64)},v1=${v1},v0=abc`, SECRET, NOW)).resolves.toBeUndefined();
    expect(await stripeSignatureHeader(BODY, SECRET, T)).toBe(`t=${T},v1=${v1}`);
  });

  it.each([
    ['a tampered body', async () => verifyStripeSignature(BODY.replace('pi_123', 'pi_124'), `t=${T},v1=${await sign(BODY, SECRET, T)}`, SECRET, NOW)],
    ['another secret', async () => verifyStripeSignature(BODY, `t=${T},v1=${await sign(BODY, 'whsec_other', T)}`, SECRET, NOW)],
    ['a timestamp 301 s old', async () => verifyStripeSignature(BODY, `t=${T - 301},v1=${await sign(BODY, SECRET, T - 301)}`, SECRET, NOW)],
    ['a timestamp 301 s ahead', async () => verifyStripeSignature(BODY, `t=${T + 301},v1=${await sign(BODY, SECRET, T + 301)}`, SECRET, NOW)],
    ['a signature made for another timestamp', async () => verifyStripeSignature(BODY, `t=${T - 1},v1=${await sign(BODY, SECRET, T)}`, SECRET, NOW)],
    ['no header', async () => verifyStripeSignature(BODY, null, SECRET, NOW)],
    ['no v1', async () => verifyStripeSignature(BODY, `t=${T},v0=${await sign(BODY, SECRET, T)}`, SECRET, NOW)],
    ['no timestamp', async () => verifyStripeSignature(BODY, `v1=${await sign(BODY, SECRET, T)}`, SECRET, NOW)],
    ['a garbled timestamp', async () => verifyStripeSignature(BODY, `t=12e3,v1=${await sign(BODY, SECRET, T)}`, SECRET, NOW)],
  ])('refuses %s', async (_, verify) => {
    await expect(verify()).rejects.toBeInstanceOf(GatewaySignatureError);
  });

  it('accepts a timestamp within the five minutes', async () => {
    await expect(verifyStripeSignature(BODY, `t=${T - 299},v1=${await sign(BODY, SECRET, T - 299)}`, SECRET, NOW)).resolves.toBeUndefined();
  });
});

describe('events', () => {
  it.each([
    ['payment_intent.succeeded', { id: 'pi_1', status: 'succeeded' }, { kind: 'charge.succeeded', referenceId: 'pi_1' }],
    ['payment_intent.payment_failed', { id: 'pi_1', last_payment_error: { code: 'card_declined', decline_code: 'insufficient_funds' } }, { kind: 'charge.failed', referenceId: 'pi_1', reason: 'insufficient_funds', retryable: true }],
    ['payment_intent.payment_failed', { id: 'pi_1', last_payment_error: { code: 'card_declined', decline_code: 'generic_decline' } }, { kind: 'charge.failed', referenceId: 'pi_1', reason: 'card_declined', retryable: true }],
    ['payment_intent.payment_failed', { id: 'pi_1', last_payment_error: { code: 'expired_card' } }, { kind: 'charge.failed', referenceId: 'pi_1', reason: 'expired_card', retryable: false }],
    ['payment_intent.payment_failed', { id: 'pi_1', last_payment_error: { code: 'authentication_required', decline_code: 'authentication_required' } }, { kind: 'charge.action_required', referenceId: 'pi_1', reason: 'authentication_required' }],
    ['payment_intent.requires_action', { id: 'pi_1' }, { kind: 'charge.action_required', referenceId: 'pi_1', reason: 'authentication_required' }],
    ['payment_intent.canceled', { id: 'pi_1', cancellation_reason: 'abandoned' }, { kind: 'charge.failed', referenceId: 'pi_1', reason: 'abandoned', retryable: true }],
    ['payment_intent.processing', { id: 'pi_1' }, { kind: 'ignored' }],
    ['payment_intent.created', { id: 'pi_1' }, { kind: 'ignored' }],
    ['refund.updated', { id: 're_1', status: 'succeeded' }, { kind: 'refund.succeeded', referenceId: 're_1' }],
    ['refund.updated', { id: 're_1', status: 'failed', failure_reason: 'expired_or_canceled_card' }, { kind: 'refund.failed', referenceId: 're_1', reason: 'expired_or_canceled_card' }],
    ['refund.updated', { id: 're_1', status: 'pending' }, { kind: 'ignored' }],
    ['refund.failed', { id: 're_1', status: 'failed', failure_reason: 'lost_or_stolen_card' }, { kind: 'refund.failed', referenceId: 're_1', reason: 'lost_or_stolen_card' }],
    ['charge.refund.updated', { id: 're_1', status: 'canceled' }, { kind: 'refund.failed', referenceId: 're_1', reason: 'canceled' }],
    ['charge.refunded', { id: 'ch_1', refunded: true }, { kind: 'ignored' }],
    ['customer.created', { id: 'cus_1' }, { kind: 'ignored' }],
  ])('%s %o → %o', (type, object, expected) => {
    expect(stripeGatewayEvent(event(type, object))).toEqual({ id: 'evt_1', ...expected });
  });

  it('a signed body that is not an event is refused', () => {
    expect(() => stripeGatewayEvent('not json')).toThrow(GatewaySignatureError);
    expect(() => stripeGatewayEvent('{"id":"evt_1"}')).toThrow(GatewaySignatureError);
  });
});

describe('verifyWebhook of the adapter', () => {
  const fake = new StripeFake();
  const endpoint = { base: 'https://api.stripe.com', transport: fake.fetch };

  it('verifies with the stored secret and maps the event', async () => {
    const gateway = stripeGateway({ secretKey: fake.createAccount().secretKey, webhookSecret: SECRET, endpoint });
    const headers = new Headers({ 'Stripe-Signature': await stripeSignatureHeader(BODY, SECRET, T) });
    expect(await gateway.verifyWebhook!(BODY, headers, NOW)).toEqual({ id: 'evt_1', kind: 'charge.succeeded', referenceId: 'pi_123' });
    await expect(gateway.verifyWebhook!(`${BODY} `, headers, NOW)).rejects.toBeInstanceOf(GatewaySignatureError);
  });

  it('refuses every webhook when no signing secret is stored', async () => {
    const gateway = stripeGateway({ secretKey: fake.createAccount().secretKey, webhookSecret: null, endpoint });
    const headers = new Headers({ 'Stripe-Signature': await stripeSignatureHeader(BODY, SECRET, T) });
    await expect(gateway.verifyWebhook!(BODY, headers, NOW)).rejects.toBeInstanceOf(GatewaySignatureError);
  });
});
