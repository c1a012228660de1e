import { describe, expect, it } from 'vitest';
import { api, countRows, del, eventsOf, expect422, expectProblem, expectStatus, get, ids, patch, post, put, violations } from '../support/api';
import { created, createTenant, eventTypes, keyWith, ok, refusedUnchanged } from '../support/builders';
import { createPricePlan, createProduct, productBody, refs } from './builders';

// Products (/catalogue/products). Storage is shared by every test file, so every test works in a
// fresh tenant of its own.

describe('products', () => {
  it('embeds measurement (with unit), tax group and product families with their names', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const second = await created(post(t, '/product-families', { name: 'Bundles' }));
    const res = await post(t, '/catalogue/products', productBody(r, { productFamilies: [r.family.id, second.id] }));
    expectStatus(res, 201);
    const expected = {
      productFamilies: [
        { id: r.family.id, name: 'Software' },
        { id: second.id, name: 'Bundles' },
      ],
      measurement: { id: r.measurement.id, code: 'seats', type: 'recurring', aggregationType: 'last_value', unit: { id: r.unit.id, name: 'Seat' } },
      taxGroup: { id: r.taxGroup.id, internalDescription: 'Standard VAT', type: 'standard' },
      costCentre: null,
      invoiceVisibility: 'always',
      isArchived: false,
      customFields: null,
      number: null,
      description: null,
      internalName: null,
    };
    expect(res.body).toMatchObject(expected);
    expect(await ok(get(t, `/catalogue/products/${res.body.id}`))).toEqual(res.body);
    // PUT and PATCH answer with the embedded references too, also after moving a reference.
    const moved = await ok(patch(t, `/catalogue/products/${res.body.id}`, { measurement: r.metered.id }));
    expect(moved.measurement).toMatchObject({ id: r.metered.id, code: 'api-calls', unit: { id: r.unit.id, name: 'Seat' } });
    expect(moved.productFamilies).toEqual(expected.productFamilies);
  });

  it('keeps productFamilies in the order given, in the response, on GET and in the event', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const second = await created(post(t, '/product-families', { name: 'Bundles' }));
    const p = await createProduct(t, r, { productFamilies: [second.id, r.family.id] });
    const expected = [
      { id: second.id, name: 'Bundles' },
      { id: r.family.id, name: 'Software' },
    ];
    expect(p.productFamilies).toEqual(expected);
    expect((await ok(get(t, `/catalogue/products/${p.id}`))).productFamilies).toEqual(expected);
    expect((await eventsOf(t, p.id))[0]!.data.productFamilies.map((f: { id: string }) => f.id)).toEqual([second.id, r.family.id]);
  });

  it.each([
    { why: 'productFamilies empty', change: { productFamilies: [] }, paths: ['productFamilies'] },
    { why: 'productFamilies missing', drop: 'productFamilies', paths: ['productFamilies'] },
    { why: 'measurement missing', drop: 'measurement', paths: ['measurement'] },
    { why: 'taxGroup missing', drop: 'taxGroup', paths: ['taxGroup'] },
    { why: 'type missing', drop: 'type', paths: ['type'] },
    { why: 'name missing', drop: 'name', paths: ['name'] },
    { why: 'number of one character', change: { number: 'A' }, paths: ['number'] },
    { why: 'invoiceVisibility unknown', change: { invoiceVisibility: 'never' }, paths: ['invoiceVisibility'] },
  ])('422 for $why', async ({ change, drop, paths: expected }) => {
    const t = await createTenant();
    const r = await refs(t);
    const body: Record<string, unknown> = productBody(r, change ?? {});
    if (drop) delete body[drop];
    expect422(await refusedUnchanged(t, null, () => post(t, '/catalogue/products', body)), expected);
    expect(await countRows('products', t)).toBe(0);
  });

  it('422 for references that do not exist in the tenant, one violation each', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const other = await refs(await createTenant());
    const res = await refusedUnchanged(t, null, () =>
      post(t, '/catalogue/products', productBody(r, { productFamilies: [r.family.id, 'missing', other.family.id], measurement: other.measurement.id, taxGroup: 'missing' })),
    );
    expect(violations(res).sort()).toEqual(['measurement: not_found', 'productFamilies[1]: not_found', 'productFamilies[2]: not_found', 'taxGroup: not_found']);
  });

  it('wants numbers unique per tenant (422 number); products without number do not collide', async () => {
    const t = await createTenant();
    const r = await refs(t);
    await createProduct(t, r, { number: 'P-100' });
    const b = await createProduct(t, r, { number: 'P-200' });
    await createProduct(t, r);
    await createProduct(t, r);
    expect(violations(await refusedUnchanged(t, null, () => post(t, '/catalogue/products', productBody(r, { number: 'P-100' }))))).toEqual(['number: not_unique']);
    expect(violations(await refusedUnchanged(t, `/catalogue/products/${b.id}`, () => patch(t, `/catalogue/products/${b.id}`, { number: 'P-100' })))).toEqual([
      'number: not_unique',
    ]);
    const other = await createTenant();
    await createProduct(other, await refs(other), { number: 'P-100' });
  });

  it.each([
    ['product', 'charge'],
    ['charge', 'plan'],
    ['plan', 'product'],
  ])('keeps the type: a %s cannot become a %s (PUT and PATCH → 422 type)', async (from, to) => {
    const t = await createTenant();
    const r = await refs(t);
    const p = await createProduct(t, r, { type: from });
    const url = `/catalogue/products/${p.id}`;
    expect(violations(await refusedUnchanged(t, url, () => put(t, url, productBody(r, { type: to }))))).toEqual(['type: immutable']);
    expect(violations(await refusedUnchanged(t, url, () => patch(t, url, { type: to })))).toEqual(['type: immutable']);
  });

  it('leaves plan-type products out of the list unless type=plan or includePlanProducts=true', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const product = await createProduct(t, r, { type: 'product' });
    const charge = await createProduct(t, r, { type: 'charge' });
    const planProduct = await createProduct(t, r, { type: 'plan' });
    const list = await get(t, '/catalogue/products');
    expect(ids(list)).toEqual([product.id, charge.id]);
    expect(list.body.meta.pagination.totalItems).toBe(2);
    expect(ids(await get(t, '/catalogue/products?includePlanProducts=false'))).toEqual([product.id, charge.id]);
    expect(ids(await get(t, '/catalogue/products?type=plan'))).toEqual([planProduct.id]);
    const all = await get(t, '/catalogue/products?includePlanProducts=true');
    expect(ids(all)).toEqual([product.id, charge.id, planProduct.id]);
    expect(all.body.meta.pagination.totalItems).toBe(3);
    // It is still readable by id.
    expectStatus(await get(t, `/catalogue/products/${planProduct.id}`), 200);
  });

  it('archives and unarchives with one event each; repeating either is 409', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const p = await createProduct(t, r);
    const other = await createProduct(t, r, { name: 'Other' });
    const archived = await ok(put(t, `/catalogue/products/${p.id}/archive`));
    expect(archived).toMatchObject({ id: p.id, isArchived: true, measurement: { id: r.measurement.id, code: 'seats' } });
    expect((await get(t, `/catalogue/products/${p.id}`)).body.isArchived).toBe(true);
    expect(ids(await get(t, '/catalogue/products?isArchived=true'))).toEqual([p.id]);
    expect(ids(await get(t, '/catalogue/products?isArchived=false'))).toEqual([other.id]);
    expectProblem(await refusedUnchanged(t, `/catalogue/products/${p.id}`, () => put(t, `/catalogue/products/${p.id}/archive`)), 409, '/problems/invalid-transition');
    // Editing keeps it archived.
    expect((await ok(patch(t, `/catalogue/products/${p.id}`, { name: 'Renamed' }))).isArchived).toBe(true);
    expect((await ok(put(t, `/catalogue/products/${p.id}/unarchive`))).isArchived).toBe(false);
    expectProblem(await refusedUnchanged(t, `/catalogue/products/${p.id}`, () => put(t, `/catalogue/products/${p.id}/unarchive`)), 409, '/problems/invalid-transition');
    expect(await eventTypes(t, p.id)).toEqual(['product.created', 'product.archived', 'product.updated', 'product.unarchived']);
    const events = await eventsOf(t, p.id);
    expect(events[1]!.data).toMatchObject({ id: p.id, isArchived: true });
    expect(events[3]!.data).toMatchObject({ id: p.id, isArchived: false });
  });

  it('archive: 404 for an unknown product, 403 with product:read', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const p = await createProduct(t, r);
    expectProblem(await put(t, `/catalogue/products/missing/archive`), 404);
    expectProblem(await put(t, `/catalogue/products/missing/unarchive`), 404);
    const reader = await keyWith(t, ['product:read']);
    expectProblem(await refusedUnchanged(t, `/catalogue/products/${p.id}`, () => api(`/catalogue/products/${p.id}/archive`, { method: 'PUT', token: reader })), 403);
  });

  describe('customFields against /custom-fields of resource product', () => {
    async function tenantWithFields() {
      const t = await createTenant();
      const r = await refs(t);
      await created(post(t, '/custom-fields', { name: 'sku', type: 'string', resource: 'product' }));
      await created(post(t, '/custom-fields', { name: 'weight', type: 'number', resource: 'product' }));
      await created(post(t, '/custom-fields', { name: 'tier', type: 'select', resource: 'product', options: ['gold', 'silver'] }));
      await created(post(t, '/custom-fields', { name: 'segment', type: 'string', resource: 'customer' }));
      return { t, r };
    }

    it.each([
      { customFields: { sku: 5 }, path: 'customFields.sku' },
      { customFields: { weight: '5 kg' }, path: 'customFields.weight' },
      { customFields: { tier: 'bronze' }, path: 'customFields.tier' },
      { customFields: { ghost: 'x' }, path: 'customFields.ghost' },
      { customFields: { segment: 'smb' }, path: 'customFields.segment' },
    ])('422 for $customFields', async ({ customFields, path }) => {
      const { t, r } = await tenantWithFields();
      expect422(await refusedUnchanged(t, null, () => post(t, '/catalogue/products', productBody(r, { customFields }))), [path]);
    });

    it('stores valid values and merges them member by member on PATCH', async () => {
      const { t, r } = await tenantWithFields();
      const p = await createProduct(t, r, { customFields: { sku: 'SKU-1', weight: 1.5 } });
      expect(p.customFields).toEqual({ sku: 'SKU-1', weight: 1.5 });
      const patched = await ok(patch(t, `/catalogue/products/${p.id}`, { customFields: { weight: null, tier: 'gold' } }));
      expect(patched.customFields).toEqual({ sku: 'SKU-1', tier: 'gold' });
      expect422(await refusedUnchanged(t, `/catalogue/products/${p.id}`, () => patch(t, `/catalogue/products/${p.id}`, { customFields: { tier: 'x' } })), [
        'customFields.tier',
      ]);
    });

    it('a required product field must be given', async () => {
      const { t, r } = await tenantWithFields();
      await created(post(t, '/custom-fields', { name: 'contract', type: 'string', resource: 'product', required: true }));
      expect(violations(await post(t, '/catalogue/products', productBody(r)))).toEqual(['customFields.contract: custom_field_required']);
      await createProduct(t, r, { customFields: { contract: 'K-1' } });
    });
  });

  it('refuses to delete a product while a price plan uses it (409), allows it afterwards', async () => {
    const t = await createTenant();
    const r = await refs(t);
    const p = await createProduct(t, r);
    const pp = await createPricePlan(t, p.id);
    const url = `/catalogue/products/${p.id}`;
    const res = await refusedUnchanged(t, url, () => del(t, url));
    expectProblem(res, 409, '/problems/in-use');
    expectStatus(await del(t, `/price-plans/${pp.id}`), 204);
    expectStatus(await del(t, url), 204);
    expect(await eventTypes(t, p.id)).toEqual(['product.created', 'product.deleted']);
  });
});
