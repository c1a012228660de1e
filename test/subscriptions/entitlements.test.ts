import { describe, expect, it } from 'vitest';
import { countRows, del, eventsOf, expectProblem, expectStatus, get, paths, post, put, violations, type TestTenant } from '../support/api';
import { created, createCustomer, ok, refusedUnchanged, setClock } from '../support/builders';
import { activeSubscription, DEFAULT_NOW, draft, feature, item, nonBillingEventTypes, setup } from './builders';

// Entitlement features, their assignments to products and prices, and the entitlements of
// subscriptions and customers. Storage is shared by every test file, so every test works in a fresh
// tenant of its own with its test clock set first.

async function assign(t: TestTenant, featureId: string, object: 'product' | 'product-price', objectId: string, value: string | null, extra: Record<string, unknown> = {}) {
  return created(post(t, '/entitlement/feature-assignments', { feature: featureId, object, objectId, value, ...extra }));
}

const entitled = async (t: TestTenant, customerId: string, code: string) => (await ok(get(t, `/customers/${customerId}/entitlements?feature=${code}`))).entitled as boolean;

describe('entitlement features', () => {
  it('creates, lists, updates and deletes features; code is unique and immutable; config needs options', async () => {
    const f = await setup();
    const { t } = f;
    const sso = await feature(t, 'sso', 'switch', { description: 'Single sign-on' });
    expect(sso).toEqual({
      id: expect.any(String),
      code: 'sso',
      name: 'Feature sso',
      description: 'Single sign-on',
      status: 'active',
      type: 'switch',
      config: [],
      unit: null,
      createdAt: DEFAULT_NOW,
      updatedAt: DEFAULT_NOW,
    });
    const tier = await feature(t, 'tier', 'config', { config: [{ value: 'gold', label: 'Gold' }, { value: 'silver', label: 'Silver' }] });
    expect(tier.config).toEqual([{ value: 'gold', label: 'Gold' }, { value: 'silver', label: 'Silver' }]);
    const limit = await feature(t, 'user-limit', 'quantity', { unit: 'users' });
    expect(limit.unit).toBe('users');

    const refusals: [Record<string, unknown>, string[]][] = [
      [{ code: 'sso', name: 'Again', type: 'switch' }, ['code']],
      [{ code: 'plans', name: 'Plans', type: 'config' }, ['config']],
      [{ code: 'plans', name: 'Plans', type: 'config', config: [] }, ['config']],
      [{ code: 'flag', name: 'Flag', type: 'switch', config: [{ value: 'a', label: 'A' }] }, ['config']],
      [{ code: 'flag', name: 'Flag', type: 'switch', unit: 'users' }, ['unit']],
      [{ code: 'has space', name: 'Flag', type: 'switch' }, ['code']],
      [{ code: 'flag', name: 'Flag', type: 'toggle' }, ['type']],
    ];
    for (const [body, expected] of refusals) {
      const res = await refusedUnchanged(t, null, () => post(t, '/entitlement/features', body));
      expect(paths(res), JSON.stringify(body)).toEqual(expected);
    }

    const list = await ok(get(t, '/entitlement/features'));
    expect(list.data.map((x: any) => x.code).sort()).toEqual(['sso', 'tier', 'user-limit']);
    expect(await ok(get(t, `/entitlement/features/${sso.id}`))).toEqual(sso);
    await setClock(t, '2030-01-16T00:00:00.000Z');
    const renamed = await ok(put(t, `/entitlement/features/${sso.id}`, { code: 'sso', name: 'SSO', type: 'switch' }));
    expect(renamed).toMatchObject({ code: 'sso', name: 'SSO', updatedAt: '2030-01-16T00:00:00.000Z' });
    expect(violations(await refusedUnchanged(t, null, () => put(t, `/entitlement/features/${sso.id}`, { code: 'saml', name: 'SSO', type: 'switch' })))).toEqual(['code: immutable']);

    await assign(t, tier.id, 'product', f.c.pro.id, 'gold');
    expectProblem(await refusedUnchanged(t, null, () => del(t, `/entitlement/features/${tier.id}`)), 409);
    expectStatus(await del(t, `/entitlement/features/${limit.id}`), 204);
    expectProblem(await get(t, `/entitlement/features/${limit.id}`), 404);
    const types = await nonBillingEventTypes(t);
    expect(types.filter((x) => x.startsWith('feature.'))).toEqual(['feature.created', 'feature.created', 'feature.created', 'feature.updated', 'feature.deleted']);
  });

  it('feature assignments: create with a validity window, list, get, delete; values checked per feature type', async () => {
    const f = await setup();
    const { t, c } = f;
    const sso = await feature(t, 'sso');
    const seatsLimit = await feature(t, 'seat-limit', 'quantity');
    const tier = await feature(t, 'tier', 'config', { config: [{ value: 'gold', label: 'Gold' }] });
    const a = await assign(t, sso.id, 'product', c.pro.id, 'true', { validFrom: '2030-01-01T00:00:00Z', validUntil: '2030-12-31T00:00:00+01:00' });
    expect(a).toEqual({
      id: expect.any(String),
      object: 'product',
      objectId: c.pro.id,
      feature: sso,
      name: 'Feature sso',
      value: 'true',
      validFrom: '2030-01-01T00:00:00.000Z',
      validUntil: '2030-12-30T23:00:00.000Z',
      createdAt: DEFAULT_NOW,
    });
    const b = await assign(t, seatsLimit.id, 'product-price', c.proMonthly.id, '25');
    const cfg = await assign(t, tier.id, 'product-price', c.proYearly.id, 'gold');

    const cases: [Record<string, unknown>, string[]][] = [
      [{ feature: sso.id, object: 'product', objectId: c.pro.id, value: 'yes' }, ['value: invalid_value']],
      [{ feature: seatsLimit.id, object: 'product', objectId: c.pro.id, value: 'many' }, ['value: invalid_value']],
      [{ feature: seatsLimit.id, object: 'product', objectId: c.pro.id, value: '-1' }, ['value: invalid_value']],
      [{ feature: tier.id, object: 'product', objectId: c.pro.id, value: 'platinum' }, ['value: invalid_value']],
      [{ feature: 'nope', object: 'product', objectId: c.pro.id, value: null }, ['feature: not_found']],
      [{ feature: sso.id, object: 'product', objectId: c.proMonthly.id, value: 'true' }, ['objectId: not_found']],
      [{ feature: sso.id, object: 'product-price', objectId: c.pro.id, value: 'true' }, ['objectId: not_found']],
      [
        { feature: sso.id, object: 'product', objectId: c.pro.id, value: 'true', validFrom: '2030-02-01T00:00:00Z', validUntil: '2030-02-01T00:00:00Z' },
        ['validUntil: out_of_range'],
      ],
      [{ feature: sso.id, object: 'plan', objectId: c.pro.id, value: 'true' }, ['object: invalid_value']],
    ];
    for (const [body, expected] of cases) {
      const res = await refusedUnchanged(t, null, () => post(t, '/entitlement/feature-assignments', body));
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(paths(res), JSON.stringify(body)).toEqual(expected.map((e) => e.split(': ')[0]));
    }

    const list = await ok(get(t, '/entitlement/feature-assignments'));
    expect(list.data.map((x: any) => x.id).sort()).toEqual([a.id, b.id, cfg.id].sort());
    expect(list.meta.pagination.totalItems).toBe(3);
    expect((await ok(get(t, `/entitlement/feature-assignments?feature=${sso.id}`))).data).toEqual([a]);
    expect((await ok(get(t, `/entitlement/feature-assignments?objectId=${c.proMonthly.id}`))).data.map((x: any) => x.id)).toEqual([b.id]);
    expect(await ok(get(t, `/entitlement/feature-assignments/${a.id}`))).toEqual(a);
    expectStatus(await del(t, `/entitlement/feature-assignments/${a.id}`), 204);
    expectProblem(await get(t, `/entitlement/feature-assignments/${a.id}`), 404);
    expectProblem(await del(t, `/entitlement/feature-assignments/${a.id}`), 404);
    const types = (await nonBillingEventTypes(t)).filter((x) => x.startsWith('feature_assignment.'));
    expect(types).toEqual(['feature_assignment.created', 'feature_assignment.created', 'feature_assignment.created', 'feature_assignment.deleted']);
  });
});

