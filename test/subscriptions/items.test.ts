import { describe, expect, it } from 'vitest';
import { expectProblem, expectStatus, get, paths, post, put, violations } from '../support/api';
import { created, ok, refusedUnchanged, setClock } from '../support/builders';
import { activeSubscription, DEFAULT_NOW, draft, expectRefused, item, itemRows, nonBillingEventTypes, setup, storedSubscription } from './builders';

// The items of a subscription: ordering products (POST /subscriptions/{id}/products) and
// /subscription-items/{id}. Storage is shared by every test file, so every test works in a fresh
// tenant of its own with its test clock set first.

describe('POST /subscriptions/{id}/products', () => {
  it('adds an add-on now, a later add-on as pending (active when the clock passes its start) and a one-time charge', async () => {
    const f = await setup();
    const { t, c } = f;
    const sub = await activeSubscription(f);
    await setClock(t, '2030-01-20T00:00:00.000Z');
    const now = await created(post(t, `/subscriptions/${sub.id}/products`, { products: [item(c.storage, c.storageMonthly, '2')] }));
    expect(now.items).toHaveLength(2);
    expect(now.items[1]).toMatchObject({ type: 'addon', status: 'active', activatedAt: '2030-01-20T00:00:00.000Z', quantity: '2', product: { id: c.storage.id }, startDate: null });
    expect(await itemRows(t, sub.id)).toHaveLength(2);

    const later = await created(post(t, `/subscriptions/${sub.id}/products`, { startDate: '2030-02-01T00:00:00Z', products: [item(c.api, c.apiMetered)] }));
    const pending = later.items[2];
    expect(pending).toMatchObject({ type: 'addon', status: 'pending', activatedAt: null, startDate: '2030-02-01T00:00:00.000Z' });

    const charge = await created(post(t, `/subscriptions/${sub.id}/products`, { products: [item(c.setup, c.setupFee)] }));
    expect(charge.items[3]).toMatchObject({ type: 'charge', status: 'active', pricePlan: { id: c.setupFee.id, type: 'one_time', billingInterval: null } });

    await setClock(t, '2030-02-01T00:00:00.000Z');
    expect(await ok(get(t, `/subscription-items/${pending.id}`))).toMatchObject({ status: 'active', activatedAt: '2030-02-01T00:00:00.000Z' });
    expect((await itemRows(t, sub.id)).map((r) => r.status)).toEqual(['active', 'active', 'active', 'active']);

    const types = await nonBillingEventTypes(t, sub.id);
    expect(types.slice(3)).toEqual([
      'subscription.products.ordered',
      'entitlement.state.updated',
      'subscription.products.ordered',
      'entitlement.state.updated',
      'subscription.products.ordered',
      'entitlement.state.updated',
      'subscription.updated',
      'entitlement.state.updated',
    ]);
  });

  it('orders many products at once (the schema allows 50; here 10)', async () => {
    const f = await setup();
    const { t, c } = f;
    const sub = await activeSubscription(f);
    const ordered = await post(t, `/subscriptions/${sub.id}/products`, { products: Array.from({ length: 10 }, () => item(c.storage, c.storageMonthly)) });
    expectStatus(ordered, 201);
    expect(ordered.body.items).toHaveLength(11);
    expect(await itemRows(t, sub.id)).toHaveLength(11);
  });

  it('validates the order and adds pending items to a draft', async () => {
    const f = await setup();
    const { t, c } = f;
    const sub = await activeSubscription(f);
    const cases: [Record<string, unknown>, string[]][] = [
      [{ products: [item(c.pro, c.proUsd)] }, ['products: mixed_currencies']],
      [{ products: [{ product: 'nope', pricePlan: c.storageMonthly.id }] }, ['products[0].product: not_found']],
      [{ startDate: '2030-03-01T00:00:00Z', endDate: '2030-02-01T00:00:00Z', products: [item(c.storage, c.storageMonthly)] }, ['endDate: out_of_range']],
      [{ products: [] }, ['products: too_small']],
    ];
    for (const [body, expected] of cases) {
      const res = await refusedUnchanged(t, storedSubscription(t, sub.id), () => post(t, `/subscriptions/${sub.id}/products`, body));
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(violations(res).sort(), JSON.stringify(body)).toEqual(expected);
    }
    const d = await draft(f);
    const ordered = await created(post(t, `/subscriptions/${d.id}/products`, { products: [item(c.storage, c.storageMonthly)] }));
    expect(ordered.items[1]).toMatchObject({ type: 'addon', status: 'pending' });
    expect(await nonBillingEventTypes(t, d.id)).toEqual(['subscription.created', 'subscription.products.ordered']);
    const activated = await ok(put(t, `/subscriptions/${d.id}/activate`, {}));
    expect(activated.items.map((i: any) => i.status)).toEqual(['active', 'active']);
  });
});

