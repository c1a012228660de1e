import { hmacSha256Hex, timingSafeEqual } from '../../../lib/crypto';
import { GatewaySignatureError, type GatewayEvent } from './port';

/**
 * Stripe's webhook signatures (docs.stripe.com/webhooks, "verify manually"): the
 * `Stripe-Signature` header is `t=<unix seconds>,v1=<hex>[,v1=<hex>…][,v0=…]`, each v1 the
 * HMAC-SHA256 of `<t>.<raw body>` under the endpoint's signing secret (the whole `whsec_…` string
 * as UTF-8). Several v1 values appear while a secret is being rolled; one matching is enough.
 * Other schemes (v0: test-mode legacy) are ignored. Stripe's libraries accept a timestamp up to
 * five minutes old; we also refuse one more than five minutes ahead of our clock.
 */
export const STRIPE_WEBHOOK_TOLERANCE_SECONDS = 300;

const encoder = new TextEncoder();

export async function verifyStripeSignature(rawBody: string, header: string | null, secret: string, now: Date): Promise<void> {
  if (!header) throw new GatewaySignatureError('No Stripe-Signature header.');
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (name === 't') timestamp = /^\d{1,12}$/.test(value) ? Number(value) : Number.NaN;
    else if (name === 'v1') signatures.push(value);
  }
  if (timestamp === undefined || !Number.isFinite(timestamp) || signatures.length === 0) throw new GatewaySignatureError('Malformed Stripe-Signature header.');
  if (Math.abs(now.getTime() / 1000 - timestamp) > STRIPE_WEBHOOK_TOLERANCE_SECONDS) throw new GatewaySignatureError('The signature timestamp is outside the tolerance.');
  const expected = await hmacSha256Hex(encoder.encode(secret), `${timestamp}.${rawBody}`);
  // Every candidate is compared, so the time taken does not tell which one (or whether any) matched.
  let matched = false;
  for (const candidate of signatures) matched = timingSafeEqual(expected, candidate.toLowerCase()) || matched;
  if (!matched) throw new GatewaySignatureError('No signature matches the payload.');
}

/** The header Stripe would send for `rawBody` at `timestamp` (unix seconds); for tests and local tooling. */
export async function stripeSignatureHeader(rawBody: string, secret: string, timestamp: number): Promise<string> {
  return `t=${timestamp},v1=${await hmacSha256Hex(encoder.encode(secret), `${timestamp}.${rawBody}`)}`;
}

