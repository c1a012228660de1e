import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors';
import { GatewayUnavailableError, type ChargeRequest } from '../../src/services/ports/gateways/port';
import { checkStripeKey, isRetryableDecline, parseStripeToken, stripeGateway } from '../../src/services/ports/gateways/stripe';
import { fromStripeAmount, toStripeAmount } from '../../src/services/ports/gateways/stripe-amounts';
import { StripeRequestError, type StripeEndpoint } from '../../src/services/ports/gateways/stripe-client';
import { decodeForm, FAKE_CARD_EXPIRY, fakeFee, StripeFake } from '../support/stripe-fake';

// The Stripe adapter against the local fake of Stripe's API (test/support/stripe-fake.ts): what it
// sends (form fields, Idempotency-Key on every POST) and how it reads every answer.

const fake = new StripeFake();
const endpoint: StripeEndpoint = { base: 'https://api.stripe.com', transport: fake.fetch };
const customer = { id: 'cust_1', email: 'jane@example.com', name: 'Jane Doe' };

function account() {
  const keys = fake.createAccount();
  const gateway = stripeGateway({ secretKey: keys.secretKey, webhookSecret: null, endpoint });
  return { keys, gateway, calls: () => fake.calls(keys.secretKey), objects: () => fake.objects(keys.secretKey) };
}

let n = 0;
const key = (what: string) => `${what}-${++n}`;

async function cardOf(a: ReturnType<typeof account>, pm: string) {
  return a.gateway.attachCard!(pm, customer, key('method'));
}

function chargeRequest(token: string, overrides: Partial<ChargeRequest> = {}): ChargeRequest {
  return {
    idempotencyKey: key('collect'),
    amount: '119.00',
    currencyCode: 'EUR',
    description: 'Payment of RE-1001',
    customer,
    method: { id: 'pm-row', token, details: {} },
    metadata: { invoice_id: 'inv_1', transaction_id: 'tx_1' },
    ...overrides,
  };
}

describe('amounts in Stripe units', () => {
  it.each([
    ['119.00', 'EUR', 11900],
    ['0.5', 'EUR', 50],
    ['1000', 'JPY', 1000],
    ['1000.00', 'JPY', 1000],
    ['5.12', 'KWD', 5120],
    ['5.120', 'KWD', 5120],
    ['40', 'ISK', 4000],
    ['12.34', 'usd', 1234],
    ['999999.99', 'EUR', 99_999_999],
  ])('%s %s → %i', (amount, currency, expected) => {
    expect(toStripeAmount(amount, currency)).toBe(expected);
  });

  it.each([
    ['10.5', 'JPY', /more decimals/],
    ['0.001', 'EUR', /more decimals/],
    ['5.125', 'KWD', /steps of 0.010/],
    ['40.10', 'ISK', /whole krónur/],
    ['0', 'EUR', /positive/],
    ['1000000.00', 'EUR', /largest amount/],
  ])('%s %s is refused, never rounded', (amount, currency, message) => {
    expect(() => toStripeAmount(amount, currency)).toThrow(message);
  });

  it('reads Stripe amounts back in our scale', () => {
    expect(fromStripeAmount(375, 'EUR')).toBe('3.75');
    expect(fromStripeAmount(59, 'JPY')).toBe('59');
    expect(fromStripeAmount(5120, 'KWD')).toBe('5.120');
    // MGA: zero-decimal at Stripe, two decimals in ISO 4217.
    expect(fromStripeAmount(30, 'MGA')).toBe('30.00');
  });
});

