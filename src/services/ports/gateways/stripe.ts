import { ApiError } from '../../../http/errors';
import { DecimalFormatError } from '../../../billing/money';
import type { AttachedCard, ChargeOutcome, GatewayCustomer, PaymentGateway, RefundOutcome } from './port';
import { GatewaySignatureError } from './port';
import { fromStripeAmount, StripeAmountError, toStripeAmount } from './stripe-amounts';
import { StripeClient, stripeError, StripeRequestError, type StripeEndpoint, type StripeErrorBody, type StripeObject, type StripeReply } from './stripe-client';
import { isRetryableDecline, stripeFailureReason, stripeGatewayEvent, verifyStripeSignature } from './stripe-webhooks';

export { isRetryableDecline };

/**
 * The `card_provider` gateway: Stripe's PaymentIntents API with the tenant's own secret key
 * (docs/decisions.md, Payments, and notes/helper-stripe.md). A card is a Stripe Customer with the
 * PaymentMethod attached; the stored token is `cus_…/pm_…`. Charges are off-session PaymentIntents
 * confirmed at once; the charge's referenceId is the PaymentIntent id (`pi_…`), a refund's the
 * Refund id (`re_…`). Every POST carries the caller's idempotency key (Stripe keeps the first
 * answer to a key for 24 hours and refuses the key with other parameters).
 */
export const STRIPE_GATEWAY = 'card_provider';

export interface StripeGatewayConfig {
  secretKey: string;
  webhookSecret: string | null;
  endpoint: StripeEndpoint;
}

/** `cus_…/pm_…` (or a bare `pm_…` not attached to a customer). */
export function parseStripeToken(token: string | null): { customer?: string; paymentMethod: string } | null {
  if (!token) return null;
  const m = /^(?:(cus_[A-Za-z0-9]+)\/)?(pm_[A-Za-z0-9_]+)$/.exec(token);
  if (!m) return null;
  return m[1] ? { customer: m[1], paymentMethod: m[2]! } : { paymentMethod: m[2]! };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const obj = (v: unknown): StripeObject | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as StripeObject) : undefined);

/** The fee of a succeeded PaymentIntent whose latest_charge.balance_transaction was expanded, when it is in the charge's currency. */
function feeOf(intent: StripeObject): string | undefined {
  const txn = obj(obj(intent.latest_charge)?.balance_transaction);
  const currency = str(intent.currency);
  if (!txn || !currency || txn.currency !== currency || typeof txn.fee !== 'number' || !Number.isSafeInteger(txn.fee)) return undefined;
  try {
    return fromStripeAmount(txn.fee, currency);
  } catch {
    return undefined;
  }
}

function failedOutcome(error: StripeErrorBody, referenceId: string | null, clientSecret: string | undefined): ChargeOutcome {
  if (error.code === 'authentication_required' || error.decline_code === 'authentication_required') {
    // Off-session charges the bank wants authenticated fail this way: the payer finishes it on session with the client secret.
    return referenceId ? { status: 'action_required', referenceId, reason: 'authentication_required', ...(clientSecret ? { clientSecret } : {}) } : { status: 'failed', referenceId, reason: 'authentication_required', retryable: false };
  }
  return { status: 'failed', referenceId, reason: stripeFailureReason(error.code, error.decline_code), retryable: isRetryableDecline(error.code, error.decline_code, error.advice_code) };
}

/** A PaymentIntent as a charge outcome. */
export function intentOutcome(intent: StripeObject): ChargeOutcome {
  const referenceId = str(intent.id) ?? '';
  const clientSecret = str(intent.client_secret);
  switch (intent.status) {
    case 'succeeded': {
      const feeAmount = feeOf(intent);
      return feeAmount === undefined ? { status: 'succeeded', referenceId } : { status: 'succeeded', referenceId, feeAmount };
    }
    case 'requires_action':
      return { status: 'action_required', referenceId, reason: 'authentication_required', ...(clientSecret ? { clientSecret } : {}) };
    case 'requires_payment_method': {
      const error = obj(intent.last_payment_error) as StripeErrorBody | undefined;
      return error ? failedOutcome(error, referenceId, clientSecret) : { status: 'failed', referenceId, reason: 'requires_payment_method', retryable: true };
    }
    case 'canceled':
      return { status: 'failed', referenceId, reason: str(intent.cancellation_reason) ?? 'canceled', retryable: true };
    default:
      // processing, requires_confirmation, requires_capture: the outcome comes later.
      return { status: 'processing', referenceId };
  }
}

