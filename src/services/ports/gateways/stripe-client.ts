import type { Env } from '../../../env';
import { encodeForm, type FormValue } from './stripe-form';
import { GatewayUnavailableError } from './port';

/**
 * The HTTP side of the Stripe adapter: Bearer secret key, form-encoded bodies, an Idempotency-Key
 * on every POST, a pinned API version, and one rule for what counts as "Stripe unavailable"
 * (no answer, a timeout, 409 lock conflicts, 429, 5xx, or a body that is not Stripe's JSON): the
 * outcome is unknown and the caller may repeat the call with the same key.
 *
 * The base URL is configuration (STRIPE_API_BASE, default https://api.stripe.com), never tenant
 * input, so it is not run through the outbound-URL policy for tenant URLs (src/lib/outbound-url.ts).
 * When the STRIPE_API service binding is bound (tests, local development) requests go there.
 * Neither the key nor a request body is ever logged or put into an error message.
 */
export const STRIPE_API_VERSION = '2024-06-20';
const DEFAULT_BASE = 'https://api.stripe.com';
const TIMEOUT_MS = 30_000;

export type StripeTransport = (request: Request) => Promise<Response>;

export interface StripeEndpoint {
  base: string;
  transport: StripeTransport;
}

export function stripeEndpoint(env: Pick<Env, 'STRIPE_API' | 'STRIPE_API_BASE'>): StripeEndpoint {
  const binding = env.STRIPE_API;
  return {
    base: (env.STRIPE_API_BASE || DEFAULT_BASE).replace(/\/+$/, ''),
    transport: binding ? (request) => binding.fetch(request) : (request) => fetch(request),
  };
}

/** Stripe's error object (docs.stripe.com/api/errors). */
export interface StripeErrorBody {
  type?: string;
  code?: string;
  decline_code?: string;
  advice_code?: string;
  message?: string;
  param?: string;
  payment_intent?: StripeObject;
}

export type StripeObject = Record<string, unknown> & { id?: string };

export interface StripeReply {
  status: number;
  /** The object on 2xx; `error` otherwise. */
  body: StripeObject & { error?: StripeErrorBody };
}

/** A request Stripe refused in a way no retry changes and no outcome describes (our bug, e.g. an idempotency key reused with other parameters). */
export class StripeRequestError extends Error {
  override name = 'StripeRequestError';
  constructor(
    readonly status: number,
    readonly stripeType: string | undefined,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

export class StripeClient {
  constructor(
    private readonly secretKey: string,
    private readonly endpoint: StripeEndpoint,
  ) {}

  get(path: string, query: Record<string, FormValue> = {}): Promise<StripeReply> {
    const qs = encodeForm(query);
    return this.send('GET', `${path}${qs ? `?${qs}` : ''}`, undefined, undefined);
  }

  post(path: string, params: Record<string, FormValue>, idempotencyKey: string): Promise<StripeReply> {
    return this.send('POST', path, encodeForm(params), idempotencyKey);
  }

  private async send(method: string, path: string, body: string | undefined, idempotencyKey: string | undefined): Promise<StripeReply> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.secretKey}`, 'Stripe-Version': STRIPE_API_VERSION, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/x-www-form-urlencoded';
    if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
    let res: Response;
    let text: string;
    try {
      res = await this.endpoint.transport(new Request(`${this.endpoint.base}${path}`, { method, headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) }));
      text = await res.text();
    } catch {
      throw new GatewayUnavailableError(`Stripe could not be reached (${method} ${path.split('?')[0]}).`);
    }
    if (res.status >= 500 || res.status === 429 || res.status === 409) {
      throw new GatewayUnavailableError(`Stripe answered ${res.status} (${method} ${path.split('?')[0]}).`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new GatewayUnavailableError(`Stripe answered ${res.status} without a JSON object (${method} ${path.split('?')[0]}).`);
    }
    return { status: res.status, body: parsed as StripeReply['body'] };
  }
}

/** The error object of a non-2xx reply (empty when Stripe sent none). Its `message` is not passed on: a 401's quotes the key, masked. */
export function stripeError(reply: StripeReply): StripeErrorBody {
  const e = reply.body.error;
  return e && typeof e === 'object' ? e : {};
}
