import { describe, expect, it } from 'vitest';
import { eventsOf, get, query, type TestTenant } from '../support/api';
import { createCustomer, createTenant, setClock } from '../support/builders';
import { contextOf } from '../documents/builders';
import { ApiError } from '../../src/http/errors';
import type { ServiceContext } from '../../src/services/context';
import { createPaymentMethod } from '../../src/services/payments/methods-create';
import { expirePaymentMethods } from '../../src/services/payments/methods-expiry';
import { GatewayUnavailableError, type AttachedCard, type GatewayCustomer, type PaymentGateway } from '../../src/services/ports/gateways/port';
import { sepaMethod, testingMethod } from './builders';

// Cards through a configured card gateway (a stand-in for the Stripe adapter behind the port) and
// the nightly expiry. The HTTP layer has no card gateway without a stored key, so these call the
// service with a context whose `card_provider` is the stand-in; what they store is read back
// through the API.

interface Attach {
  token: string;
  customer: GatewayCustomer;
  idempotencyKey: string;
}

/** A card gateway that answers `attachCard` with `answer` and records the calls. */
function cardGateway(answer: (token: string) => AttachedCard | Error) {
  const calls: Attach[] = [];
  const gateway: PaymentGateway = {
    name: 'card_provider',
    charge: () => Promise.reject(new Error('not in these tests')),
    refund: () => Promise.reject(new Error('not in these tests')),
    chargeStatus: () => Promise.reject(new Error('not in these tests')),
    async attachCard(token, customer, idempotencyKey) {
      calls.push({ token, customer, idempotencyKey });
      const out = answer(token);
      if (out instanceof Error) throw out;
      return out;
    },
  };
  return { gateway, calls };
}

const visa = (expMonth = 12, expYear = 2030): AttachedCard => ({ token: 'cus_123/pm_456', brand: 'visa', last4: '4242', expMonth, expYear, cardHolder: 'Erika Mustermann' });

async function withCardGateway(t: TestTenant, gateway: PaymentGateway): Promise<ServiceContext> {
  const ctx = await contextOf(t);
  return { ...ctx, gateways: { get: async (name) => (name === 'card_provider' ? gateway : ctx.gateways.get(name)) } };
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

const stored = async (t: TestTenant, id: string) => (await query<Record<string, any>>(t, 'SELECT * FROM payment_methods WHERE tenant_id = ? AND id = ?', t.id, id))[0]!;

describe('cards through the card gateway', () => {
  it('binds the card to the customer and keeps its token secret; expiry is the end of the expiry month', async () => {
    const t = await createTenant();
    await setClock(t, '2026-03-10T10:00:00Z');
    const c = await createCustomer(t, { firstName: 'Erika', lastName: 'Mustermann' });
    const { gateway, calls } = cardGateway(() => visa());
    const m = await createPaymentMethod(await withCardGateway(t, gateway), { customer: c.id, type: 'card', token: 'pm_456' });
    expect(calls).toEqual([{ token: 'pm_456', customer: { id: c.id, email: c.email, name: 'Erika Mustermann' }, idempotencyKey: `attach-card:${c.id}:pm_456` }]);
    const shown = (await get(t, `/payment-methods/${m.id}`)).body;
    expect(shown).toEqual(m);
    expect(shown).toMatchObject({
      gatewayName: 'card_provider',
      type: 'card',
      status: 'active',
      name: 'Visa •••• 4242',
      referenceId: null,
      default: true,
      expirationDate: '2030-12-31T23:59:59.999Z',
      sepaMandate: null,
      card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030, cardHolder: 'Erika Mustermann' },
    });
    expect(shown).not.toHaveProperty('sepaDebit');
    expect(await stored(t, m.id)).toMatchObject({ gateway_token: 'cus_123/pm_456', expires_at: '2030-12-31T23:59:59.999Z', reference_id: null });
    for (const body of [shown, await eventsOf(t, m.id)]) expect(JSON.stringify(body)).not.toMatch(/pm_456|cus_123/);
  });

  it.each<[string, Error | AttachedCard, number, string]>([
    ['a refused token is 422 on token', new Error('No such PaymentMethod: pm_bad'), 422, 'token'],
    ['an unreachable gateway is 503', new GatewayUnavailableError('timeout'), 503, ''],
    ['a card that already expired is 422 on token', visa(2, 2026), 422, 'token'],
  ])('%s; nothing is written', async (_name, answer, status, path) => {
    const t = await createTenant();
    await setClock(t, '2026-03-10T10:00:00Z');
    const c = await createCustomer(t);
    const { gateway } = cardGateway(() => answer);
    const err = await rejection(createPaymentMethod(await withCardGateway(t, gateway), { customer: c.id, type: 'card', token: 'pm_bad' }));
    expect(err.status).toBe(status);
    expect((err.violations ?? []).map((v) => v.propertyPath)).toEqual(path ? [path] : []);
    // The client's token is not echoed back in the message.
    expect(err.message).not.toContain('pm_bad');
    expect(await query(t, 'SELECT id FROM payment_methods WHERE tenant_id = ?', t.id)).toEqual([]);
    expect((await eventsOf(t)).filter((e) => e.type.startsWith('payment_method.'))).toEqual([]);
  });

  it('is not called for a request that fails its checks', async () => {
    const t = await createTenant();
    const { gateway, calls } = cardGateway(() => visa());
    const err = await rejection(createPaymentMethod(await withCardGateway(t, gateway), { customer: 'unknown', type: 'card', token: 'pm_1' }));
    expect(err.violations?.map((v) => v.propertyPath)).toEqual(['customer']);
    expect(calls).toEqual([]);
  });
});