describe('subscription items', () => {
  it('GET returns the item as embedded in the subscription; PUT changes its invoice texts', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f);
    const itemId = sub.items[0].id;
    expect(await ok(get(t, `/subscription-items/${itemId}`))).toEqual(sub.items[0]);
    expectProblem(await get(t, '/subscription-items/nope'), 404);

    await setClock(t, '2030-01-16T00:00:00.000Z');
    const texts = { name: 'Pro seats', description: 'Per seat and month', furtherInformation: 'Contract 4711' };
    const updated = await ok(put(t, `/subscription-items/${itemId}`, texts));
    expect(updated).toMatchObject({ ...texts, id: itemId, status: 'active', quantity: '1' });
    expect((await itemRows(t, sub.id))[0]).toMatchObject({
      name: 'Pro seats',
      description: 'Per seat and month',
      further_information: 'Contract 4711',
      updated_at: '2030-01-16T00:00:00.000Z',
    });
    expect(paths(await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscription-items/${itemId}`, { description: 'x' })))).toEqual(['name']);
    expect(paths(await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscription-items/${itemId}`, { name: 'x', quantity: '2' })))).toEqual(['quantity']);
    expect((await nonBillingEventTypes(t, sub.id)).slice(3)).toEqual(['subscription.updated']);
    // The answer is what a later GET shows, updatedAt included.
    expect((await ok(get(t, `/subscription-items/${itemId}`))).updatedAt).toBe('2030-01-16T00:00:00.000Z');
    expect(updated.updatedAt).toBe('2030-01-16T00:00:00.000Z');
    expect((await ok(get(t, `/subscriptions/${sub.id}`))).items[0]).toEqual(updated);
  });

  it('PUT quantity validates the quantity and is refused once the subscription ended', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f);
    const itemId = sub.items[0].id;
    expect(await ok(put(t, `/subscription-items/${itemId}/quantity`, { quantity: '5' }))).toMatchObject({ quantity: '5' });
    expect((await itemRows(t, sub.id))[0]!.quantity).toBe('5');
    expect(await ok(put(t, `/subscription-items/${itemId}/quantity`, { quantity: '2.5' }))).toMatchObject({ quantity: '2.5' });
    for (const quantity of ['0', '0.0000', 'abc', '-1', '1.12345', 3, '']) {
      const res = await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscription-items/${itemId}/quantity`, { quantity }));
      expect(res.status, String(quantity)).toBe(422);
      expect([...new Set(paths(res))], String(quantity)).toEqual(['quantity']);
    }
    expectProblem(await put(t, '/subscription-items/nope/quantity', { quantity: '2' }), 404);
    expect((await nonBillingEventTypes(t, sub.id)).slice(3)).toEqual(['subscription.updated', 'subscription.item.quantity_changed', 'subscription.updated', 'subscription.item.quantity_changed']);

    await ok(put(t, `/subscriptions/${sub.id}/terminate`));
    expectRefused(await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscription-items/${itemId}/quantity`, { quantity: '7' })), 'terminated');
  });

  it('PUT cancel: canceled until the end of the contract term, terminated when open-ended or pending', async () => {
    const f = await setup();
    const { t, c } = f;
    const sub = await activeSubscription(f, { periods: { contractPeriod: '12M' }, items: [item(c.pro, c.proMonthly), item(c.storage, c.storageMonthly)] });
    const canceled = await ok(put(t, `/subscription-items/${sub.items[1].id}/cancel`));
    expect(canceled).toMatchObject({ status: 'canceled', endDate: '2031-01-15T10:00:00.000Z' });
    expect((await itemRows(t, sub.id)).map((r) => [r.status, r.end_date])).toEqual([
      ['active', null],
      ['canceled', '2031-01-15T10:00:00.000Z'],
    ]);
    expectRefused(await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscription-items/${sub.items[1].id}/cancel`)), 'canceled');
    expectRefused(await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscription-items/${sub.items[1].id}/quantity`, { quantity: '3' })), 'canceled');
    expect((await nonBillingEventTypes(t, sub.id)).slice(3)).toEqual(['subscription.updated', 'entitlement.state.updated']);

    const open = await activeSubscription(f);
    expect(await ok(put(t, `/subscription-items/${open.items[0].id}/cancel`))).toMatchObject({ status: 'terminated', endDate: DEFAULT_NOW });

    const later = await created(post(t, `/subscriptions/${open.id}/products`, { startDate: '2030-03-01T00:00:00Z', products: [item(c.storage, c.storageMonthly)] }));
    expect(await ok(put(t, `/subscription-items/${later.items[1].id}/cancel`))).toMatchObject({ status: 'terminated', endDate: DEFAULT_NOW });

    // The canceled item ends when the clock reaches its end date; the subscription renews.
    await setClock(t, '2031-01-15T10:00:00.000Z');
    const renewed = await ok(get(t, `/subscriptions/${sub.id}`));
    expect(renewed).toMatchObject({ status: 'active', contractDetails: { contractEnd: '2032-01-15T10:00:00.000Z' } });
    expect(renewed.items.map((i: any) => i.status)).toEqual(['active', 'terminated']);
  });
});
