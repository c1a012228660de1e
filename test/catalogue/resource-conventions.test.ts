import { describe, expect, it } from 'vitest';
import { api, countRows, del, eventsOf, expect422, expectProblem, expectStatus, get, ids, patch, post, put, query, unique, violations, type TestTenant } from '../support/api';
import { created, createCustomer, createTenant, keyWith, ok, refusedUnchanged, setClock } from '../support/builders';
import { createProduct, refs } from './builders';

// The same conventions for every catalogue resource (spec §2.3, §3): create, list (pagination,
// filters, order), get, replace, merge patch, delete, 404, 403, 422 and one outbox event per
// change. Storage is shared by every test file, so every test works in a fresh tenant of its own.
// Tenant isolation of every catalogue route is proven in test/auth/tenant-isolation.test.ts.

/** A representation without its `updatedAt` stamps (also those of embedded objects). */
const withoutUpdatedAt = (o: unknown): unknown => JSON.parse(JSON.stringify(o, (k, v) => (k === 'updatedAt' ? undefined : v)));

interface FilterCase {
  query: (d: any, items: any[]) => string;
  /** Indexes of the three created items the filter returns, in list order. */
  expected: number[];
}

interface CrudCase {
  name: string;
  path: string;
  permission: string;
  /** Event prefix: `<event>.created`, `.updated`, `.deleted`. */
  event: string;
  table: string;
  setup: (t: TestTenant) => Promise<any>;
  /** Three different valid bodies (i = 0, 1, 2). */
  body: (d: any, i: number) => Record<string, unknown>;
  /** How a body shows in the representation (references become objects, …). */
  shown?: (body: Record<string, unknown>) => Record<string, unknown>;
  replace: (d: any) => Record<string, unknown>;
  /** A merge patch of scalar fields, shown unchanged in the representation. */
  patch: Record<string, unknown>;
  /** A body broken in its shape, and the paths it breaks. */
  invalid: (d: any) => Record<string, unknown>;
  invalidPaths: string[];
  filters: FilterCase[];
  /** Fields of the representation that order[...] sorts by. */
  sortable: string[];
}

const noSetup = async () => ({});

