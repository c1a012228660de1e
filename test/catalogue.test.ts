import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, createCustomer, createTenant, keyWith, unique, violations, type ApiResponse, type TestTenant, query, eventsOf, type StoredEvent, countRows, expectStatus, expectProblem, paths, expect422 } from './helpers';

// The catalogue (spec §2.3, §3, issue 3): product families, units, measurements, cost centres,
// cancellation reasons, billing groups, tax groups and taxes, products, price plans, plans and
// coupons. Storage is shared inside this file, so every test works in a fresh tenant of its own.
// Tenant isolation of every catalogue route is proven in auth.test.ts.

// ---------------------------------------------------------------------------------------------
// Helpers

async function eventTypes(t: TestTenant, resourceId?: string): Promise<string[]> {
  return (await eventsOf(t, resourceId)).map((e) => e.type);
}

const post = (t: TestTenant, path: string, body: unknown) => api(path, { token: t.key, method: 'POST', body });
const put = (t: TestTenant, path: string, body?: unknown) => api(path, { token: t.key, method: 'PUT', ...(body === undefined ? {} : { body }) });
const patch = (t: TestTenant, path: string, body: unknown) => api(path, { token: t.key, method: 'PATCH', body });
const get = (t: TestTenant, path: string) => api(path, { token: t.key });
const del = (t: TestTenant, path: string) => api(path, { token: t.key, method: 'DELETE' });

async function created(res: Promise<ApiResponse>): Promise<any> {
  const r = await res;
  expectStatus(r, 201);
  return r.body;
}

async function ok(res: Promise<ApiResponse>): Promise<any> {
  const r = await res;
  expectStatus(r, 200);
  return r.body;
}

/** Records a redemption the way the subscriptions issue will: a row in coupon_redemptions. */
async function redeem(t: TestTenant, couponId: string, customerId: string, tenantId = t.id) {
  await env.DB.prepare('INSERT INTO coupon_redemptions (id, tenant_id, coupon_id, customer_id, subscription_id, created_at) VALUES (?, ?, ?, ?, ?, ?)')
    .bind(unique('red'), tenantId, couponId, customerId, null, new Date().toISOString())
    .run();
}

async function setClock(t: TestTenant, now: string) {
  expectStatus(await put(t, '/test-clock', { now }), 200);
}

const ids = (res: ApiResponse): string[] => (res.body.data as { id: string }[]).map((r) => r.id);
/** A representation without its `updatedAt` stamps (also those of embedded objects). */
const withoutUpdatedAt = (o: unknown): unknown => JSON.parse(JSON.stringify(o, (k, v) => (k === 'updatedAt' ? undefined : v)));

