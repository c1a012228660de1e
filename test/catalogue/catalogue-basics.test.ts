import { describe, expect, it } from 'vitest';
import { api, countRows, del, expect422, expectProblem, expectStatus, get, patch, post, put, violations } from '../support/api';
import { created, createTenant, keyWith, ok, refusedUnchanged } from '../support/builders';
import { createProduct, productBody, refs } from './builders';

// The small catalogue records products and subscriptions point to (spec §2.3): product families,
// units and measurements, cost centres, cancellation reasons and billing groups, beyond the
// conventions every resource shares (resource-conventions.test.ts). Storage is shared by every test
// file, so every test works in a fresh tenant of its own.

describe('product families', () => {
  it('GET lists the products of the family by id, name and number', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const other = await created(post(t, '/product-families', { name: 'Other' }));
    const a = await createProduct(t, r, { name: 'A', number: 'A-1' });
    const b = await createProduct(t, r, { name: 'B', productFamilies: [other.id, r.family.id] });
    await createProduct(t, r, { name: 'C', productFamilies: [other.id] });
    const family = await ok(get(t, `/product-families/${r.family.id}`));
    expect(family.products).toEqual([
      { id: a.id, name: 'A', number: 'A-1' },
      { id: b.id, name: 'B', number: null },
    ]);
    const listed = (await ok(get(t, '/product-families'))).data.find((f: any) => f.id === r.family.id);
    expect(listed.products).toEqual(family.products);
  });

  it('refuses to delete a family while a product uses it (409), allows it afterwards', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const product = await createProduct(t, r);
    const res = await refusedUnchanged(t, `/product-families/${r.family.id}`, () => del(t, `/product-families/${r.family.id}`));
    expectProblem(res, 409);
    expectStatus(await del(t, `/catalogue/products/${product.id}`), 204);
    expectStatus(await del(t, `/product-families/${r.family.id}`), 204);
  });

  it('the list needs product-family:read; product:read is not enough', async () => {
    const t = await createTenant();
    const denied = await api('/product-families', { token: await keyWith(t, ['product:read']) });
    expectProblem(denied, 403);
    expect(denied.body.detail).toContain('product-family:read');
    expectStatus(await api('/product-families', { token: await keyWith(t, ['product-family:read']) }), 200);
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(256) }, 'name'],
    [{}, 'name'],
  ])('422 for %j', async (body, path) => {
    const t = await createTenant();
    expect422(await post(t, '/product-families', body), [path]);
  });
});

