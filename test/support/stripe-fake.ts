// A local, in-memory Stripe: the part of its API the card adapter uses
// (src/services/ports/gateways/stripe*.ts), answering as docs.stripe.com/api documents it, since
// the tests have no network. Plain web APIs only (Request, Response, URLSearchParams, crypto), so
// it runs in Node unit tests (`new StripeFake().fetch` as the adapter's transport) and, from
// vitest.workers.config.ts, as the STRIPE_API service binding that workerd tests reach.
//
// What it models:
// - Auth: `Authorization: Bearer <key>` (or Basic `<key>:`); a key no account was made for is 401.
//   Every account has its own state, keyed by its keys, so tests (which share one fake) never meet.
// - Bodies: application/x-www-form-urlencoded with bracketed nested keys (metadata[x]=…, expand[0]=…).
// - Idempotency (docs.stripe.com/api/idempotent_requests): on POST, the first answer to a key is kept
//   once the endpoint starts executing (parameter errors are not kept) and replayed with
//   `Idempotent-Replayed: true`; the same key with other parameters or another path is 400 idempotency_error.
// - Errors: `{error: {type, code, decline_code, message, param, payment_intent}}`, 402 for card errors.
// - Test payment methods (docs.stripe.com/testing): pm_card_visa, pm_card_mastercard succeed;
//   pm_card_chargeDeclined and pm_card_chargeCustomerFail (card_declined / generic_decline),
//   pm_card_chargeDeclinedInsufficientFunds (insufficient_funds), pm_card_chargeDeclinedExpiredCard
//   (expired_card), pm_card_authenticationRequired (3-D Secure: requires_action on session; off
//   session a 402 authentication_required with the intent left in requires_payment_method).
//   Using one (attach or charge) makes a new `pm_…` with the card's details, as Stripe does.
// - Faults, per account: `unavailable` (500 before the endpoint runs: nothing happens, nothing kept),
//   `error_after` (the endpoint runs, then 500, and Stripe keeps that 500 for the key), `lost` (the
//   endpoint runs and its answer is kept, but the connection drops: the caller sees a network error).
// - Stripe.js's confirmation of a PaymentIntent waiting for 3-D Secure, with the publishable key and
//   the client secret (POST /v1/payment_intents/{id}/confirm), the challenge's result given by the caller.
// - Control endpoints under /__fake/ for workerd tests: POST /__fake/accounts, and with the
//   account's key as Bearer: GET /__fake/calls, GET /__fake/objects, POST /__fake/faults.

type Params = Record<string, unknown>;
type StripeObject = Record<string, unknown> & { id: string };

export interface FakeCall {
  method: string;
  path: string;
  idempotencyKey: string | null;
  params: Params;
  status: number;
  replayed: boolean;
}

export interface FakeFault {
  mode: 'unavailable' | 'error_after' | 'lost';
  /** Only requests whose path starts with this (default: any). */
  path?: string;
  method?: string;
  /** How many matching requests it hits (default 1). */
  times?: number;
}

export interface FakeAccountKeys {
  secretKey: string;
  publishableKey: string;
  restrictedKey: string;
}

interface CardBehaviour {
  brand: string;
  last4: string;
  outcome: 'succeed' | 'decline' | 'authenticate';
  code?: string;
  declineCode?: string;
  message?: string;
}

/** Expiry of every fake card. */
export const FAKE_CARD_EXPIRY = { month: 12, year: 2034 } as const;