describe('expirePaymentMethods (nightly)', () => {
  it('marks active cards expired once their expiry month has ended, once, with payment_method.updated', async () => {
    const t = await createTenant();
    await setClock(t, '2030-12-15T10:00:00Z');
    const c = await createCustomer(t);
    const ctx = await withCardGateway(t, cardGateway((token) => (token === 'pm_dec' ? visa(12, 2030) : visa(1, 2031))).gateway);
    const december = await createPaymentMethod(ctx, { customer: c.id, type: 'card', token: 'pm_dec' });
    const january = await createPaymentMethod(ctx, { customer: c.id, type: 'card', token: 'pm_jan' });
    const revoked = await createPaymentMethod(ctx, { customer: c.id, type: 'card', token: 'pm_dec' });
    await query(t, 'UPDATE payment_methods SET status = ? WHERE id = ?', 'revoked', revoked.id);
    const sepa = await sepaMethod(t, c.id);
    const testing = await testingMethod(t, c.id);

    expect(await expirePaymentMethods(await contextOf(t))).toBe(0);
    await setClock(t, '2030-12-31T23:59:59.999Z');
    expect(await expirePaymentMethods(await contextOf(t))).toBe(0);
    await setClock(t, '2031-01-01T00:00:00Z');
    expect(await expirePaymentMethods(await contextOf(t))).toBe(1);
    expect(await expirePaymentMethods(await contextOf(t))).toBe(0);

    const statuses = await Promise.all([december, january, revoked, sepa, testing].map(async (m) => (await get(t, `/payment-methods/${m.id}`)).body.status));
    expect(statuses).toEqual(['expired', 'active', 'revoked', 'active', 'active']);
    const expired = (await get(t, `/payment-methods/${december.id}`)).body;
    expect((await eventsOf(t, december.id)).map((e) => e.type)).toEqual(['payment_method.created', 'payment_method.updated']);
    expect((await eventsOf(t, december.id))[1]!.data).toEqual(expired);
    expect(await stored(t, december.id)).toMatchObject({ updated_at: '2031-01-01T00:00:00.000Z' });

    await setClock(t, '2031-02-01T00:00:00Z');
    expect(await expirePaymentMethods(await contextOf(t))).toBe(1);
    expect((await get(t, `/payment-methods/${january.id}`)).body.status).toBe('expired');
  });
});