/** Runs a refused request and proves it changed nothing: no new event, the stored record unchanged. */
async function refusedUnchanged(t: TestTenant, itemPath: string | null, request: () => Promise<ApiResponse>): Promise<ApiResponse> {
  const before = itemPath ? (await get(t, itemPath)).body : null;
  const eventsBefore = await countRows('events', t);
  const res = await request();
  expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
  expect(await countRows('events', t), 'a refused change wrote an event').toBe(eventsBefore);
  if (itemPath) expect((await get(t, itemPath)).body).toEqual(before);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Catalogue fixtures

interface Refs {
  family: any;
  unit: any;
  /** recurring, last_value */
  measurement: any;
  /** metered, sum */
  metered: any;
  taxGroup: any;
}

async function refs(t: TestTenant): Promise<Refs> {
  const family = await created(post(t, '/product-families', { name: 'Software' }));
  const unit = await created(post(t, '/units', { name: 'Seat', code: 'seat' }));
  const measurement = await created(post(t, '/measurements', { unit: unit.id, code: 'seats', aggregationType: 'last_value', type: 'recurring' }));
  const metered = await created(post(t, '/measurements', { unit: unit.id, code: 'api-calls', aggregationType: 'sum', type: 'metered' }));
  const taxGroup = await created(post(t, '/tax-groups', { type: 'standard', internalDescription: 'Standard VAT' }));
  return { family, unit, measurement, metered, taxGroup };
}

const productBody = (r: Refs, overrides: Record<string, unknown> = {}) => ({
  name: 'Pro',
  type: 'product',
  productFamilies: [r.family.id],
  measurement: r.measurement.id,
  taxGroup: r.taxGroup.id,
  ...overrides,
});

const pricePlanBody = (product: string, overrides: Record<string, unknown> = {}) => ({
  product,
  calculationType: 'flat_fee',
  currencyCode: 'EUR',
  price: { amount: '10' },
  billingInterval: '1M',
  ...overrides,
});

async function createProduct(t: TestTenant, r: Refs, overrides: Record<string, unknown> = {}) {
  return created(post(t, '/catalogue/products', productBody(r, overrides)));
}

async function createPricePlan(t: TestTenant, product: string, overrides: Record<string, unknown> = {}) {
  return created(post(t, '/price-plans', pricePlanBody(product, overrides)));
}

/** A product with a flat 10 EUR monthly price plan and a draft plan selling it. */
async function sellable(t: TestTenant) {
  const r = await refs(t);
  const product = await createProduct(t, r);
  const pricePlan = await createPricePlan(t, product.id);
  const plan = await created(post(t, '/plans', { family: r.family.id, code: unique('plan'), name: 'Pro monthly', items: [{ product: product.id, pricePlan: pricePlan.id }] }));
  return { r, product, pricePlan, plan };
}

// ---------------------------------------------------------------------------------------------
// The same conventions for every resource: create, list (pagination, filters, order), get,
// replace, merge patch, delete, 404, 403, 422 and one outbox event per change.

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
      rate: ['20', '20.5', '7'][i],
      code: `T${i}`,
      description: i === 0 ? 'France' : null,
    }),
    replace: (d) => ({ taxGroup: d.group.id, countryCode: 'IT', validFrom: '2027-01-01', rate: '22', code: 'IT22', description: 'Italy' }),
    patch: { rate: '21.5' },
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
    expect(await query(`SELECT id FROM ${c.table} WHERE id = ?`, item.id)).toEqual([]);

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
    for (const bad of ['limit=101', 'page=0', 'limit=abc', ...c.sortable.map((f) => `order[${f}]=up`)]) {
      expectStatus(await get(t, `${c.path}?${bad}`), 400);
    }
  });

  it('PATCH needs application/merge-patch+json (415) and refuses unknown fields (422)', async () => {
    const t = await createTenant();
    const d = await c.setup(t);
    const item = await created(post(t, c.path, c.body(d, 0)));
    const url = `${c.path}/${item.id}`;
    const wrongType = await refusedUnchanged(t, url, () => api(url, { token: t.key, method: 'PATCH', body: c.patch, contentType: 'application/json' }));
    expectProblem(wrongType, 415);
    const unknown = await refusedUnchanged(t, url, () => patch(t, url, { nickname: 'x' }));
    expect422(unknown, ['nickname']);
    expect(violations(unknown)).toEqual(['nickname: unknown_field']);
    // An empty merge patch keeps the record as it is.
    expect(withoutUpdatedAt(await ok(patch(t, url, {})))).toEqual(withoutUpdatedAt(item));
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

// ---------------------------------------------------------------------------------------------

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

describe('tax groups and taxes', () => {
  it('defaults reverseChargeType to REVERSE_CHARGE', async () => {
    const t = await createTenant();
    expect(await created(post(t, '/tax-groups', { type: 'reduced' }))).toMatchObject({ type: 'reduced', reverseChargeType: 'REVERSE_CHARGE', internalDescription: null });
  });

  it.each([
    { rate: '101', ok: false },
    { rate: '100.0001', ok: false },
    { rate: '-1', ok: false },
    { rate: 19, ok: false },
    { rate: '19.12345', ok: false },
    { rate: '', ok: false },
    { rate: '0', ok: true },
    { rate: '100', ok: true },
    { rate: '7.7', ok: true },
    { rate: '25.5', ok: true },
  ])('rate $rate: accepted $ok', async ({ rate, ok: accepted }) => {
    const t = await createTenant();
    const group = await created(post(t, '/tax-groups', { type: 'standard' }));
    const res = await post(t, '/taxes', { taxGroup: group.id, countryCode: 'DE', validFrom: '2026-01-01', rate, code: 'X' });
    if (accepted) {
      expectStatus(res, 201);
      expect(res.body.rate).toBe(rate);
    } else {
      expectProblem(res, 422);
      expect(new Set(paths(res))).toEqual(new Set(['rate']));
      expect(await countRows('taxes', t)).toBe(0);
    }
  });

  it.each([
    { body: { countryCode: 'XX' }, path: 'countryCode' },
    { body: { countryCode: 'de' }, path: 'countryCode' },
    { body: { validFrom: '2026-02-30' }, path: 'validFrom' },
    { body: { validFrom: '01.01.2026' }, path: 'validFrom' },
    { body: { code: '' }, path: 'code' },
    { body: { taxGroup: 'missing-group' }, path: 'taxGroup' },
  ])('422 for $body', async ({ body, path }) => {
    const t = await createTenant();
    const group = await created(post(t, '/tax-groups', { type: 'standard' }));
    expect422(await refusedUnchanged(t, null, () => post(t, '/taxes', { taxGroup: group.id, countryCode: 'DE', validFrom: '2026-01-01', rate: '19', code: 'X', ...body })), [path]);
  });

  it('one tax per group, country and validFrom (422 validFrom); other groups, countries and dates are fine', async () => {
    const t = await createTenant();
    const group = await created(post(t, '/tax-groups', { type: 'standard' }));
    const other = await created(post(t, '/tax-groups', { type: 'standard' }));
    const base = { taxGroup: group.id, countryCode: 'DE', validFrom: '2026-01-01', rate: '19', code: 'DE19' };
    await created(post(t, '/taxes', base));
    expect(violations(await refusedUnchanged(t, null, () => post(t, '/taxes', { ...base, rate: '16' })))).toEqual(['validFrom: not_unique']);
    await created(post(t, '/taxes', { ...base, taxGroup: other.id }));
    await created(post(t, '/taxes', { ...base, countryCode: 'AT' }));
    const later = await created(post(t, '/taxes', { ...base, validFrom: '2026-07-01' }));
    expect(violations(await refusedUnchanged(t, `/taxes/${later.id}`, () => patch(t, `/taxes/${later.id}`, { validFrom: '2026-01-01' })))).toEqual([
      'validFrom: not_unique',
    ]);
    expect(await countRows('taxes', t)).toBe(4);
  });

  describe('GET /tax-groups/{id}/rate (seller in DE)', () => {
    it.each([
      { why: 'domestic, standard', group: 'standard', q: 'customerCountry=DE', expected: { rate: '19', category: 'S', country: 'DE', legalNote: null } },
      { why: 'domestic, reduced', group: 'reduced', q: 'customerCountry=DE', expected: { rate: '7', category: 'S', country: 'DE', legalNote: null } },
      { why: 'FR consumer: destination rate', group: 'standard', q: 'customerCountry=FR', expected: { rate: '20', category: 'S', country: 'FR', legalNote: null } },
      {
        why: 'FR consumer claiming a VAT id without being a business',
        group: 'standard',
        q: 'customerCountry=FR&vatIdValid=true',
        expected: { rate: '20', category: 'S', country: 'FR' },
      },
      { why: 'FR business without a valid VAT id', group: 'standard', q: 'customerCountry=FR&isBusiness=true&vatIdValid=false', expected: { rate: '20', category: 'S' } },
      {
        why: 'FR business with a valid VAT id: reverse charge',
        group: 'standard',
        q: 'customerCountry=FR&isBusiness=true&vatIdValid=true',
        expected: { rate: '0', category: 'AE', country: 'FR', legalNote: expect.stringMatching(/reverse charge/i) },
      },
      {
        why: 'FR business with reverse charge deactivated',
        group: 'standard',
        reverseChargeType: 'REVERSE_CHARGE_DEACTIVATED',
        q: 'customerCountry=FR&isBusiness=true&vatIdValid=true',
        expected: { rate: '20', category: 'S', country: 'FR' },
      },
      {
        why: 'FR business, intra-EU supply of goods',
        group: 'standard',
        reverseChargeType: 'REVERSE_CHARGE_INTRA_EU_SUPPLY',
        q: 'customerCountry=FR&isBusiness=true&vatIdValid=true',
        expected: { rate: '0', category: 'K', legalNote: expect.any(String) },
      },
      { why: 'US customer: export', group: 'standard', q: 'customerCountry=US', expected: { rate: '0', category: 'G', country: 'US', legalNote: expect.any(String) } },
      {
        why: 'exempt customer',
        group: 'standard',
        q: 'customerCountry=DE&taxExempt=exempt',
        expected: { rate: '0', category: 'E', legalNote: expect.stringMatching(/exempt/i) },
      },
    ])('$why', async ({ group, reverseChargeType, q, expected }) => {
      const t = await createTenant();
      const g = await created(post(t, '/tax-groups', { type: group, ...(reverseChargeType ? { reverseChargeType } : {}) }));
      const res = await get(t, `/tax-groups/${g.id}/rate?${q}&date=2026-01-15`);
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ ...expected, sellerCountry: 'DE', date: '2026-01-15', taxId: null });
    });

    it('a tenant tax overrides the rate from its validFrom on, not before, and only for its group', async () => {
      const t = await createTenant();
      const g = await created(post(t, '/tax-groups', { type: 'standard' }));
      const other = await created(post(t, '/tax-groups', { type: 'standard' }));
      const tax = await created(post(t, '/taxes', { taxGroup: g.id, countryCode: 'DE', validFrom: '2026-07-01', rate: '16', code: 'DE16' }));
      const rate = async (group: string, date: string, country = 'DE') => (await ok(get(t, `/tax-groups/${group}/rate?customerCountry=${country}&date=${date}`)));
      expect(await rate(g.id, '2026-06-30')).toMatchObject({ rate: '19', taxId: null });
      expect(await rate(g.id, '2026-07-01')).toMatchObject({ rate: '16', category: 'S', taxId: tax.id });
      expect(await rate(g.id, '2027-03-01')).toMatchObject({ rate: '16', taxId: tax.id });
      expect(await rate(other.id, '2026-07-01')).toMatchObject({ rate: '19', taxId: null });
      expect(await rate(g.id, '2026-07-01', 'FR')).toMatchObject({ rate: '20', taxId: null });
      // A later tax wins from its own date on; a zero rate is Z.
      const zero = await created(post(t, '/taxes', { taxGroup: g.id, countryCode: 'DE', validFrom: '2027-01-01', rate: '0', code: 'DE0' }));
      expect(await rate(g.id, '2026-12-31')).toMatchObject({ rate: '16', taxId: tax.id });
      expect(await rate(g.id, '2027-01-01')).toMatchObject({ rate: '0', category: 'Z', taxId: zero.id });
      // Removing the tax brings the table rate back.
      expectStatus(await del(t, `/taxes/${tax.id}`), 204);
      expect(await rate(g.id, '2026-07-01')).toMatchObject({ rate: '19', taxId: null });
    });

    it.each(['customerCountry=XX&date=2026-01-01', 'customerCountry=DE', 'date=2026-01-01', 'customerCountry=DE&date=tomorrow', 'customerCountry=DE&date=2026-01-01&taxExempt=maybe'])(
      '400 for %s',
      async (q) => {
        const t = await createTenant();
        const g = await created(post(t, '/tax-groups', { type: 'standard' }));
        expectProblem(await get(t, `/tax-groups/${g.id}/rate?${q}`), 400);
      },
    );

    it('404 for an unknown group; 403 without tax-group:read', async () => {
      const t = await createTenant();
      const g = await created(post(t, '/tax-groups', { type: 'standard' }));
      expectProblem(await get(t, `/tax-groups/missing/rate?customerCountry=DE&date=2026-01-01`), 404);
      const res = await api(`/tax-groups/${g.id}/rate?customerCountry=DE&date=2026-01-01`, { token: await keyWith(t, ['tax:read']) });
      expectProblem(res, 403);
      expect(res.body.detail).toContain('tax-group:read');
    });
  });
});

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
    { why: 'expiresAt without offset', body: { expiresAt: '2099-01-01T00:00:00' }, paths: ['expiresAt'] },
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
    const other = await createTenant();
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

