import { describe, expect, it } from 'vitest';
import { api, countRows, expect422, expectProblem, expectStatus, get, post, query, unique, type TestTenant } from '../support/api';
import { created, ok, setClock } from '../support/builders';
import { activeSubscription, addDays, DEFAULT_NOW, draft, item, setup, usage } from './builders';

// Usage (spec §2.7): measurement events (POST /subscriptions/measurements) and the values they add
// up to. Storage is shared by every test file, so every test works in a fresh tenant of its own
// with its test clock set first.

async function usageRows(t: TestTenant) {
  return query<Record<string, any>>(t, 'SELECT * FROM usage_events WHERE tenant_id = ? ORDER BY measured_at, event_id', t.id);
}

describe('POST /subscriptions/measurements', () => {
  async function usageFixture() {
    const f = await setup();
    const sub = await activeSubscription(f, { items: [item(f.c.pro, f.c.proMonthly), item(f.c.api, f.c.apiMetered)] });
    return { ...f, sub, seatsItem: sub.items[0].id, apiItem: sub.items[1].id };
  }

  it('reads a quantity sent as a JSON number from the request text, never through a float', async () => {
    const f = await usageFixture();
    const { t } = f;
    const send = (quantity: string) => api('/subscriptions/measurements', { token: t.key, method: 'POST', contentType: 'application/json', rawBody: `{"events":[{"id":"${unique('q')}","subscriptionItem":"${f.apiItem}","quantity":${quantity}}]}` });
    // 0.30000000000000001 is 0.3 as a float: read exactly, it has 17 decimals, more than 6.
    expect422(await send('0.30000000000000001'), ['events[0].quantity']);
    expect((await send('1234.5')).body).toMatchObject({ accepted: 1, rejected: [] });
    expect((await usageRows(t)).map((r) => r.quantity)).toEqual(['1234.5']);
  });

  it('stores events by subscription item and by customer + measurement code', async () => {
    const f = await usageFixture();
    const { t } = f;
    const res = await ok(
      usage(t, [
        { id: 'e1', subscriptionItem: f.apiItem, quantity: '10' },
        { id: 'e2', customer: f.customer.id, measurement: 'api-calls', quantity: 5, measuredAt: '2030-01-15T09:59:00Z' },
      ]),
    );
    expect(res).toEqual({ received: 2, accepted: 2, duplicates: 0, rejected: [] });
    expect(await usageRows(t)).toEqual([
      {
        tenant_id: t.id,
        event_id: 'e2',
        subscription_item_id: f.apiItem,
        measurement_id: f.c.apiCalls.id,
        quantity: '5',
        quantity_micros: 5_000_000,
        unique_id: null,
        measured_at: '2030-01-15T09:59:00.000Z',
        received_at: DEFAULT_NOW,
      },
      {
        tenant_id: t.id,
        event_id: 'e1',
        subscription_item_id: f.apiItem,
        measurement_id: f.c.apiCalls.id,
        quantity: '10',
        quantity_micros: 10_000_000,
        unique_id: null,
        measured_at: DEFAULT_NOW,
        received_at: DEFAULT_NOW,
      },
    ]);
  });

  it('counts an event id once: repeated in one batch, across batches and in 20 concurrent identical batches', async () => {
    const f = await usageFixture();
    const { t } = f;
    const ev = (id: string, quantity: string) => ({ id, subscriptionItem: f.apiItem, quantity });
    expect(await ok(usage(t, [ev('d1', '1'), ev('d1', '1'), ev('d2', '2')]))).toEqual({ received: 3, accepted: 2, duplicates: 1, rejected: [] });
    // A repeat with another quantity is still the same event: the first one stays.
    expect(await ok(usage(t, [ev('d1', '100'), ev('d3', '3')]))).toEqual({ received: 2, accepted: 1, duplicates: 1, rejected: [] });
    expect((await usageRows(t)).map((r) => [r.event_id, r.quantity])).toEqual([
      ['d1', '1'],
      ['d2', '2'],
      ['d3', '3'],
    ]);
    expect((await ok(get(t, `/subscription-items/${f.apiItem}/current-measurement-value`))).quantity).toBe('6');

    const batch = Array.from({ length: 50 }, (_, i) => ev(`c${i}`, '1'));
    const results = await Promise.all(Array.from({ length: 20 }, () => usage(t, batch)));
    for (const r of results) expectStatus(r, 200);
    expect(results.reduce((n, r) => n + r.body.accepted, 0)).toBe(50);
    expect(results.reduce((n, r) => n + r.body.duplicates, 0)).toBe(950);
    expect(await countRows('usage_events', t)).toBe(53);
    expect((await ok(get(t, `/subscription-items/${f.apiItem}/current-measurement-value`))).quantity).toBe('56');
  });

  it('rejects bad events one by one and keeps the good ones', async () => {
    const f = await usageFixture();
    const { t, c, customer } = f;
    const visitors = await created(post(t, '/measurements', { unit: c.unit.id, code: 'visitors', aggregationType: 'count_unique', type: 'metered' }));
    const product = await created(post(t, '/catalogue/products', { name: 'Visitors', type: 'product', productFamilies: [c.family.id], measurement: visitors.id, taxGroup: c.taxGroup.id }));
    const price = await created(post(t, '/price-plans', { product: product.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '0.01' }, billingInterval: '1M' }));
    const withVisitors = await created(post(t, `/subscriptions/${f.sub.id}/products`, { products: [item(product, price)] }));
    const visitorsItem = withVisitors.items[2].id;
    // A second live subscription with a `seats` item makes `seats` ambiguous for this customer;
    // a draft with API calls does not count.
    await activeSubscription(f, { items: [item(c.storage, c.storageMonthly)] });
    const drafted = await draft(f, { items: [item(c.api, c.apiMetered)] });

    const res = await ok(
      usage(t, [
        { id: 'ok-1', subscriptionItem: f.apiItem, quantity: '1' },
        { id: 'bad-item', subscriptionItem: 'nope', quantity: '1' },
        { id: 'ambiguous', customer: customer.id, measurement: 'seats', quantity: '3' },
        { id: 'no-unique', subscriptionItem: visitorsItem, quantity: '1' },
        { id: 'old', subscriptionItem: f.apiItem, quantity: '1', measuredAt: addDays(DEFAULT_NOW, -36) },
        { id: 'future', subscriptionItem: f.apiItem, quantity: '1', measuredAt: '2030-01-15T11:00:00Z' },
        { id: 'ok-2', customer: customer.id, measurement: 'api-calls', quantity: '2' },
        { id: 'no-code', customer: customer.id, measurement: 'nope', quantity: '1' },
        { id: 'draft-item', subscriptionItem: drafted.items[0].id, quantity: '1' },
        { id: 'ok-3', subscriptionItem: visitorsItem, quantity: '1', uniqueId: 'visitor-1' },
        { id: 'ok-4', subscriptionItem: f.apiItem, quantity: '1', measuredAt: addDays(DEFAULT_NOW, -34) },
      ]),
    );
    expect(res).toMatchObject({ received: 11, accepted: 4, duplicates: 0 });
    expect(res.rejected.map((r: any) => [r.index, r.id, r.violations.map((v: any) => `${v.propertyPath}: ${v.code}`)])).toEqual([
      [1, 'bad-item', ['events[1].subscriptionItem: not_found']],
      [2, 'ambiguous', ['events[2].subscriptionItem: ambiguous']],
      [3, 'no-unique', ['events[3].uniqueId: required']],
      [4, 'old', ['events[4].measuredAt: too_old']],
      [5, 'future', ['events[5].measuredAt: in_future']],
      [7, 'no-code', ['events[7].measurement: not_found']],
      [8, 'draft-item', ['events[8].subscriptionItem: not_found']],
    ]);
    expect((await usageRows(t)).map((r) => r.event_id).sort()).toEqual(['ok-1', 'ok-2', 'ok-3', 'ok-4']);
    // A rejected event did not use up its id.
    expect(await ok(usage(t, [{ id: 'old', subscriptionItem: f.apiItem, quantity: '1' }]))).toMatchObject({ accepted: 1, duplicates: 0 });
  });

  it('takes a batch of 10,000 events whole, and counts each of them once when it comes again with more', async () => {
    const f = await usageFixture();
    const { t } = f;
    const events = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: `big-${from + i}`, subscriptionItem: f.apiItem, quantity: String(1 + ((from + i) % 3)) }));
    expect(await ok(usage(t, events(0, 10_000)))).toEqual({ received: 10_000, accepted: 10_000, duplicates: 0, rejected: [] });
    expect(await countRows('usage_events', t)).toBe(10_000);
    // The last 5,000 again beside 5,000 new ones: only the new ones are stored.
    expect(await ok(usage(t, events(5_000, 10_000)))).toEqual({ received: 10_000, accepted: 5_000, duplicates: 5_000, rejected: [] });
    expect(await countRows('usage_events', t)).toBe(15_000);
    // 15,000 events of quantities 1, 2, 3 in turn: 5,000 of each.
    expect((await ok(get(t, `/subscription-items/${f.apiItem}/current-measurement-value`))).quantity).toBe('30000');
  });

  it('refuses a batch whose body is larger than 5 MiB with 413, storing nothing', async () => {
    const f = await usageFixture();
    const { t } = f;
    const padding = 'p'.repeat(200);
    const events = Array.from({ length: 10_000 }, (_, i) => ({ id: `${padding}-${i}`, subscriptionItem: f.apiItem, quantity: '1', uniqueId: padding, measurement: padding }));
    const res = await usage(t, events);
    expectProblem(res, 413);
    expect(await countRows('usage_events', t)).toBe(0);
  });

  it('refuses a malformed batch whole: more than 10,000 events, bad quantities, no target', async () => {
    const f = await usageFixture();
    const { t } = f;
    const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, subscriptionItem: f.apiItem, quantity: '1' }));
    const tooMany = await usage(t, many(10_001, 'x'));
    expect422(tooMany, ['events']);
    expect422(await usage(t, []), ['events']);
    expect(await countRows('usage_events', t)).toBe(0);
    expect(await ok(usage(t, many(1000, 'm')))).toMatchObject({ received: 1000, accepted: 1000, duplicates: 0 });
    expect(await countRows('usage_events', t)).toBe(1000);

    const good = await ok(
      usage(t, [
        { id: 'q1', subscriptionItem: f.apiItem, quantity: 2.5 },
        { id: 'q2', subscriptionItem: f.apiItem, quantity: '0.000001' },
        { id: 'q3', subscriptionItem: f.apiItem, quantity: 7 },
        { id: 'q4', subscriptionItem: f.apiItem, quantity: '999999999.999999' },
        { id: 'q5', subscriptionItem: f.apiItem, quantity: '0' },
      ]),
    );
    expect(good.accepted).toBe(5);
    const stored = await query<{ event_id: string; quantity: string; quantity_micros: number }>(
      t,
      "SELECT event_id, quantity, quantity_micros FROM usage_events WHERE tenant_id = ? AND event_id LIKE 'q%' ORDER BY event_id",
      t.id,
    );
    expect(stored.map((r) => [r.event_id, r.quantity, r.quantity_micros])).toEqual([
      ['q1', '2.5', 2_500_000],
      ['q2', '0.000001', 1],
      ['q3', '7', 7_000_000],
      ['q4', '999999999.999999', 999_999_999_999_999],
      ['q5', '0', 0],
    ]);

    const bad = ['1e3', '-1', '1.1234567', 1_000_000_000, '', 'abc', -2, '1,5'];
    const res = await usage(
      t,
      bad.map((quantity, i) => ({ id: `b${i}`, subscriptionItem: f.apiItem, quantity })),
    );
    expect422(res, bad.map((_, i) => `events[${i}].quantity`));
    expect422(await usage(t, [{ id: 'n1', quantity: '1' }]), ['events[0].subscriptionItem']);
    expect422(await usage(t, [{ id: 'n2', customer: f.customer.id, quantity: '1' }]), ['events[0].subscriptionItem']);
    expect422(await usage(t, [{ id: 'n3', subscriptionItem: f.apiItem, quantity: '1', colour: 'red' }]), ['events[0].colour']);
    expect422(await usage(t, [{ subscriptionItem: f.apiItem, quantity: '1' }]), ['events[0].id']);
    expect(await countRows('usage_events', t)).toBe(1005);
  });
});