const crudCases: CrudCase[] = [
  {
    name: 'product families',
    path: '/product-families',
    permission: 'product-family',
    event: 'product_family',
    table: 'product_families',
    setup: noSetup,
    body: (_d, i) => ({ name: ['Beta', 'Gamma', 'Alpha'][i] }),
    shown: (b) => ({ ...b, products: [] }),
    replace: () => ({ name: 'Delta' }),
    patch: { name: 'Epsilon' },
    invalid: () => ({ name: '' }),
    invalidPaths: ['name'],
    filters: [{ query: () => 'name=Gamma', expected: [1] }],
    sortable: ['name', 'createdAt'],
  },
  {
    name: 'units',
    path: '/units',
    permission: 'unit',
    event: 'unit',
    table: 'units',
    setup: noSetup,
    body: (_d, i) => ({ name: ['Seat', 'Gigabyte', 'Hour'][i], code: ['seat', 'gb', 'zz-hour'][i] }),
    replace: () => ({ name: 'Minute', code: 'min' }),
    patch: { name: 'Renamed' },
    invalid: () => ({ name: 'x', code: 'has space' }),
    invalidPaths: ['code'],
    filters: [{ query: () => 'code=gb', expected: [1] }],
    sortable: ['name', 'code'],
  },
  {
    name: 'measurements',
    path: '/measurements',
    permission: 'measurement',
    event: 'measurement',
    table: 'measurements',
    setup: async (t) => ({ unit: await created(post(t, '/units', { name: 'Call', code: 'call' })) }),
    body: (d, i) => ({
      unit: d.unit.id,
      code: ['m-b', 'm-c', 'm-a'][i],
      description: `Measurement ${i}`,
      fairBilling: i !== 1,
      aggregationType: ['sum', 'last_value', 'max'][i],
      type: ['metered', 'recurring', 'metered'][i],
    }),
    shown: ({ unit, ...b }) => ({ ...b, unit: { id: unit } }),
    replace: (d) => ({ unit: d.unit.id, code: 'm-replaced', description: null, fairBilling: false, aggregationType: 'sum', type: 'metered' }),
    patch: { description: 'Patched' },
    invalid: (d) => ({ unit: d.unit.id, code: 'x', aggregationType: 'median', type: 'metered' }),
    invalidPaths: ['aggregationType'],
    filters: [
      { query: () => 'code=m-c', expected: [1] },
      { query: () => 'type=metered', expected: [0, 2] },
    ],
    sortable: ['code', 'createdAt'],
  },
  {
    name: 'cost centres',
    path: '/cost-centres',
    permission: 'cost-centre',
    event: 'cost_centre',
    table: 'cost_centres',
    setup: noSetup,
    body: (_d, i) => ({ name: ['Sales', 'Marketing', 'Research'][i], code: ['CC-2', 'CC-3', 'CC-1'][i], type: i === 0 ? 'profit' : null }),
    replace: () => ({ name: 'Support', code: 'CC-9', type: 'cost' }),
    patch: { type: 'patched' },
    invalid: () => ({ name: 'x', code: '' }),
    invalidPaths: ['code'],
    filters: [{ query: () => 'code=CC-3', expected: [1] }],
    sortable: ['name', 'code'],
  },
  {
    name: 'cancellation reasons',
    path: '/cancellation-reasons',
    permission: 'cancellation-reason',
    event: 'cancellation_reason',
    table: 'cancellation_reasons',
    setup: noSetup,
    body: (_d, i) => ({ code: ['too-expensive', 'switched', 'missing-feature'][i], name: ['Price', 'Competitor', 'Features'][i] }),
    replace: () => ({ code: 'other', name: 'Other' }),
    patch: { name: 'Renamed' },
    invalid: () => ({ code: 'x' }),
    invalidPaths: ['name'],
    filters: [{ query: () => 'code=switched', expected: [1] }],
    sortable: ['code', 'name'],
  },
  {
    name: 'billing groups',
    path: '/billing-groups',
    permission: 'billing-group',
    event: 'billing_group',
    table: 'billing_groups',
    setup: noSetup,
    body: (_d, i) =>
      [
        { name: 'Month start', type: 'start_of_month', customDay: null, customMonth: null },
        { name: 'On the 15th', type: 'custom', customDay: 15, customMonth: null },
        { name: 'Anniversary', type: 'custom', customDay: 1, customMonth: 7 },
      ][i]!,
    replace: () => ({ name: 'Year end', type: 'end_of_year', customDay: null, customMonth: null }),
    patch: { name: 'Renamed' },
    invalid: () => ({ name: 'x', type: 'weekly' }),
    invalidPaths: ['type'],
    filters: [{ query: () => 'type=custom', expected: [1, 2] }],
    sortable: ['name'],
  },
  {
    name: 'tax groups',
    path: '/tax-groups',
    permission: 'tax-group',
    event: 'tax_group',
    table: 'tax_groups',
    setup: noSetup,
    body: (_d, i) => ({
      internalDescription: `Group ${i}`,
      type: ['standard', 'reduced', 'standard'][i],
      reverseChargeType: ['REVERSE_CHARGE', 'REVERSE_CHARGE_DEACTIVATED', 'REVERSE_CHARGE_INTRA_EU_SUPPLY'][i],
    }),
    replace: () => ({ internalDescription: null, type: 'reduced', reverseChargeType: 'REVERSE_CHARGE' }),
    patch: { internalDescription: 'Patched' },
    invalid: () => ({ type: 'super_reduced' }),
    invalidPaths: ['type'],
    filters: [{ query: () => 'type=reduced', expected: [1] }],
    sortable: [],
  },
  {
    name: 'taxes',
    path: '/taxes',
    permission: 'tax',
    event: 'tax',
    table: 'taxes',
    setup: async (t) => ({
      group: await created(post(t, '/tax-groups', { type: 'standard' })),
      other: await created(post(t, '/tax-groups', { type: 'reduced' })),
    }),
    body: (d, i) => ({
      taxGroup: i === 2 ? d.other.id : d.group.id,
      countryCode: ['FR', 'AT', 'DE'][i],
      validFrom: ['2026-03-01', '2026-01-01', '2026-02-01'][i],
      // Numbers, as spec §2.3 shows the rate.
      rate: [20, 20.5, 7][i],
      code: `T${i}`,
      description: i === 0 ? 'France' : null,
    }),
    replace: (d) => ({ taxGroup: d.group.id, countryCode: 'IT', validFrom: '2027-01-01', rate: 22, code: 'IT22', description: 'Italy' }),
    patch: { rate: 21.5 },
    invalid: (d) => ({ taxGroup: d.group.id, countryCode: 'DE', validFrom: '2026-01-01', rate: '101', code: 'X' }),
    invalidPaths: ['rate'],
    filters: [
      { query: () => 'countryCode=AT', expected: [1] },
      { query: (d) => `taxGroup=${d.other.id}`, expected: [2] },
    ],
    sortable: ['validFrom', 'countryCode'],
  },
  {
    name: 'products',
    path: '/catalogue/products',
    permission: 'product',
    event: 'product',
    table: 'products',
    setup: async (t) => ({ ...(await refs(t)), family2: await created(post(t, '/product-families', { name: 'Hardware' })) }),
    body: (d, i) => ({
      name: ['Basic', 'Setup fee', 'Advanced'][i],
      description: i === 0 ? 'The basic product' : null,
      internalName: `internal-${i}`,
      number: ['P-2', 'P-3', 'P-1'][i],
      type: ['product', 'charge', 'product'][i],
      productFamilies: i === 2 ? [d.family2.id] : [d.family.id],
      measurement: d.measurement.id,
      taxGroup: d.taxGroup.id,
      invoiceVisibility: i === 1 ? 'only_if_charged' : 'always',
    }),
    shown: (b) => ({
      ...b,
      productFamilies: (b.productFamilies as string[]).map((id) => ({ id })),
      measurement: { id: b.measurement },
      taxGroup: { id: b.taxGroup },
      isArchived: false,
    }),
    replace: (d) => ({
      name: 'Replaced',
      description: null,
      internalName: null,
      number: null,
      type: 'product',
      productFamilies: [d.family2.id],
      measurement: d.metered.id,
      taxGroup: d.taxGroup.id,
      invoiceVisibility: 'only_if_charged',
      costCentre: null,
      customFields: null,
    }),
    patch: { internalName: 'Patched' },
    invalid: (d) => ({ name: 'X', type: 'service', productFamilies: [d.family.id], measurement: d.measurement.id, taxGroup: d.taxGroup.id }),
    invalidPaths: ['type'],
    filters: [
      { query: () => 'type=charge', expected: [1] },
      { query: (d) => `productFamily=${d.family2.id}`, expected: [2] },
      { query: () => 'number=P-3', expected: [1] },
      { query: () => 'search=anced', expected: [2] },
      { query: () => 'isArchived=false', expected: [0, 1, 2] },
    ],
    sortable: ['name', 'number', 'createdAt'],
  },
  {
    name: 'price plans',
    path: '/price-plans',
    permission: 'price-plan',
    event: 'price_plan',
    table: 'price_plans',
    setup: async (t) => {
      const r = await refs(t);
      return {
        ...r,
        p1: await createProduct(t, r, { name: 'One' }),
        p2: await createProduct(t, r, { name: 'Two' }),
        customer: await createCustomer(t),
      };
    },
    body: (d, i) =>
      [
        { product: d.p1.id, calculationType: 'flat_fee', currencyCode: 'EUR', price: { amount: '10' }, billingInterval: '1M', custom: true, customer: d.customer.id },
        { product: d.p1.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '0.0125' }, billingInterval: '3M', status: 'inactive' },
        { product: d.p2.id, calculationType: 'flat_fee', currencyCode: 'USD', price: { amount: '99.90' }, billingInterval: '1Y', internalName: 'yearly' },
      ][i]!,
    replace: (d) => ({ product: d.p2.id, calculationType: 'per_unit', currencyCode: 'CHF', price: { amount: '2' }, billingInterval: '2W', freeUnits: '5' }),
    patch: { internalName: 'Patched' },
    invalid: (d) => ({ product: d.p1.id, calculationType: 'flat_fee', currencyCode: 'EURO', price: { amount: '10' }, billingInterval: '1M' }),
    invalidPaths: ['currencyCode'],
    filters: [
      { query: (d) => `product=${d.p2.id}`, expected: [2] },
      { query: () => 'status=inactive', expected: [1] },
      { query: () => 'currencyCode=USD', expected: [2] },
      { query: (d) => `customer=${d.customer.id}`, expected: [0] },
    ],
    sortable: ['createdAt'],
  },
  {
    name: 'plans',
    path: '/plans',
    permission: 'plan',
    event: 'plan',
    table: 'plans',
    setup: async (t) => ({
      f1: await created(post(t, '/product-families', { name: 'F1' })),
      f2: await created(post(t, '/product-families', { name: 'F2' })),
    }),
    body: (d, i) => ({
      family: i === 1 ? d.f2.id : d.f1.id,
      code: ['pro', 'team', 'basic'][i],
      name: ['Pro', 'Team', 'Basic'][i],
      description: `Plan ${i}`,
      allowCheckout: i === 0,
      changeBehaviour: 'upgradeable',
      changeApplyBehaviour: i === 0 ? 'end_of_period' : null,
      contractPeriod: '1Y',
      cancellationPeriod: '1M',
    }),
    shown: (b) => ({ ...b, status: 'draft', items: [], addons: [], originProduct: null }),
    replace: (d) => ({
      family: d.f2.id,
      code: 'enterprise',
      name: 'Enterprise',
      description: null,
      allowCheckout: false,
      changeBehaviour: 'not_changeable',
      changeApplyBehaviour: 'immediately',
      contractPeriod: null,
      cancellationPeriod: '14D',
    }),
    patch: { name: 'Patched' },
    invalid: (d) => ({ family: d.f1.id, code: 'x', name: 'X', contractPeriod: '1X' }),
    invalidPaths: ['contractPeriod'],
    filters: [
      { query: () => 'status=draft', expected: [0, 1, 2] },
      { query: (d) => `family=${d.f2.id}`, expected: [1] },
      { query: () => 'code=basic', expected: [2] },
    ],
    sortable: ['name', 'code', 'createdAt'],
  },
  {
    name: 'coupons',
    path: '/coupons',
    permission: 'coupon',
    event: 'coupon',
    table: 'coupons',
    setup: noSetup,
    body: (_d, i) =>
      [
        { code: 'SUMMER', name: 'Summer', type: 'percentage', percentage: 20, frequency: 'once' },
        { code: 'WELCOME', name: 'Welcome', type: 'fixed_amount', fixedAmount: { amount: '5.00', currencyCode: 'EUR' }, frequency: 'limited', frequencyInterval: 3, isEnabled: false },
        { code: 'FOREVER', name: 'Forever', type: 'percentage', percentage: 5, frequency: 'lifetime', maxRedemptions: 10, maxRedemptionsPerCustomer: 1 },
      ][i]!,
    shown: (b) => ({ ...b, reedemptions: false }),
    replace: () => ({ code: 'REPLACED', name: 'Replaced', type: 'fixed_amount', fixedAmount: { amount: '12.50', currencyCode: 'USD' }, frequency: 'once' }),
    patch: { name: 'Patched' },
    invalid: () => ({ code: 'has space', name: 'X', type: 'percentage', percentage: 10, frequency: 'once' }),
    invalidPaths: ['code'],
    filters: [
      { query: () => 'code=WELCOME', expected: [1] },
      { query: () => 'isEnabled=false', expected: [1] },
      { query: () => 'isEnabled=true', expected: [0, 2] },
    ],
    sortable: ['code', 'createdAt'],
  },
];

