import { describe, expect, it } from 'vitest';
import { api, expect422, expectProblem, expectStatus, get, query, type TestTenant } from '../support/api';
import { createCustomer, createTenant, eventTypes } from '../support/builders';
import { paymentMethod } from '../subscriptions/builders';

// PATCH /customers/{id}/payment-method {paymentMethodId}: the n8n node's "Update Payment Method",
// sent as application/json. It chooses the default among the customer's payment methods.

const setDefault = (t: TestTenant, customerId: string, body: unknown, contentType = 'application/json') =>
  api(`/customers/${customerId}/payment-method`, { token: t.key, method: 'PATCH', body, contentType });

async function defaults(t: TestTenant, customerId: string) {
  return query<{ id: string }>(t, 'SELECT id FROM payment_methods WHERE tenant_id = ? AND customer_id = ? AND is_default = 1', t.id, customerId);
}

describe('PATCH /customers/{id}/payment-method', () => {
  it('makes the payment method the default, shows it on the customer, and keeps one default', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    expect(c.defaultPaymentMethod).toBeNull();
    const card = await paymentMethod(t, c.id, 'card', true);
    const sepa = await paymentMethod(t, c.id, 'sepa_debit');
    expect((await get(t, `/customers/${c.id}`)).body.defaultPaymentMethod).toMatchObject({ id: card, type: 'card', default: true });

    const res = await setDefault(t, c.id, { paymentMethodId: sepa });
    expectStatus(res, 200);
    // The full method (spec §2.2), as GET /payment-methods/{id} shows it, the IBAN masked.
    expect(res.body.defaultPaymentMethod).toEqual({ ...(await get(t, `/payment-methods/${sepa}`)).body, default: true });
    expect(res.body.defaultPaymentMethod).toMatchObject({ id: sepa, gatewayName: 'sepa_debit', type: 'sepa_debit', name: 'My sepa_debit', status: 'active', default: true, enabled: true });
    expect((await get(t, `/customers/${c.id}`)).body).toEqual(res.body);
    expect(await defaults(t, c.id)).toEqual([{ id: sepa }]);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created', 'customer.updated']);

    // As a merge patch too, and choosing the current default again is fine.
    expectStatus(await setDefault(t, c.id, { paymentMethodId: card }, 'application/merge-patch+json'), 200);
    expectStatus(await setDefault(t, c.id, { paymentMethodId: card }), 200);
    expect(await defaults(t, c.id)).toEqual([{ id: card }]);
  });

  it('422 for a payment method of another customer, of another tenant, or unknown; nothing changes', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const own = await paymentMethod(t, c.id, 'card', true);
    const other = await createCustomer(t);
    const othersCard = await paymentMethod(t, other.id, 'card', true);
    const foreignTenant = await createTenant();
    const foreignCard = await paymentMethod(foreignTenant, (await createCustomer(foreignTenant)).id, 'card', true);
    for (const id of [othersCard, foreignCard, 'unknown']) {
      expect422(await setDefault(t, c.id, { paymentMethodId: id }), ['paymentMethodId']);
    }
    expect(await defaults(t, c.id)).toEqual([{ id: own }]);
    expect(await defaults(t, other.id)).toEqual([{ id: othersCard }]);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
  });

  it('422 for a revoked payment method and for a malformed body; 404 for an unknown customer', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const revoked = await paymentMethod(t, c.id, 'card');
    await query(t, 'UPDATE payment_methods SET status = ? WHERE id = ?', 'revoked', revoked);
    expect422(await setDefault(t, c.id, { paymentMethodId: revoked }), ['paymentMethodId']);
    expect422(await setDefault(t, c.id, {}), ['paymentMethodId']);
    expect422(await setDefault(t, c.id, { paymentMethodId: revoked, extra: 1 }), ['extra']);
    expectProblem(await setDefault(t, 'unknown-id', { paymentMethodId: revoked }), 404);
  });
});