describe('units and measurements', () => {
  it('wants unit codes unique per tenant (POST and PUT → 422 code); another tenant may reuse one', async () => {
    const t = await createTenant();
    const seat = await created(post(t, '/units', { name: 'Seat', code: 'seat' }));
    const gb = await created(post(t, '/units', { name: 'GB', code: 'gb' }));
    const dup = await refusedUnchanged(t, null, () => post(t, '/units', { name: 'Other seat', code: 'seat' }));
    expect(violations(dup)).toEqual(['code: not_unique']);
    expect(violations(await refusedUnchanged(t, `/units/${gb.id}`, () => put(t, `/units/${gb.id}`, { name: 'GB', code: 'seat' })))).toEqual(['code: not_unique']);
    expect(violations(await refusedUnchanged(t, `/units/${gb.id}`, () => patch(t, `/units/${gb.id}`, { code: 'seat' })))).toEqual(['code: not_unique']);
    // Keeping its own code is fine.
    expectStatus(await put(t, `/units/${seat.id}`, { name: 'Seats', code: 'seat' }), 200);
    const other = await createTenant();
    expectStatus(await post(other, '/units', { name: 'Seat', code: 'seat' }), 201);
    expect(await countRows('units', t)).toBe(2);
  });

  it('wants measurement codes unique per tenant; another tenant may reuse one', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const dup = await refusedUnchanged(t, null, () => post(t, '/measurements', { unit: r.unit.id, code: 'seats', aggregationType: 'sum', type: 'metered' }));
    expect(violations(dup)).toEqual(['code: not_unique']);
    const other = await createTenant();
    const otherUnit = await created(post(other, '/units', { name: 'Seat', code: 'seat' }));
    expectStatus(await post(other, '/measurements', { unit: otherUnit.id, code: 'seats', aggregationType: 'sum', type: 'metered' }), 201);
  });

  it('embeds the unit in the measurement and defaults fairBilling to true', async () => {
    const t = await createTenant();
    const unit = await created(post(t, '/units', { name: 'Gigabyte', code: 'gb' }));
    const m = await created(post(t, '/measurements', { unit: unit.id, code: 'storage', aggregationType: 'max', type: 'metered' }));
    expect(m).toMatchObject({ unit: { id: unit.id, name: 'Gigabyte', code: 'gb' }, fairBilling: true, description: null });
    expect((await ok(get(t, '/measurements'))).data[0].unit).toMatchObject({ id: unit.id, name: 'Gigabyte' });
  });

  it.each([
    { from: { type: 'metered', aggregationType: 'sum' }, change: { aggregationType: 'max' }, fields: ['aggregationType'] },
    { from: { type: 'recurring', aggregationType: 'last_value' }, change: { type: 'metered' }, fields: ['type'] },
    { from: { type: 'recurring', aggregationType: 'last_value' }, change: { type: 'instant_metered' }, fields: ['type'] },
    { from: { type: 'metered', aggregationType: 'sum' }, change: { type: 'recurring', aggregationType: 'last_value' }, fields: ['aggregationType', 'type'] },
  ])('keeps type and aggregationType: $from changed by $change → 422 $fields (PUT and PATCH)', async ({ from, change, fields }) => {
    const t = await createTenant();
    const unit = await created(post(t, '/units', { name: 'Seat', code: 'seat' }));
    const body = { unit: unit.id, code: 'seats', ...from };
    const m = await created(post(t, '/measurements', body));
    const url = `/measurements/${m.id}`;
    expect(violations(await refusedUnchanged(t, url, () => put(t, url, { ...body, ...change })))).toEqual(fields.map((f) => `${f}: immutable`));
    expect(violations(await refusedUnchanged(t, url, () => patch(t, url, change)))).toEqual(fields.map((f) => `${f}: immutable`));
    // Other fields still change.
    expect((await ok(patch(t, url, { description: 'Still editable' }))).description).toBe('Still editable');
  });

  it.each([
    { type: 'instant_metered', aggregationType: 'sum', accepted: false },
    { type: 'instant_metered', aggregationType: 'count', accepted: false },
    { type: 'recurring', aggregationType: 'max', accepted: false },
    { type: 'recurring', aggregationType: 'average', accepted: false },
    { type: 'instant_metered', aggregationType: 'last_value', accepted: true },
    { type: 'recurring', aggregationType: 'last_value', accepted: true },
    { type: 'metered', aggregationType: 'count_unique', accepted: true },
    { type: 'metered', aggregationType: 'average', accepted: true },
  ])('a $type measurement with aggregation $aggregationType: accepted $accepted', async ({ type, aggregationType, accepted }) => {
    const t = await createTenant();
    const unit = await created(post(t, '/units', { name: 'Seat', code: 'seat' }));
    const res = await post(t, '/measurements', { unit: unit.id, code: 'm', type, aggregationType });
    if (accepted) expectStatus(res, 201);
    else {
      expect(violations(res)).toEqual(['aggregationType: aggregation_mismatch']);
      expect(await countRows('measurements', t)).toBe(0);
    }
  });

  it('422 for an unknown unit or the unit of another tenant', async () => {
    const t = await createTenant();
    const other = await createTenant();
    const foreign = await created(post(other, '/units', { name: 'Seat', code: 'seat' }));
    for (const unit of ['missing-unit', foreign.id]) {
      const res = await refusedUnchanged(t, null, () => post(t, '/measurements', { unit, code: 'm', type: 'metered', aggregationType: 'sum' }));
      expect(violations(res)).toEqual(['unit: not_found']);
    }
  });

  it('refuses to delete a unit used by a measurement (409) and keeps it; allows it once unused', async () => {
    const t = await createTenant();
    const unit = await created(post(t, '/units', { name: 'Seat', code: 'seat' }));
    const m = await created(post(t, '/measurements', { unit: unit.id, code: 'seats', aggregationType: 'sum', type: 'metered' }));
    const res = await refusedUnchanged(t, `/units/${unit.id}`, () => del(t, `/units/${unit.id}`));
    expectProblem(res, 409, '/problems/in-use');
    expectStatus(await get(t, `/units/${unit.id}`), 200);
    expectStatus(await del(t, `/measurements/${m.id}`), 204);
    expectStatus(await del(t, `/units/${unit.id}`), 204);
  });

  it('refuses to delete a measurement used by a product (409)', async () => {
    const t = await createTenant();
    const r = await refs(t);
    await createProduct(t, r);
    expectProblem(await refusedUnchanged(t, `/measurements/${r.measurement.id}`, () => del(t, `/measurements/${r.measurement.id}`)), 409);
    expectStatus(await del(t, `/measurements/${r.metered.id}`), 204);
  });
});