describe.each(crudCases)('$name: the resource conventions', (c) => {
  const shown = c.shown ?? ((b: Record<string, unknown>) => b);

  it('creates, gets, replaces, merge-patches and deletes, with one outbox event per change', async () => {
    const t = await createTenant();
    const d = await c.setup(t);
    const eventsBefore = await countRows('events', t);

    const res = await post(t, c.path, c.body(d, 0));
    expectStatus(res, 201);
    const item = res.body;
    expect(item).toMatchObject({ ...shown(c.body(d, 0)), id: expect.any(String), createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect((await get(t, `${c.path}/${item.id}`)).body).toEqual(item);

    const replaced = await ok(put(t, `${c.path}/${item.id}`, c.replace(d)));
    expect(replaced).toMatchObject({ ...shown(c.replace(d)), id: item.id, createdAt: item.createdAt });
    expect((await get(t, `${c.path}/${item.id}`)).body).toEqual(replaced);

    const patched = await ok(patch(t, `${c.path}/${item.id}`, c.patch));
    expect(withoutUpdatedAt(patched)).toEqual(withoutUpdatedAt({ ...replaced, ...c.patch }));
    expect((await get(t, `${c.path}/${item.id}`)).body).toEqual(patched);

    const removed = await del(t, `${c.path}/${item.id}`);
    expectStatus(removed, 204);
    expect(removed.body).toBeNull();
    expectStatus(await get(t, `${c.path}/${item.id}`), 404);
    expect(await query(t, `SELECT id FROM ${c.table} WHERE id = ?`, item.id)).toEqual([]);

    const events = await eventsOf(t, item.id);
    expect(events.map((e) => e.type)).toEqual([`${c.event}.created`, `${c.event}.updated`, `${c.event}.updated`, `${c.event}.deleted`]);
    expect(events.map((e) => e.data.id)).toEqual([item.id, item.id, item.id, item.id]);
    expect(events[2]!.data).toMatchObject(c.patch);
    expect(await countRows('events', t)).toBe(eventsBefore + 4);
  });

  it('lists with pagination meta, each filter and order[...] in both directions', async () => {
    const t = await createTenant();
    const d = await c.setup(t);
    const items: any[] = [];
    for (let i = 0; i < 3; i++) {
      await setClock(t, `2030-01-01T00:00:0${i}.000Z`);
      items.push(await created(post(t, c.path, c.body(d, i))));
    }
    const all = await ok(get(t, c.path));
    expect(all.data).toEqual(items); // default order: oldest first, full representations
    expect(all.meta.pagination).toEqual({ totalItems: 3, itemsPerPage: 30, currentPage: 1, lastPage: 1, pageTotalItems: 3 });

    const first = await ok(get(t, `${c.path}?limit=2`));
    expect(first.meta.pagination).toEqual({ totalItems: 3, itemsPerPage: 2, currentPage: 1, lastPage: 2, pageTotalItems: 2 });
    const second = await ok(get(t, `${c.path}?limit=2&page=2`));
    expect(second.meta.pagination).toEqual({ totalItems: 3, itemsPerPage: 2, currentPage: 2, lastPage: 2, pageTotalItems: 1 });
    expect([...first.data, ...second.data].map((x: any) => x.id)).toEqual(items.map((x) => x.id));
    const none = await ok(get(t, `${c.path}?limit=0`));
    expect(none.data).toEqual([]);
    expect(none.meta.pagination.totalItems).toBe(3);

    for (const f of c.filters) {
      const q = f.query(d, items);
      const res = await get(t, `${c.path}?${q}`);
      expectStatus(res, 200);
      expect(ids(res), q).toEqual(f.expected.map((i) => items[i].id));
      expect(res.body.meta.pagination.totalItems, q).toBe(f.expected.length);
    }

    for (const field of c.sortable) {
      const asc = [...items].sort((a, b) => (a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : 0)).map((x) => x.id);
      expect(new Set(items.map((x) => x[field])).size, `${field} values must differ`).toBe(3);
      expect(ids(await get(t, `${c.path}?order[${field}]=asc`)), `order[${field}]=asc`).toEqual(asc);
      expect(ids(await get(t, `${c.path}?order[${field}]=desc`)), `order[${field}]=desc`).toEqual([...asc].reverse());
    }
    for (const bad of ['limit=101', 'page=-1', 'limit=abc', 'colour=red', ...c.sortable.map((f) => `order[${f}]=up`)]) {
      expectStatus(await get(t, `${c.path}?${bad}`), 400);
    }
  });

  it('PATCH takes a merge patch as application/merge-patch+json or application/json, 415 otherwise, and refuses unknown fields (422)', async () => {
    const t = await createTenant();
    const d = await c.setup(t);
    const item = await created(post(t, c.path, c.body(d, 0)));
    const url = `${c.path}/${item.id}`;
    const wrongType = await refusedUnchanged(t, url, () => api(url, { token: t.key, method: 'PATCH', rawBody: JSON.stringify(c.patch), contentType: 'text/plain' }));
    expectProblem(wrongType, 415);
    const asJson = await api(url, { token: t.key, method: 'PATCH', body: c.patch, contentType: 'application/json' });
    expect(asJson.status, JSON.stringify(asJson.body)).toBe(200);
    expect(asJson.body).toMatchObject(c.patch);
    const unknown = await refusedUnchanged(t, url, () => patch(t, url, { nickname: 'x' }));
    expect422(unknown, ['nickname']);
    expect(violations(unknown)).toEqual(['nickname: unknown_field']);
    // An empty merge patch keeps the record as it is.
    expect(withoutUpdatedAt(await ok(patch(t, url, {})))).toEqual(withoutUpdatedAt(asJson.body));
  });

  it('422 for a malformed body on POST and PUT; nothing is stored, no event', async () => {
    const t = await createTenant();
    const d = await c.setup(t);
    const rows = await countRows(c.table, t);
    expect422(await refusedUnchanged(t, null, () => post(t, c.path, c.invalid(d))), c.invalidPaths);
    expect422(await refusedUnchanged(t, null, () => post(t, c.path, { ...c.body(d, 0), createdAt: '2020-01-01T00:00:00Z' })), ['createdAt']);
    expect(await countRows(c.table, t)).toBe(rows);
    const item = await created(post(t, c.path, c.body(d, 0)));
    expect422(await refusedUnchanged(t, `${c.path}/${item.id}`, () => put(t, `${c.path}/${item.id}`, c.invalid(d))), c.invalidPaths);
  });

  it('404 for an unknown id on GET, PUT, PATCH and DELETE', async () => {
    const t = await createTenant();
    const d = await c.setup(t);
    const url = `${c.path}/${unique('missing')}`;
    expectProblem(await get(t, url), 404, '/problems/not-found');
    expectProblem(await refusedUnchanged(t, null, () => put(t, url, c.body(d, 0))), 404);
    expectProblem(await refusedUnchanged(t, null, () => patch(t, url, c.patch)), 404);
    expectProblem(await refusedUnchanged(t, null, () => del(t, url)), 404);
  });

  it(`403 without the permission; :read reads but does not write`, async () => {
    const t = await createTenant();
    const d = await c.setup(t);
    const item = await created(post(t, c.path, c.body(d, 0)));
    const url = `${c.path}/${item.id}`;
    const stranger = await keyWith(t, ['customer:read']);
    for (const path of [c.path, url]) {
      const res = await api(path, { token: stranger });
      expectProblem(res, 403);
      expect(res.body.detail).toContain(`${c.permission}:read`);
    }
    const reader = await keyWith(t, [`${c.permission}:read`]);
    expectStatus(await api(c.path, { token: reader }), 200);
    expect((await api(url, { token: reader })).body).toEqual(item);
    for (const [method, path, body] of [
      ['POST', c.path, c.body(d, 1)],
      ['PUT', url, c.replace(d)],
      ['PATCH', url, c.patch],
      ['DELETE', url, undefined],
    ] as const) {
      const res = await refusedUnchanged(t, url, () => api(path, { token: reader, method, body }));
      expectProblem(res, 403);
      expect(res.body.detail).toContain(`${c.permission}:write`);
    }
    expect(await countRows(c.table, t)).toBeGreaterThanOrEqual(1);
    const writer = await keyWith(t, [`${c.permission}:write`]);
    expectStatus(await api(url, { token: writer, method: 'PATCH', body: c.patch }), 200);
  });
});