/** A refused request as a charge outcome; what no outcome describes is thrown. */
function refusedCharge(reply: StripeReply): ChargeOutcome {
  const error = stripeError(reply);
  if (reply.status === 402) {
    const intent = obj(error.payment_intent);
    return failedOutcome(error, str(intent?.id) ?? null, str(intent?.client_secret));
  }
  if (reply.status === 401 || reply.status === 403) {
    // Stripe does not keep these under the idempotency key: a later attempt runs once the tenant fixes its key.
    return { status: 'failed', referenceId: null, reason: reply.status === 401 ? 'gateway_credentials_invalid' : 'gateway_permission_denied', retryable: true };
  }
  if (error.type === 'idempotency_error') {
    throw new StripeRequestError(reply.status, error.type, error.code, 'Stripe refused the idempotency key: it was used before with other parameters, so the earlier attempt may have charged. Reconcile before retrying.');
  }
  return { status: 'failed', referenceId: null, reason: error.code ?? 'invalid_request', retryable: false };
}

function attachRefused(reply: StripeReply): never {
  const error = stripeError(reply);
  if (reply.status === 401 || reply.status === 403) {
    throw ApiError.violation('token', 'Stripe refused the stored secret key of card_provider; store a valid one with PUT /settings/gateways/card_provider.', 'gateway_credentials_invalid');
  }
  if (reply.status === 402) throw ApiError.violation('token', `The card was refused: ${stripeFailureReason(error.code, error.decline_code)}.`, error.code ?? 'card_declined');
  if (error.code === 'resource_missing') throw ApiError.violation('token', 'Stripe knows no such PaymentMethod for this account.', 'unknown_payment_method');
  throw ApiError.violation('token', `Stripe refused the PaymentMethod (${error.code ?? error.type ?? 'invalid_request'}).`, error.code ?? 'invalid_payment_method');
}