describe('cost centres and cancellation reasons', () => {
  it.each([
    ['/cancellation-reasons', { code: 'too-expensive', name: 'Too expensive' }, { code: 'other', name: 'Other' }],
    ['/cost-centres', { code: 'CC-1', name: 'Sales' }, { code: 'CC-2', name: 'Support' }],
  ])('%s: code unique per tenant (422 code), reusable in another tenant', async (path, first, second) => {
    const t = await createTenant();
    await created(post(t, path, first));
    const b = await created(post(t, path, second));
    expect(violations(await refusedUnchanged(t, null, () => post(t, path, { ...second, code: first.code })))).toEqual(['code: not_unique']);
    expect(violations(await refusedUnchanged(t, `${path}/${b.id}`, () => put(t, `${path}/${b.id}`, { ...second, code: first.code })))).toEqual([
      'code: not_unique',
    ]);
    expectStatus(await post(await createTenant(), path, first), 201);
  });

  it('a product shows its cost centre and the cost centre cannot be deleted while used (409)', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const cc = await created(post(t, '/cost-centres', { name: 'Sales', code: 'CC-1', type: 'profit' }));
    const product = await createProduct(t, r, { costCentre: cc.id });
    expect(product.costCentre).toEqual(cc);
    expect(violations(await post(t, '/catalogue/products', productBody(r, { costCentre: 'missing' })))).toEqual(['costCentre: not_found']);
    expectProblem(await refusedUnchanged(t, `/cost-centres/${cc.id}`, () => del(t, `/cost-centres/${cc.id}`)), 409);
    expectStatus(await patch(t, `/catalogue/products/${product.id}`, { costCentre: null }), 200);
    expectStatus(await del(t, `/cost-centres/${cc.id}`), 204);
  });
});

describe('billing groups', () => {
  it.each([
    { why: 'customDay on a non-custom group', body: { type: 'start_of_month', customDay: 5 }, paths: ['customDay'] },
    { why: 'customMonth on a non-custom group', body: { type: 'end_of_year', customMonth: 3 }, paths: ['customMonth'] },
    { why: 'both on a non-custom group', body: { type: 'end_of_month', customDay: 1, customMonth: 1 }, paths: ['customDay', 'customMonth'] },
    { why: 'a custom group without customDay', body: { type: 'custom' }, paths: ['customDay'] },
    { why: 'a custom group with only customMonth', body: { type: 'custom', customMonth: 6 }, paths: ['customDay'] },
    { why: 'customDay 0', body: { type: 'custom', customDay: 0 }, paths: ['customDay'] },
    { why: 'customDay 32', body: { type: 'custom', customDay: 32 }, paths: ['customDay'] },
    { why: 'customDay 1.5', body: { type: 'custom', customDay: 1.5 }, paths: ['customDay'] },
    { why: 'customMonth 0', body: { type: 'custom', customDay: 1, customMonth: 0 }, paths: ['customMonth'] },
    { why: 'customMonth 13', body: { type: 'custom', customDay: 1, customMonth: 13 }, paths: ['customMonth'] },
    { why: '31 February', body: { type: 'custom', customDay: 31, customMonth: 2 }, paths: ['customDay'] },
    { why: '30 February', body: { type: 'custom', customDay: 30, customMonth: 2 }, paths: ['customDay'] },
    { why: '31 April', body: { type: 'custom', customDay: 31, customMonth: 4 }, paths: ['customDay'] },
  ])('422 for $why', async ({ body, paths: expected }) => {
    const t = await createTenant();
    expect422(await refusedUnchanged(t, null, () => post(t, '/billing-groups', { name: 'G', ...body })), expected);
    expect(await countRows('billing_groups', t)).toBe(0);
  });

  it.each([
    { type: 'custom', customDay: 31 },
    { type: 'custom', customDay: 1, customMonth: 1 },
    { type: 'custom', customDay: 29, customMonth: 2 },
    { type: 'custom', customDay: 31, customMonth: 12 },
    { type: 'start_of_year' },
    { type: 'end_of_month', customDay: null, customMonth: null },
  ])('accepts %j', async (body) => {
    const t = await createTenant();
    const g = await created(post(t, '/billing-groups', { name: 'G', ...body }));
    expect(g).toMatchObject({ customDay: null, customMonth: null, ...body });
  });

  it('a group switched away from custom must drop customDay and customMonth', async () => {
    const t = await createTenant();
    const g = await created(post(t, '/billing-groups', { name: 'G', type: 'custom', customDay: 15, customMonth: 3 }));
    const url = `/billing-groups/${g.id}`;
    expect422(await refusedUnchanged(t, url, () => patch(t, url, { type: 'start_of_month' })), ['customDay', 'customMonth']);
    expect(await ok(patch(t, url, { type: 'start_of_month', customDay: null, customMonth: null }))).toMatchObject({
      type: 'start_of_month',
      customDay: null,
      customMonth: null,
    });
  });
});
