import { describe, expect, it } from 'vitest';
import { api, countRows, del, expect422, expectProblem, get, patch, post, put, violations } from '../support/api';
import { created, createTenant, eventTypes, keyWith, ok, refusedUnchanged } from '../support/builders';
import { createPricePlan, createProduct, refs, sellable } from './builders';

// Plans (/plans): items, add-ons, activation and archiving. Storage is shared by every test file,
// so every test works in a fresh tenant of its own.

describe('plans', () => {
  it('creates a plan as a draft with the defaults', async () => {
    const t = await createTenant();
    const { r, product, pricePlan, plan } = await sellable(t);
    expect(plan).toMatchObject({
      family: r.family.id,
      status: 'draft',
      allowCheckout: false,
      changeBehaviour: 'upgradeable_and_downgradeable',
      changeApplyBehaviour: null,
      contractPeriod: null,
      cancellationPeriod: null,
      originProduct: null,
      items: [{ product: product.id, pricePlan: pricePlan.id, quantity: '1' }],
      addons: [],
    });
  });

  it.each([
    { why: 'a code with a space', body: { code: 'a b' }, paths: ['code'] },
    { why: 'a code with a slash', body: { code: 'a/b' }, paths: ['code'] },
    { why: 'a code starting with -', body: { code: '-pro' }, paths: ['code'] },
    { why: 'a code of 65 characters', body: { code: 'a'.repeat(65) }, paths: ['code'] },
    { why: 'a status', body: { status: 'active' }, paths: ['status'] },
    { why: 'an unknown family', body: { family: 'missing' }, paths: ['family'] },
    { why: 'an unknown origin product', body: { originProduct: 'missing' }, paths: ['originProduct'] },
    { why: 'an unknown changeBehaviour', body: { changeBehaviour: 'sometimes' }, paths: ['changeBehaviour'] },
    { why: 'a cancellationPeriod 1X', body: { cancellationPeriod: '1X' }, paths: ['cancellationPeriod'] },
    { why: 'an item quantity 0', body: { items: [{ product: 'x', pricePlan: 'y', quantity: '0' }] }, paths: ['items[0].quantity'] },
  ])('422 for $why', async ({ body, paths: expected }) => {
    const t = await createTenant();
    const family = await created(post(t, '/product-families', { name: 'F' }));
    expect422(await refusedUnchanged(t, null, () => post(t, '/plans', { family: family.id, code: 'pro', name: 'Pro', ...body })), expected);
    expect(await countRows('plans', t)).toBe(0);
  });

  it('wants codes unique per tenant (422 code), reusable in another tenant; URL-safe codes pass', async () => {
    const t = await createTenant();
    const family = await created(post(t, '/product-families', { name: 'F' }));
    await created(post(t, '/plans', { family: family.id, code: 'Pro_2026-monthly', name: 'Pro' }));
    const other = await created(post(t, '/plans', { family: family.id, code: 'team', name: 'Team' }));
    expect(violations(await refusedUnchanged(t, null, () => post(t, '/plans', { family: family.id, code: 'Pro_2026-monthly', name: 'Again' })))).toEqual(['code: not_unique']);
    expect(violations(await refusedUnchanged(t, `/plans/${other.id}`, () => patch(t, `/plans/${other.id}`, { code: 'Pro_2026-monthly' })))).toEqual(['code: not_unique']);
    const t2 = await createTenant();
    const f2 = await created(post(t2, '/product-families', { name: 'F' }));
    await created(post(t2, '/plans', { family: f2.id, code: 'Pro_2026-monthly', name: 'Pro' }));
  });

  it('422 for items naming unknown products or price plans, or a price plan of another product', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const a = await createProduct(t, r, { name: 'A' });
    const b = await createProduct(t, r, { name: 'B' });
    const ppB = await createPricePlan(t, b.id);
    const res = await refusedUnchanged(t, null, () =>
      post(t, '/plans', {
        family: r.family.id,
        code: 'mixed',
        name: 'Mixed',
        items: [
          { product: a.id, pricePlan: ppB.id },
          { product: 'missing', pricePlan: ppB.id },
          { product: b.id, pricePlan: 'missing' },
        ],
        addons: [{ product: a.id, pricePlan: ppB.id, minQuantity: '2', maxQuantity: '1' }],
      }),
    );
    expect(violations(res).sort()).toEqual([
      'addons[0].maxQuantity: out_of_range',
      'addons[0].pricePlan: product_mismatch',
      'items[0].pricePlan: product_mismatch',
      'items[1].product: not_found',
      'items[2].pricePlan: not_found',
    ]);
  });

  it.each([
    { from: 'draft', action: 'activate', to: 'active' },
    { from: 'draft', action: 'archive', to: 'archived' },
    { from: 'draft', action: 'deactivate', to: null },
    { from: 'active', action: 'deactivate', to: 'inactive' },
    { from: 'active', action: 'archive', to: 'archived' },
    { from: 'active', action: 'activate', to: null },
    { from: 'inactive', action: 'activate', to: 'active' },
    { from: 'inactive', action: 'archive', to: 'archived' },
    { from: 'inactive', action: 'deactivate', to: null },
    { from: 'archived', action: 'activate', to: null },
    { from: 'archived', action: 'deactivate', to: null },
    { from: 'archived', action: 'archive', to: null },
  ])('$from → $action → $to', async ({ from, action, to }) => {
    const t = await createTenant();
    const { plan } = await sellable(t);
    const url = `/plans/${plan.id}`;
    const path: Record<string, string[]> = { draft: [], active: ['activate'], inactive: ['activate', 'deactivate'], archived: ['archive'] };
    for (const step of path[from]!) await ok(put(t, `${url}/${step}`));
    expect((await get(t, url)).body.status).toBe(from);
    const before = await eventTypes(t, plan.id);
    if (to) {
      const res = await ok(put(t, `${url}/${action}`));
      expect(res.status).toBe(to);
      expect((await get(t, url)).body.status).toBe(to);
      expect(await eventTypes(t, plan.id)).toEqual([...before, 'plan.updated']);
    } else {
      expectProblem(await refusedUnchanged(t, url, () => put(t, `${url}/${action}`)), 409, '/problems/invalid-transition');
    }
  });

  it('an archived plan cannot be edited (409)', async () => {
    const t = await createTenant();
    const { plan } = await sellable(t);
    await ok(put(t, `/plans/${plan.id}/archive`));
    expectProblem(await refusedUnchanged(t, `/plans/${plan.id}`, () => patch(t, `/plans/${plan.id}`, { name: 'x' })), 409, '/problems/invalid-transition');
  });

  it('activates only with items (422 items)', async () => {
    const t = await createTenant();
    const family = await created(post(t, '/product-families', { name: 'F' }));
    const plan = await created(post(t, '/plans', { family: family.id, code: 'empty', name: 'Empty' }));
    const res = await refusedUnchanged(t, `/plans/${plan.id}`, () => put(t, `/plans/${plan.id}/activate`));
    expect(violations(res)).toEqual(['items: required']);
  });

  it('activates only with active price plans (422 items[i].pricePlan)', async () => {
    const t = await createTenant();
    const { pricePlan, plan } = await sellable(t);
    await ok(patch(t, `/price-plans/${pricePlan.id}`, { status: 'inactive' }));
    expect(violations(await refusedUnchanged(t, `/plans/${plan.id}`, () => put(t, `/plans/${plan.id}/activate`)))).toEqual(['items[0].pricePlan: not_active']);
    await ok(patch(t, `/price-plans/${pricePlan.id}`, { status: 'active' }));
    await ok(put(t, `/price-plans/${pricePlan.id}/archive`));
    expect(violations(await refusedUnchanged(t, `/plans/${plan.id}`, () => put(t, `/plans/${plan.id}/activate`)))).toEqual(['items[0].pricePlan: not_active']);
  });

  it('activates only without archived products (422 items[i].product)', async () => {
    const t = await createTenant();
    const { product, plan } = await sellable(t);
    await ok(put(t, `/catalogue/products/${product.id}/archive`));
    expect(violations(await refusedUnchanged(t, `/plans/${plan.id}`, () => put(t, `/plans/${plan.id}/activate`)))).toEqual(['items[0].product: archived']);
    await ok(put(t, `/catalogue/products/${product.id}/unarchive`));
    expect((await ok(put(t, `/plans/${plan.id}/activate`))).status).toBe('active');
  });

  it('activates only with one currency (422 items)', async () => {
    const t = await createTenant();
    const { r, product, pricePlan, plan } = await sellable(t);
    const usd = await createPricePlan(t, product.id, { currencyCode: 'USD' });
    const setup = await createProduct(t, r, { name: 'Setup' });
    const setupPrice = await createPricePlan(t, setup.id, { currencyCode: 'USD' });
    await ok(patch(t, `/plans/${plan.id}`, { items: [{ product: product.id, pricePlan: pricePlan.id }, { product: product.id, pricePlan: usd.id }] }));
    expect(violations(await refusedUnchanged(t, `/plans/${plan.id}`, () => put(t, `/plans/${plan.id}/activate`)))).toEqual(['items: mixed_currencies']);
    // Add-ons count too.
    await ok(patch(t, `/plans/${plan.id}`, { items: [{ product: product.id, pricePlan: pricePlan.id }], addons: [{ product: setup.id, pricePlan: setupPrice.id }] }));
    expect(violations(await refusedUnchanged(t, `/plans/${plan.id}`, () => put(t, `/plans/${plan.id}/activate`)))).toEqual(['items: mixed_currencies']);
  });

  it('an active plan must stay sellable through every edit (422)', async () => {
    const t = await createTenant();
    const { product, plan } = await sellable(t);
    await ok(put(t, `/plans/${plan.id}/activate`));
    expect(violations(await refusedUnchanged(t, `/plans/${plan.id}`, () => patch(t, `/plans/${plan.id}`, { items: [] })))).toEqual(['items: required']);
    const inactive = await createPricePlan(t, product.id, { status: 'inactive' });
    expect(
      violations(await refusedUnchanged(t, `/plans/${plan.id}`, () => patch(t, `/plans/${plan.id}`, { items: [{ product: product.id, pricePlan: inactive.id }] }))),
    ).toEqual(['items[0].pricePlan: not_active']);
    expect((await ok(patch(t, `/plans/${plan.id}`, { name: 'Renamed' }))).status).toBe('active');
  });

  it('deletes only drafts (409 otherwise)', async () => {
    const t = await createTenant();
    const { plan } = await sellable(t);
    await ok(put(t, `/plans/${plan.id}/activate`));
    expectProblem(await refusedUnchanged(t, `/plans/${plan.id}`, () => del(t, `/plans/${plan.id}`)), 409);
    await ok(put(t, `/plans/${plan.id}/deactivate`));
    expectProblem(await refusedUnchanged(t, `/plans/${plan.id}`, () => del(t, `/plans/${plan.id}`)), 409);
    await ok(put(t, `/plans/${plan.id}/archive`));
    expectProblem(await refusedUnchanged(t, `/plans/${plan.id}`, () => del(t, `/plans/${plan.id}`)), 409);
  });

  it('transitions: 404 for an unknown plan, 403 with plan:read', async () => {
    const t = await createTenant();
    const { plan } = await sellable(t);
    const reader = await keyWith(t, ['plan:read']);
    for (const action of ['activate', 'deactivate', 'archive']) {
      expectProblem(await put(t, `/plans/missing/${action}`), 404);
      expectProblem(await refusedUnchanged(t, `/plans/${plan.id}`, () => api(`/plans/${plan.id}/${action}`, { method: 'PUT', token: reader })), 403);
    }
  });
});
