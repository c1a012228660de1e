/**
 * The gateway port: what collection, refunds and gateway webhooks need of a payment provider.
 * Amounts cross it as decimal strings in major units (never a JS number); every call that moves
 * money carries the caller's idempotency key, which the provider must honour, so that repeating a
 * call after a crash or a redelivered job never moves money twice (docs/decisions.md, Payments).
 */

export interface GatewayCustomer {
  id: string;
  email: string | null;
  name: string | null;
}

/** The stored parts of a payment method a gateway acts on. */
export interface GatewayMethod {
  id: string;
  /** The gateway's token of the method (Stripe: `cus_…/pm_…`; testing: a magic value). Secret. */
  token: string | null;
  details: Record<string, unknown>;
}

export interface ChargeRequest {
  idempotencyKey: string;
  /** Major units, e.g. "119.00". */
  amount: string;
  currencyCode: string;
  description: string;
  customer: GatewayCustomer;
  method: GatewayMethod;
  /** Ids the provider keeps with the charge (our invoice and transaction ids), for its dashboard and webhooks. */
  metadata: Record<string, string>;
  /**
   * The payer is at hand (a checkout page): a card that wants 3-D Secure answers `action_required`
   * with a client secret the payer's browser confirms, instead of failing as an off-session charge.
   */
  onSession?: boolean;
}

/** What the gateway's client needs to let the payer finish a charge that waits for them (3-D Secure). */
export interface ChargeAuthentication {
  clientSecret: string;
  /** The charge's id at the gateway (Stripe: the PaymentIntent, `pi_…`). */
  referenceId: string;
}

export type ChargeOutcome =
  | { status: 'succeeded'; referenceId: string; feeAmount?: string }
  /** Accepted, the result comes later (a webhook, or `status` asked again). */
  | { status: 'processing'; referenceId: string }
  /** The payer must act (3-D Secure); `clientSecret` lets the gateway's client finish it. */
  | { status: 'action_required'; referenceId: string; reason: string; clientSecret?: string }
  /** `retryable`: a later attempt may succeed (declined, insufficient funds); not for a method that is gone. */
  | { status: 'failed'; referenceId: string | null; reason: string; retryable: boolean };

export interface RefundRequest {
  idempotencyKey: string;
  /** The referenceId of the charge being refunded. */
  chargeReferenceId: string;
  amount: string;
  currencyCode: string;
  metadata: Record<string, string>;
}

export type RefundOutcome =
  | { status: 'succeeded' | 'processing'; referenceId: string }
  | { status: 'failed'; referenceId: string | null; reason: string };

/** What a card gateway tells about a method its client created (shown as `card` on the method). */
export interface AttachedCard {
  /** The token to store (secret). */
  token: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  cardHolder: string | null;
}

/**
 * A verified gateway webhook, reduced to what moves our transactions. `transactionId` is our id as
 * the gateway keeps it in the charge's metadata: it finds a transaction whose call lost its answer.
 */
export type GatewayEvent =
  | { id: string; kind: 'charge.succeeded'; referenceId: string; feeAmount?: string; transactionId?: string }
  | { id: string; kind: 'charge.failed'; referenceId: string; reason: string; retryable: boolean; transactionId?: string }
  | { id: string; kind: 'charge.action_required'; referenceId: string; reason: string; transactionId?: string }
  | { id: string; kind: 'refund.succeeded'; referenceId: string; transactionId?: string }
  | { id: string; kind: 'refund.failed'; referenceId: string; reason: string; transactionId?: string }
  | { id: string; kind: 'ignored'; transactionId?: undefined };

export interface PaymentGateway {
  /** The `gatewayName` it serves. */
  readonly name: string;
  charge(req: ChargeRequest): Promise<ChargeOutcome>;
  refund(req: RefundRequest): Promise<RefundOutcome>;
  /** The current state of a charge (for `processing` charges whose webhook did not come). */
  chargeStatus(referenceId: string): Promise<ChargeOutcome>;
  /**
   * Card gateways: the client secret of a charge that waits for the payer to authenticate it (a
   * PaymentIntent in `requires_action`), or null when it no longer waits. Secret to everyone but
   * the payer's browser: handed out, never stored.
   */
  chargeAuthentication?(referenceId: string): Promise<ChargeAuthentication | null>;
  /** Card gateways: reads what the gateway's client created (a PaymentMethod id) and binds it to the customer. */
  attachCard?(token: string, customer: GatewayCustomer, idempotencyKey: string): Promise<AttachedCard>;
  /** Verifies a webhook by its signature; throws `GatewaySignatureError` when it does not verify. */
  verifyWebhook?(rawBody: string, headers: Headers, now: Date): Promise<GatewayEvent>;
}

export class GatewaySignatureError extends Error {}

/** A provider that could not be reached or answered 5xx: the attempt is unknown, and repeating it with the same idempotency key is safe. */
export class GatewayUnavailableError extends Error {}

/**
 * The gateways of one tenant. `get` answers null when the gateway needs credentials the tenant has
 * not stored (its methods are `gateway_unconfigured`).
 */
export interface GatewayDirectory {
  get(gatewayName: string): Promise<PaymentGateway | null>;
}
