import { describe, expect, it } from 'vitest';
import { api, countRows, del, eventsOf, expect422, expectProblem, expectStatus, get, ids, patch, post, put, violations, shardOf } from '../support/api';
import { created, createCustomer, createTenant, eventTypes, keyWith, ok, refusedUnchanged, setClock } from '../support/builders';
import { redeem, sellable } from './builders';

// Coupons (/coupons). Storage is shared by every test file, so every test works in a fresh tenant
// of its own.

describe('coupons', () => {
  const base = { code: 'SAVE', name: 'Save', type: 'percentage', percentage: 10, frequency: 'once' };

  it('creates a coupon with the defaults', async () => {
    const t = await createTenant();
    expect(await created(post(t, '/coupons', base))).toMatchObject({
      ...base,
      fixedAmount: null,
      frequencyInterval: null,
      maxRedemptions: null,
      maxRedemptionsPerCustomer: null,
      expiresAt: null,
      limitedToPlans: [],
      excludedFromPlans: [],
      limitedToProducts: [],
      excludedFromProducts: [],
      isEnabled: true,
      reedemptions: false,
    });
  });

  it.each([
    { why: 'percentage missing on a percentage coupon', body: { percentage: null }, paths: ['percentage'] },
    { why: 'percentage 101', body: { percentage: 101 }, paths: ['percentage'] },
    { why: 'percentage -1', body: { percentage: -1 }, paths: ['percentage'] },
    { why: 'percentage 10.5', body: { percentage: 10.5 }, paths: ['percentage'] },
    { why: 'fixedAmount on a percentage coupon', body: { fixedAmount: { amount: '5', currencyCode: 'EUR' } }, paths: ['fixedAmount'] },
    { why: 'fixedAmount missing on a fixed_amount coupon', body: { type: 'fixed_amount', percentage: null }, paths: ['fixedAmount'] },
    { why: 'percentage on a fixed_amount coupon', body: { type: 'fixed_amount', fixedAmount: { amount: '5', currencyCode: 'EUR' } }, paths: ['percentage'] },
    { why: '10.001 EUR', body: { type: 'fixed_amount', percentage: null, fixedAmount: { amount: '10.001', currencyCode: 'EUR' } }, paths: ['fixedAmount.amount'] },
    { why: '100.5 JPY', body: { type: 'fixed_amount', percentage: null, fixedAmount: { amount: '100.5', currencyCode: 'JPY' } }, paths: ['fixedAmount.amount'] },
    { why: 'a negative fixed amount', body: { type: 'fixed_amount', percentage: null, fixedAmount: { amount: '-5', currencyCode: 'EUR' } }, paths: ['fixedAmount.amount'] },
    { why: 'fixedAmount without currency', body: { type: 'fixed_amount', percentage: null, fixedAmount: { amount: '5' } }, paths: ['fixedAmount.currencyCode'] },
    { why: 'limited without frequencyInterval', body: { frequency: 'limited' }, paths: ['frequencyInterval'] },
    { why: 'frequencyInterval on a once coupon', body: { frequencyInterval: 3 }, paths: ['frequencyInterval'] },
    { why: 'frequencyInterval 0', body: { frequency: 'limited', frequencyInterval: 0 }, paths: ['frequencyInterval'] },
    { why: 'maxRedemptionsPerCustomer above maxRedemptions', body: { maxRedemptions: 5, maxRedemptionsPerCustomer: 6 }, paths: ['maxRedemptionsPerCustomer'] },
    { why: 'maxRedemptions 0', body: { maxRedemptions: 0 }, paths: ['maxRedemptions'] },
    { why: 'expiresAt in the past', body: { expiresAt: '2020-01-01T00:00:00Z' }, paths: ['expiresAt'] },
    { why: 'expiresAt on a day that does not exist', body: { expiresAt: '2099-02-30T00:00:00' }, paths: ['expiresAt'] },
    { why: 'a code with a space', body: { code: 'SAVE 10' }, paths: ['code'] },
    { why: 'no name', body: { name: '' }, paths: ['name'] },
    { why: 'an unknown frequency', body: { frequency: 'weekly' }, paths: ['frequency'] },
    { why: 'unknown plans and products', body: { limitedToPlans: ['nope'], excludedFromPlans: ['nope2'], limitedToProducts: ['nope3'], excludedFromProducts: ['nope4'] }, paths: ['excludedFromPlans[0]', 'excludedFromProducts[0]', 'limitedToPlans[0]', 'limitedToProducts[0]'] },
  ])('422 for $why', async ({ body, paths: expected }) => {
    const t = await createTenant();
    expect422(await refusedUnchanged(t, null, () => post(t, '/coupons', { ...base, ...body })), expected);
    expect(await countRows('coupons', t)).toBe(0);
  });

  it('stores a fixed amount at the currency scale', async () => {
    const t = await createTenant();
    const c = await created(post(t, '/coupons', { ...base, type: 'fixed_amount', percentage: null, fixedAmount: { amount: '10.5', currencyCode: 'EUR' } }));
    expect(c.fixedAmount).toEqual({ amount: '10.50', currencyCode: 'EUR' });
    const jpy = await created(post(t, '/coupons', { ...base, code: 'YEN', type: 'fixed_amount', percentage: null, fixedAmount: { amount: '500', currencyCode: 'JPY' } }));
    expect(jpy.fixedAmount).toEqual({ amount: '500', currencyCode: 'JPY' });
  });

  it('accepts an expiry in the future, following the test clock', async () => {
    const t = await createTenant();
    await setClock(t, '2030-01-01T00:00:00.000Z');
    expect(violations(await post(t, '/coupons', { ...base, expiresAt: '2029-12-31T23:59:59Z' }))).toEqual(['expiresAt: in_past']);
    const c = await created(post(t, '/coupons', { ...base, expiresAt: '2030-01-02T00:00:00+01:00' }));
    expect(c.expiresAt).toBe('2030-01-01T23:00:00.000Z');
  });

  it('limitedTo/excludedFrom take plans and products of the tenant; the same id in both is 422', async () => {
    const t = await createTenant();
    const { product, plan } = await sellable(t);
    const foreign = await sellable(await createTenant());
    const c = await created(post(t, '/coupons', { ...base, limitedToPlans: [plan.id], excludedFromProducts: [product.id] }));
    expect(c).toMatchObject({ limitedToPlans: [plan.id], excludedFromProducts: [product.id] });
    expect(
      violations(await post(t, '/coupons', { ...base, code: 'BOTH', limitedToPlans: [plan.id], excludedFromPlans: [plan.id], limitedToProducts: [product.id], excludedFromProducts: [product.id] })).sort(),
    ).toEqual(['excludedFromPlans[0]: conflicting_restriction', 'excludedFromProducts[0]: conflicting_restriction']);
    expect(violations(await post(t, '/coupons', { ...base, code: 'FOREIGN', limitedToPlans: [plan.id, foreign.plan.id], limitedToProducts: [foreign.product.id] })).sort()).toEqual([
      'limitedToPlans[1]: not_found',
      'limitedToProducts[0]: not_found',
    ]);
  });

  it('wants codes unique per tenant (422 code) and finds a coupon by ?code=', async () => {
    const t = await createTenant();
    const a = await created(post(t, '/coupons', base));
    const b = await created(post(t, '/coupons', { ...base, code: 'OTHER' }));
    expect(violations(await refusedUnchanged(t, null, () => post(t, '/coupons', base)))).toEqual(['code: not_unique']);
    expect(violations(await refusedUnchanged(t, `/coupons/${b.id}`, () => patch(t, `/coupons/${b.id}`, { code: 'SAVE' })))).toEqual(['code: not_unique']);
    const found = await ok(get(t, '/coupons?code=SAVE'));
    expect(found.data).toEqual([a]);
    expect((await ok(get(t, '/coupons?code=NOPE'))).data).toEqual([]);
    const other = await createTenant();
    await created(post(other, '/coupons', base));
    expect(ids(await get(t, '/coupons?code=SAVE'))).toEqual([a.id]);
  });

  it('toggles with PUT /coupons/{id}/toggle and writes coupon.toggled once per change', async () => {
    const t = await createTenant();
    const c = await created(post(t, '/coupons', base));
    const url = `/coupons/${c.id}`;
    expect((await ok(put(t, `${url}/toggle`, { isEnabled: false }))).isEnabled).toBe(false);
    expect((await get(t, url)).body.isEnabled).toBe(false);
    // The same state again changes nothing and writes nothing.
    expect((await ok(put(t, `${url}/toggle`, { isEnabled: false }))).isEnabled).toBe(false);
    expect((await ok(put(t, `${url}/toggle`, { isEnabled: true }))).isEnabled).toBe(true);
    expect(await eventTypes(t, c.id)).toEqual(['coupon.created', 'coupon.toggled', 'coupon.toggled']);
    expect((await eventsOf(t, c.id))[1]!.data).toMatchObject({ id: c.id, isEnabled: false });
    expect(violations(await refusedUnchanged(t, url, () => put(t, `${url}/toggle`, { isEnabled: 'no' })))).toEqual(['isEnabled: invalid_type']);
    expect422(await refusedUnchanged(t, url, () => put(t, `${url}/toggle`, {})), ['isEnabled']);
    expectProblem(await put(t, '/coupons/missing/toggle', { isEnabled: false }), 404);
    const reader = await keyWith(t, ['coupon:read']);
    expectProblem(await refusedUnchanged(t, url, () => api(`${url}/toggle`, { method: 'PUT', token: reader, body: { isEnabled: false } })), 403);
  });

  it('after a redemption: reedemptions true, PUT/PATCH/DELETE 409, toggle still works', async () => {
    const t = await createTenant();
    const customer = await createCustomer(t);
    const c = await created(post(t, '/coupons', base));
    const url = `/coupons/${c.id}`;
    await redeem(t, c.id, customer.id);
    const redeemed = await ok(get(t, url));
    expect(redeemed).toMatchObject({ reedemptions: true });
    expect((await ok(get(t, '/coupons'))).data[0].reedemptions).toBe(true);
    expectProblem(await refusedUnchanged(t, url, () => put(t, url, { ...base, name: 'Changed' })), 409, '/problems/coupon-redeemed');
    expectProblem(await refusedUnchanged(t, url, () => patch(t, url, { name: 'Changed' })), 409, '/problems/coupon-redeemed');
    expectProblem(await refusedUnchanged(t, url, () => del(t, url)), 409);
    expect(await countRows('coupons', t)).toBe(1);
    expect((await ok(put(t, `${url}/toggle`, { isEnabled: false }))).isEnabled).toBe(false);
    expect(await eventTypes(t, c.id)).toEqual(['coupon.created', 'coupon.toggled']);
  });

  it('a redemption in another tenant with the same coupon id does not lock the coupon', async () => {
    const t = await createTenant();
    // On the same shard: the tenant condition, not the shard, must keep the other's redemption out.
    const other = await createTenant({ shard: await shardOf(t) });
    const c = await created(post(t, '/coupons', base));
    await redeem(t, c.id, 'someone', other.id);
    expect((await ok(get(t, `/coupons/${c.id}`))).reedemptions).toBe(false);
    expectStatus(await patch(t, `/coupons/${c.id}`, { name: 'Changed' }), 200);
  });

  it('switches type with a merge patch that drops the old field', async () => {
    const t = await createTenant();
    const c = await created(post(t, '/coupons', base));
    const url = `/coupons/${c.id}`;
    expect(violations(await refusedUnchanged(t, url, () => patch(t, url, { type: 'fixed_amount', fixedAmount: { amount: '5', currencyCode: 'EUR' } })))).toEqual([
      'percentage: not_allowed',
    ]);
    const switched = await ok(patch(t, url, { type: 'fixed_amount', percentage: null, fixedAmount: { amount: '5', currencyCode: 'EUR' } }));
    expect(switched).toMatchObject({ type: 'fixed_amount', percentage: null, fixedAmount: { amount: '5.00', currencyCode: 'EUR' } });
    expect((await ok(patch(t, url, { fixedAmount: { amount: '7.25' } }))).fixedAmount).toEqual({ amount: '7.25', currencyCode: 'EUR' });
  });
});