// ---------------------------------------------------------------------------------------------
// A record in use cannot be deleted (409); the refused delete changes nothing, neither in the
// tenant nor anywhere else, and once the use is gone the delete works.

interface InUseCase {
  name: string;
  /** Makes a record that is in use; returns its URL, a sibling of the same kind and how to end the use. */
  setup: (t: TestTenant) => Promise<{ url: string; sibling: string; release: () => Promise<unknown> }>;
  /** Makes a record of the same kind in another tenant (it must survive). */
  elsewhere: (t: TestTenant) => Promise<string>;
}

const inUseCases: InUseCase[] = [
  {
    name: 'a product family used by a product',
    setup: async (t) => {
      const r = await refs(t);
      const p = await createProduct(t, r);
      const sibling = await created(post(t, '/product-families', { name: 'Sibling' }));
      return { url: `/product-families/${r.family.id}`, sibling: `/product-families/${sibling.id}`, release: () => del(t, `/catalogue/products/${p.id}`) };
    },
    elsewhere: async (t) => `/product-families/${(await created(post(t, '/product-families', { name: 'Elsewhere' }))).id}`,
  },
  {
    name: 'a product family used by a plan',
    setup: async (t) => {
      const family = await created(post(t, '/product-families', { name: 'Plans only' }));
      const plan = await created(post(t, '/plans', { family: family.id, code: 'p1', name: 'P1' }));
      const sibling = await created(post(t, '/product-families', { name: 'Sibling' }));
      return { url: `/product-families/${family.id}`, sibling: `/product-families/${sibling.id}`, release: () => del(t, `/plans/${plan.id}`) };
    },
    elsewhere: async (t) => `/product-families/${(await created(post(t, '/product-families', { name: 'Elsewhere' }))).id}`,
  },
  {
    name: 'a unit used by a measurement',
    setup: async (t) => {
      const unit = await created(post(t, '/units', { name: 'Seat', code: 'seat' }));
      const m = await created(post(t, '/measurements', { unit: unit.id, code: 'seats', aggregationType: 'sum', type: 'metered' }));
      const sibling = await created(post(t, '/units', { name: 'Other', code: 'other' }));
      return { url: `/units/${unit.id}`, sibling: `/units/${sibling.id}`, release: () => del(t, `/measurements/${m.id}`) };
    },
    elsewhere: async (t) => `/units/${(await created(post(t, '/units', { name: 'Seat', code: 'seat' }))).id}`,
  },
  {
    name: 'a measurement used by a product',
    setup: async (t) => {
      const r = await refs(t);
      const p = await createProduct(t, r);
      return { url: `/measurements/${r.measurement.id}`, sibling: `/measurements/${r.metered.id}`, release: () => del(t, `/catalogue/products/${p.id}`) };
    },
    elsewhere: async (t) => `/measurements/${(await refs(t)).measurement.id}`,
  },
  {
    name: 'a cost centre used by a product',
    setup: async (t) => {
      const r = await refs(t);
      const cc = await created(post(t, '/cost-centres', { name: 'Sales', code: 'CC-1' }));
      const sibling = await created(post(t, '/cost-centres', { name: 'Other', code: 'CC-2' }));
      const p = await createProduct(t, r, { costCentre: cc.id });
      return { url: `/cost-centres/${cc.id}`, sibling: `/cost-centres/${sibling.id}`, release: () => patch(t, `/catalogue/products/${p.id}`, { costCentre: null }) };
    },
    elsewhere: async (t) => `/cost-centres/${(await created(post(t, '/cost-centres', { name: 'Sales', code: 'CC-1' }))).id}`,
  },
  {
    name: 'a tax group used by a product',
    setup: async (t) => {
      const r = await refs(t);
      const p = await createProduct(t, r);
      const sibling = await created(post(t, '/tax-groups', { type: 'reduced' }));
      return { url: `/tax-groups/${r.taxGroup.id}`, sibling: `/tax-groups/${sibling.id}`, release: () => del(t, `/catalogue/products/${p.id}`) };
    },
    elsewhere: async (t) => `/tax-groups/${(await created(post(t, '/tax-groups', { type: 'standard' }))).id}`,
  },
  {
    name: 'a tax group used by a tax',
    setup: async (t) => {
      const group = await created(post(t, '/tax-groups', { type: 'standard' }));
      const tax = await created(post(t, '/taxes', { taxGroup: group.id, countryCode: 'DE', validFrom: '2026-01-01', rate: '19', code: 'X' }));
      const sibling = await created(post(t, '/tax-groups', { type: 'reduced' }));
      return { url: `/tax-groups/${group.id}`, sibling: `/tax-groups/${sibling.id}`, release: () => del(t, `/taxes/${tax.id}`) };
    },
    elsewhere: async (t) => `/tax-groups/${(await created(post(t, '/tax-groups', { type: 'standard' }))).id}`,
  },
  {
    name: 'a product used by a price plan',
    setup: async (t) => {
      const r = await refs(t);
      const p = await createProduct(t, r);
      const pp = await createPricePlan(t, p.id);
      const sibling = await createProduct(t, r, { name: 'Sibling' });
      return { url: `/catalogue/products/${p.id}`, sibling: `/catalogue/products/${sibling.id}`, release: () => del(t, `/price-plans/${pp.id}`) };
    },
    elsewhere: async (t) => `/catalogue/products/${(await createProduct(t, await refs(t))).id}`,
  },
  {
    name: 'a product that is the origin product of a plan',
    setup: async (t) => {
      const r = await refs(t);
      const p = await createProduct(t, r, { type: 'plan' });
      const plan = await created(post(t, '/plans', { family: r.family.id, code: 'origin', name: 'Origin', originProduct: p.id }));
      const sibling = await createProduct(t, r, { name: 'Sibling' });
      return { url: `/catalogue/products/${p.id}`, sibling: `/catalogue/products/${sibling.id}`, release: () => del(t, `/plans/${plan.id}`) };
    },
    elsewhere: async (t) => `/catalogue/products/${(await createProduct(t, await refs(t))).id}`,
  },
  {
    name: 'a product in the items of a plan',
    setup: async (t) => {
      const { r, product, pricePlan, plan } = await sellable(t);
      const sibling = await createProduct(t, r, { name: 'Sibling' });
      return {
        url: `/catalogue/products/${product.id}`,
        sibling: `/catalogue/products/${sibling.id}`,
        release: async () => {
          await del(t, `/plans/${plan.id}`);
          await del(t, `/price-plans/${pricePlan.id}`);
        },
      };
    },
    elsewhere: async (t) => `/catalogue/products/${(await createProduct(t, await refs(t))).id}`,
  },
  {
    name: 'a price plan in the items of a plan',
    setup: async (t) => {
      const { product, pricePlan, plan } = await sellable(t);
      const sibling = await createPricePlan(t, product.id);
      return { url: `/price-plans/${pricePlan.id}`, sibling: `/price-plans/${sibling.id}`, release: () => del(t, `/plans/${plan.id}`) };
    },
    elsewhere: async (t) => {
      const r = await refs(t);
      return `/price-plans/${(await createPricePlan(t, (await createProduct(t, r)).id)).id}`;
    },
  },
  {
    name: 'an active plan',
    setup: async (t) => {
      const { r, plan } = await sellable(t);
      await ok(put(t, `/plans/${plan.id}/activate`));
      const sibling = await created(post(t, '/plans', { family: r.family.id, code: 'sibling', name: 'Sibling' }));
      // Archiving does not make it deletable: only drafts are. Nothing releases an active plan.
      return { url: `/plans/${plan.id}`, sibling: `/plans/${sibling.id}`, release: async () => null };
    },
    elsewhere: async (t) => `/plans/${(await sellable(t)).plan.id}`,
  },
  {
    name: 'a redeemed coupon',
    setup: async (t) => {
      const customer = await createCustomer(t);
      const c = await created(post(t, '/coupons', { code: 'USED', name: 'Used', type: 'percentage', percentage: 10, frequency: 'once' }));
      const sibling = await created(post(t, '/coupons', { code: 'FRESH', name: 'Fresh', type: 'percentage', percentage: 10, frequency: 'once' }));
      await redeem(t, c.id, customer.id);
      return {
        url: `/coupons/${c.id}`,
        sibling: `/coupons/${sibling.id}`,
        release: () => env.DB.prepare('DELETE FROM coupon_redemptions WHERE tenant_id = ? AND coupon_id = ?').bind(t.id, c.id).run(),
      };
    },
    elsewhere: async (t) => `/coupons/${(await created(post(t, '/coupons', { code: 'USED', name: 'Used', type: 'percentage', percentage: 10, frequency: 'once' }))).id}`,
  },
];

describe('deleting records in use', () => {
  it.each(inUseCases)('409 for $name; nothing else is deleted, in this tenant or any other', async ({ setup, elsewhere }) => {
    const bystander = await createTenant();
    const foreign = await elsewhere(bystander);
    const t = await createTenant();
    const { url, sibling, release } = await setup(t);
    const res = await refusedUnchanged(t, url, () => del(t, url));
    // Only drafts of plans can be deleted: for an active plan the 409 is about its state, not a reference.
    expectProblem(res, 409, url.startsWith('/plans/') ? undefined : '/problems/in-use');
    expectStatus(await get(t, url), 200);
    expectStatus(await get(t, sibling), 200);
    expectStatus(await get(bystander, foreign), 200);
    await release();
    const again = await del(t, url);
    if (url.startsWith('/plans/')) expectProblem(again, 409);
    else expectStatus(again, 204);
    expectStatus(await get(t, sibling), 200);
    expectStatus(await get(bystander, foreign), 200);
  });
});
