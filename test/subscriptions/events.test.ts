import { describe, expect, it } from 'vitest';
import { del, eventsOf, patch, post, put, query, type ApiResponse } from '../support/api';
import { DEFAULT_NOW, defaultAddress, draft, item, nonBillingEventTypes, paymentMethod, setup } from './builders';

// The outbox events of a subscription over its life. Storage is shared by every test file, so every
// test works in a fresh tenant of its own with its test clock set first.

describe('events', () => {
  it('writes each change exactly once, in order, and nothing for refused changes', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const pm = await paymentMethod(t, customer.id, 'card');
    const d = await draft(f, { trialDays: 10 });
    const s = `/subscriptions/${d.id}`;
    const steps: [string, () => Promise<ApiResponse>, number, string[]][] = [
      ['activate', () => put(t, `${s}/activate`, {}), 200, ['subscription.activated', 'entitlement.state.updated']],
      ['activate again', () => put(t, `${s}/activate`, {}), 409, []],
      ['resume while active', () => put(t, `${s}/resume`, {}), 409, []],
      ['extend trial', () => put(t, `${s}/extend-trial`, { trialDays: 2 }), 200, ['subscription.trial_extended']],
      ['extend trial to an earlier date', () => put(t, `${s}/extend-trial`, { trialEndsOn: '2030-01-20T00:00:00Z' }), 422, []],
      ['revoke trial', () => put(t, `${s}/revoke-trial`), 200, ['subscription.trial_expired']],
      ['revoke trial again', () => put(t, `${s}/revoke-trial`), 409, []],
      ['payment method', () => patch(t, `${s}/payment-method`, { paymentMethodId: pm }), 200, ['subscription.payment_method.updated']],
      ['unknown payment method', () => patch(t, `${s}/payment-method`, { paymentMethodId: 'nope' }), 422, []],
      ['invoice address', () => put(t, `${s}/invoice-address`, { invoiceAddress: defaultAddress(customer).id }), 200, ['subscription.invoice_address.updated']],
      ['order products', () => post(t, `${s}/products`, { products: [item(c.storage, c.storageMonthly)] }), 201, ['subscription.products.ordered', 'entitlement.state.updated']],
      ['pause', () => put(t, `${s}/pause`), 200, ['subscription.paused']],
      ['pause again', () => put(t, `${s}/pause`), 409, []],
      ['order while paused', () => post(t, `${s}/products`, { products: [item(c.storage, c.storageMonthly)] }), 409, []],
      ['resume', () => put(t, `${s}/resume`, {}), 200, ['subscription.resumed']],
      ['cancel', () => put(t, `${s}/cancel`, { cancellationDateType: 'custom', cancellationDate: '2030-05-01T00:00:00Z' }), 200, ['subscription.canceled']],
      ['cancel again', () => put(t, `${s}/cancel`, { cancellationDateType: 'immediate' }), 409, []],
      ['revoke cancellation', () => put(t, `${s}/revoke-cancellation`), 200, ['subscription.cancellation_revoked']],
      ['revoke cancellation again', () => put(t, `${s}/revoke-cancellation`), 409, []],
      ['rename', () => put(t, s, { customer: customer.id, items: [item(c.pro, c.proMonthly)], trialDays: 10, paymentMethod: pm, invoiceAddress: defaultAddress(customer).id, name: 'Renamed' }), 200, ['subscription.updated']],
      ['terminate', () => put(t, `${s}/terminate`), 200, ['subscription.terminated', 'entitlement.state.updated']],
      ['terminate again', () => put(t, `${s}/terminate`), 409, []],
      ['delete', () => del(t, s), 409, []],
    ];
    expect(await nonBillingEventTypes(t, d.id)).toEqual(['subscription.created']);
    for (const [name, run, status, expected] of steps) {
      const before = (await eventsOf(t)).length;
      const res = await run();
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(status);
      const added = (await eventsOf(t)).slice(before);
      expect(added.map((e) => e.type), name).toEqual(expected);
      for (const e of added) expect(e.resourceId, name).toBe(d.id);
      if (added[0]) expect(added[0].data, name).toMatchObject({ id: d.id, status: res.body.status, updatedAt: res.body.updatedAt });
    }
    const rows = await query<{ version: string; created_at: string }>(t, 'SELECT version, created_at FROM events WHERE tenant_id = ?', t.id);
    expect(new Set(rows.map((r) => r.created_at))).toEqual(new Set([DEFAULT_NOW]));
    expect(rows.every((r) => typeof r.version === 'string' && r.version.length > 0)).toBe(true);
  });
});