describe('attachCard', () => {
  it('makes a Stripe customer, attaches the PaymentMethod and reads its card, idempotently', async () => {
    const a = account();
    const k = key('method');
    const card = await a.gateway.attachCard!('pm_card_visa', customer, k);
    expect(card).toEqual({ token: expect.stringMatching(/^cus_\w+\/pm_\w+$/), brand: 'visa', last4: '4242', expMonth: FAKE_CARD_EXPIRY.month, expYear: FAKE_CARD_EXPIRY.year, cardHolder: null });
    // The test alias became a PaymentMethod of its own, as at Stripe.
    expect(parseStripeToken(card.token)!.paymentMethod).not.toBe('pm_card_visa');
    const [createCustomer, attach] = a.calls();
    expect(createCustomer).toMatchObject({ method: 'POST', path: '/v1/customers', idempotencyKey: `${k}/customer`, params: { email: 'jane@example.com', name: 'Jane Doe', metadata: { customer_id: 'cust_1' } } });
    expect(attach).toMatchObject({ method: 'POST', path: '/v1/payment_methods/pm_card_visa/attach', idempotencyKey: `${k}/attach`, params: { customer: parseStripeToken(card.token)!.customer } });

    // A repeated request (a retried POST /payment-methods) gets the same customer and method.
    expect(await a.gateway.attachCard!('pm_card_visa', customer, k)).toEqual(card);
    expect(a.objects().customers).toHaveLength(1);
    expect(a.calls().slice(2).every((c) => c.replayed)).toBe(true);
  });

  it('refuses what is not a PaymentMethod of the account as a 422 at token', async () => {
    const a = account();
    const refused = async (token: string) => {
      const err = await a.gateway.attachCard!(token, customer, key('method')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      return (err as ApiError).violations![0]!;
    };
    expect(await refused('tok_visa')).toMatchObject({ propertyPath: 'token', code: 'invalid_token' });
    expect(await refused('pm_doesNotExist')).toMatchObject({ propertyPath: 'token', code: 'unknown_payment_method' });
  });
});

describe('charge', () => {
  it('creates a confirmed off-session PaymentIntent with the form Stripe documents', async () => {
    const a = account();
    const card = await cardOf(a, 'pm_card_visa');
    const req = chargeRequest(card.token);
    const outcome = await a.gateway.charge(req);
    expect(outcome).toEqual({ status: 'succeeded', referenceId: expect.stringMatching(/^pi_/), feeAmount: fromStripeAmount(fakeFee(11900), 'EUR') });
    expect(fromStripeAmount(fakeFee(11900), 'EUR')).toBe('3.75');
    const call = a.calls().at(-1)!;
    const { customer: cus, paymentMethod } = parseStripeToken(card.token)!;
    expect(call).toMatchObject({ method: 'POST', path: '/v1/payment_intents', idempotencyKey: req.idempotencyKey, replayed: false });
    expect(call.params).toEqual({
      amount: '11900',
      currency: 'eur',
      customer: cus,
      payment_method: paymentMethod,
      payment_method_types: ['card'],
      confirm: 'true',
      off_session: 'true',
      description: 'Payment of RE-1001',
      metadata: { invoice_id: 'inv_1', transaction_id: 'tx_1' },
      expand: ['latest_charge.balance_transaction'],
    });
  });

  it('charges a zero-decimal currency in whole units', async () => {
    const a = account();
    const card = await cardOf(a, 'pm_card_visa');
    expect(await a.gateway.charge(chargeRequest(card.token, { amount: '1000', currencyCode: 'JPY' }))).toMatchObject({ status: 'succeeded', feeAmount: '59' });
    expect(a.calls().at(-1)!.params).toMatchObject({ amount: '1000', currency: 'jpy' });
    // An amount Stripe cannot take never reaches it.
    const calls = a.calls().length;
    expect(await a.gateway.charge(chargeRequest(card.token, { amount: '10.50', currencyCode: 'JPY' }))).toEqual({ status: 'failed', referenceId: null, reason: 'invalid_amount', retryable: false });
    expect(a.calls()).toHaveLength(calls);
  });

  it.each([
    ['pm_card_chargeDeclined', { status: 'failed', reason: 'card_declined', retryable: true }],
    ['pm_card_chargeCustomerFail', { status: 'failed', reason: 'card_declined', retryable: true }],
    ['pm_card_chargeDeclinedInsufficientFunds', { status: 'failed', reason: 'insufficient_funds', retryable: true }],
    ['pm_card_chargeDeclinedExpiredCard', { status: 'failed', reason: 'expired_card', retryable: false }],
    ['pm_card_authenticationRequired', { status: 'action_required', reason: 'authentication_required', clientSecret: expect.stringMatching(/^pi_\w+_secret_\w+$/) }],
  ])('%s → %o', async (pm, expected) => {
    const a = account();
    const card = await cardOf(a, pm);
    const outcome = await a.gateway.charge(chargeRequest(card.token));
    expect(outcome).toEqual({ referenceId: expect.stringMatching(/^pi_/), ...expected });
    // The declined intent is kept by Stripe, and its status reads the same.
    expect(await a.gateway.chargeStatus(outcome.referenceId!)).toEqual(outcome);
  });

  it('reads a succeeded intent again through chargeStatus, fee included', async () => {
    const a = account();
    const card = await cardOf(a, 'pm_card_visa');
    const outcome = await a.gateway.charge(chargeRequest(card.token));
    expect(await a.gateway.chargeStatus(outcome.referenceId!)).toEqual(outcome);
    expect(a.calls().at(-1)).toMatchObject({ method: 'GET', path: `/v1/payment_intents/${outcome.referenceId}`, idempotencyKey: null });
    expect(await a.gateway.chargeStatus('pi_unknown')).toEqual({ status: 'failed', referenceId: 'pi_unknown', reason: 'unknown_charge', retryable: false });
  });

  it('a token that is no Stripe token fails for good without a call', async () => {
    const a = account();
    expect(await a.gateway.charge(chargeRequest('testing_succeeds'))).toEqual({ status: 'failed', referenceId: null, reason: 'payment_method_unusable', retryable: false });
    expect(a.calls()).toHaveLength(0);
  });
});

describe('unknown outcomes and retries with the same key', () => {
  it('a lost answer is GatewayUnavailableError; the retry with the same key gets the first PaymentIntent, not a second one', async () => {
    const a = account();
    const card = await cardOf(a, 'pm_card_visa');
    const req = chargeRequest(card.token);
    fake.addFault(a.keys.secretKey, { mode: 'lost', path: '/v1/payment_intents' });
    await expect(a.gateway.charge(req)).rejects.toBeInstanceOf(GatewayUnavailableError);
    const outcome = await a.gateway.charge(req);
    expect(outcome.status).toBe('succeeded');
    expect(a.objects().paymentIntents).toHaveLength(1);
    expect(a.objects().paymentIntents[0]!.id).toBe(outcome.referenceId);
    const posts = a.calls().filter((c) => c.path === '/v1/payment_intents');
    expect(posts.map((c) => [c.idempotencyKey, c.replayed])).toEqual([
      [req.idempotencyKey, false],
      [req.idempotencyKey, true],
    ]);
  });

  it('a 500 before Stripe ran is GatewayUnavailableError; the retry charges once', async () => {
    const a = account();
    const card = await cardOf(a, 'pm_card_visa');
    const req = chargeRequest(card.token);
    fake.addFault(a.keys.secretKey, { mode: 'unavailable', path: '/v1/payment_intents' });
    await expect(a.gateway.charge(req)).rejects.toBeInstanceOf(GatewayUnavailableError);
    expect(a.objects().paymentIntents).toHaveLength(0);
    expect((await a.gateway.charge(req)).status).toBe('succeeded');
    expect(a.objects().paymentIntents).toHaveLength(1);
  });

  it('a 500 Stripe kept under the key stays unavailable on retry (Stripe replays kept 500s)', async () => {
    const a = account();
    const card = await cardOf(a, 'pm_card_visa');
    const req = chargeRequest(card.token);
    fake.addFault(a.keys.secretKey, { mode: 'error_after', path: '/v1/payment_intents' });
    await expect(a.gateway.charge(req)).rejects.toBeInstanceOf(GatewayUnavailableError);
    await expect(a.gateway.charge(req)).rejects.toBeInstanceOf(GatewayUnavailableError);
    expect(a.objects().paymentIntents).toHaveLength(1);
  });

  it('no connection at all, or a proxy page instead of JSON, is GatewayUnavailableError', async () => {
    const down = stripeGateway({ secretKey: 'sk_test_x', webhookSecret: null, endpoint: { base: 'https://api.stripe.com', transport: () => Promise.reject(new TypeError('fetch failed')) } });
    await expect(down.charge(chargeRequest('cus_a/pm_b'))).rejects.toBeInstanceOf(GatewayUnavailableError);
    const proxy = stripeGateway({ secretKey: 'sk_test_x', webhookSecret: null, endpoint: { base: 'https://api.stripe.com', transport: async () => new Response('<html>bad gateway</html>', { status: 200 }) } });
    await expect(proxy.charge(chargeRequest('cus_a/pm_b'))).rejects.toBeInstanceOf(GatewayUnavailableError);
  });

  it('the same key with other parameters is an error, not an outcome (the first attempt may have charged)', async () => {
    const a = account();
    const card = await cardOf(a, 'pm_card_visa');
    const req = chargeRequest(card.token);
    await a.gateway.charge(req);
    const err = await a.gateway.charge({ ...req, amount: '120.00' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StripeRequestError);
    expect(a.objects().paymentIntents).toHaveLength(1);
  });

  it('a key Stripe refuses fails the charge, retryable once the tenant stores a valid key; the key is not in the reason', async () => {
    const revoked = stripeGateway({ secretKey: 'sk_test_revokedKey123', webhookSecret: null, endpoint });
    const outcome = await revoked.charge(chargeRequest('cus_a/pm_b'));
    expect(outcome).toEqual({ status: 'failed', referenceId: null, reason: 'gateway_credentials_invalid', retryable: true });
  });

  it('every POST carries an Idempotency-Key', async () => {
    const a = account();
    const card = await cardOf(a, 'pm_card_visa');
    const charged = await a.gateway.charge(chargeRequest(card.token));
    await a.gateway.refund({ idempotencyKey: key('refund'), chargeReferenceId: charged.referenceId!, amount: '19.00', currencyCode: 'EUR', metadata: {} });
    const posts = a.calls().filter((c) => c.method === 'POST');
    expect(posts.length).toBe(4);
    for (const post of posts) expect(post.idempotencyKey, post.path).toMatch(/\S/);
  });
});

describe('refund', () => {
  it('refunds part, then the rest, of a PaymentIntent; more than is left fails', async () => {
    const a = account();
    const card = await cardOf(a, 'pm_card_visa');
    const charged = await a.gateway.charge(chargeRequest(card.token));
    const refund = (amount: string, k = key('refund')) => a.gateway.refund({ idempotencyKey: k, chargeReferenceId: charged.referenceId!, amount, currencyCode: 'EUR', metadata: { transaction_id: 'tx_r' } });
    const k = key('refund');
    const first = await refund('19.00', k);
    expect(first).toEqual({ status: 'succeeded', referenceId: expect.stringMatching(/^re_/) });
    expect(a.calls().at(-1)).toMatchObject({ path: '/v1/refunds', idempotencyKey: k, params: { payment_intent: charged.referenceId, amount: '1900', metadata: { transaction_id: 'tx_r' } } });
    // The same refund repeated is the same refund.
    expect(await refund('19.00', k)).toEqual(first);
    expect(await refund('100.01')).toEqual({ status: 'failed', referenceId: null, reason: 'amount_too_large' });
    expect(await refund('100.00')).toMatchObject({ status: 'succeeded' });
    expect(await refund('0.01')).toEqual({ status: 'failed', referenceId: null, reason: 'charge_already_refunded' });
    expect(a.objects().refunds.map((r) => r.amount)).toEqual([1900, 10000]);
  });

  it('a declined charge has nothing to refund', async () => {
    const a = account();
    const card = await cardOf(a, 'pm_card_chargeDeclined');
    const charged = await a.gateway.charge(chargeRequest(card.token));
    expect(await a.gateway.refund({ idempotencyKey: key('refund'), chargeReferenceId: charged.referenceId!, amount: '1.00', currencyCode: 'EUR', metadata: {} })).toEqual({
      status: 'failed',
      referenceId: null,
      reason: 'charge_not_refundable',
    });
  });
});

describe('key check and decline rules', () => {
  it('tells a valid secret or restricted key from one Stripe refuses', async () => {
    const keys = fake.createAccount();
    expect(await checkStripeKey(keys.secretKey, endpoint)).toBe('valid');
    expect(await checkStripeKey(keys.restrictedKey, endpoint)).toBe('valid');
    expect(await checkStripeKey('sk_test_neverIssued0000', endpoint)).toBe('invalid');
    fake.addFault(keys.secretKey, { mode: 'unavailable' });
    await expect(checkStripeKey(keys.secretKey, endpoint)).rejects.toBeInstanceOf(GatewayUnavailableError);
  });

  it.each([
    ['card_declined', 'insufficient_funds', undefined, true],
    ['card_declined', 'generic_decline', undefined, true],
    ['card_declined', 'do_not_honor', undefined, true],
    ['expired_card', undefined, undefined, false],
    ['card_declined', 'lost_card', undefined, false],
    ['card_declined', 'stolen_card', undefined, false],
    ['card_declined', 'generic_decline', 'do_not_try_again', false],
    ['card_declined', 'lost_card', 'try_again_later', true],
  ])('%s / %s / advice %s → retryable %s', (code, decline, advice, retryable) => {
    expect(isRetryableDecline(code, decline, advice)).toBe(retryable);
  });
});

describe('the fake answers as Stripe documents', () => {
  const post = (secretKey: string | null, path: string, body: string, idempotencyKey?: string) =>
    fake.fetch(
      new Request(`https://api.stripe.com${path}`, {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(secretKey ? { Authorization: `Bearer ${secretKey}` } : {}), ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) },
      }),
    );

  it('decodes nested form keys', () => {
    expect(decodeForm('amount=100&metadata[invoice]=RE-1&expand[0]=a&expand[1]=b.c&list[]=x&list[]=y&x[y][z]=1')).toEqual({
      amount: '100',
      metadata: { invoice: 'RE-1' },
      expand: ['a', 'b.c'],
      list: ['x', 'y'],
      x: { y: { z: '1' } },
    });
  });

  it('401 without a key or with one it never issued, the key masked in the message', async () => {
    const none = await post(null, '/v1/customers', '');
    expect(none.status).toBe(401);
    const unknown = await post('sk_test_unknownKey1234', '/v1/customers', '');
    expect(unknown.status).toBe(401);
    const { error } = (await unknown.json()) as { error: { type: string; message: string } };
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain('sk_test_****1234');
    expect(error.message).not.toContain('unknownKey');
  });

  it('replays the first answer to a key, refuses the key with other parameters, keeps no parameter errors', async () => {
    const { secretKey } = fake.createAccount();
    const first = await post(secretKey, '/v1/customers', 'email=a%40example.com', 'k1');
    const again = await post(secretKey, '/v1/customers', 'email=a%40example.com', 'k1');
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    const other = await post(secretKey, '/v1/customers', 'email=b%40example.com', 'k1');
    expect(other.status).toBe(400);
    expect(((await other.json()) as { error: { type: string } }).error.type).toBe('idempotency_error');
    // A parameter error is not kept: the corrected request with the same key runs.
    expect((await post(secretKey, '/v1/payment_intents', 'currency=eur', 'k2')).status).toBe(400);
    expect((await post(secretKey, '/v1/payment_intents', 'amount=100&currency=eur', 'k2')).status).toBe(200);
  });

  it('a declined off-session charge is 402 card_error with the intent left in requires_payment_method', async () => {
    const { secretKey } = fake.createAccount();
    const res = await post(secretKey, '/v1/payment_intents', 'amount=500&currency=eur&payment_method=pm_card_chargeDeclinedInsufficientFunds&confirm=true&off_session=true', 'k3');
    expect(res.status).toBe(402);
    const { error } = (await res.json()) as { error: Record<string, any> };
    expect(error).toMatchObject({ type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', charge: expect.stringMatching(/^ch_/), payment_intent: { status: 'requires_payment_method', last_payment_error: { decline_code: 'insufficient_funds' } } });
  });

  it('the same test card needs 3-D Secure on session (requires_action) and declines off session', async () => {
    const { secretKey } = fake.createAccount();
    const onSession = await post(secretKey, '/v1/payment_intents', 'amount=500&currency=eur&payment_method=pm_card_authenticationRequired&confirm=true', 'k4');
    expect(onSession.status).toBe(200);
    expect(await onSession.json()).toMatchObject({ status: 'requires_action', next_action: { type: 'use_stripe_sdk' } });
    const offSession = await post(secretKey, '/v1/payment_intents', 'amount=500&currency=eur&payment_method=pm_card_authenticationRequired&confirm=true&off_session=true', 'k5');
    expect(offSession.status).toBe(402);
    expect(((await offSession.json()) as { error: { code: string } }).error.code).toBe('authentication_required');
  });
});
