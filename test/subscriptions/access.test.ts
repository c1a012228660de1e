import { describe, expect, it } from 'vitest';
import { api, countRows, expectProblem, get, post, violations } from '../support/api';
import { keyWith, ok, refusedUnchanged } from '../support/builders';
import { activeSubscription, draftBody, item, setup, storedSubscription, usage } from './builders';

// Permissions and tenant isolation of subscriptions, items, usage, features and entitlements.
// Storage is shared by every test file, so every test works in a fresh tenant of its own with its
// test clock set first. Tenant isolation of every route is proven in
// test/auth/tenant-isolation.test.ts.

describe('auth and tenant isolation', () => {
  it('writes need subscription:write (403), reads subscription:read; features and entitlements their own permissions', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const sub = await activeSubscription(f);
    const itemId = sub.items[0].id;
    const reader = await keyWith(t, ['subscription:read']);
    const s = `/subscriptions/${sub.id}`;
    const writes: [string, string, unknown?][] = [
      ['POST', '/subscriptions', draftBody(f)],
      ['POST', '/subscriptions/from-plan', { customer: customer.id, planCode: c.plan.code }],
      ['PUT', s, draftBody(f, { name: 'x' })],
      ['DELETE', s],
      ['PUT', `${s}/activate`, {}],
      ['PUT', `${s}/pause`],
      ['PUT', `${s}/resume`, {}],
      ['PUT', `${s}/cancel`, { cancellationDateType: 'immediate' }],
      ['PUT', `${s}/revoke-cancellation`],
      ['PUT', `${s}/terminate`],
      ['PUT', `${s}/extend-trial`, { trialDays: 1 }],
      ['PUT', `${s}/revoke-trial`],
      ['PUT', `${s}/invoice-address`, { invoiceAddress: null }],
      ['PATCH', `${s}/payment-method`, { paymentMethodId: null }],
      ['POST', `${s}/products`, { products: [item(c.storage, c.storageMonthly)] }],
      ['POST', `${s}/comments`, { text: 'x' }],
      ['PUT', `/subscription-items/${itemId}`, { name: 'x' }],
      ['PUT', `/subscription-items/${itemId}/quantity`, { quantity: '2' }],
      ['PUT', `/subscription-items/${itemId}/cancel`],
      ['POST', '/subscriptions/measurements', { events: [{ id: 'e', subscriptionItem: itemId, quantity: '1' }] }],
    ];
    for (const [method, path, body] of writes) {
      const res = await refusedUnchanged(t, storedSubscription(t, sub.id), () => api(path, { token: reader, method, ...(body === undefined ? {} : { body }) }));
      expect(res.status, `${method} ${path}`).toBe(403);
      expectProblem(res, 403, '/problems/forbidden');
    }
    const reads = [
      '/subscriptions',
      s,
      `${s}/comments`,
      `${s}/estimated-amount`,
      `${s}/entitlements`,
      `/subscription-items/${itemId}`,
      `/subscription-items/${itemId}/measurement-values`,
      `/subscription-items/${itemId}/current-measurement-value`,
    ];
    for (const path of reads) expect((await api(path, { token: reader })).status, path).toBe(200);

    const stranger = await keyWith(t, ['customer:read']);
    for (const path of reads) expect((await api(path, { token: stranger })).status, path).toBe(403);
    const writer = await keyWith(t, ['subscription:write']);
    expect((await api('/subscriptions', { token: writer, body: draftBody(f) })).status).toBe(201);
    expect((await api('/entitlement/features', { token: writer, body: { code: 'sso', name: 'SSO', type: 'switch' } })).status).toBe(403);
    expect((await api(`/customers/${customer.id}/entitlements?feature=sso`, { token: writer })).status).toBe(403);
    const entitlementReader = await keyWith(t, ['entitlement:read']);
    expect((await api(`/customers/${customer.id}/entitlements?feature=sso`, { token: entitlementReader })).status).toBe(200);
    expect((await api('/subscriptions', { token: null })).status).toBe(401);
  });

  it("another tenant's subscriptions, items and customers are 404 and its usage is not accepted", async () => {
    const a = await setup();
    const sub = await activeSubscription(a, { items: [item(a.c.pro, a.c.proMonthly), item(a.c.api, a.c.apiMetered)] });
    const itemId = sub.items[1].id;
    const b = await setup();
    const { t } = b;
    const eventsOfA = await countRows('events', a.t);
    const s = `/subscriptions/${sub.id}`;
    const requests: [string, string, unknown?][] = [
      ['GET', s],
      ['PUT', s, draftBody(b)],
      ['DELETE', s],
      ['PUT', `${s}/activate`, {}],
      ['PUT', `${s}/pause`],
      ['PUT', `${s}/resume`, {}],
      ['PUT', `${s}/cancel`, { cancellationDateType: 'immediate' }],
      ['PUT', `${s}/revoke-cancellation`],
      ['PUT', `${s}/terminate`],
      ['PUT', `${s}/extend-trial`, { trialDays: 1 }],
      ['PUT', `${s}/revoke-trial`],
      ['PUT', `${s}/invoice-address`, { invoiceAddress: null }],
      ['PATCH', `${s}/payment-method`, { paymentMethodId: null }],
      ['POST', `${s}/products`, { products: [item(b.c.storage, b.c.storageMonthly)] }],
      ['POST', `${s}/comments`, { text: 'x' }],
      ['GET', `${s}/comments`],
      ['GET', `${s}/estimated-amount`],
      ['GET', `${s}/entitlements`],
      ['GET', `/subscription-items/${itemId}`],
      ['PUT', `/subscription-items/${itemId}`, { name: 'x' }],
      ['PUT', `/subscription-items/${itemId}/quantity`, { quantity: '2' }],
      ['PUT', `/subscription-items/${itemId}/cancel`],
      ['GET', `/subscription-items/${itemId}/measurement-values`],
      ['GET', `/subscription-items/${itemId}/current-measurement-value`],
      ['GET', `/customers/${a.customer.id}/entitlements?feature=sso`],
    ];
    for (const [method, path, body] of requests) {
      const res = await api(path, { token: t.key, method, ...(body === undefined ? {} : { body }) });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(404);
    }
    expect((await ok(get(t, `/subscriptions?id=${sub.id}`))).data).toEqual([]);
    expect((await ok(get(t, `/subscriptions?customer=${a.customer.id}`))).data).toEqual([]);
    const usageRes = await ok(
      usage(t, [
        { id: 'x1', subscriptionItem: itemId, quantity: '1' },
        { id: 'x2', customer: a.customer.id, measurement: 'api-calls', quantity: '1' },
      ]),
    );
    expect(usageRes).toMatchObject({ accepted: 0, rejected: [{ index: 0 }, { index: 1 }] });
    expect(violations(await post(t, '/subscriptions', { customer: a.customer.id, items: [item(a.c.pro, a.c.proMonthly)] })).sort()).toEqual([
      'customer: not_found',
      'items[0].pricePlan: not_found',
      'items[0].product: not_found',
    ]);
    expect(await countRows('events', a.t)).toBe(eventsOfA);
    expect(await countRows('usage_events', a.t)).toBe(0);
    expect((await ok(get(a.t, s))).status).toBe('active');
  });
});