export const TEST_PAYMENT_METHODS: Readonly<Record<string, CardBehaviour>> = {
  pm_card_visa: { brand: 'visa', last4: '4242', outcome: 'succeed' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444', outcome: 'succeed' },
  pm_card_chargeDeclined: { brand: 'visa', last4: '0002', outcome: 'decline', code: 'card_declined', declineCode: 'generic_decline', message: 'Your card was declined.' },
  pm_card_chargeCustomerFail: { brand: 'visa', last4: '0341', outcome: 'decline', code: 'card_declined', declineCode: 'generic_decline', message: 'Your card was declined.' },
  pm_card_chargeDeclinedInsufficientFunds: { brand: 'visa', last4: '9995', outcome: 'decline', code: 'card_declined', declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  pm_card_chargeDeclinedExpiredCard: { brand: 'visa', last4: '0069', outcome: 'decline', code: 'expired_card', message: 'Your card has expired.' },
  pm_card_authenticationRequired: { brand: 'visa', last4: '3184', outcome: 'authenticate' },
};

interface Account {
  keys: FakeAccountKeys;
  livemode: boolean;
  customers: Map<string, StripeObject>;
  paymentMethods: Map<string, StripeObject>;
  behaviours: Map<string, CardBehaviour>;
  paymentIntents: Map<string, StripeObject>;
  charges: Map<string, StripeObject>;
  balanceTransactions: Map<string, StripeObject>;
  refunds: Map<string, StripeObject>;
  idempotency: Map<string, { fingerprint: string; status: number; body: unknown }>;
  calls: FakeCall[];
  faults: FakeFault[];
}

interface Result {
  status: number;
  body: unknown;
  /** Whether Stripe keeps it under the idempotency key (it does once the endpoint started executing). */
  keep: boolean;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function randomId(prefix: string, length = 24): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return `${prefix}_${[...bytes].map((b) => ALPHABET[b % ALPHABET.length]).join('')}`;
}

/** Form decoding with Stripe's nested keys: `a[b][c]=1`, `a[]=x`, `a[0]=x` (indexed objects become arrays). */
export function decodeForm(text: string): Params {
  const root: Params = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    if (!m) {
      root[key] = value;
      continue;
    }
    const path = [m[1]!, ...[...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]!)];
    let node: Params = root;
    path.forEach((part, i) => {
      const last = i === path.length - 1;
      const name = part === '' ? String(Object.keys(node).length) : part;
      if (last) node[name] = value;
      else node = (node[name] && typeof node[name] === 'object' ? node[name] : (node[name] = {})) as Params;
    });
  }
  const arrays = (v: unknown): unknown => {
    if (!v || typeof v !== 'object') return v;
    const entries = Object.entries(v as Params).map(([k, x]) => [k, arrays(x)] as const);
    const isList = entries.length > 0 && entries.every(([k], i) => k === String(i));
    return isList ? entries.map(([, x]) => x) : Object.fromEntries(entries);
  };
  return arrays(root) as Params;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Params)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

const invalid = (message: string, extra: Params = {}, status = 400): Result => ({ status, body: { error: { type: 'invalid_request_error', message, ...extra } }, keep: false });
const missing = (param: string) => invalid(`Missing required param: ${param}.`, { code: 'parameter_missing', param });
const noSuch = (what: string, id: string, param?: string, status = 400) =>
  invalid(`No such ${what}: '${id}'`, { code: 'resource_missing', ...(param ? { param } : {}) }, status);
const ok = (body: unknown): Result => ({ status: 200, body, keep: true });

function maskKey(key: string): string {
  return `${key.slice(0, key.indexOf('_', 3) + 1)}****${key.slice(-4)}`;
}

export class StripeFake {
  private readonly accounts = new Map<string, Account>();
  private clock = () => Math.floor(Date.now() / 1000);

  /** A new, empty account and its keys (test or live mode). */
  createAccount(options: { live?: boolean } = {}): FakeAccountKeys {
    const mode = options.live ? 'live' : 'test';
    const suffix = randomId('x', 24).slice(2);
    const keys = { secretKey: `sk_${mode}_${suffix}`, publishableKey: `pk_${mode}_${suffix}`, restrictedKey: `rk_${mode}_${suffix}` };
    const account: Account = {
      keys,
      livemode: !!options.live,
      customers: new Map(),
      paymentMethods: new Map(),
      behaviours: new Map(),
      paymentIntents: new Map(),
      charges: new Map(),
      balanceTransactions: new Map(),
      refunds: new Map(),
      idempotency: new Map(),
      calls: [],
      faults: [],
    };
    this.accounts.set(keys.secretKey, account);
    this.accounts.set(keys.restrictedKey, account);
    return keys;
  }