export function stripeGateway(config: StripeGatewayConfig): PaymentGateway {
  const client = new StripeClient(config.secretKey, config.endpoint);
  const expandFee = { expand: ['latest_charge.balance_transaction'] };

  return {
    name: STRIPE_GATEWAY,

    async charge(req): Promise<ChargeOutcome> {
      const token = parseStripeToken(req.method.token);
      if (!token) return { status: 'failed', referenceId: null, reason: 'payment_method_unusable', retryable: false };
      let amount: number;
      try {
        amount = toStripeAmount(req.amount, req.currencyCode);
      } catch (err) {
        if (err instanceof StripeAmountError || err instanceof DecimalFormatError) return { status: 'failed', referenceId: null, reason: 'invalid_amount', retryable: false };
        throw err;
      }
      const reply = await client.post(
        '/v1/payment_intents',
        {
          amount,
          currency: req.currencyCode.toLowerCase(),
          customer: token.customer,
          payment_method: token.paymentMethod,
          // Cards only: with the dashboard's automatic payment methods a confirmed intent would need a return_url.
          payment_method_types: ['card'],
          confirm: true,
          // On session (the buyer at the checkout) a card that wants 3-D Secure waits in
          // requires_action for Stripe.js to confirm it with the client secret.
          off_session: req.onSession ? undefined : true,
          description: req.description,
          metadata: req.metadata,
          ...expandFee,
        },
        req.idempotencyKey,
      );
      return reply.status === 200 ? intentOutcome(reply.body) : refusedCharge(reply);
    },

    async chargeStatus(referenceId): Promise<ChargeOutcome> {
      if (!/^pi_[A-Za-z0-9_]+$/.test(referenceId)) return { status: 'failed', referenceId, reason: 'unknown_charge', retryable: false };
      const reply = await client.get(`/v1/payment_intents/${referenceId}`, expandFee);
      if (reply.status === 200) return intentOutcome(reply.body);
      if (reply.status === 404) return { status: 'failed', referenceId, reason: 'unknown_charge', retryable: false };
      return refusedCharge(reply);
    },

    async chargeAuthentication(referenceId) {
      if (!/^pi_[A-Za-z0-9_]+$/.test(referenceId)) return null;
      const reply = await client.get(`/v1/payment_intents/${referenceId}`, {});
      if (reply.status !== 200) return null;
      const secret = str(reply.body.client_secret);
      // requires_action: confirmed on session, waiting for the payer; requires_confirmation: not
      // confirmed yet. Anything else is settled or failed, with nothing for the payer to do.
      return secret && (reply.body.status === 'requires_action' || reply.body.status === 'requires_confirmation') ? { clientSecret: secret, referenceId } : null;
    },

    async refund(req): Promise<RefundOutcome> {
      let amount: number;
      try {
        amount = toStripeAmount(req.amount, req.currencyCode);
      } catch (err) {
        if (err instanceof StripeAmountError || err instanceof DecimalFormatError) return { status: 'failed', referenceId: null, reason: 'invalid_amount' };
        throw err;
      }
      const reply = await client.post('/v1/refunds', { payment_intent: req.chargeReferenceId, amount, metadata: req.metadata }, req.idempotencyKey);
      if (reply.status === 200) {
        const referenceId = str(reply.body.id) ?? '';
        const status = reply.body.status;
        if (status === 'succeeded') return { status: 'succeeded', referenceId };
        if (status === 'failed' || status === 'canceled') return { status: 'failed', referenceId, reason: str(reply.body.failure_reason) ?? status };
        return { status: 'processing', referenceId };
      }
      const error = stripeError(reply);
      if (error.type === 'idempotency_error') throw new StripeRequestError(reply.status, error.type, error.code, 'Stripe refused the idempotency key of a refund: it was used before with other parameters.');
      if (reply.status === 401 || reply.status === 403) return { status: 'failed', referenceId: null, reason: 'gateway_credentials_invalid' };
      return { status: 'failed', referenceId: null, reason: error.code ?? 'refund_refused' };
    },

    async attachCard(token: string, customer: GatewayCustomer, idempotencyKey: string): Promise<AttachedCard> {
      if (!/^pm_[A-Za-z0-9_]{1,200}$/.test(token)) throw ApiError.violation('token', 'Must be a Stripe PaymentMethod id (pm_…) created by Stripe.js or the Stripe API.', 'invalid_token');
      // One Stripe Customer per payment method: simple, and idempotent under the method's key.
      const created = await client.post(
        '/v1/customers',
        { email: customer.email ?? undefined, name: customer.name ?? undefined, metadata: { customer_id: customer.id } },
        `${idempotencyKey}/customer`,
      );
      if (created.status !== 200) attachRefused(created);
      const stripeCustomer = str(created.body.id);
      if (!stripeCustomer) throw new StripeRequestError(created.status, undefined, undefined, 'Stripe answered a customer without an id.');
      const attached = await client.post(`/v1/payment_methods/${token}/attach`, { customer: stripeCustomer }, `${idempotencyKey}/attach`);
      if (attached.status !== 200) attachRefused(attached);
      const pm = attached.body;
      const card = obj(pm.card);
      const paymentMethod = str(pm.id);
      if (!paymentMethod || pm.type !== 'card' || !card) throw ApiError.violation('token', 'The PaymentMethod is not a card.', 'not_a_card');
      const billing = obj(pm.billing_details);
      return {
        token: `${stripeCustomer}/${paymentMethod}`,
        brand: str(card.brand) ?? 'unknown',
        last4: str(card.last4) ?? '',
        expMonth: typeof card.exp_month === 'number' ? card.exp_month : 0,
        expYear: typeof card.exp_year === 'number' ? card.exp_year : 0,
        cardHolder: str(billing?.name) ?? null,
      };
    },

    async verifyWebhook(rawBody, headers, now) {
      if (!config.webhookSecret) throw new GatewaySignatureError('No webhook signing secret is stored.');
      await verifyStripeSignature(rawBody, headers.get('Stripe-Signature'), config.webhookSecret, now);
      return stripeGatewayEvent(rawBody);
    },
  };
}

/**
 * Checks a secret key with one cheap authenticated read (the newest PaymentIntent, a permission
 * the adapter needs anyway): `valid`, `invalid` (401) or `forbidden` (403, a restricted key without
 * PaymentIntent access). Throws GatewayUnavailableError when Stripe cannot say.
 */
export async function checkStripeKey(secretKey: string, endpoint: StripeEndpoint): Promise<'valid' | 'invalid' | 'forbidden'> {
  const reply = await new StripeClient(secretKey, endpoint).get('/v1/payment_intents', { limit: 1 });
  if (reply.status === 200) return 'valid';
  if (reply.status === 401) return 'invalid';
  if (reply.status === 403) return 'forbidden';
  throw new StripeRequestError(reply.status, stripeError(reply).type, stripeError(reply).code, `Stripe answered ${reply.status} to the key check.`);
}