describe('entitlements of subscriptions and customers', () => {
  it('are resolved at activation from the product and price assignments valid at that moment', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const sso = await feature(t, 'sso');
    const tier = await feature(t, 'tier', 'config', { config: [{ value: 'gold', label: 'Gold' }] });
    const beta = await feature(t, 'beta');
    const old = await feature(t, 'old');
    await assign(t, sso.id, 'product', c.pro.id, 'true');
    await assign(t, tier.id, 'product-price', c.proMonthly.id, 'gold');
    await assign(t, tier.id, 'product-price', c.proYearly.id, 'gold');
    await assign(t, beta.id, 'product', c.pro.id, 'true', { validFrom: '2030-06-01T00:00:00Z' });
    await assign(t, old.id, 'product', c.pro.id, 'true', { validFrom: '2029-01-01T00:00:00Z', validUntil: '2030-01-01T00:00:00Z' });

    const d = await draft(f);
    expect((await ok(get(t, `/subscriptions/${d.id}/entitlements`))).data).toEqual([]);
    expect(await entitled(t, customer.id, 'sso')).toBe(false);
    const sub = await ok(put(t, `/subscriptions/${d.id}/activate`, {}));
    const list = await ok(get(t, `/subscriptions/${sub.id}/entitlements`));
    expect(list.meta.pagination.totalItems).toBe(2);
    expect(list.data).toEqual([
      {
        id: expect.any(String),
        subscriptionItem: { id: sub.items[0].id, name: 'Pro', description: null, furtherInformation: null, status: 'active', subscriptionId: sub.id },
        feature: sso,
        value: 'true',
        validFrom: null,
        validUntil: null,
        active: true,
      },
      expect.objectContaining({ feature: tier, value: 'gold', active: true }),
    ]);
    expect(await countRows('entitlements', t)).toBe(2);
    expect(await ok(get(t, `/customers/${customer.id}/entitlements?feature=sso`))).toEqual({
      customer: customer.id,
      feature: 'sso',
      entitled: true,
      values: ['true'],
      subscriptions: [sub.id],
    });
    expect((await ok(get(t, `/customers/${customer.id}/entitlements?feature=tier`))).values).toEqual(['gold']);
    expect(await entitled(t, customer.id, 'beta')).toBe(false);
    expect(await entitled(t, customer.id, 'old')).toBe(false);
    expect(await entitled(t, customer.id, 'unknown-feature')).toBe(false);
    const event = (await eventsOf(t, sub.id)).find((e) => e.type === 'entitlement.state.updated')!;
    expect(event.data).toMatchObject({ subscriptionId: sub.id, customerId: customer.id });
    expect(event.data.entitlements.map((e: any) => [e.featureCode, e.active]).sort()).toEqual([
      ['sso', true],
      ['tier', true],
    ]);
    // Another customer is not entitled; unknown customers are 404.
    expect(await entitled(t, (await createCustomer(t)).id, 'sso')).toBe(false);
    expectProblem(await get(t, '/customers/nope/entitlements?feature=sso'), 404);
    expectProblem(await get(t, `/customers/${customer.id}/entitlements`), 400);
    expectProblem(await get(t, '/subscriptions/nope/entitlements'), 404);
  });

  it('applyToExistingSubscriptions: true entitles live subscriptions at once, false does not; deleting the assignment removes them', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const sub = await activeSubscription(f);
    const d = await draft(f);
    const later = await feature(t, 'later');
    const now = await feature(t, 'now');
    await assign(t, later.id, 'product', c.pro.id, 'true', { applyToExistingSubscriptions: false });
    expect(await entitled(t, customer.id, 'later')).toBe(false);
    const applied = await assign(t, now.id, 'product-price', c.proMonthly.id, 'true', { applyToExistingSubscriptions: true });
    expect(await entitled(t, customer.id, 'now')).toBe(true);
    const list = await ok(get(t, `/subscriptions/${sub.id}/entitlements`));
    expect(list.data.map((e: any) => [e.feature.code, e.subscriptionItem.id, e.active])).toEqual([['now', sub.items[0].id, true]]);
    expect((await ok(get(t, `/subscriptions/${d.id}/entitlements`))).data).toEqual([]);
    // The draft gets both when it is activated.
    await ok(put(t, `/subscriptions/${d.id}/activate`, {}));
    expect((await ok(get(t, `/subscriptions/${d.id}/entitlements`))).data.map((e: any) => e.feature.code)).toEqual(['later', 'now']);

    expectStatus(await del(t, `/entitlement/feature-assignments/${applied.id}`), 204);
    expect(await entitled(t, customer.id, 'now')).toBe(false);
    expect((await ok(get(t, `/subscriptions/${sub.id}/entitlements`))).data).toEqual([]);
  });

  it('an assignment applied to existing subscriptions from a later validFrom entitles only from that date', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const sub = await activeSubscription(f);
    const beta = await feature(t, 'beta');
    await assign(t, beta.id, 'product', c.pro.id, 'true', { validFrom: '2030-02-01T00:00:00Z', applyToExistingSubscriptions: true });
    expect(await entitled(t, customer.id, 'beta')).toBe(false);
    expect((await ok(get(t, `/subscriptions/${sub.id}/entitlements`))).data.map((e: any) => [e.feature.code, e.active])).toEqual([['beta', false]]);
    await setClock(t, '2030-02-01T00:00:00.000Z');
    expect(await entitled(t, customer.id, 'beta')).toBe(true);
    expect((await ok(get(t, `/subscriptions/${sub.id}/entitlements`))).data.map((e: any) => [e.feature.code, e.active])).toEqual([['beta', true]]);
  });

  it('true while live (also paused), false after terminate and after a pending cancellation took effect; validUntil ends them', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const sso = await feature(t, 'sso');
    const promo = await feature(t, 'promo');
    await assign(t, sso.id, 'product', c.pro.id, 'true');
    await assign(t, promo.id, 'product', c.storage.id, 'true', { validUntil: '2030-01-25T00:00:00Z' });
    const other = await createCustomer(t);

    const sub = await activeSubscription(f);
    expect(await entitled(t, customer.id, 'sso')).toBe(true);
    await ok(put(t, `/subscriptions/${sub.id}/pause`));
    expect(await entitled(t, customer.id, 'sso')).toBe(true);
    await ok(put(t, `/subscriptions/${sub.id}/terminate`));
    expect(await entitled(t, customer.id, 'sso')).toBe(false);
    expect((await ok(get(t, `/subscriptions/${sub.id}/entitlements`))).data.map((e: any) => e.active)).toEqual([false]);
    const terminated = (await eventsOf(t, sub.id)).filter((e) => e.type === 'entitlement.state.updated').pop()!;
    expect(terminated.data.entitlements.map((e: any) => e.active)).toEqual([false]);

    const pending = await activeSubscription(f, { customer: other.id, items: [item(c.pro, c.proMonthly), item(c.storage, c.storageMonthly)] });
    await ok(put(t, `/subscriptions/${pending.id}/cancel`, { cancellationDateType: 'custom', cancellationDate: '2030-02-01T00:00:00Z' }));
    expect(await entitled(t, other.id, 'sso')).toBe(true);
    expect(await entitled(t, other.id, 'promo')).toBe(true);
    // validUntil passes: the promo ends, sso stays.
    await setClock(t, '2030-01-25T00:00:00.000Z');
    expect(await entitled(t, other.id, 'promo')).toBe(false);
    expect(await entitled(t, other.id, 'sso')).toBe(true);
    await setClock(t, '2030-02-01T00:00:01.000Z');
    expect(await entitled(t, other.id, 'sso')).toBe(false);
    expect((await ok(get(t, `/subscriptions/${pending.id}`))).status).toBe('cancelled');
    const events = await nonBillingEventTypes(t, pending.id);
    expect(events.filter((e) => e === 'entitlement.state.updated')).toHaveLength(2);
  });
});
