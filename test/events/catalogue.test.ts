import { describe, expect, it } from 'vitest';
import { api, post, put } from '../support/api';
import { created, createCustomer, createTenant, eventTypes, flatMonthlyFee, ok } from '../support/builders';

// Fynn's event names whose feature exists are emitted, next to our own (docs/decisions.md, Events
// and webhooks, lists those still waiting for their feature).

describe('Fynn events of existing features', () => {
  it('a quantity change, a price plan change and an invoice payment method change emit their Fynn events', async () => {
    const t = await createTenant();
    const { product, price } = await flatMonthlyFee(t, '5', 'P');
    const other = await created(post(t, '/price-plans', { product: product.id, calculationType: 'flat_fee', currencyCode: 'EUR', price: { amount: '7' }, billingInterval: '1M' }));
    const c = await createCustomer(t);
    const sub = await created(post(t, '/subscriptions', { customer: c.id, items: [{ product: product.id, pricePlan: price.id }] }));
    const itemId = sub.items[0].id;
    await ok(put(t, `/subscription-items/${itemId}/quantity`, { quantity: '2' }));
    expect((await eventTypes(t, sub.id)).slice(-2)).toEqual(['subscription.updated', 'subscription.item.quantity_changed']);
    await ok(put(t, `/subscription-items/${itemId}/price-plan`, { pricePlan: other.id }));
    expect((await eventTypes(t, sub.id)).slice(-2)).toEqual(['subscription.updated', 'subscription.changed']);

    const invoice = await created(post(t, '/invoices', { customer: c.id, positions: [{ name: 'Work', unitPrice: '10.00', taxRate: '19' }] }));
    const res = await api(`/invoices/${invoice.id}/payment-method`, { token: t.key, body: { paymentMethod: null } });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    expect((await eventTypes(t, invoice.id)).slice(-2)).toEqual(['invoice.updated', 'invoice.payment_method.updated']);
  });
});