  /** The requests an account received, in order (control requests excluded). */
  calls(secretKey: string): FakeCall[] {
    return this.account(secretKey).calls;
  }

  /** The account's objects, as Stripe would return them. */
  objects(secretKey: string) {
    const a = this.account(secretKey);
    return {
      customers: [...a.customers.values()],
      paymentMethods: [...a.paymentMethods.values()],
      paymentIntents: [...a.paymentIntents.values()],
      charges: [...a.charges.values()],
      refunds: [...a.refunds.values()],
    };
  }

  addFault(secretKey: string, fault: FakeFault): void {
    this.account(secretKey).faults.push({ ...fault, times: fault.times ?? 1 });
  }

  private account(secretKey: string): Account {
    const a = this.accounts.get(secretKey);
    if (!a) throw new Error('No such fake Stripe account.');
    return a;
  }

  /** The handler: Stripe's API and the /__fake/ control endpoints. */
  readonly fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const key = this.keyOf(request);
    if (url.pathname.startsWith('/__fake/')) return this.control(request, url, key);
    if (key?.startsWith('pk_')) return this.clientRequest(request, url, key);
    const account = key ? this.accounts.get(key) : undefined;
    if (!account) {
      const message = key ? `Invalid API Key provided: ${maskKey(key)}` : 'You did not provide an API key.';
      return Response.json({ error: { type: 'invalid_request_error', message } }, { status: 401 });
    }
    const method = request.method.toUpperCase();
    const params = decodeForm(method === 'POST' ? await request.text() : url.search.slice(1));
    const idempotencyKey = method === 'POST' ? request.headers.get('Idempotency-Key') : null;
    const call: FakeCall = { method, path: url.pathname, idempotencyKey, params, status: 0, replayed: false };
    account.calls.push(call);

    const fault = this.takeFault(account, method, url.pathname);
    if (fault?.mode === 'unavailable') return this.reply(call, { status: 500, body: apiError(), keep: false });