describe('measurement values', () => {
  it('aggregates sum, max, count, count_unique, average and last_value per period; a recurring value carries over', async () => {
    const f = await setup();
    const { t, c } = f;
    const kinds = ['count', 'count_unique', 'max', 'average', 'last_value'] as const;
    const extra: Record<string, { product: any; price: any; measurement: any }> = {};
    for (const kind of kinds) {
      const measurement = await created(post(t, '/measurements', { unit: c.unit.id, code: `m-${kind}`, aggregationType: kind, type: 'metered' }));
      const product = await created(post(t, '/catalogue/products', { name: `By ${kind}`, type: 'product', productFamilies: [c.family.id], measurement: measurement.id, taxGroup: c.taxGroup.id }));
      const price = await created(post(t, '/price-plans', { product: product.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '1' }, billingInterval: '1M' }));
      extra[kind] = { product, price, measurement };
    }
    // Four items at creation, the rest as add-ons (see the test of many items below).
    const created4 = await activeSubscription(f, {
      items: [item(c.pro, c.proMonthly), item(c.api, c.apiMetered), ...kinds.slice(0, 2).map((k) => item(extra[k]!.product, extra[k]!.price))],
    });
    const sub = await created(post(t, `/subscriptions/${created4.id}/products`, { products: kinds.slice(2).map((k) => item(extra[k]!.product, extra[k]!.price)) }));
    const itemOf = (productId: string) => sub.items.find((i: any) => i.product.id === productId).id as string;
    const items: Record<string, string> = { recurring: itemOf(c.pro.id), sum: itemOf(c.api.id) };
    for (const k of kinds) items[k] = itemOf(extra[k]!.product.id);

    await setClock(t, '2030-01-15T13:00:00.000Z');
    const events = Object.entries(items)
      .filter(([k]) => k !== 'recurring')
      .flatMap(([k, id]) => [
        { id: `${k}-1`, subscriptionItem: id, quantity: '3', measuredAt: '2030-01-15T10:00:00Z', uniqueId: 'a' },
        { id: `${k}-2`, subscriptionItem: id, quantity: '7.5', measuredAt: '2030-01-15T11:00:00Z', uniqueId: 'b' },
        { id: `${k}-3`, subscriptionItem: id, quantity: '2', measuredAt: '2030-01-15T12:00:00Z', uniqueId: 'a' },
      ]);
    events.push({ id: 'seats-1', subscriptionItem: items.recurring!, quantity: '5', measuredAt: '2030-01-15T11:00:00Z', uniqueId: 'a' });
    expect(await ok(usage(t, events))).toMatchObject({ accepted: 19, rejected: [] });
    // Received later but measured earlier: not the last value.
    await ok(usage(t, [{ id: 'last_value-late', subscriptionItem: items.last_value!, quantity: '99', measuredAt: '2030-01-15T11:30:00Z' }]));

    const current = async (kind: string) => ok(get(t, `/subscription-items/${items[kind]}/current-measurement-value`));
    const expected: Record<string, string> = {
      sum: '12.5',
      count: '3',
      count_unique: '2',
      max: '7.5',
      // 12.5 / 3, 10 decimals, half-up
      average: '4.1666666667',
      last_value: '2',
      recurring: '5',
    };
    for (const [kind, quantity] of Object.entries(expected)) {
      const value = await current(kind);
      expect(value, kind).toMatchObject({
        subscriptionItem: items[kind],
        quantity,
        periodStart: DEFAULT_NOW,
        periodEnd: '2030-02-15T10:00:00.000Z',
        measuredAt: '2030-01-15T13:00:00.000Z',
      });
    }
    expect((await current('average')).measurement).toEqual({ id: extra.average!.measurement.id, code: 'm-average', aggregationType: 'average', type: 'metered' });
    expect((await current('recurring')).measurement).toMatchObject({ code: 'seats', aggregationType: 'last_value', type: 'recurring' });

    const values = await ok(get(t, `/subscription-items/${items.sum}/measurement-values`));
    expect(values.data).toEqual([
      { id: 'sum-3', measurement: c.apiCalls.id, quantity: '2', uniqueId: 'a', measuredAt: '2030-01-15T12:00:00.000Z', receivedAt: '2030-01-15T13:00:00.000Z' },
      { id: 'sum-2', measurement: c.apiCalls.id, quantity: '7.5', uniqueId: 'b', measuredAt: '2030-01-15T11:00:00.000Z', receivedAt: '2030-01-15T13:00:00.000Z' },
      { id: 'sum-1', measurement: c.apiCalls.id, quantity: '3', uniqueId: 'a', measuredAt: DEFAULT_NOW, receivedAt: '2030-01-15T13:00:00.000Z' },
    ]);
    expect(values.meta.pagination).toMatchObject({ totalItems: 3, currentPage: 1, lastPage: 1, pageTotalItems: 3 });
    const page = await ok(get(t, `/subscription-items/${items.sum}/measurement-values?limit=2&page=2`));
    expect(page.data.map((v: any) => v.id)).toEqual(['sum-1']);
    expect(page.meta.pagination).toEqual({ totalItems: 3, itemsPerPage: 2, currentPage: 2, lastPage: 2, pageTotalItems: 1 });
    expectProblem(await get(t, '/subscription-items/nope/measurement-values'), 404);
    expectProblem(await get(t, '/subscription-items/nope/current-measurement-value'), 404);

    // Next period: metered values start again from zero, the recurring one carries over.
    await setClock(t, '2030-02-20T00:00:00.000Z');
    for (const kind of ['sum', 'count', 'count_unique', 'max', 'average', 'last_value']) {
      expect(await current(kind), kind).toMatchObject({ quantity: '0', periodStart: '2030-02-15T10:00:00.000Z', periodEnd: '2030-03-15T10:00:00.000Z' });
    }
    expect(await current('recurring')).toMatchObject({ quantity: '5', periodStart: '2030-02-15T10:00:00.000Z' });
    await ok(usage(t, [{ id: 'seats-2', subscriptionItem: items.recurring!, quantity: '8' }, { id: 'sum-4', subscriptionItem: items.sum!, quantity: '1' }]));
    expect((await current('recurring')).quantity).toBe('8');
    expect((await current('sum')).quantity).toBe('1');
  });

  it('follows the billing group: an end_of_month period anchored on 30 April runs to 31 May', async () => {
    const f = await setup('2030-04-10T00:00:00.000Z');
    const { t, c } = f;
    const group = await created(post(t, '/billing-groups', { name: 'Month end', type: 'end_of_month' }));
    const sub = await activeSubscription(f, { billingGroup: group.id, items: [item(c.pro, c.proMonthly), item(c.api, c.apiMetered)] });
    const apiItem = sub.items[1].id;
    // Anchor: 30 April 00:00 Berlin (UTC+2).
    expect(sub.items[0].billing.nextBillingAt).toBe('2030-04-29T22:00:00.000Z');
    await setClock(t, '2030-05-30T12:00:00.000Z');
    // The period that started on 30 April ends on 31 May (the last day of the month).
    expect((await ok(get(t, `/subscription-items/${apiItem}`))).billing.nextBillingAt).toBe('2030-05-30T22:00:00.000Z');
    await ok(
      usage(t, [
        { id: 'may-20', subscriptionItem: apiItem, quantity: '5', measuredAt: '2030-05-20T00:00:00Z' },
        { id: 'may-30', subscriptionItem: apiItem, quantity: '7' },
      ]),
    );
    expect(await ok(get(t, `/subscription-items/${apiItem}/current-measurement-value`))).toMatchObject({
      quantity: '12',
      periodStart: '2030-04-29T22:00:00.000Z',
      periodEnd: '2030-05-30T22:00:00.000Z',
    });
  });
});