interface StripeEventPayload {
  id?: unknown;
  type?: unknown;
  data?: { object?: Record<string, unknown> };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function lastError(obj: Record<string, unknown>): { code?: string; declineCode?: string; adviceCode?: string } {
  const e = obj.last_payment_error;
  if (!e || typeof e !== 'object') return {};
  const err = e as Record<string, unknown>;
  return { code: str(err.code), declineCode: str(err.decline_code), adviceCode: str(err.advice_code) };
}

/**
 * Declines where another attempt with the same card cannot succeed (the card is gone, wrong or
 * barred), after docs.stripe.com/declines/codes; every other decline (insufficient funds, generic
 * decline, do not honor, try again later, processing error…) is retried on the collection schedule.
 * Stripe's `advice_code` overrides: `do_not_try_again` and `confirm_card_data` never retry,
 * `try_again_later` always does.
 */
const FINAL_DECLINES = new Set([
  'expired_card', 'incorrect_number', 'invalid_number', 'invalid_expiry_month', 'invalid_expiry_year', 'invalid_account',
  'lost_card', 'stolen_card', 'pickup_card', 'restricted_card', 'card_not_supported', 'currency_not_supported',
  'new_account_information_available', 'revocation_of_authorization', 'revocation_of_all_authorizations', 'stop_payment_order',
  'do_not_try_again', 'transaction_not_allowed', 'security_violation', 'fraudulent', 'merchant_blacklist', 'invalid_amount',
]);

export function isRetryableDecline(code: string | undefined, declineCode: string | undefined, adviceCode: string | undefined): boolean {
  if (adviceCode === 'do_not_try_again' || adviceCode === 'confirm_card_data') return false;
  if (adviceCode === 'try_again_later') return true;
  return !FINAL_DECLINES.has(declineCode ?? '') && !FINAL_DECLINES.has(code ?? '');
}

/** A card failure's reason: the decline code when it says more than "declined", else the error code. */
export function stripeFailureReason(code: string | undefined, declineCode: string | undefined): string {
  if (declineCode && declineCode !== 'generic_decline') return declineCode;
  return code ?? declineCode ?? 'card_declined';
}

function refundEvent(id: string, refund: Record<string, unknown>): GatewayEvent {
  const referenceId = str(refund.id);
  if (!referenceId) return { id, kind: 'ignored' };
  const status = refund.status;
  if (status === 'succeeded') return { id, kind: 'refund.succeeded', referenceId };
  if (status === 'failed' || status === 'canceled') return { id, kind: 'refund.failed', referenceId, reason: str(refund.failure_reason) ?? status };
  return { id, kind: 'ignored' };
}

/**
 * A verified event reduced to what moves our transactions. PaymentIntents are the charges
 * (referenceId `pi_…`), Refund objects the refunds (`re_…`). `charge.refunded` is ignored: it
 * names the charge, not the refund, and every refund also sends `refund.*` events.
 */
export function stripeGatewayEvent(rawBody: string): GatewayEvent {
  let event: StripeEventPayload;
  try {
    event = JSON.parse(rawBody) as StripeEventPayload;
  } catch {
    throw new GatewaySignatureError('The signed payload is not a Stripe event.');
  }
  const id = str(event?.id);
  const obj = event?.data?.object;
  if (!id || typeof event.type !== 'string' || !obj || typeof obj !== 'object') throw new GatewaySignatureError('The signed payload is not a Stripe event.');
  const type = event.type;
  if (type.startsWith('payment_intent.')) {
    const referenceId = str(obj.id);
    if (!referenceId) return { id, kind: 'ignored' };
    // Our transaction id, as the charge's metadata carries it (for a charge whose answer was lost).
    const metadata = obj.metadata && typeof obj.metadata === 'object' ? (obj.metadata as Record<string, unknown>) : {};
    const ours = str(metadata.transaction_id);
    const transactionId = ours ? { transactionId: ours } : {};
    const event = stripeIntentEvent(id, type, obj, referenceId);
    return event.kind === 'ignored' ? event : { ...event, ...transactionId };
  }
  if (type === 'refund.created' || type === 'refund.updated' || type === 'refund.failed' || type === 'charge.refund.updated') {
    if (type === 'refund.failed') {
      const referenceId = str(obj.id);
      return referenceId ? { id, kind: 'refund.failed', referenceId, reason: str(obj.failure_reason) ?? 'failed' } : { id, kind: 'ignored' };
    }
    return refundEvent(id, obj);
  }
  return { id, kind: 'ignored' };
}

/** A PaymentIntent's event as a charge event. */
function stripeIntentEvent(id: string, type: string, obj: Record<string, unknown>, referenceId: string): GatewayEvent {
  switch (type) {
    case 'payment_intent.succeeded':
      return { id, kind: 'charge.succeeded', referenceId };
    case 'payment_intent.requires_action':
      return { id, kind: 'charge.action_required', referenceId, reason: 'authentication_required' };
    case 'payment_intent.payment_failed': {
      const { code, declineCode, adviceCode } = lastError(obj);
      // An off-session charge the bank wants authenticated fails this way; the payer can still finish it.
      if (code === 'authentication_required' || declineCode === 'authentication_required') return { id, kind: 'charge.action_required', referenceId, reason: 'authentication_required' };
      return { id, kind: 'charge.failed', referenceId, reason: stripeFailureReason(code, declineCode), retryable: isRetryableDecline(code, declineCode, adviceCode) };
    }
    case 'payment_intent.canceled':
      return { id, kind: 'charge.failed', referenceId, reason: str(obj.cancellation_reason) ?? 'canceled', retryable: true };
    default:
      return { id, kind: 'ignored' };
  }
}