    const fingerprint = `${method} ${url.pathname} ${canonical(params)}`;
    const kept = idempotencyKey ? account.idempotency.get(idempotencyKey) : undefined;
    if (kept) {
      if (kept.fingerprint !== fingerprint) {
        return this.reply(call, {
          status: 400,
          body: { error: { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.` } },
          keep: false,
        });
      }
      call.replayed = true;
      return this.reply(call, { status: kept.status, body: kept.body, keep: false }, true);
    }

    let result = this.route(account, method, url.pathname, params);
    if (fault?.mode === 'error_after' && result.keep) result = { status: 500, body: apiError(), keep: true };
    if (idempotencyKey && result.keep) account.idempotency.set(idempotencyKey, { fingerprint, status: result.status, body: result.body });
    if (fault?.mode === 'lost') {
      call.status = result.status;
      throw new TypeError('Network connection lost (fake Stripe dropped the response).');
    }
    return this.reply(call, result);
  };

  /**
   * What Stripe.js asks with the publishable key: confirming a PaymentIntent with its client secret
   * (`POST /v1/payment_intents/{id}/confirm`), here after the payer's 3-D Secure challenge, whose
   * result the stand-in for Stripe.js sends as `three_d_secure_result` (succeeded | failed; a fake's
   * parameter, not Stripe's). Nothing else answers to a publishable key.
   */
  private async clientRequest(request: Request, url: URL, key: string): Promise<Response> {
    const account = [...this.accounts.values()].find((a) => a.keys.publishableKey === key);
    if (!account) return Response.json({ error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${maskKey(key)}` } }, { status: 401 });
    const m = /^\/v1\/payment_intents\/(pi_[A-Za-z0-9]+)\/confirm$/.exec(url.pathname);
    if (request.method !== 'POST' || !m) return Response.json({ error: { type: 'invalid_request_error', message: 'This API call cannot be made with a publishable API key.' } }, { status: 403 });
    const params = decodeForm(await request.text());
    const call: FakeCall = { method: 'POST', path: url.pathname, idempotencyKey: null, params: { ...params, client_secret: '[secret]' }, status: 0, replayed: false };
    account.calls.push(call);
    const pi = account.paymentIntents.get(m[1]!);
    if (!pi || params.client_secret !== pi.client_secret) return this.reply(call, noSuch('payment_intent', m[1]!, undefined, 404));
    if (pi.status !== 'requires_action') return this.reply(call, invalid(`This PaymentIntent's status is ${String(pi.status)}; it cannot be confirmed.`, { code: 'payment_intent_unexpected_state' }));
    const pm = account.paymentMethods.get(String(pi.payment_method))!;
    if (params.three_d_secure_result === 'succeeded') {
      const amount = pi.amount as number;
      const txn: StripeObject = { id: randomId('txn', 24), object: 'balance_transaction', amount, currency: pi.currency, fee: fakeFee(amount), net: amount - fakeFee(amount), type: 'charge', status: 'pending' };
      account.balanceTransactions.set(txn.id, txn);
      const charge = this.charge(account, pi, pm, 'succeeded', txn.id);
      Object.assign(pi, { status: 'succeeded', amount_received: amount, latest_charge: charge.id, next_action: null });
    } else {
      const error = { type: 'card_error', code: 'payment_intent_authentication_failure', message: 'We are unable to authenticate your payment method.' };
      Object.assign(pi, { status: 'requires_payment_method', next_action: null, last_payment_error: { ...error, payment_method: pm } });
    }
    return this.reply(call, ok(this.renderIntent(account, pi, [])));
  }

  private keyOf(request: Request): string | undefined {
    const auth = request.headers.get('Authorization') ?? '';
    if (auth.startsWith('Bearer ')) return auth.slice(7).trim();
    if (auth.startsWith('Basic ')) {
      try {
        return atob(auth.slice(6).trim()).split(':')[0];
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  private takeFault(account: Account, method: string, path: string): FakeFault | undefined {
    const i = account.faults.findIndex((f) => (!f.method || f.method.toUpperCase() === method) && (!f.path || path.startsWith(f.path)));
    if (i < 0) return undefined;
    const fault = account.faults[i]!;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) account.faults.splice(i, 1);
    return fault;
  }

  private reply(call: FakeCall, result: Result, replayed = false): Response {
    call.status = result.status;
    const headers: Record<string, string> = { 'Request-Id': randomId('req', 14) };
    if (replayed) headers['Idempotent-Replayed'] = 'true';
    return Response.json(result.body, { status: result.status, headers });
  }

  private async control(request: Request, url: URL, key: string | undefined): Promise<Response> {
    if (url.pathname === '/__fake/accounts' && request.method === 'POST') {
      const body = (await request.json().catch(() => ({}))) as { live?: boolean };
      return Response.json(this.createAccount({ live: !!body.live }));
    }
    const account = key ? this.accounts.get(key) : undefined;
    if (!account) return Response.json({ error: 'unknown account' }, { status: 401 });
    if (url.pathname === '/__fake/calls') return Response.json({ calls: account.calls });
    if (url.pathname === '/__fake/objects') return Response.json(this.objects(account.keys.secretKey));
    if (url.pathname === '/__fake/faults' && request.method === 'POST') {
      this.addFault(account.keys.secretKey, (await request.json()) as FakeFault);
      return Response.json({ ok: true });
    }
    return Response.json({ error: 'unknown control endpoint' }, { status: 404 });
  }

  // ---------------------------------------------------------------------------------------------
  // Stripe's endpoints

  private route(a: Account, method: string, path: string, p: Params): Result {
    const seg = path.split('/').filter(Boolean);
    if (seg[0] !== 'v1') return invalid(`Unrecognized request URL (${method}: ${path}).`, {}, 404);
    const [, resource, id, action] = seg;
    if (method === 'GET' && resource === 'balance' && !id) {
      return ok({ object: 'balance', livemode: a.livemode, available: [{ amount: 0, currency: 'eur', source_types: { card: 0 } }], pending: [{ amount: 0, currency: 'eur', source_types: { card: 0 } }] });
    }
    if (resource === 'customers') {
      if (method === 'POST' && !id) return this.createCustomer(a, p);
      if (method === 'GET' && id && !action) return a.customers.has(id) ? ok(a.customers.get(id)) : noSuch('customer', id, undefined, 404);
    }
    if (resource === 'payment_methods' && id) {
      if (method === 'POST' && action === 'attach') return this.attach(a, id, p);
      if (method === 'GET' && !action) return a.paymentMethods.has(id) ? ok(a.paymentMethods.get(id)) : noSuch('PaymentMethod', id, undefined, 404);
    }
    if (resource === 'payment_intents') {
      if (method === 'GET' && !id) {
        const limit = Math.min(100, Number(p.limit ?? 10) || 10);
        const data = [...a.paymentIntents.values()].reverse().slice(0, limit).map((pi) => this.renderIntent(a, pi, []));
        return ok({ object: 'list', data, has_more: a.paymentIntents.size > limit, url: '/v1/payment_intents' });
      }
      if (method === 'POST' && !id) return this.createIntent(a, p);
      if (method === 'GET' && id && !action) {
        const pi = a.paymentIntents.get(id);
        return pi ? ok(this.renderIntent(a, pi, expandList(p))) : noSuch('payment_intent', id, undefined, 404);
      }
    }
    if (resource === 'refunds') {
      if (method === 'POST' && !id) return this.createRefund(a, p);
      if (method === 'GET' && id && !action) return a.refunds.has(id) ? ok(a.refunds.get(id)) : noSuch('refund', id, undefined, 404);
    }
    return invalid(`Unrecognized request URL (${method}: ${path}).`, {}, 404);
  }

  private createCustomer(a: Account, p: Params): Result {
    const customer: StripeObject = {
      id: randomId('cus', 14),
      object: 'customer',
      created: this.clock(),
      email: typeof p.email === 'string' ? p.email : null,
      name: typeof p.name === 'string' ? p.name : null,
      description: typeof p.description === 'string' ? p.description : null,
      metadata: (p.metadata as Params) ?? {},
      livemode: a.livemode,
    };
    a.customers.set(customer.id, customer);
    return ok(customer);
  }

  /** A test alias (pm_card_visa…) becomes a new PaymentMethod; a known id is itself. */
  private paymentMethod(a: Account, id: string): StripeObject | undefined {
    const known = a.paymentMethods.get(id);
    if (known) return known;
    const behaviour = TEST_PAYMENT_METHODS[id];
    if (!behaviour || a.livemode) return undefined;
    const pm: StripeObject = {
      id: randomId('pm', 24),
      object: 'payment_method',
      type: 'card',
      created: this.clock(),
      customer: null,
      livemode: false,
      metadata: {},
      billing_details: { address: null, email: null, name: null, phone: null },
      card: { brand: behaviour.brand, last4: behaviour.last4, exp_month: FAKE_CARD_EXPIRY.month, exp_year: FAKE_CARD_EXPIRY.year, country: 'US', funding: 'credit' },
    };
    a.paymentMethods.set(pm.id, pm);
    a.behaviours.set(pm.id, behaviour);
    return pm;
  }

  private attach(a: Account, id: string, p: Params): Result {
    if (typeof p.customer !== 'string') return missing('customer');
    const customer = a.customers.get(p.customer);
    if (!customer) return noSuch('customer', p.customer, 'customer');
    const pm = this.paymentMethod(a, id);
    if (!pm) return noSuch('PaymentMethod', id, undefined, 404);
    if (pm.customer && pm.customer !== customer.id) return invalid('The payment method you provided has already been attached to a customer.', { code: 'payment_method_unexpected_state' });
    pm.customer = customer.id;
    return ok(pm);
  }

  private createIntent(a: Account, p: Params): Result {
    if (p.amount === undefined) return missing('amount');
    if (typeof p.amount !== 'string' || !/^\d+$/.test(p.amount)) return invalid('Invalid integer: ' + String(p.amount), { code: 'parameter_invalid_integer', param: 'amount' });
    const amount = Number(p.amount);
    if (amount < 1) return invalid('This value must be greater than or equal to 1.', { code: 'parameter_invalid_integer', param: 'amount' });
    if (typeof p.currency !== 'string') return missing('currency');
    if (!/^[a-z]{3}$/.test(p.currency)) return invalid(`Invalid currency: ${p.currency}.`, { param: 'currency' });
    const confirm = p.confirm === 'true';
    if (p.off_session === 'true' && !confirm) return invalid('off_session can only be used when confirm=true.', { param: 'off_session' });
    let customer: StripeObject | undefined;
    if (typeof p.customer === 'string') {
      customer = a.customers.get(p.customer);
      if (!customer) return noSuch('customer', p.customer, 'customer');
    }
    let pm: StripeObject | undefined;
    if (typeof p.payment_method === 'string') {
      pm = this.paymentMethod(a, p.payment_method);
      if (!pm) return noSuch('PaymentMethod', p.payment_method, 'payment_method');
      if (pm.customer && pm.customer !== customer?.id) return invalid('The provided PaymentMethod belongs to another Customer than the one given.', { param: 'payment_method' });
    } else if (confirm) {
      return invalid('You cannot confirm this PaymentIntent because it is missing a payment method.', { code: 'payment_intent_unexpected_state' });
    }
    const id = randomId('pi', 24);
    const pi: StripeObject = {
      id,
      object: 'payment_intent',
      amount,
      amount_received: 0,
      currency: p.currency,
      customer: customer?.id ?? null,
      payment_method: pm?.id ?? null,
      payment_method_types: Array.isArray(p.payment_method_types) ? p.payment_method_types : ['card'],
      description: typeof p.description === 'string' ? p.description : null,
      metadata: (p.metadata as Params) ?? {},
      client_secret: `${id}_secret_${randomId('x', 24).slice(2)}`,
      confirmation_method: 'automatic',
      capture_method: 'automatic',
      created: this.clock(),
      livemode: a.livemode,
      latest_charge: null,
      last_payment_error: null,
      next_action: null,
      cancellation_reason: null,
      status: pm ? 'requires_confirmation' : 'requires_payment_method',
    };
    a.paymentIntents.set(id, pi);
    if (!confirm || !pm) return ok(this.renderIntent(a, pi, expandList(p)));

    const behaviour = a.behaviours.get(pm.id) ?? TEST_PAYMENT_METHODS.pm_card_visa!;
    if (behaviour.outcome === 'succeed') {
      const txn: StripeObject = { id: randomId('txn', 24), object: 'balance_transaction', amount, currency: p.currency, fee: fakeFee(amount), net: amount - fakeFee(amount), type: 'charge', status: 'pending' };
      a.balanceTransactions.set(txn.id, txn);
      const charge = this.charge(a, pi, pm, 'succeeded', txn.id);
      Object.assign(pi, { status: 'succeeded', amount_received: amount, latest_charge: charge.id });
      return ok(this.renderIntent(a, pi, expandList(p)));
    }
    if (behaviour.outcome === 'authenticate' && p.off_session !== 'true') {
      Object.assign(pi, { status: 'requires_action', next_action: { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect' } } });
      return ok(this.renderIntent(a, pi, expandList(p)));
    }
    const error: Params =
      behaviour.outcome === 'authenticate'
        ? { type: 'card_error', code: 'authentication_required', decline_code: 'authentication_required', message: 'Your card was declined. This transaction requires authentication.' }
        : { type: 'card_error', code: behaviour.code, ...(behaviour.declineCode ? { decline_code: behaviour.declineCode } : {}), message: behaviour.message };
    const charge = behaviour.outcome === 'decline' ? this.charge(a, pi, pm, 'failed', null, error) : undefined;
    Object.assign(pi, { status: 'requires_payment_method', latest_charge: charge?.id ?? null, last_payment_error: { ...error, payment_method: pm } });
    return {
      status: 402,
      body: { error: { ...error, ...(charge ? { charge: charge.id } : {}), doc_url: `https://docs.stripe.com/error-codes/${String(error.code).replaceAll('_', '-')}`, payment_intent: this.renderIntent(a, pi, []), payment_method: pm } },
      keep: true,
    };
  }

  private charge(a: Account, pi: StripeObject, pm: StripeObject, status: 'succeeded' | 'failed', balanceTransaction: string | null, error?: Params): StripeObject {
    const charge: StripeObject = {
      id: randomId('ch', 24),
      object: 'charge',
      amount: pi.amount,
      amount_captured: status === 'succeeded' ? pi.amount : 0,
      amount_refunded: 0,
      currency: pi.currency,
      customer: pi.customer,
      payment_intent: pi.id,
      payment_method: pm.id,
      paid: status === 'succeeded',
      refunded: false,
      status,
      balance_transaction: balanceTransaction,
      failure_code: error?.code ?? null,
      failure_message: error?.message ?? null,
      created: this.clock(),
      livemode: a.livemode,
    };
    a.charges.set(charge.id, charge);
    return charge;
  }

  private renderIntent(a: Account, pi: StripeObject, expand: string[]): StripeObject {
    const out: StripeObject = { ...pi };
    if (typeof pi.latest_charge === 'string' && (expand.includes('latest_charge') || expand.includes('latest_charge.balance_transaction'))) {
      const charge: StripeObject = { ...a.charges.get(pi.latest_charge)! };
      if (expand.includes('latest_charge.balance_transaction') && typeof charge.balance_transaction === 'string') {
        charge.balance_transaction = a.balanceTransactions.get(charge.balance_transaction) ?? charge.balance_transaction;
      }
      out.latest_charge = charge;
    }
    return out;
  }

  private createRefund(a: Account, p: Params): Result {
    let pi: StripeObject | undefined;
    if (typeof p.payment_intent === 'string') {
      pi = a.paymentIntents.get(p.payment_intent);
      if (!pi) return noSuch('payment_intent', p.payment_intent, 'payment_intent');
    } else if (typeof p.charge === 'string') {
      const ch = a.charges.get(p.charge);
      if (!ch) return noSuch('charge', p.charge, 'charge');
      pi = a.paymentIntents.get(String(ch.payment_intent));
    } else {
      return invalid('One of the following params should be provided for this request: payment_intent or charge.', { code: 'parameter_missing' });
    }
    const charge = pi && typeof pi.latest_charge === 'string' ? a.charges.get(pi.latest_charge) : undefined;
    if (!pi || !charge || pi.status !== 'succeeded') return invalid('This PaymentIntent does not have a successful charge to refund.', { code: 'charge_not_refundable', param: 'payment_intent' });
    const remaining = (charge.amount as number) - (charge.amount_refunded as number);
    if (remaining <= 0) return invalid(`Charge ${charge.id} has already been refunded.`, { code: 'charge_already_refunded' });
    const amount = p.amount === undefined ? remaining : typeof p.amount === 'string' && /^\d+$/.test(p.amount) ? Number(p.amount) : Number.NaN;
    if (!Number.isSafeInteger(amount) || amount < 1) return invalid('Invalid integer: ' + String(p.amount), { code: 'parameter_invalid_integer', param: 'amount' });
    if (amount > remaining) return invalid(`Refund amount (${amount}) is greater than unrefunded amount on charge (${remaining})`, { code: 'amount_too_large', param: 'amount' });
    const refund: StripeObject = {
      id: randomId('re', 24),
      object: 'refund',
      amount,
      currency: pi.currency,
      charge: charge.id,
      payment_intent: pi.id,
      metadata: (p.metadata as Params) ?? {},
      reason: typeof p.reason === 'string' ? p.reason : null,
      status: 'succeeded',
      created: this.clock(),
    };
    a.refunds.set(refund.id, refund);
    charge.amount_refunded = (charge.amount_refunded as number) + amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    return ok(refund);
  }
}

/** Stripe's list of paths to expand, as `expand[0]=…` decodes. */
function expandList(p: Params): string[] {
  const e = p.expand;
  if (Array.isArray(e)) return e.filter((x): x is string => typeof x === 'string');
  return typeof e === 'string' ? [e] : [];
}

/** A card fee like Stripe's standard pricing: 2.9 % + 30 minor units, rounded half up. */
export function fakeFee(amount: number): number {
  return Math.floor((amount * 29 + 500) / 1000) + 30;
}

function apiError() {
  return { error: { type: 'api_error', message: 'An unknown error occurred' } };
}
