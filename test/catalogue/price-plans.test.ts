import { describe, expect, it } from 'vitest';
import { api, countRows, del, eventsOf, expect422, expectProblem, expectStatus, get, ids, patch, paths, post, put, violations } from '../support/api';
import { created, createCustomer, createTenant, eventTypes, keyWith, ok, refusedUnchanged } from '../support/builders';
import { createPricePlan, createProduct, pricePlanBody, refs, sellable } from './builders';

// Price plans (/price-plans). Storage is shared by every test file, so every test works in a fresh
// tenant of its own.

describe('price plans', () => {
  async function setup() {
    const t = await createTenant();
    const r = await refs(t);
    const product = await createProduct(t, r);
    return { t, r, product };
  }

  it('creates a flat fee price plan with the defaults and the price as an object', async () => {
    const { t, product } = await setup();
    const res = await post(t, '/price-plans', pricePlanBody(product.id));
    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      product: product.id,
      status: 'active',
      type: 'recurring',
      calculationType: 'flat_fee',
      currencyCode: 'EUR',
      price: { amount: '10', currencyCode: 'EUR', tenantId: t.id, createdAt: res.body.createdAt },
      freeUnits: '0',
      billingInterval: '1M',
      applyTrial: true,
      payInAdvance: true,
      proRata: true,
      custom: false,
      customer: null,
      inUse: false,
      checkoutLinkIds: [],
      tiers: null,
      percentage: null,
    });
  });

  it.each([
    { why: 'flat_fee with a negative price', body: { price: { amount: '-1' } }, paths: ['price.amount'] },
    { why: 'flat_fee with a number as price', body: { price: { amount: 10 } }, paths: ['price.amount'] },
    { why: 'flat_fee with tiers', body: { tiers: [{ upTo: null, unitPrice: '1' }] }, paths: ['tiers'] },
    { why: 'tiered without tiers', body: { calculationType: 'tiered', price: null }, paths: ['tiers'] },
    { why: 'tiered with a price', body: { calculationType: 'tiered', tiers: [{ upTo: null, unitPrice: '1' }] }, paths: ['price'] },
    {
      why: 'tiers not ascending',
      body: { calculationType: 'tiered', price: null, tiers: [{ upTo: '10', unitPrice: '1' }, { upTo: '5', unitPrice: '1' }, { upTo: null, unitPrice: '1' }] },
      paths: ['tiers[1].upTo'],
    },
    {
      why: 'equal tier bounds',
      body: { calculationType: 'volume', price: null, tiers: [{ upTo: '10', unitPrice: '1' }, { upTo: '10', unitPrice: '1' }, { upTo: null, unitPrice: '1' }] },
      paths: ['tiers[1].upTo'],
    },
    {
      why: 'a first tier up to 0',
      body: { calculationType: 'volume', price: null, tiers: [{ upTo: '0', unitPrice: '1' }, { upTo: null, unitPrice: '1' }] },
      paths: ['tiers[0].upTo'],
    },
    {
      why: 'no unbounded last tier',
      body: { calculationType: 'stair_step', price: null, tiers: [{ upTo: '10', flatPrice: '5' }, { upTo: '20', flatPrice: '9' }] },
      paths: ['tiers[1].upTo'],
    },
    {
      why: 'an unbounded tier before the last',
      body: { calculationType: 'tiered', price: null, tiers: [{ upTo: null, unitPrice: '1' }, { upTo: '20', unitPrice: '1' }] },
      paths: ['tiers[0].upTo', 'tiers[1].upTo'],
    },
    {
      why: 'a negative tier price',
      body: { calculationType: 'tiered', price: null, tiers: [{ upTo: '10', unitPrice: '1' }, { upTo: null, unitPrice: '-0.5' }] },
      paths: ['tiers[1].unitPrice'],
    },
    { why: 'an empty tier list', body: { calculationType: 'volume', price: null, tiers: [] }, paths: ['tiers'] },
    { why: 'percentage without percentage', body: { calculationType: 'percentage', price: null }, paths: ['percentage'] },
    { why: 'percentage above 100', body: { calculationType: 'percentage', price: null, percentage: '101' }, paths: ['percentage'] },
    { why: 'a negative percentage', body: { calculationType: 'percentage', price: null, percentage: '-5' }, paths: ['percentage'] },
    { why: 'a percentage on a flat fee', body: { percentage: '10' }, paths: ['percentage'] },
    { why: 'an unknown calculation type', body: { calculationType: 'auction' }, paths: ['calculationType'] },
    { why: 'a negative freeUnits', body: { freeUnits: '-1' }, paths: ['freeUnits'] },
    { why: 'billingInterval missing on a recurring plan', body: { billingInterval: null }, paths: ['billingInterval'] },
    { why: 'billingInterval 1X', body: { billingInterval: '1X' }, paths: ['billingInterval'] },
    { why: 'billingInterval 0M', body: { billingInterval: '0M' }, paths: ['billingInterval'] },
    { why: 'billingInterval M1', body: { billingInterval: 'M1' }, paths: ['billingInterval'] },
    { why: 'showPricePerInterval 2Q', body: { showPricePerInterval: '2Q' }, paths: ['showPricePerInterval'] },
    { why: 'an unknown currency', body: { currencyCode: 'XYZ' }, paths: ['currencyCode'] },
    { why: 'status archived on create', body: { status: 'archived' }, paths: ['status'] },
    { why: 'custom without a customer', body: { custom: true }, paths: ['customer'] },
    { why: 'an unknown product', body: { product: 'missing-product' }, paths: ['product'] },
  ])('422 for $why', async ({ body, paths: expected }) => {
    const { t, product } = await setup();
    const res = await refusedUnchanged(t, null, () => post(t, '/price-plans', { ...pricePlanBody(product.id), ...body }));
    expect422(res, expected);
    expect(await countRows('price_plans', t)).toBe(0);
  });

  // One broken rule, one violation (the 422 contract of the API).
  it.each(['flat_fee', 'per_unit'])('422 with one violation for a %s price plan without price.amount', async (calculationType) => {
    const { t, product } = await setup();
    const res = await refusedUnchanged(t, null, () => post(t, '/price-plans', pricePlanBody(product.id, { calculationType, price: null })));
    expectProblem(res, 422);
    expect(violations(res)).toHaveLength(1);
    expect(paths(res)[0]).toMatch(/^price(\.amount)?$/);
    expect(violations(await post(t, '/price-plans', pricePlanBody(product.id, { calculationType, price: {} })))).toEqual(['price.amount: invalid_type']);
  });

  it('422 for a customer on a price plan that is not custom', async () => {
    const { t, product } = await setup();
    const customer = await createCustomer(t);
    expect(violations(await refusedUnchanged(t, null, () => post(t, '/price-plans', pricePlanBody(product.id, { customer: customer.id }))))).toEqual([
      'customer: not_allowed',
    ]);
  });

  it.each([
    { calculationType: 'per_unit', price: { amount: '0.0001234567' } },
    { calculationType: 'tiered', tiers: [{ upTo: '10', unitPrice: '1', flatPrice: '0' }, { upTo: '100.5', unitPrice: '0.5', flatPrice: '2' }, { upTo: null, unitPrice: '0.25', flatPrice: '0' }] },
    { calculationType: 'volume', tiers: [{ upTo: null, unitPrice: '3', flatPrice: '0' }] },
    { calculationType: 'stair_step', tiers: [{ upTo: '5', unitPrice: '0', flatPrice: '10' }, { upTo: null, unitPrice: '0', flatPrice: '20' }] },
    { calculationType: 'percentage', percentage: '12.5' },
    { calculationType: 'percentage', percentage: '100' },
    { calculationType: 'percentage', percentage: '0' },
  ])('accepts a $calculationType price plan', async (body) => {
    const { t, product } = await setup();
    const res = await post(t, '/price-plans', { ...pricePlanBody(product.id), price: null, ...body, freeUnits: '2' });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ ...body, freeUnits: '2' });
    expect(await ok(get(t, `/price-plans/${res.body.id}`))).toEqual(res.body);
  });

  it('fills tier prices that are left out with 0', async () => {
    const { t, product } = await setup();
    const res = await created(post(t, '/price-plans', { ...pricePlanBody(product.id), price: null, calculationType: 'tiered', tiers: [{ upTo: '10', unitPrice: '2' }, { upTo: null, flatPrice: '5' }] }));
    expect(res.tiers).toEqual([
      { upTo: '10', unitPrice: '2', flatPrice: '0' },
      { upTo: null, unitPrice: '0', flatPrice: '5' },
    ]);
  });

  it.each([
    { why: 'a charge product', product: { type: 'charge' }, measurement: 'measurement', type: 'one_time', billingInterval: null, payInAdvance: true },
    { why: 'a product with a metered measurement', product: {}, measurement: 'metered', type: 'metered', billingInterval: '1M', payInAdvance: false },
    { why: 'a product with a recurring measurement', product: {}, measurement: 'measurement', type: 'recurring', billingInterval: '1M', payInAdvance: true },
  ])('derives the type from $why: $type', async ({ product: overrides, measurement, type, billingInterval, payInAdvance }) => {
    const t = await createTenant();
    const r = await refs(t);
    const product = await createProduct(t, r, { ...overrides, measurement: (r as any)[measurement].id });
    const pp = await created(post(t, '/price-plans', pricePlanBody(product.id, { billingInterval, calculationType: 'per_unit' })));
    expect(pp).toMatchObject({ type, billingInterval, payInAdvance });
    // Naming the type is fine when it matches and 422 when it does not.
    expectStatus(await post(t, '/price-plans', pricePlanBody(product.id, { billingInterval, type })), 201);
    const wrong = type === 'recurring' ? 'one_time' : 'recurring';
    expect(violations(await refusedUnchanged(t, null, () => post(t, '/price-plans', pricePlanBody(product.id, { billingInterval, type: wrong }))))).toEqual([
      'type: type_mismatch',
    ]);
  });

  it('an instant_metered measurement makes instant_metered price plans without a billing interval', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const instant = await created(post(t, '/measurements', { unit: r.unit.id, code: 'instant', aggregationType: 'last_value', type: 'instant_metered' }));
    const product = await createProduct(t, r, { measurement: instant.id });
    expect(await created(post(t, '/price-plans', pricePlanBody(product.id, { billingInterval: null, calculationType: 'per_unit' })))).toMatchObject({
      type: 'instant_metered',
      payInAdvance: false,
    });
    expect(violations(await post(t, '/price-plans', pricePlanBody(product.id, { billingInterval: '1M' })))).toEqual(['billingInterval: not_allowed']);
  });

  it('a one-time price plan takes no billing interval (422)', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const charge = await createProduct(t, r, { type: 'charge' });
    expect(violations(await refusedUnchanged(t, null, () => post(t, '/price-plans', pricePlanBody(charge.id, { billingInterval: '1M' }))))).toEqual([
      'billingInterval: not_allowed',
    ]);
  });

  it('payInAdvance is not allowed for metered price plans (422), false is', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const product = await createProduct(t, r, { measurement: r.metered.id });
    expect(violations(await refusedUnchanged(t, null, () => post(t, '/price-plans', pricePlanBody(product.id, { calculationType: 'per_unit', payInAdvance: true }))))).toEqual([
      'payInAdvance: not_allowed',
    ]);
    expectStatus(await post(t, '/price-plans', pricePlanBody(product.id, { calculationType: 'per_unit', payInAdvance: false })), 201);
  });

  it('a custom price plan belongs to an existing customer of the tenant', async () => {
    const { t, product } = await setup();
    const customer = await createCustomer(t);
    const foreign = await createCustomer(await createTenant());
    expect(await created(post(t, '/price-plans', pricePlanBody(product.id, { custom: true, customer: customer.id })))).toMatchObject({ custom: true, customer: customer.id });
    expect(violations(await post(t, '/price-plans', pricePlanBody(product.id, { custom: true, customer: foreign.id })))).toEqual(['customer: not_found']);
  });

  it('refuses a price plan for an archived product (422), also when moving one there', async () => {
    const { t, r, product } = await setup();
    const other = await createProduct(t, r, { name: 'Other' });
    const pp = await createPricePlan(t, other.id);
    await ok(put(t, `/catalogue/products/${product.id}/archive`));
    expect(violations(await refusedUnchanged(t, null, () => post(t, '/price-plans', pricePlanBody(product.id))))).toEqual(['product: archived']);
    expect(violations(await refusedUnchanged(t, `/price-plans/${pp.id}`, () => patch(t, `/price-plans/${pp.id}`, { product: product.id })))).toEqual([
      'product: archived',
    ]);
  });

  it('an existing price plan of a product archived later can still be edited', async () => {
    const { t, product } = await setup();
    const pp = await createPricePlan(t, product.id);
    await ok(put(t, `/catalogue/products/${product.id}/archive`));
    expect((await ok(patch(t, `/price-plans/${pp.id}`, { internalName: 'legacy' }))).internalName).toBe('legacy');
  });

  it.each([
    { why: 'price', change: { price: { amount: '12' } } },
    { why: 'currency', change: { currencyCode: 'USD' } },
    { why: 'billing interval', change: { billingInterval: '1Y' } },
    { why: 'free units', change: { freeUnits: '3' } },
    { why: 'calculation type', change: { calculationType: 'per_unit' } },
    { why: 'pay in advance', change: { payInAdvance: false } },
  ])('once a plan contains it (inUse), its $why cannot change (409 price-plan-in-use)', async ({ change }) => {
    const t = await createTenant();
    const { pricePlan } = await sellable(t);
    const url = `/price-plans/${pricePlan.id}`;
    expect((await ok(get(t, url))).inUse).toBe(true);
    expectProblem(await refusedUnchanged(t, url, () => patch(t, url, change)), 409, '/problems/price-plan-in-use');
    const current = (await get(t, url)).body;
    const full = { ...pricePlanBody(current.product), ...change };
    expectProblem(await refusedUnchanged(t, url, () => put(t, url, full)), 409, '/problems/price-plan-in-use');
  });

  it('a price plan in use still takes a new internalName, status or showPricePerInterval', async () => {
    const t = await createTenant();
    const { pricePlan } = await sellable(t);
    const url = `/price-plans/${pricePlan.id}`;
    const changed = await ok(patch(t, url, { internalName: 'Pro monthly (2026)', showPricePerInterval: '1M', salesChannel: 'web' }));
    expect(changed).toMatchObject({ internalName: 'Pro monthly (2026)', showPricePerInterval: '1M', salesChannel: 'web', inUse: true, price: { amount: '10' } });
    expect((await ok(patch(t, url, { status: 'inactive' }))).status).toBe('inactive');
    expect(await eventTypes(t, pricePlan.id)).toEqual(['price_plan.created', 'price_plan.updated', 'price_plan.updated']);
  });

  it('an unused price plan may change its price', async () => {
    const { t, product } = await setup();
    const pp = await createPricePlan(t, product.id);
    expect((await ok(patch(t, `/price-plans/${pp.id}`, { price: { amount: '12.5' } }))).price.amount).toBe('12.5');
  });

  it('archives: status archived, event price_plan.archived, then no more changes (409)', async () => {
    const { t, product } = await setup();
    const pp = await createPricePlan(t, product.id);
    const url = `/price-plans/${pp.id}`;
    const archived = await ok(put(t, `${url}/archive`));
    expect(archived).toMatchObject({ id: pp.id, status: 'archived', price: { amount: '10' } });
    expect((await get(t, url)).body.status).toBe('archived');
    expect(ids(await get(t, '/price-plans?status=archived'))).toEqual([pp.id]);
    expectProblem(await refusedUnchanged(t, url, () => put(t, `${url}/archive`)), 409, '/problems/invalid-transition');
    expectProblem(await refusedUnchanged(t, url, () => patch(t, url, { internalName: 'again' })), 409, '/problems/invalid-transition');
    expect(await eventTypes(t, pp.id)).toEqual(['price_plan.created', 'price_plan.archived']);
    expect((await eventsOf(t, pp.id))[1]!.data).toMatchObject({ id: pp.id, status: 'archived' });
  });

  it('archive: 404 for an unknown price plan, 403 with price-plan:read', async () => {
    const { t, product } = await setup();
    const pp = await createPricePlan(t, product.id);
    expectProblem(await put(t, '/price-plans/missing/archive'), 404);
    const reader = await keyWith(t, ['price-plan:read']);
    expectProblem(await refusedUnchanged(t, `/price-plans/${pp.id}`, () => api(`/price-plans/${pp.id}/archive`, { method: 'PUT', token: reader })), 403);
  });

  it('refuses to delete a price plan in use (409), allows it once no plan holds it', async () => {
    const t = await createTenant();
    const { pricePlan, plan } = await sellable(t);
    const url = `/price-plans/${pricePlan.id}`;
    expectProblem(await refusedUnchanged(t, url, () => del(t, url)), 409);
    expectStatus(await del(t, `/plans/${plan.id}`), 204);
    expect((await ok(get(t, url))).inUse).toBe(false);
    expectStatus(await del(t, url), 204);
  });

  it('an add-on also puts a price plan in use', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const product = await createProduct(t, r);
    const pp = await createPricePlan(t, product.id);
    await created(post(t, '/plans', { family: r.family.id, code: 'addon', name: 'With add-on', addons: [{ product: product.id, pricePlan: pp.id, minQuantity: '0', maxQuantity: '5' }] }));
    expect((await ok(get(t, `/price-plans/${pp.id}`))).inUse).toBe(true);
    expectProblem(await patch(t, `/price-plans/${pp.id}`, { price: { amount: '1' } }), 409, '/problems/price-plan-in-use');
  });
});
