import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, createCustomer, createTenant, keyWith, unique, violations, type ApiResponse, type TestTenant, query, eventsOf, type StoredEvent, countRows, expectStatus, expectProblem, paths, expect422 } from './helpers';

// Subscriptions, usage and entitlements (issue 4; spec §2.4, §2.7, §3, §4.1–4.3). Storage is shared
// inside this file, so every test works in a fresh tenant of its own with its test clock set first.

// ---------------------------------------------------------------------------------------------
// Helpers

/**
 * Event types of a tenant (or of one resource), without those of billing: every move of the test
 * clock also bills what became due (subscription.billed, invoice.*), which is not this file's subject.
 */
async function eventTypes(t: TestTenant, resourceId?: string): Promise<string[]> {
  return (await eventsOf(t, resourceId)).map((e) => e.type).filter((type) => type !== 'subscription.billed' && !type.startsWith('invoice.'));
}

/** 409 invalid-transition whose detail names the current status. */
function expectRefused(res: ApiResponse, status: string) {
  expectProblem(res, 409, '/problems/invalid-transition');
  expect(res.body.detail).toContain(status);
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

async function setClock(t: TestTenant, now: string) {
  expectStatus(await put(t, '/test-clock', { now }), 200);
}

const ids = (res: ApiResponse): string[] => (res.body.data as { id: string }[]).map((r) => r.id);
const addDays = (s: string, days: number) => new Date(new Date(s).getTime() + days * 86_400_000).toISOString();

async function subscriptionRow(t: TestTenant, id: string) {
  const [row] = await query<Record<string, any>>('SELECT * FROM subscriptions WHERE tenant_id = ? AND id = ?', t.id, id);
  return row;
}

async function itemRows(t: TestTenant, subscriptionId: string) {
  return query<Record<string, any>>('SELECT * FROM subscription_items WHERE tenant_id = ? AND subscription_id = ? ORDER BY created_at, id', t.id, subscriptionId);
}

/** Runs a refused request and proves it changed nothing: no new event, the stored subscription unchanged. */
async function refusedUnchanged(t: TestTenant, subscriptionId: string | null, request: () => Promise<ApiResponse>): Promise<ApiResponse> {
  const before = subscriptionId ? await subscriptionRow(t, subscriptionId) : null;
  const itemsBefore = subscriptionId ? await itemRows(t, subscriptionId) : null;
  const eventsBefore = await countRows('events', t);
  const res = await request();
  expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
  expect(await countRows('events', t), 'a refused change wrote an event').toBe(eventsBefore);
  if (subscriptionId) {
    expect(await subscriptionRow(t, subscriptionId)).toEqual(before);
    expect(await itemRows(t, subscriptionId)).toEqual(itemsBefore);
  }
  return res;
}

/** A payment method row (payment methods have no API yet). */
async function paymentMethod(t: TestTenant, customerId: string, type = 'card', isDefault = false): Promise<string> {
  const id = unique('pm');
  await env.DB.prepare(
    'INSERT INTO payment_methods (id, tenant_id, customer_id, gateway_name, type, name, status, is_default, enabled, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  )
    .bind(id, t.id, customerId, type === 'card' ? 'card_provider' : type, type, `My ${type}`, 'active', isDefault ? 1 : 0, 1, new Date().toISOString())
    .run();
  return id;
}

// ---------------------------------------------------------------------------------------------
// Catalogue fixture, made through the API

interface Catalogue {
  family: any;
  unit: any;
  /** recurring, last_value */
  seats: any;
  /** metered, sum */
  apiCalls: any;
  /** instant_metered, last_value */
  sms: any;
  taxGroup: any;
  /** product on `seats` */
  pro: any;
  /** per_unit 10.00 EUR monthly */
  proMonthly: any;
  /** per_unit 100.00 EUR yearly */
  proYearly: any;
  /** per_unit 12.00 USD monthly */
  proUsd: any;
  /** product on `seats`, sold as an add-on */
  storage: any;
  /** per_unit 5.00 EUR monthly */
  storageMonthly: any;
  /** product on `apiCalls` */
  api: any;
  /** per_unit 0.0125 EUR per call, monthly in arrears */
  apiMetered: any;
  /** one-time charge product */
  setup: any;
  /** flat 49.00 EUR once */
  setupFee: any;
  /** active plan: pro monthly ×1, add-on storage 2..5 */
  plan: any;
}

const DEFAULT_NOW = '2030-01-15T10:00:00.000Z';

async function createCatalogue(t: TestTenant): Promise<Catalogue> {
  const family = await created(post(t, '/product-families', { name: 'Software' }));
  const unit = await created(post(t, '/units', { name: 'Seat', code: 'seat' }));
  const seats = await created(post(t, '/measurements', { unit: unit.id, code: 'seats', aggregationType: 'last_value', type: 'recurring' }));
  const apiCalls = await created(post(t, '/measurements', { unit: unit.id, code: 'api-calls', aggregationType: 'sum', type: 'metered' }));
  const sms = await created(post(t, '/measurements', { unit: unit.id, code: 'sms', aggregationType: 'last_value', type: 'instant_metered' }));
  const taxGroup = await created(post(t, '/tax-groups', { type: 'standard', internalDescription: 'Standard VAT' }));
  const product = (name: string, measurement: string, type = 'product') =>
    created(post(t, '/catalogue/products', { name, type, productFamilies: [family.id], measurement, taxGroup: taxGroup.id }));
  const price = (productId: string, body: Record<string, unknown>) =>
    created(post(t, '/price-plans', { product: productId, calculationType: 'per_unit', currencyCode: 'EUR', ...body }));
  const pro = await product('Pro', seats.id);
  const proMonthly = await price(pro.id, { price: { amount: '10.00' }, billingInterval: '1M' });
  const proYearly = await price(pro.id, { price: { amount: '100.00' }, billingInterval: '1Y' });
  const proUsd = await price(pro.id, { price: { amount: '12.00' }, billingInterval: '1M', currencyCode: 'USD' });
  const storage = await product('Extra storage', seats.id);
  const storageMonthly = await price(storage.id, { price: { amount: '5.00' }, billingInterval: '1M' });
  const api = await product('API calls', apiCalls.id);
  const apiMetered = await price(api.id, { price: { amount: '0.0125' }, billingInterval: '1M' });
  const setup = await product('Setup', seats.id, 'charge');
  const setupFee = await price(setup.id, { calculationType: 'flat_fee', price: { amount: '49.00' } });
  const plan = await created(
    post(t, '/plans', {
      family: family.id,
      code: unique('pro-plan'),
      name: 'Pro plan',
      items: [{ product: pro.id, pricePlan: proMonthly.id, quantity: '1' }],
      addons: [{ product: storage.id, pricePlan: storageMonthly.id, minQuantity: '2', maxQuantity: '5' }],
    }),
  );
  const activePlan = await ok(put(t, `/plans/${plan.id}/activate`));
  return { family, unit, seats, apiCalls, sms, taxGroup, pro, proMonthly, proYearly, proUsd, storage, storageMonthly, api, apiMetered, setup, setupFee, plan: activePlan };
}

interface Fixture {
  t: TestTenant;
  c: Catalogue;
  customer: any;
}

async function setup(now = DEFAULT_NOW): Promise<Fixture> {
  const t = await createTenant();
  await setClock(t, now);
  const c = await createCatalogue(t);
  const customer = await createCustomer(t, { firstName: 'Ada', lastName: 'Lovelace' });
  return { t, c, customer };
}

const item = (product: any, pricePlan: any, quantity = '1') => ({ product: product.id, pricePlan: pricePlan.id, quantity });

function draftBody(f: Fixture, overrides: Record<string, unknown> = {}) {
  return { customer: f.customer.id, items: [item(f.c.pro, f.c.proMonthly)], ...overrides };
}

async function draft(f: Fixture, overrides: Record<string, unknown> = {}) {
  return created(post(f.t, '/subscriptions', draftBody(f, overrides)));
}

async function activeSubscription(f: Fixture, overrides: Record<string, unknown> = {}, activation: Record<string, unknown> = {}) {
  const d = await draft(f, overrides);
  return ok(put(f.t, `/subscriptions/${d.id}/activate`, activation));
}


async function customField(t: TestTenant, name: string, type: string, required = false) {
  return created(post(t, '/custom-fields', { name, type, resource: 'subscription', required }));
}

async function coupon(t: TestTenant, overrides: Record<string, unknown> = {}) {
  const percentage = overrides.type === 'fixed_amount' ? null : 10;
  return created(post(t, '/coupons', { code: unique('CPN'), name: 'Welcome', type: 'percentage', percentage, frequency: 'once', ...overrides }));
}

const defaultAddress = (customer: any) => customer.addresses.find((a: any) => a.type === 'TYPE_DEFAULT');

// ---------------------------------------------------------------------------------------------

describe('POST /subscriptions', () => {
  it('creates a draft from every body field, numbered S-00000001, S-00000002 per tenant', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    await customField(t, 'region', 'string');
    const group = await created(post(t, '/billing-groups', { name: 'Monthly on the 1st', type: 'start_of_month' }));
    const pm = await paymentMethod(t, customer.id, 'card');
    const address = defaultAddress(customer);

    const sub = await draft(f, {
      items: [item(c.pro, c.proMonthly, '3'), item(c.storage, c.storageMonthly, '2')],
      name: 'Team',
      externalId: 'ext-1',
      contractDetails: { contractStart: '2030-02-01T00:00:00+01:00' },
      periods: { contractPeriod: '12M', cancellationPeriod: '3M' },
      billingGroup: group.id,
      trialDays: 14,
      paymentMethod: pm,
      invoiceAddress: address.id,
      poNumber: 'PO-7',
      customFields: { region: 'EU' },
    });
    expect(sub).toMatchObject({
      number: 'S-00000001',
      status: 'draft',
      name: 'Team',
      externalId: 'ext-1',
      poNumber: 'PO-7',
      customer: { id: customer.id, customerNumber: customer.customerNumber, timeZone: 'Europe/Berlin', firstName: 'Ada', lastName: 'Lovelace', status: 'STATUS_ACTIVE' },
      plan: null,
      billingGroup: { id: group.id, type: 'start_of_month' },
      periods: [{ contractPeriod: '12M', cancellationPeriod: '3M' }],
      paymentMethod: { id: pm, type: 'card' },
      defaultPaymentMethod: false,
      invoiceAddress: { id: address.id },
      defaultInvoiceAddress: false,
      contractDetails: { contractStart: '2030-01-31T23:00:00.000Z', contractEnd: '2031-01-31T23:00:00.000Z' },
      trialDays: 14,
      trialEndsOn: null,
      activatedAt: null,
      cancellationDate: null,
      cancelledAt: null,
      isCancellationPending: false,
      nextPossibleCancellationDate: [],
      appliedDiscounts: [],
      partner: null,
      customFields: { region: 'EU' },
      createdAt: DEFAULT_NOW,
      updatedAt: DEFAULT_NOW,
    });
    expect(sub.items).toHaveLength(2);
    expect(sub.items[0]).toMatchObject({
      subscriptionId: sub.id,
      parent: null,
      type: 'item',
      status: 'pending',
      product: { id: c.pro.id, name: 'Pro' },
      pricePlan: { id: c.proMonthly.id, type: 'recurring', billingInterval: '1M', payInAdvance: true },
      quantity: '3',
      name: 'Pro',
      activatedAt: null,
      billing: { lastBilledAt: null, lastBilledFrom: null, lastBilledTo: null, nextBillingAt: null, billingInterval: '1M' },
    });
    expect(sub.items[1]).toMatchObject({ product: { id: c.storage.id }, quantity: '2', status: 'pending' });

    expect(await ok(get(t, `/subscriptions/${sub.id}`))).toEqual(sub);
    const row = await subscriptionRow(t, sub.id);
    expect(row).toMatchObject({ number: 'S-00000001', status: 'draft', customer_id: customer.id, trial_days: 14, contract_period: '12M', billing_anchor: null });
    expect(await itemRows(t, sub.id)).toHaveLength(2);
    const events = await eventsOf(t, sub.id);
    expect(events.map((e) => e.type)).toEqual(['subscription.created']);
    expect(events[0]!.data).toMatchObject({ id: sub.id, number: 'S-00000001', status: 'draft' });

    const second = await draft(f);
    expect(second.number).toBe('S-00000002');
    expect(second.name).toBe('Pro');
    expect(second).toMatchObject({ paymentMethod: null, defaultPaymentMethod: true, invoiceAddress: null, defaultInvoiceAddress: true, contractDetails: { contractStart: DEFAULT_NOW, contractEnd: null } });
    const own = await draft(f, { number: 'CUSTOM-1' });
    expect(own.number).toBe('CUSTOM-1');

    // Numbers are per tenant.
    const other = await setup();
    expect((await draft(other)).number).toBe('S-00000001');
  });

  it('embeds the customer default payment method when the subscription has none', async () => {
    const f = await setup();
    const pm = await paymentMethod(f.t, f.customer.id, 'sepa_debit', true);
    const sub = await draft(f);
    expect(sub).toMatchObject({ paymentMethod: { id: pm, type: 'sepa_debit', default: true }, defaultPaymentMethod: true });
  });

  it('takes many items (the schema allows 100; here 12) in one subscription', async () => {
    const f = await setup();
    const { t, c } = f;
    const items = Array.from({ length: 12 }, (_, i) => item(c.pro, c.proMonthly, String(i + 1)));
    const res = await post(t, '/subscriptions', draftBody(f, { items }));
    expectStatus(res, 201);
    expect(res.body.items.map((i: any) => i.quantity)).toEqual(items.map((i) => i.quantity));
    expect(await itemRows(t, res.body.id)).toHaveLength(12);
  });

  it('refuses every broken rule with 422 naming the property, storing nothing', async () => {
    const f = await setup();
    const { t, c } = f;
    await customField(t, 'region', 'string', true);
    await customField(t, 'cap', 'number');
    const base = { customFields: { region: 'EU' } };

    const archivedCustomer = await createCustomer(t);
    await ok(put(t, `/customers/${archivedCustomer.id}/archive`));
    const otherCustomer = await createCustomer(t);
    const otherPm = await paymentMethod(t, otherCustomer.id, 'card', true);
    const legacy = await created(post(t, '/catalogue/products', { name: 'Legacy', type: 'product', productFamilies: [c.family.id], measurement: c.seats.id, taxGroup: c.taxGroup.id }));
    const legacyPrice = await created(post(t, '/price-plans', { product: legacy.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '1' }, billingInterval: '1M' }));
    await ok(put(t, `/catalogue/products/${legacy.id}/archive`));
    const inactivePrice = await created(
      post(t, '/price-plans', { product: c.pro.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '9' }, billingInterval: '1M', status: 'inactive' }),
    );
    const archivedPrice = await created(post(t, '/price-plans', { product: c.pro.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '8' }, billingInterval: '1M' }));
    await ok(put(t, `/price-plans/${archivedPrice.id}/archive`));
    const draftPlan = await created(post(t, '/plans', { family: c.family.id, code: unique('draft-plan'), name: 'Draft', items: [item(c.pro, c.proMonthly)] }));
    const inactivePlan = await created(post(t, '/plans', { family: c.family.id, code: unique('old-plan'), name: 'Old', items: [item(c.pro, c.proMonthly)] }));
    await ok(put(t, `/plans/${inactivePlan.id}/activate`));
    await ok(put(t, `/plans/${inactivePlan.id}/deactivate`));
    await draft(f, { ...base, number: 'SUB-1' });

    const unknownCoupon = 'NO-SUCH-CODE';
    const disabled = await coupon(t, { isEnabled: false });
    const expiring = await coupon(t, { expiresAt: addDays(DEFAULT_NOW, 1) });
    const single = await coupon(t, { maxRedemptions: 1 });
    const perCustomer = await coupon(t, { maxRedemptionsPerCustomer: 1 });
    const otherPlanOnly = await coupon(t, { limitedToPlans: [c.plan.id] });
    // Redeem the limited coupons (activation records the redemption), then let the expiring one expire.
    await activeSubscription(f, { ...base, coupons: [single.code, perCustomer.code] });
    await setClock(t, addDays(DEFAULT_NOW, 2));

    const cases: [string, Record<string, unknown>, string[]][] = [
      ['unknown customer', { customer: 'nope' }, ['customer: not_found']],
      ['archived customer', { customer: archivedCustomer.id }, ['customer: not_active']],
      ['archived product', { items: [item(legacy, legacyPrice)] }, ['items[0].product: archived']],
      ['unknown product and price plan', { items: [{ product: 'nope', pricePlan: 'nope' }] }, ['items[0].product: not_found', 'items[0].pricePlan: not_found']],
      ['inactive price plan', { items: [item(c.pro, inactivePrice)] }, ['items[0].pricePlan: not_active']],
      ['archived price plan', { items: [item(c.pro, archivedPrice)] }, ['items[0].pricePlan: not_active']],
      ['price plan of another product', { items: [item(c.pro, c.storageMonthly)] }, ['items[0].pricePlan: product_mismatch']],
      ['mixed currencies', { items: [item(c.pro, c.proUsd), item(c.storage, c.storageMonthly)] }, ['items: mixed_currencies']],
      ['draft plan', { plan: draftPlan.id }, ['plan: not_active']],
      ['inactive plan', { plan: inactivePlan.id }, ['plan: not_active']],
      ['unknown plan', { plan: 'nope' }, ['plan: not_found']],
      ['unknown billing group', { billingGroup: 'nope' }, ['billingGroup: not_found']],
      ['unknown payment method', { paymentMethod: 'nope' }, ['paymentMethod: not_found']],
      ["another customer's payment method", { paymentMethod: otherPm }, ['paymentMethod: not_found']],
      ["another customer's invoice address", { invoiceAddress: defaultAddress(otherCustomer).id }, ['invoiceAddress: not_found']],
      ['missing required custom field', { customFields: {} }, ['customFields.region: custom_field_required']],
      ['unknown custom field', { customFields: { region: 'EU', nope: 'x' } }, ['customFields.nope: unknown_custom_field']],
      ['custom field of the wrong type', { customFields: { region: 'EU', cap: 'many' } }, ['customFields.cap: invalid_custom_field_value']],
      ['duplicate number', { number: 'SUB-1' }, ['number: not_unique']],
      ['bad durations', { periods: { contractPeriod: '12X', cancellationPeriod: 'soon' } }, ['periods.cancellationPeriod: invalid_duration', 'periods.contractPeriod: invalid_duration']],
      ['zero duration', { periods: { contractPeriod: '0M' } }, ['periods.contractPeriod: invalid_duration']],
      ['negative trial', { trialDays: -1 }, ['trialDays: too_small']],
      ['no items', { items: [] }, ['items: too_small']],
      ['zero quantity', { items: [item(c.pro, c.proMonthly, '0')] }, ['items[0].quantity: too_small']],
      ['unknown field', { colour: 'red' }, ['colour: unknown_field']],
      ['unknown coupon', { coupons: [unknownCoupon] }, ['coupons[0]: not_found']],
      ['disabled coupon', { coupons: [disabled.code] }, ['coupons[0]: disabled']],
      ['expired coupon', { coupons: [expiring.code] }, ['coupons[0]: expired']],
      ['used-up coupon', { coupons: [single.code] }, ['coupons[0]: exhausted']],
      ['coupon used up by this customer', { coupons: [perCustomer.code] }, ['coupons[0]: exhausted_for_customer']],
      ['coupon for another plan', { coupons: [otherPlanOnly.code] }, ['coupons[0]: not_applicable']],
    ];
    const subscriptionsBefore = await countRows('subscriptions', t);
    for (const [name, overrides, expected] of cases) {
      const res = await refusedUnchanged(t, null, () => post(t, '/subscriptions', draftBody(f, { ...base, ...overrides })));
      expectProblem(res, 422, '/problems/validation-failed');
      expect(violations(res).sort(), name).toEqual([...expected].sort());
    }
    expect(await countRows('subscriptions', t)).toBe(subscriptionsBefore);
    // The coupon restricted to the plan is fine for that plan.
    expect((await draft(f, { ...base, plan: c.plan.id, coupons: [otherPlanOnly.code] })).appliedDiscounts).toHaveLength(1);
  });
});

describe('POST /subscriptions/from-plan', () => {
  it("takes the plan's items and the chosen add-ons within their min/max", async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const inside = await created(post(t, '/subscriptions/from-plan', { customer: customer.id, planCode: c.plan.code, planItemSelections: [{ product: c.storage.id, quantity: '3' }] }));
    expect(inside).toMatchObject({ status: 'draft', number: 'S-00000001', name: 'Pro plan', plan: { id: c.plan.id, code: c.plan.code, name: 'Pro plan', status: 'active' } });
    expect(inside.items.map((i: any) => [i.product.id, i.pricePlan.id, i.quantity])).toEqual([
      [c.pro.id, c.proMonthly.id, '1'],
      [c.storage.id, c.storageMonthly.id, '3'],
    ]);
    expect(await itemRows(t, inside.id)).toHaveLength(2);
    expect(await eventTypes(t, inside.id)).toEqual(['subscription.created']);

    // An add-on with a minimum is included at its minimum when not chosen.
    const minimum = await created(post(t, '/subscriptions/from-plan', { customer: customer.id, planCode: c.plan.code, name: 'Mine', trialDays: 3 }));
    expect(minimum).toMatchObject({ name: 'Mine', trialDays: 3 });
    expect(minimum.items.map((i: any) => [i.product.id, i.quantity])).toEqual([
      [c.pro.id, '1'],
      [c.storage.id, '2'],
    ]);
    for (const [edge, quantity] of [
      ['min', '2'],
      ['max', '5'],
    ]) {
      const res = await post(t, '/subscriptions/from-plan', { customer: customer.id, planCode: c.plan.code, planItemSelections: [{ product: c.storage.id, quantity }] });
      expect(res.status, edge).toBe(201);
    }
  });

  it('refuses selections outside the add-on limits, unknown add-ons and unusable plans', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const inactive = await created(post(t, '/plans', { family: c.family.id, code: unique('draft'), name: 'Draft', items: [item(c.pro, c.proMonthly)] }));
    const body = (overrides: Record<string, unknown>) => ({ customer: customer.id, planCode: c.plan.code, ...overrides });
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['below the minimum', { planItemSelections: [{ product: c.storage.id, quantity: '1' }] }, ['planItemSelections[0].quantity: out_of_range']],
      ['above the maximum', { planItemSelections: [{ product: c.storage.id, quantity: '6' }] }, ['planItemSelections[0].quantity: out_of_range']],
      ['not an add-on', { planItemSelections: [{ product: c.api.id, quantity: '1' }] }, ['planItemSelections[0].product: not_in_plan']],
      [
        'chosen twice',
        { planItemSelections: [{ product: c.storage.id, quantity: '2' }, { product: c.storage.id, quantity: '3' }] },
        ['planItemSelections[1].product: duplicate'],
      ],
      ['unknown plan code', { planCode: 'nope' }, ['planCode: not_found']],
      ['plan not active', { planCode: inactive.code }, ['planCode: not_active']],
      ['unknown customer', { customer: 'nope' }, ['customer: not_found']],
    ];
    for (const [name, overrides, expected] of cases) {
      const res = await refusedUnchanged(t, null, () => post(t, '/subscriptions/from-plan', body(overrides)));
      expectProblem(res, 422, '/problems/validation-failed');
      expect(violations(res).sort(), name).toEqual(expected);
    }
    expect(await countRows('subscriptions', t)).toBe(0);
  });
});

describe('GET /subscriptions', () => {
  // Four subscriptions of three customers, made on different days so every order is decidable:
  //   s1  A (partner P), pro monthly, 12M contract, activated 01-06 with a 30-day trial → active
  //   s2  B, storage with B's SEPA method, 1M contract, activated 01-07 with a 3-day trial, paused
  //   s3  C, pro yearly + API calls, open-ended → draft
  //   s4  A, pro monthly, 24M contract, activated 01-05 without trial, terminated 01-08
  async function scenario() {
    const f = await setup('2030-01-01T00:00:00.000Z');
    const { t, c } = f;
    const partner = await createCustomer(t, { isPartner: true, companyName: 'Reseller GmbH' });
    const a = f.customer;
    await ok(put(t, `/customers/${a.id}/partner`, { partner: partner.id }));
    const b = await createCustomer(t);
    const cc = await createCustomer(t);
    await paymentMethod(t, a.id, 'card', true);
    const sepa = await paymentMethod(t, b.id, 'sepa_debit');
    await paymentMethod(t, b.id, 'card', true);

    const s1 = await draft(f, { customer: a.id, periods: { contractPeriod: '12M' } });
    await setClock(t, '2030-01-02T00:00:00.000Z');
    const s2 = await draft(f, { customer: b.id, items: [item(c.storage, c.storageMonthly)], paymentMethod: sepa, periods: { contractPeriod: '1M' } });
    await setClock(t, '2030-01-03T00:00:00.000Z');
    const s3 = await draft(f, { customer: cc.id, items: [item(c.pro, c.proYearly), item(c.api, c.apiMetered)] });
    await setClock(t, '2030-01-04T00:00:00.000Z');
    const s4 = await draft(f, { customer: a.id, periods: { contractPeriod: '24M' } });
    await setClock(t, '2030-01-05T00:00:00.000Z');
    await ok(put(t, `/subscriptions/${s4.id}/activate`, {}));
    await setClock(t, '2030-01-06T00:00:00.000Z');
    await ok(put(t, `/subscriptions/${s1.id}/activate`, { trialDays: 30 }));
    await setClock(t, '2030-01-07T00:00:00.000Z');
    await ok(put(t, `/subscriptions/${s2.id}/activate`, { trialDays: 3 }));
    await ok(put(t, `/subscriptions/${s2.id}/pause`));
    await setClock(t, '2030-01-08T00:00:00.000Z');
    await ok(put(t, `/subscriptions/${s4.id}/terminate`));
    return { ...f, partner, a, b, cc, s1: s1.id, s2: s2.id, s3: s3.id, s4: s4.id };
  }

  it('filters by every parameter of spec §4.2, alone and combined', async () => {
    const s = await scenario();
    const { t, c } = s;
    const cases: [string, string[]][] = [
      ['', [s.s4, s.s3, s.s2, s.s1]],
      [`id=${s.s1}`, [s.s1]],
      [`id[]=${s.s1}&id[]=${s.s3}`, [s.s3, s.s1]],
      [`customer=${s.a.id}`, [s.s4, s.s1]],
      [`customer[]=${s.b.id}&customer[]=${s.cc.id}`, [s.s3, s.s2]],
      ['number=S-00000002', [s.s2]],
      ['status=active', [s.s1]],
      ['status=draft', [s.s3]],
      ['status[]=paused&status[]=terminated', [s.s4, s.s2]],
      ['status=cancelled', []],
      // A's subscriptions use A's default card; s2 names B's SEPA method although B's default is a card.
      ['paymentMethod.type=card', [s.s4, s.s1]],
      ['paymentMethod.type=sepa_debit', [s.s2]],
      ['paymentMethod.type[]=sepa_debit&paymentMethod.type[]=card', [s.s4, s.s2, s.s1]],
      ['paymentMethod.type=wallet', []],
      [`items.product.id=${c.storage.id}`, [s.s2]],
      [`items.product.id[]=${c.api.id}&items.product.id[]=${c.storage.id}`, [s.s3, s.s2]],
      [`items.product.id=${c.pro.id}`, [s.s4, s.s3, s.s1]],
      [`partner=${s.partner.id}`, [s.s4, s.s1]],
      [`partner=${s.b.id}`, []],
      [`customer=${s.a.id}&status=terminated`, [s.s4]],
      [`items.product.id=${c.pro.id}&paymentMethod.type=card&status[]=active&status[]=draft`, [s.s1]],
    ];
    for (const [q, expected] of cases) {
      const res = await get(t, `/subscriptions?${q}`);
      expectStatus(res, 200);
      expect(ids(res), q).toEqual(expected);
      expect(res.body.meta.pagination.totalItems, q).toBe(expected.length);
    }
    const one = (await ok(get(t, `/subscriptions?id=${s.s1}`))).data[0];
    expect(one).toEqual(await ok(get(t, `/subscriptions/${s.s1}`)));
    expect(one.partner).toMatchObject({ id: s.partner.id, number: s.partner.customerNumber });
  });

  it('sorts by order[status], order[createdAt], order[activatedAt] and order[trialEndsOn], ascending and descending', async () => {
    const s = await scenario();
    const { t } = s;
    const cases: [string, string[]][] = [
      ['order[status]=asc', [s.s1, s.s3, s.s2, s.s4]],
      ['order[status]=desc', [s.s4, s.s2, s.s3, s.s1]],
      ['order[createdAt]=asc', [s.s1, s.s2, s.s3, s.s4]],
      ['order[createdAt]=desc', [s.s4, s.s3, s.s2, s.s1]],
      // Never activated (null) sorts first ascending.
      ['order[activatedAt]=asc', [s.s3, s.s4, s.s1, s.s2]],
      ['order[activatedAt]=desc', [s.s2, s.s1, s.s4, s.s3]],
      // Without a trial (null) first ascending; ties by newest first.
      ['order[trialEndsOn]=asc', [s.s4, s.s3, s.s2, s.s1]],
      ['order[trialEndsOn]=desc', [s.s1, s.s2, s.s4, s.s3]],
      ['order[status]=asc&order[createdAt]=asc&status[]=active&status[]=terminated', [s.s1, s.s4]],
    ];
    for (const [q, expected] of cases) {
      const res = await get(t, `/subscriptions?${q}`);
      expectStatus(res, 200);
      expect(ids(res), q).toEqual(expected);
    }
  });

  it('sorts by order[contractDetails.contractEnd]: the contract end each subscription shows', async () => {
    const s = await scenario();
    const { t } = s;
    const shown = Object.fromEntries(
      await Promise.all([s.s1, s.s2, s.s3, s.s4].map(async (id) => [id, await ok(get(t, `/subscriptions/${id}`))] as const)),
    );
    expect(shown[s.s1].contractDetails.contractEnd).toBe('2031-01-06T00:00:00.000Z');
    expect(shown[s.s2].contractDetails.contractEnd).toBe('2030-02-07T00:00:00.000Z');
    expect(shown[s.s3].contractDetails.contractEnd).toBeNull();
    expect(shown[s.s4].contractDetails.contractEnd).toBe('2032-01-05T00:00:00.000Z');
    const cases: [string, string[]][] = [
      // Open-ended (null: never ends) last ascending. Note the contract starts are in another order
      // (s4 01-05, s1 01-06, s2 01-07): the end depends on the period too.
      ['order[contractDetails.contractEnd]=asc', [s.s2, s.s1, s.s4, s.s3]],
      ['order[contractDetails.contractEnd]=desc', [s.s3, s.s4, s.s1, s.s2]],
    ];
    for (const [q, expected] of cases) {
      const res = await get(t, `/subscriptions?${q}`);
      expectStatus(res, 200);
      expect(ids(res), q).toEqual(expected);
    }
  });

  it('pages with meta.pagination and refuses malformed paging and order parameters with 400', async () => {
    const s = await scenario();
    const { t } = s;
    const page2 = await ok(get(t, '/subscriptions?limit=3&page=2&order[createdAt]=asc'));
    expect(page2.data.map((x: any) => x.id)).toEqual([s.s4]);
    expect(page2.meta.pagination).toEqual({ totalItems: 4, itemsPerPage: 3, currentPage: 2, lastPage: 2, pageTotalItems: 1 });
    const first = await ok(get(t, '/subscriptions?limit=2'));
    expect(first.meta.pagination).toEqual({ totalItems: 4, itemsPerPage: 2, currentPage: 1, lastPage: 2, pageTotalItems: 2 });
    const beyond = await ok(get(t, '/subscriptions?limit=2&page=5'));
    expect(beyond.data).toEqual([]);
    expect(beyond.meta.pagination).toMatchObject({ totalItems: 4, currentPage: 5, pageTotalItems: 0 });

    for (const q of ['limit=101', 'page=0', 'order[status]=up']) {
      expectProblem(await get(t, `/subscriptions?${q}`), 400);
    }
  });

  it('refuses an unknown status filter value with a 400 problem naming the parameter', async () => {
    const f = await setup();
    for (const q of ['status=bogus', 'status[]=active&status[]=bogus']) {
      const bad = await get(f.t, `/subscriptions?${q}`);
      expectProblem(bad, 400);
      expect(paths(bad), q).toEqual([q.startsWith('status[]') ? 'status[]' : 'status']);
    }
  });
});

describe('GET, PUT, DELETE /subscriptions/{id}', () => {
  it('GET returns the subscription; unknown ids are 404', async () => {
    const f = await setup();
    const sub = await draft(f);
    expect(await ok(get(f.t, `/subscriptions/${sub.id}`))).toEqual(sub);
    expectProblem(await get(f.t, '/subscriptions/nope'), 404, '/problems/not-found');
  });

  it('PUT on a draft replaces everything, items included', async () => {
    const f = await setup();
    const { t, c } = f;
    await customField(t, 'region', 'string');
    const sub = await draft(f, { items: [item(c.pro, c.proMonthly, '3'), item(c.api, c.apiMetered)], name: 'Old' });
    const oldItemIds = sub.items.map((i: any) => i.id);
    const other = await createCustomer(t, { firstName: 'Grace' });
    const pm = await paymentMethod(t, other.id, 'sepa_debit');
    const group = await created(post(t, '/billing-groups', { name: 'Month end', type: 'end_of_month' }));
    await setClock(t, '2030-01-16T10:00:00.000Z');

    const body = {
      customer: other.id,
      plan: c.plan.id,
      items: [item(c.pro, c.proYearly, '2'), item(c.storage, c.storageMonthly, '1')],
      name: 'New name',
      number: 'S-CUSTOM',
      externalId: 'ext-2',
      contractDetails: { contractStart: '2030-03-01T00:00:00Z' },
      periods: { contractPeriod: '24M', cancellationPeriod: '1M' },
      billingGroup: group.id,
      trialDays: 30,
      paymentMethod: pm,
      invoiceAddress: defaultAddress(other).id,
      poNumber: 'PO-9',
      customFields: { region: 'US' },
    };
    const updated = await ok(put(t, `/subscriptions/${sub.id}`, body));
    expect(updated).toMatchObject({
      id: sub.id,
      status: 'draft',
      number: 'S-CUSTOM',
      name: 'New name',
      externalId: 'ext-2',
      customer: { id: other.id, firstName: 'Grace' },
      plan: { id: c.plan.id },
      billingGroup: { id: group.id, type: 'end_of_month' },
      periods: [{ contractPeriod: '24M', cancellationPeriod: '1M' }],
      paymentMethod: { id: pm, type: 'sepa_debit' },
      invoiceAddress: { id: defaultAddress(other).id },
      contractDetails: { contractStart: '2030-03-01T00:00:00.000Z', contractEnd: '2032-03-01T00:00:00.000Z' },
      trialDays: 30,
      poNumber: 'PO-9',
      customFields: { region: 'US' },
      createdAt: DEFAULT_NOW,
      updatedAt: '2030-01-16T10:00:00.000Z',
    });
    expect(updated.items.map((i: any) => [i.product.id, i.pricePlan.id, i.quantity, i.status])).toEqual([
      [c.pro.id, c.proYearly.id, '2', 'pending'],
      [c.storage.id, c.storageMonthly.id, '1', 'pending'],
    ]);
    const rows = await itemRows(t, sub.id);
    expect(rows.map((r) => r.id).sort()).toEqual(updated.items.map((i: any) => i.id).sort());
    expect(rows.some((r) => oldItemIds.includes(r.id))).toBe(false);
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ customer_id: other.id, number: 'S-CUSTOM', trial_days: 30, billing_group_id: group.id });
    expect(await ok(get(t, `/subscriptions/${sub.id}`))).toEqual(updated);
    expect(await eventTypes(t, sub.id)).toEqual(['subscription.created', 'subscription.updated']);

    // The same rules as on create, and coupons only at creation.
    const bad = await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}`, { ...body, items: [item(c.pro, c.storageMonthly)], billingGroup: 'nope' }));
    expect(violations(bad).sort()).toEqual(['billingGroup: not_found', 'items[0].pricePlan: product_mismatch']);
    const welcome = await coupon(t);
    const withCoupon = await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}`, { ...body, coupons: [welcome.code] }));
    expect(violations(withCoupon)).toEqual(['coupons: not_allowed']);
  });

  it('PUT on an active subscription changes only name, externalId, poNumber and customFields; anything else is 409', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    await customField(t, 'region', 'string');
    const sub = await activeSubscription(f, { periods: { contractPeriod: '12M' } });
    await setClock(t, '2030-01-20T00:00:00.000Z');
    const same = { customer: customer.id, items: [item(c.pro, c.proMonthly)] };
    const updated = await ok(put(t, `/subscriptions/${sub.id}`, { ...same, name: 'Renamed', externalId: 'crm-1', poNumber: 'PO-1', customFields: { region: 'EU' } }));
    expect(updated).toMatchObject({ status: 'active', name: 'Renamed', externalId: 'crm-1', poNumber: 'PO-1', customFields: { region: 'EU' }, updatedAt: '2030-01-20T00:00:00.000Z' });
    expect(updated.items.map((i: any) => i.id)).toEqual(sub.items.map((i: any) => i.id));
    expect(updated.contractDetails).toEqual(sub.contractDetails);
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ name: 'Renamed', external_id: 'crm-1', po_number: 'PO-1' });

    const other = await createCustomer(t);
    const group = await created(post(t, '/billing-groups', { name: 'Start', type: 'start_of_month' }));
    const refused: [string, Record<string, unknown>][] = [
      ['quantity', { items: [item(c.pro, c.proMonthly, '2')] }],
      ['another item', { items: [item(c.pro, c.proMonthly), item(c.storage, c.storageMonthly)] }],
      ['customer', { customer: other.id }],
      ['billing group', { billingGroup: group.id }],
      ['trial days', { trialDays: 5 }],
      ['contract period', { periods: { contractPeriod: '24M' } }],
      ['plan', { plan: c.plan.id }],
      ['invoice address', { invoiceAddress: defaultAddress(customer).id }],
    ];
    for (const [name, overrides] of refused) {
      const res = await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}`, { ...same, name: 'Renamed', ...overrides }));
      expect(res.status, name).toBe(409);
      expectRefused(res, 'active');
    }
    expect(await eventTypes(t, sub.id)).toEqual(['subscription.created', 'subscription.activated', 'entitlement.state.updated', 'subscription.updated']);
  });

  it('PUT on an active subscription refuses a changed number or contract start with 409 instead of ignoring them', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const sub = await activeSubscription(f, { periods: { contractPeriod: '12M' } });
    const same = { customer: customer.id, items: [item(c.pro, c.proMonthly)] };
    // Omitted, they stay as they are.
    expect(await ok(put(t, `/subscriptions/${sub.id}`, { ...same, name: 'Renamed' }))).toMatchObject({ number: sub.number, contractDetails: sub.contractDetails });
    const refused: [string, Record<string, unknown>][] = [
      ['number', { number: 'S-NEW' }],
      ['contract start', { contractDetails: { contractStart: '2030-06-01T00:00:00Z' } }],
    ];
    for (const [name, overrides] of refused) {
      const res = await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}`, { ...same, name: 'Renamed', ...overrides }));
      expect(res.status, name).toBe(409);
      expectRefused(res, 'active');
    }
  });

  it('DELETE removes a draft with its items and comments; other statuses are 409', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await draft(f);
    await created(post(t, `/subscriptions/${sub.id}/comments`, { text: 'Call back on Monday' }));
    const res = await del(t, `/subscriptions/${sub.id}`);
    expectStatus(res, 204);
    expectProblem(await get(t, `/subscriptions/${sub.id}`), 404);
    expect(await subscriptionRow(t, sub.id)).toBeUndefined();
    expect(await itemRows(t, sub.id)).toEqual([]);
    expect(await countRows('subscription_comments', t)).toBe(0);
    const events = await eventsOf(t, sub.id);
    expect(events.map((e) => e.type)).toEqual(['subscription.created', 'subscription.deleted']);
    expect(events[1]!.data).toEqual({ id: sub.id, number: sub.number });
    expectProblem(await del(t, `/subscriptions/${sub.id}`), 404);

    const active = await activeSubscription(f);
    expectRefused(await refusedUnchanged(t, active.id, () => del(t, `/subscriptions/${active.id}`)), 'active');
    expect(await itemRows(t, active.id)).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------
// Lifecycle

type Action =
  | 'activate'
  | 'pause'
  | 'resume'
  | 'cancel'
  | 'revoke-cancellation'
  | 'terminate'
  | 'extend-trial'
  | 'revoke-trial'
  | 'update'
  | 'delete'
  | 'order-products'
  | 'change-payment-method'
  | 'change-invoice-address';
type Status = 'draft' | 'active' | 'paused' | 'cancelled' | 'terminated' | 'offer';

/** The transitions every subscription status allows (action → resulting status); everything else is 409. */
const TRANSITIONS: Record<Status, Partial<Record<Action, Status>>> = {
  draft: {
    activate: 'active',
    update: 'draft',
    delete: 'draft',
    'extend-trial': 'draft',
    'order-products': 'draft',
    'change-payment-method': 'draft',
    'change-invoice-address': 'draft',
  },
  active: {
    pause: 'paused',
    cancel: 'active',
    'revoke-cancellation': 'active',
    terminate: 'terminated',
    'extend-trial': 'active',
    'revoke-trial': 'active',
    update: 'active',
    'order-products': 'active',
    'change-payment-method': 'active',
    'change-invoice-address': 'active',
  },
  paused: {
    resume: 'active',
    cancel: 'paused',
    'revoke-cancellation': 'paused',
    terminate: 'terminated',
    update: 'paused',
    'change-payment-method': 'paused',
    'change-invoice-address': 'paused',
  },
  cancelled: { terminate: 'terminated', update: 'cancelled' },
  terminated: { update: 'terminated' },
  offer: { activate: 'active', update: 'offer', delete: 'offer' },
};
const ACTIONS = Object.keys(TRANSITIONS.active).concat('activate', 'resume', 'delete') as Action[];
const STATUSES = Object.keys(TRANSITIONS) as Status[];

/** Performs an action through the API, with a body that is valid for it. */
async function perform(f: Fixture, id: string, action: Action): Promise<ApiResponse> {
  const { t, c } = f;
  const at = `/subscriptions/${id}`;
  switch (action) {
    case 'activate':
    case 'pause':
    case 'revoke-cancellation':
    case 'terminate':
    case 'revoke-trial':
      return put(t, `${at}/${action}`, action === 'activate' ? {} : undefined);
    case 'resume':
      return put(t, `${at}/resume`, {});
    case 'cancel':
      return put(t, `${at}/cancel`, { cancellationDateType: 'custom', cancellationDate: '2030-06-01T00:00:00Z' });
    case 'extend-trial':
      return put(t, `${at}/extend-trial`, { trialDays: 5 });
    case 'update': {
      const cur = (await get(t, at)).body;
      const items = cur.items.filter((i: any) => i.type === 'item').map((i: any) => ({ product: i.product.id, pricePlan: i.pricePlan.id, quantity: i.quantity }));
      return put(t, at, { customer: cur.customer.id, items, trialDays: cur.trialDays, name: 'Renamed' });
    }
    case 'delete':
      return del(t, at);
    case 'order-products':
      return post(t, `${at}/products`, { products: [item(c.storage, c.storageMonthly)] });
    case 'change-payment-method':
      return patch(t, `${at}/payment-method`, { paymentMethodId: null });
    case 'change-invoice-address':
      return put(t, `${at}/invoice-address`, { invoiceAddress: null });
  }
}

/** A subscription in `status`, with what `action` needs (a trial, a pending cancellation). */
async function subscriptionIn(f: Fixture, status: Status, action?: Action): Promise<string> {
  const { t } = f;
  const needsTrial = action === 'extend-trial' || action === 'revoke-trial';
  const d = await draft(f, needsTrial ? { trialDays: 10 } : {});
  if (status === 'draft') return d.id;
  if (status === 'offer') {
    await env.DB.prepare("UPDATE subscriptions SET status = 'offer' WHERE tenant_id = ? AND id = ?").bind(t.id, d.id).run();
    return d.id;
  }
  await ok(put(t, `/subscriptions/${d.id}/activate`, {}));
  if (action === 'revoke-cancellation') await ok(perform(f, d.id, 'cancel'));
  if (status === 'paused') await ok(put(t, `/subscriptions/${d.id}/pause`));
  if (status === 'cancelled') await ok(put(t, `/subscriptions/${d.id}/cancel`, { cancellationDateType: 'immediate' }));
  if (status === 'terminated') await ok(put(t, `/subscriptions/${d.id}/terminate`));
  return d.id;
}

describe('subscription state machine', () => {
  it('the transition table in src is the documented one', async () => {
    const { SUBSCRIPTION_TRANSITIONS } = await import('../src/services/subscriptions/lifecycle');
    expect(SUBSCRIPTION_TRANSITIONS).toEqual(TRANSITIONS);
  });

  it('performs every allowed transition', async () => {
    const f = await setup();
    for (const status of STATUSES) {
      for (const [action, next] of Object.entries(TRANSITIONS[status]) as [Action, Status][]) {
        const id = await subscriptionIn(f, status, action);
        const res = await perform(f, id, action);
        const label = `${status} → ${action}`;
        expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(action === 'delete' ? 204 : 200);
        if (action === 'delete') {
          expect((await get(f.t, `/subscriptions/${id}`)).status, label).toBe(404);
        } else {
          expect(res.body.status, label).toBe(next);
          expect((await subscriptionRow(f.t, id))!.status, label).toBe(next);
        }
      }
    }
  });

  it('refuses every other transition with 409 invalid-transition naming the current status, changing nothing', async () => {
    const f = await setup();
    const subs = Object.fromEntries(await Promise.all(STATUSES.map(async (s) => [s, await subscriptionIn(f, s)] as const)));
    const eventsBefore = await countRows('events', f.t);
    const refused: string[] = [];
    for (const status of STATUSES) {
      for (const action of ACTIONS) {
        if (TRANSITIONS[status][action]) continue;
        refused.push(`${status}:${action}`);
        const res = await refusedUnchanged(f.t, subs[status]!, () => perform(f, subs[status]!, action));
        expect(res.status, `${status} → ${action}: ${JSON.stringify(res.body)}`).toBe(409);
        expectRefused(res, status);
        expect(res.body.detail, `${status} → ${action}`).toContain(action);
      }
    }
    expect(refused).toHaveLength(STATUSES.length * ACTIONS.length - Object.values(TRANSITIONS).reduce((n, m) => n + Object.keys(m).length, 0));
    expect(await countRows('events', f.t)).toBe(eventsBefore);
  });

  it('refuses allowed actions whose condition does not hold with 409', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f);
    for (const path of ['revoke-cancellation', 'revoke-trial']) {
      expectProblem(await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}/${path}`)), 409, '/problems/invalid-transition');
    }
    expectProblem(await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}/extend-trial`, { trialDays: 3 })), 409, '/problems/invalid-transition');
    await ok(perform(f, sub.id, 'cancel'));
    const twice = await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}/cancel`, { cancellationDateType: 'immediate' }));
    expectProblem(twice, 409, '/problems/invalid-transition');
  });
});

describe('activate', () => {
  it('starts billing now; trialDays in the body overrides the draft', async () => {
    const f = await setup();
    const { t } = f;
    const d = await draft(f, { trialDays: 14, items: [item(f.c.pro, f.c.proMonthly, '2'), item(f.c.api, f.c.apiMetered)] });
    const sub = await ok(put(t, `/subscriptions/${d.id}/activate`, { trialDays: 7 }));
    expect(sub).toMatchObject({
      status: 'active',
      activatedAt: DEFAULT_NOW,
      trialDays: 7,
      trialEndsOn: '2030-01-22T10:00:00.000Z',
      contractDetails: { contractStart: DEFAULT_NOW, contractEnd: null },
      nextBillingDate: '2030-01-22T10:00:00.000Z',
      isCancellationPending: false,
    });
    expect(sub.items.map((i: any) => [i.status, i.activatedAt])).toEqual([
      ['active', DEFAULT_NOW],
      ['active', DEFAULT_NOW],
    ]);
    // Recurring fees are billed in advance from the trial end, usage in arrears at the end of its period.
    expect(sub.items[0].billing).toEqual({ lastBilledAt: null, lastBilledFrom: null, lastBilledTo: null, nextBillingAt: '2030-01-22T10:00:00.000Z', billingInterval: '1M' });
    expect(sub.items[1].billing.nextBillingAt).toBe('2030-02-22T10:00:00.000Z');
    expect(await subscriptionRow(t, d.id)).toMatchObject({ status: 'active', activated_at: DEFAULT_NOW, trial_days: 7, trial_ends_on: '2030-01-22T10:00:00.000Z', billing_anchor: '2030-01-22T10:00:00.000Z' });
    expect((await itemRows(t, d.id)).map((r) => r.status)).toEqual(['active', 'active']);
    const events = await eventsOf(t, d.id);
    expect(events.map((e) => e.type)).toEqual(['subscription.created', 'subscription.activated', 'entitlement.state.updated']);
    expect(events[1]!.data).toMatchObject({ id: d.id, status: 'active', trialEndsOn: '2030-01-22T10:00:00.000Z' });

    const plain = await draft(f, { trialDays: 14 });
    expect(await ok(put(t, `/subscriptions/${plain.id}/activate`))).toMatchObject({ trialDays: 14, trialEndsOn: '2030-01-29T10:00:00.000Z' });
    const none = await draft(f, { trialDays: 14 });
    expect(await ok(put(t, `/subscriptions/${none.id}/activate`, { trialDays: 0 }))).toMatchObject({ trialDays: 0, trialEndsOn: null, nextBillingDate: DEFAULT_NOW });
    // A future contract start is kept.
    const later = await draft(f, { contractDetails: { contractStart: '2030-03-01T00:00:00Z' } });
    expect((await ok(put(t, `/subscriptions/${later.id}/activate`, {}))).contractDetails.contractStart).toBe('2030-03-01T00:00:00.000Z');
  });

  it('aligns the billing anchor to a start_of_month billing group, visible in items[].billing.nextBillingAt', async () => {
    const f = await setup();
    const { t, c } = f;
    const group = await created(post(t, '/billing-groups', { name: 'First of the month', type: 'start_of_month' }));
    const sub = await activeSubscription(f, { billingGroup: group.id, items: [item(c.pro, c.proMonthly), item(c.storage, c.storageMonthly)] });
    // 15 January 11:00 Berlin → the next 1st of a month, 00:00 Berlin (UTC+1).
    expect(sub.items.map((i: any) => i.billing.nextBillingAt)).toEqual(['2030-01-31T23:00:00.000Z', '2030-01-31T23:00:00.000Z']);
    expect(sub.nextBillingDate).toBe('2030-01-31T23:00:00.000Z');
    expect((await subscriptionRow(t, sub.id))!.billing_anchor).toBe('2030-01-31T23:00:00.000Z');
    const yearly = await activeSubscription(f, { billingGroup: group.id, items: [item(c.pro, c.proYearly)] });
    expect(yearly.items[0].billing).toMatchObject({ nextBillingAt: '2030-01-31T23:00:00.000Z', billingInterval: '1Y' });
    // With a 20-day trial (ends 4 February) the first 1st after it is 1 March.
    const trial = await activeSubscription(f, { billingGroup: group.id }, { trialDays: 20 });
    expect(trial.items[0].billing.nextBillingAt).toBe('2030-02-28T23:00:00.000Z');
    // Once February is billed (the clock bills what is due), the next period starts on 1 March.
    await setClock(t, '2030-02-10T00:00:00.000Z');
    expect((await ok(get(t, `/subscription-items/${sub.items[0].id}`))).billing).toMatchObject({
      lastBilledFrom: '2030-01-31T23:00:00.000Z',
      lastBilledTo: '2030-02-28T23:00:00.000Z',
      nextBillingAt: '2030-02-28T23:00:00.000Z',
    });
  });

  it('refuses a draft whose product was archived or customer archived since', async () => {
    const f = await setup();
    const { t, c } = f;
    const d = await draft(f, { items: [item(c.storage, c.storageMonthly)] });
    await ok(put(t, `/catalogue/products/${c.storage.id}/archive`));
    expect(violations(await refusedUnchanged(t, d.id, () => put(t, `/subscriptions/${d.id}/activate`, {})))).toEqual(['items[0].product: archived']);
    const other = await draft(f);
    await ok(put(t, `/customers/${f.customer.id}/archive`));
    expect(violations(await refusedUnchanged(t, other.id, () => put(t, `/subscriptions/${other.id}/activate`, {})))).toEqual(['customer: not_active']);
    expect(violations(await refusedUnchanged(t, other.id, () => put(t, `/subscriptions/${other.id}/activate`, { trialDays: -1 })))).toEqual(['trialDays: too_small']);
  });
});

describe('pause and resume', () => {
  it('pauses billing and resumes it; a nextBillingDate in the past is 422', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f);
    await setClock(t, '2030-01-20T00:00:00.000Z');
    const paused = await ok(put(t, `/subscriptions/${sub.id}/pause`));
    expect(paused).toMatchObject({ status: 'paused', pausedAt: '2030-01-20T00:00:00.000Z', nextBillingDate: null });
    expect(paused.items[0].billing.nextBillingAt).toBeNull();
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ status: 'paused', paused_at: '2030-01-20T00:00:00.000Z' });

    await setClock(t, '2030-02-20T00:00:00.000Z');
    const past = await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}/resume`, { nextBillingDate: '2030-02-19T00:00:00Z' }));
    expect(violations(past)).toEqual(['nextBillingDate: in_past']);
    const resumed = await ok(put(t, `/subscriptions/${sub.id}/resume`));
    expect(resumed).toMatchObject({ status: 'active', pausedAt: null });
    expect(resumed.nextBillingDate).not.toBeNull();
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ status: 'active', paused_at: null, billing_resume_at: null });
    expect(await eventTypes(t, sub.id)).toEqual([
      'subscription.created',
      'subscription.activated',
      'entitlement.state.updated',
      'subscription.paused',
      'subscription.resumed',
    ]);
  });

  it('resume with nextBillingDate skips the missed periods: billing restarts on that date', async () => {
    const f = await setup();
    const { t } = f;
    const skip = await activeSubscription(f);
    await setClock(t, '2030-01-20T00:00:00.000Z');
    await ok(put(t, `/subscriptions/${skip.id}/pause`));
    await setClock(t, '2030-02-20T00:00:00.000Z');
    const restarted = await ok(put(t, `/subscriptions/${skip.id}/resume`, { nextBillingDate: '2030-03-15T10:00:00Z' }));
    expect((await subscriptionRow(t, skip.id))!.billing_resume_at).toBe('2030-03-15T10:00:00.000Z');
    expect(restarted.status).toBe('active');
    expect(restarted.items[0].billing.nextBillingAt).toBe('2030-03-15T10:00:00.000Z');
    expect(restarted.nextBillingDate).toBe('2030-03-15T10:00:00.000Z');
  });
});

describe('cancel and revoke-cancellation', () => {
  it('cancels immediately with a reason: status cancelled, items terminated', async () => {
    const f = await setup();
    const { t } = f;
    const reason = await created(post(t, '/cancellation-reasons', { code: 'too-expensive', name: 'Too expensive' }));
    const sub = await activeSubscription(f, { periods: { contractPeriod: '12M' } });
    await setClock(t, '2030-02-01T00:00:00.000Z');
    const res = await ok(put(t, `/subscriptions/${sub.id}/cancel`, { cancellationDateType: 'immediate', reason: reason.id, sendConfirmationEmail: true }));
    expect(res).toMatchObject({
      status: 'cancelled',
      cancellationDate: '2030-02-01T00:00:00.000Z',
      cancelledAt: '2030-02-01T00:00:00.000Z',
      cancellationReason: { id: reason.id, code: 'too-expensive', name: 'Too expensive' },
      isCancellationPending: false,
      nextPossibleCancellationDate: [],
      nextBillingDate: null,
    });
    expect(res.items.map((i: any) => [i.status, i.endDate])).toEqual([['terminated', '2030-02-01T00:00:00.000Z']]);
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ status: 'cancelled', cancellation_reason_id: reason.id });
    expect((await itemRows(t, sub.id))[0]).toMatchObject({ status: 'terminated', end_date: '2030-02-01T00:00:00.000Z' });
    expect((await eventTypes(t, sub.id)).slice(3)).toEqual(['subscription.canceled', 'entitlement.state.updated']);
  });

  it('cancels on a custom date (pending, revocable) and validates the body', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f, { items: [item(f.c.pro, f.c.proMonthly), item(f.c.api, f.c.apiMetered)] });
    const cases: [Record<string, unknown>, string[]][] = [
      [{ cancellationDateType: 'custom' }, ['cancellationDate: required']],
      [{ cancellationDateType: 'custom', cancellationDate: '2030-01-01T00:00:00Z' }, ['cancellationDate: in_past']],
      [{ cancellationDateType: 'immediate', cancellationDate: '2030-03-01T00:00:00Z' }, ['cancellationDate: not_allowed']],
      [{ cancellationDateType: 'immediate', reason: 'nope' }, ['reason: not_found']],
      [{ cancellationDateType: 'whenever' }, ['cancellationDateType: invalid_value']],
      [{}, ['cancellationDateType: invalid_type']],
    ];
    for (const [body, expected] of cases) {
      const res = await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}/cancel`, body));
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(violations(res).map((v) => v.split(': ')[0]), JSON.stringify(body)).toEqual(expected.map((v) => v.split(': ')[0]));
    }

    const pending = await ok(put(t, `/subscriptions/${sub.id}/cancel`, { cancellationDateType: 'custom', cancellationDate: '2030-03-01T00:00:00+01:00' }));
    expect(pending).toMatchObject({
      status: 'active',
      cancellationDate: '2030-02-28T23:00:00.000Z',
      cancelledAt: DEFAULT_NOW,
      isCancellationPending: true,
      nextPossibleCancellationDate: [],
    });
    expect(pending.items.map((i: any) => [i.status, i.endDate])).toEqual([
      ['canceled', '2030-02-28T23:00:00.000Z'],
      ['canceled', '2030-02-28T23:00:00.000Z'],
    ]);
    expect((await itemRows(t, sub.id)).map((r) => r.status)).toEqual(['canceled', 'canceled']);

    await setClock(t, '2030-02-01T00:00:00.000Z');
    const revoked = await ok(put(t, `/subscriptions/${sub.id}/revoke-cancellation`));
    expect(revoked).toMatchObject({ status: 'active', cancellationDate: null, cancelledAt: null, cancellationReason: null, isCancellationPending: false });
    expect(revoked.nextPossibleCancellationDate).toEqual(['2030-02-01T00:00:00.000Z']);
    expect(revoked.items.map((i: any) => [i.status, i.endDate])).toEqual([
      ['active', null],
      ['active', null],
    ]);
    expect((await itemRows(t, sub.id)).map((r) => [r.status, r.end_date])).toEqual([
      ['active', null],
      ['active', null],
    ]);
    expectProblem(await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}/revoke-cancellation`)), 409, '/problems/invalid-transition');
    // The revoked date passing changes nothing.
    await setClock(t, '2030-03-05T00:00:00.000Z');
    expect((await ok(get(t, `/subscriptions/${sub.id}`))).status).toBe('active');
    expect((await eventTypes(t, sub.id)).slice(3)).toEqual(['subscription.canceled', 'subscription.cancellation_revoked']);
  });

  it('next_possible honours a 12-month contract with 3 months notice; the pending cancellation takes effect when the clock passes it', async () => {
    // Both contracts start on 1 January 2025, 00:00 Berlin.
    const f = await setup('2024-12-31T23:00:00.000Z');
    const { t } = f;
    const terms = { periods: { contractPeriod: '12M', cancellationPeriod: '3M' } };
    const a = await activeSubscription(f, terms);
    const b = await activeSubscription(f, terms);
    expect(a.contractDetails).toEqual({ contractStart: '2024-12-31T23:00:00.000Z', contractEnd: '2025-12-31T23:00:00.000Z' });

    // 30 September: notice for the end of the first term is still possible (deadline 1 October 00:00 Berlin).
    await setClock(t, '2025-09-30T12:00:00.000Z');
    expect((await ok(get(t, `/subscriptions/${a.id}`))).nextPossibleCancellationDate).toEqual([
      '2025-12-31T23:00:00.000Z',
      '2026-12-31T23:00:00.000Z',
      '2027-12-31T23:00:00.000Z',
    ]);
    const cancelled = await ok(put(t, `/subscriptions/${a.id}/cancel`, { cancellationDateType: 'next_possible' }));
    expect(cancelled).toMatchObject({ status: 'active', cancellationDate: '2025-12-31T23:00:00.000Z', isCancellationPending: true, nextPossibleCancellationDate: [] });
    expect(cancelled.items[0]).toMatchObject({ status: 'canceled', endDate: '2025-12-31T23:00:00.000Z' });

    // 2 October: too late for this term; the contract renews once more.
    await setClock(t, '2025-10-02T12:00:00.000Z');
    expect((await ok(get(t, `/subscriptions/${b.id}`))).nextPossibleCancellationDate).toEqual([
      '2026-12-31T23:00:00.000Z',
      '2027-12-31T23:00:00.000Z',
      '2028-12-31T23:00:00.000Z',
    ]);
    expect((await ok(put(t, `/subscriptions/${b.id}/cancel`, { cancellationDateType: 'next_possible' }))).cancellationDate).toBe('2026-12-31T23:00:00.000Z');

    // The clock passes a's date: it ends, b keeps running with its cancellation pending.
    await setClock(t, '2026-01-01T00:00:00.000Z');
    const ended = await ok(get(t, `/subscriptions/${a.id}`));
    expect(ended).toMatchObject({ status: 'cancelled', cancellationDate: '2025-12-31T23:00:00.000Z', isCancellationPending: false });
    expect(ended.items.map((i: any) => [i.status, i.endDate])).toEqual([['terminated', '2025-12-31T23:00:00.000Z']]);
    expect(await subscriptionRow(t, a.id)).toMatchObject({ status: 'cancelled' });
    expect((await itemRows(t, a.id))[0]).toMatchObject({ status: 'terminated' });
    expect(await ok(get(t, `/subscriptions/${b.id}`))).toMatchObject({ status: 'active', isCancellationPending: true, contractDetails: { contractEnd: '2026-12-31T23:00:00.000Z' } });
    const aEvents = ['subscription.created', 'subscription.activated', 'entitlement.state.updated', 'subscription.canceled', 'subscription.updated', 'entitlement.state.updated'];
    expect(await eventTypes(t, a.id)).toEqual(aEvents);
    // Moving on does not apply it twice.
    await setClock(t, '2026-02-01T00:00:00.000Z');
    expect(await eventTypes(t, a.id)).toEqual(aEvents);
    expectRefused(await refusedUnchanged(t, a.id, () => put(t, `/subscriptions/${a.id}/revoke-cancellation`)), 'cancelled');

    expect((await ok(put(t, `/subscriptions/${b.id}/revoke-cancellation`))).isCancellationPending).toBe(false);
  });

  it('an open-ended subscription with a notice period ends after the notice', async () => {
    const f = await setup();
    const sub = await activeSubscription(f, { periods: { cancellationPeriod: '1M' } });
    expect(sub.nextPossibleCancellationDate).toEqual(['2030-02-15T10:00:00.000Z']);
    const res = await ok(put(f.t, `/subscriptions/${sub.id}/cancel`, { cancellationDateType: 'next_possible' }));
    expect(res).toMatchObject({ cancellationDate: '2030-02-15T10:00:00.000Z', isCancellationPending: true });
  });
});

describe('terminate', () => {
  it('ends the subscription and its items at once', async () => {
    const f = await setup();
    const { t, c } = f;
    const sub = await activeSubscription(f, { items: [item(c.pro, c.proMonthly), item(c.storage, c.storageMonthly)], periods: { contractPeriod: '12M' } });
    await setClock(t, '2030-01-20T00:00:00.000Z');
    const res = await ok(put(t, `/subscriptions/${sub.id}/terminate`));
    expect(res).toMatchObject({ status: 'terminated', nextBillingDate: null, isCancellationPending: false, nextPossibleCancellationDate: [] });
    expect(res.items.map((i: any) => [i.status, i.endDate])).toEqual([
      ['terminated', '2030-01-20T00:00:00.000Z'],
      ['terminated', '2030-01-20T00:00:00.000Z'],
    ]);
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ status: 'terminated', terminated_at: '2030-01-20T00:00:00.000Z' });
    expect((await itemRows(t, sub.id)).map((r) => r.status)).toEqual(['terminated', 'terminated']);
    expect((await eventTypes(t, sub.id)).slice(3)).toEqual(['subscription.terminated', 'entitlement.state.updated']);
    expectRefused(await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}/terminate`)), 'terminated');
  });
});

describe('trials', () => {
  it('extend-trial by days or to a date; the new end must be later', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f, {}, { trialDays: 14 });
    expect(sub.trialEndsOn).toBe('2030-01-29T10:00:00.000Z');
    const byDays = await ok(put(t, `/subscriptions/${sub.id}/extend-trial`, { trialDays: 5 }));
    expect(byDays).toMatchObject({ trialEndsOn: '2030-02-03T10:00:00.000Z', nextBillingDate: '2030-02-03T10:00:00.000Z' });
    expect(byDays.items[0].billing.nextBillingAt).toBe('2030-02-03T10:00:00.000Z');
    const toDate = await ok(put(t, `/subscriptions/${sub.id}/extend-trial`, { trialEndsOn: '2030-02-10T10:00:00+00:00' }));
    expect(toDate.trialEndsOn).toBe('2030-02-10T10:00:00.000Z');
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ trial_ends_on: '2030-02-10T10:00:00.000Z', billing_anchor: '2030-02-10T10:00:00.000Z' });

    const cases: [Record<string, unknown>, string[]][] = [
      [{ trialEndsOn: '2030-02-05T00:00:00Z' }, ['trialEndsOn: not_later']],
      [{ trialEndsOn: '2030-02-10T10:00:00Z' }, ['trialEndsOn: not_later']],
      [{ trialDays: 2, trialEndsOn: '2030-03-01T00:00:00Z' }, ['trialDays: one_of']],
      [{}, ['trialDays: one_of']],
      [{ trialDays: 0 }, ['trialDays: too_small']],
    ];
    for (const [body, expected] of cases) {
      const res = await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}/extend-trial`, body));
      expect(violations(res), JSON.stringify(body)).toEqual(expected);
    }
    expect((await eventTypes(t, sub.id)).slice(3)).toEqual(['subscription.trial_extended', 'subscription.trial_extended']);

    // A draft's trial grows in days (it starts at activation).
    const d = await draft(f, { trialDays: 14 });
    expect((await ok(put(t, `/subscriptions/${d.id}/extend-trial`, { trialDays: 3 }))).trialDays).toBe(17);
    expect(violations(await refusedUnchanged(t, d.id, () => put(t, `/subscriptions/${d.id}/extend-trial`, { trialEndsOn: '2030-03-01T00:00:00Z' })))).toEqual([
      'trialEndsOn: not_allowed',
    ]);
    expect(await eventTypes(t, d.id)).toEqual(['subscription.created', 'subscription.trial_extended']);

    // Once the trial is over there is nothing to extend.
    await setClock(t, '2030-02-11T00:00:00.000Z');
    expectProblem(await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}/extend-trial`, { trialDays: 1 })), 409, '/problems/invalid-transition');
  });

  it('revoke-trial ends the trial now; a trial ending by the clock is announced once', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f, {}, { trialDays: 14 });
    const expiring = await activeSubscription(f, {}, { trialDays: 3 });
    await setClock(t, '2030-01-17T10:00:00.000Z');
    const revoked = await ok(put(t, `/subscriptions/${sub.id}/revoke-trial`));
    expect(revoked).toMatchObject({ status: 'active', trialEndsOn: '2030-01-17T10:00:00.000Z', nextBillingDate: '2030-01-17T10:00:00.000Z' });
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ trial_expired_at: '2030-01-17T10:00:00.000Z' });
    expectProblem(await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}/revoke-trial`)), 409, '/problems/invalid-transition');

    await setClock(t, '2030-01-19T00:00:00.000Z');
    expect(await subscriptionRow(t, expiring.id)).toMatchObject({ trial_ends_on: '2030-01-18T10:00:00.000Z', trial_expired_at: '2030-01-19T00:00:00.000Z' });
    await setClock(t, '2030-01-25T00:00:00.000Z');
    const trialEvents = ['subscription.created', 'subscription.activated', 'entitlement.state.updated', 'subscription.trial_expired'];
    expect(await eventTypes(t, sub.id)).toEqual(trialEvents);
    expect(await eventTypes(t, expiring.id)).toEqual(trialEvents);
    expectProblem(await refusedUnchanged(t, expiring.id, () => put(t, `/subscriptions/${expiring.id}/revoke-trial`)), 409, '/problems/invalid-transition');
  });
});

describe('invoice address and payment method', () => {
  it('PUT /invoice-address sets an address of the customer, or null for the default', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f);
    const address = defaultAddress(f.customer);
    const set = await ok(put(t, `/subscriptions/${sub.id}/invoice-address`, { invoiceAddress: address.id }));
    expect(set).toMatchObject({ invoiceAddress: { id: address.id, type: 'TYPE_DEFAULT' }, defaultInvoiceAddress: false });
    expect((await subscriptionRow(t, sub.id))!.invoice_address_id).toBe(address.id);
    const cleared = await ok(put(t, `/subscriptions/${sub.id}/invoice-address`, { invoiceAddress: null }));
    expect(cleared).toMatchObject({ invoiceAddress: null, defaultInvoiceAddress: true });

    const other = await createCustomer(t);
    expect(violations(await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}/invoice-address`, { invoiceAddress: defaultAddress(other).id })))).toEqual([
      'invoiceAddress: not_found',
    ]);
    expect(paths(await refusedUnchanged(t, sub.id, () => put(t, `/subscriptions/${sub.id}/invoice-address`, {})))).toEqual(['invoiceAddress']);
    const events = await eventsOf(t, sub.id);
    expect(events.slice(3).map((e) => e.type)).toEqual(['subscription.invoice_address.updated', 'subscription.invoice_address.updated']);
    expect(events[3]!.data.invoiceAddress.id).toBe(address.id);
  });

  it('PATCH /payment-method takes application/merge-patch+json', async () => {
    const f = await setup();
    const { t, customer } = f;
    const card = await paymentMethod(t, customer.id, 'card', true);
    const sepa = await paymentMethod(t, customer.id, 'sepa_debit');
    const sub = await activeSubscription(f);
    expect(sub).toMatchObject({ paymentMethod: { id: card }, defaultPaymentMethod: true });
    const set = await ok(patch(t, `/subscriptions/${sub.id}/payment-method`, { paymentMethodId: sepa }));
    expect(set).toMatchObject({ paymentMethod: { id: sepa, type: 'sepa_debit', gatewayName: 'sepa_debit', status: 'active', default: false, enabled: true }, defaultPaymentMethod: false });
    expect((await subscriptionRow(t, sub.id))!.payment_method_id).toBe(sepa);
    expect(await ok(get(t, `/subscriptions?paymentMethod.type=sepa_debit`))).toMatchObject({ data: [{ id: sub.id }] });
    const back = await ok(patch(t, `/subscriptions/${sub.id}/payment-method`, { paymentMethodId: null }));
    expect(back).toMatchObject({ paymentMethod: { id: card }, defaultPaymentMethod: true });

    const other = await createCustomer(t);
    const foreign = await paymentMethod(t, other.id, 'card');
    expect(violations(await refusedUnchanged(t, sub.id, () => patch(t, `/subscriptions/${sub.id}/payment-method`, { paymentMethodId: foreign })))).toEqual([
      'paymentMethodId: not_found',
    ]);
    expectProblem(
      await refusedUnchanged(t, sub.id, () => api(`/subscriptions/${sub.id}/payment-method`, { token: t.key, method: 'PATCH', body: { paymentMethodId: sepa }, contentType: 'application/json' })),
      415,
    );
    expect(paths(await refusedUnchanged(t, sub.id, () => patch(t, `/subscriptions/${sub.id}/payment-method`, { paymentMethodId: sepa, colour: 'red' })))).toEqual(['colour']);
    expect((await eventTypes(t, sub.id)).slice(3)).toEqual(['subscription.payment_method.updated', 'subscription.payment_method.updated']);
  });
});

describe('POST /subscriptions/{id}/products', () => {
  it('adds an add-on now, a later add-on as pending (active when the clock passes its start) and a one-time charge', async () => {
    const f = await setup();
    const { t, c } = f;
    const sub = await activeSubscription(f);
    await setClock(t, '2030-01-20T00:00:00.000Z');
    const now = await ok(post(t, `/subscriptions/${sub.id}/products`, { products: [item(c.storage, c.storageMonthly, '2')] }));
    expect(now.items).toHaveLength(2);
    expect(now.items[1]).toMatchObject({ type: 'addon', status: 'active', activatedAt: '2030-01-20T00:00:00.000Z', quantity: '2', product: { id: c.storage.id }, startDate: null });
    expect(await itemRows(t, sub.id)).toHaveLength(2);

    const later = await ok(post(t, `/subscriptions/${sub.id}/products`, { startDate: '2030-02-01T00:00:00Z', products: [item(c.api, c.apiMetered)] }));
    const pending = later.items[2];
    expect(pending).toMatchObject({ type: 'addon', status: 'pending', activatedAt: null, startDate: '2030-02-01T00:00:00.000Z' });

    const charge = await ok(post(t, `/subscriptions/${sub.id}/products`, { products: [item(c.setup, c.setupFee)] }));
    expect(charge.items[3]).toMatchObject({ type: 'charge', status: 'active', pricePlan: { id: c.setupFee.id, type: 'one_time', billingInterval: null } });

    await setClock(t, '2030-02-01T00:00:00.000Z');
    expect(await ok(get(t, `/subscription-items/${pending.id}`))).toMatchObject({ status: 'active', activatedAt: '2030-02-01T00:00:00.000Z' });
    expect((await itemRows(t, sub.id)).map((r) => r.status)).toEqual(['active', 'active', 'active', 'active']);

    const types = await eventTypes(t, sub.id);
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
    expectStatus(ordered, 200);
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
      const res = await refusedUnchanged(t, sub.id, () => post(t, `/subscriptions/${sub.id}/products`, body));
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(violations(res).sort(), JSON.stringify(body)).toEqual(expected);
    }
    const d = await draft(f);
    const ordered = await ok(post(t, `/subscriptions/${d.id}/products`, { products: [item(c.storage, c.storageMonthly)] }));
    expect(ordered.items[1]).toMatchObject({ type: 'addon', status: 'pending' });
    expect(await eventTypes(t, d.id)).toEqual(['subscription.created', 'subscription.products.ordered']);
    const activated = await ok(put(t, `/subscriptions/${d.id}/activate`, {}));
    expect(activated.items.map((i: any) => i.status)).toEqual(['active', 'active']);
  });
});

describe('comments', () => {
  it('POST and GET /subscriptions/{id}/comments', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f);
    const first = await created(post(t, `/subscriptions/${sub.id}/comments`, { text: 'Called the customer', author: 'Bob' }));
    expect(first).toEqual({ id: expect.any(String), text: 'Called the customer', author: 'Bob', createdAt: DEFAULT_NOW });
    await setClock(t, '2030-01-16T00:00:00.000Z');
    const second = await created(post(t, `/subscriptions/${sub.id}/comments`, { text: 'Sent the offer' }));
    expect(second.author).toBeNull();
    const list = await ok(get(t, `/subscriptions/${sub.id}/comments`));
    expect(list.data).toEqual([first, second]);
    expect(list.meta.pagination).toEqual({ totalItems: 2, itemsPerPage: 30, currentPage: 1, lastPage: 1, pageTotalItems: 2 });
    expect((await ok(get(t, `/subscriptions/${sub.id}/comments?limit=1&page=2`))).data).toEqual([second]);
    expect(paths(await post(t, `/subscriptions/${sub.id}/comments`, { text: '   ' }))).toEqual(['text']);
    expectProblem(await post(t, '/subscriptions/nope/comments', { text: 'x' }), 404);
    expectProblem(await get(t, '/subscriptions/nope/comments'), 404);
    expect(await countRows('subscription_comments', t)).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------
// Items

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
    expect(paths(await refusedUnchanged(t, sub.id, () => put(t, `/subscription-items/${itemId}`, { description: 'x' })))).toEqual(['name']);
    expect(paths(await refusedUnchanged(t, sub.id, () => put(t, `/subscription-items/${itemId}`, { name: 'x', quantity: '2' })))).toEqual(['quantity']);
    expect((await eventTypes(t, sub.id)).slice(3)).toEqual(['subscription.updated']);
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
      const res = await refusedUnchanged(t, sub.id, () => put(t, `/subscription-items/${itemId}/quantity`, { quantity }));
      expect(res.status, String(quantity)).toBe(422);
      expect([...new Set(paths(res))], String(quantity)).toEqual(['quantity']);
    }
    expectProblem(await put(t, '/subscription-items/nope/quantity', { quantity: '2' }), 404);
    expect((await eventTypes(t, sub.id)).slice(3)).toEqual(['subscription.updated', 'subscription.updated']);

    await ok(put(t, `/subscriptions/${sub.id}/terminate`));
    expectRefused(await refusedUnchanged(t, sub.id, () => put(t, `/subscription-items/${itemId}/quantity`, { quantity: '7' })), 'terminated');
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
    expectRefused(await refusedUnchanged(t, sub.id, () => put(t, `/subscription-items/${sub.items[1].id}/cancel`)), 'canceled');
    expectRefused(await refusedUnchanged(t, sub.id, () => put(t, `/subscription-items/${sub.items[1].id}/quantity`, { quantity: '3' })), 'canceled');
    expect((await eventTypes(t, sub.id)).slice(3)).toEqual(['subscription.updated', 'entitlement.state.updated']);

    const open = await activeSubscription(f);
    expect(await ok(put(t, `/subscription-items/${open.items[0].id}/cancel`))).toMatchObject({ status: 'terminated', endDate: DEFAULT_NOW });

    const later = await ok(post(t, `/subscriptions/${open.id}/products`, { startDate: '2030-03-01T00:00:00Z', products: [item(c.storage, c.storageMonthly)] }));
    expect(await ok(put(t, `/subscription-items/${later.items[1].id}/cancel`))).toMatchObject({ status: 'terminated', endDate: DEFAULT_NOW });

    // The canceled item ends when the clock reaches its end date; the subscription renews.
    await setClock(t, '2031-01-15T10:00:00.000Z');
    const renewed = await ok(get(t, `/subscriptions/${sub.id}`));
    expect(renewed).toMatchObject({ status: 'active', contractDetails: { contractEnd: '2032-01-15T10:00:00.000Z' } });
    expect(renewed.items.map((i: any) => i.status)).toEqual(['active', 'terminated']);
  });
});

// ---------------------------------------------------------------------------------------------
// Estimated amount

describe('GET /subscriptions/{id}/estimated-amount', () => {
  it('prices quantities, a percentage and a fixed coupon and the usage so far, to the cent', async () => {
    const f = await setup();
    const { t, c } = f;
    const percent = await coupon(t, { type: 'percentage', percentage: 10, frequency: 'once' });
    const fixed = await coupon(t, { type: 'fixed_amount', fixedAmount: { amount: '5.00', currencyCode: 'EUR' }, frequency: 'lifetime' });
    const items = [item(c.pro, c.proMonthly, '3'), item(c.storage, c.storageMonthly, '2'), item(c.api, c.apiMetered)];
    const plain = await draft(f, { items });
    // 3 × 10.00 + 2 × 5.00 + no usage = 40.00
    expect(await ok(get(t, `/subscriptions/${plain.id}/estimated-amount`))).toEqual({ amount: '40.00', currencyCode: 'EUR' });

    const d = await draft(f, { items, coupons: [percent.code, fixed.code] });
    expect(d.appliedDiscounts.map((a: any) => [a.coupon.code, a.discount.type, a.status, a.appliedIntervals])).toEqual([
      [percent.code, 'percentage', 'active', 0],
      [fixed.code, 'fixed_amount', 'active', 0],
    ]);
    // 40.00 − 10 % (4.00) − 5.00 = 31.00
    expect(await ok(get(t, `/subscriptions/${d.id}/estimated-amount`))).toEqual({ amount: '31.00', currencyCode: 'EUR' });
    const sub = await ok(put(t, `/subscriptions/${d.id}/activate`, {}));
    expect(await countRows('coupon_redemptions', t, 'AND subscription_id = ?', sub.id)).toBe(2);
    const apiItem = sub.items[2].id;
    // Live: the invoice due next (now, the first period in advance; usage is billed at the period end):
    // 3 × 10.00 + 2 × 5.00 = 40.00; 10 % → 36.00; − 5.00 → 31.00.
    expect(await ok(get(t, `/subscriptions/${sub.id}/estimated-amount`))).toEqual({ amount: '31.00', currencyCode: 'EUR' });

    // Moving the clock bills that first period, which uses up the `once` coupon; the lifetime one stays.
    await setClock(t, '2030-01-20T10:00:00.000Z');
    const billed = await ok(get(t, `/subscriptions/${sub.id}`));
    expect(billed.appliedDiscounts.map((a: any) => [a.coupon.code, a.appliedIntervals])).toEqual([
      [percent.code, 1],
      [fixed.code, 1],
    ]);
    expect(billed.nextBillingDate).toBe('2030-02-15T10:00:00.000Z');

    // Usage inside the period that started at activation (15 Jan 10:00): 1234 + 566.5 calls.
    // The call on 10 January lies before the period and does not count.
    expect(
      await ok(
        post(t, '/subscriptions/measurements', {
          events: [
            { id: 'u1', subscriptionItem: apiItem, quantity: '1234' },
            { id: 'u2', subscriptionItem: apiItem, quantity: '566.5', measuredAt: '2030-01-15T10:00:00Z' },
            { id: 'u0', subscriptionItem: apiItem, quantity: '1000', measuredAt: '2030-01-10T00:00:00Z' },
          ],
        }),
      ),
    ).toMatchObject({ received: 3, rejected: [] });
    expect((await ok(get(t, `/subscription-items/${apiItem}/current-measurement-value`))).quantity).toBe('1800.5');
    // The next invoice (15 February): the second period in advance, 30.00 + 10.00, and the usage of the
    // first, 1800.5 × 0.0125 = 22.50625 → 22.51; total 62.51. The once coupon is used up; − 5.00 → 57.51.
    expect(await ok(get(t, `/subscriptions/${sub.id}/estimated-amount`))).toEqual({ amount: '57.51', currencyCode: 'EUR' });

    // Other currencies: 2 × 12.00 USD.
    const usd = await draft(f, { items: [item(c.pro, c.proUsd, '2')] });
    expect(await ok(get(t, `/subscriptions/${usd.id}/estimated-amount`))).toEqual({ amount: '24.00', currencyCode: 'USD' });
    // A fixed coupon never takes the total below zero: 1 × 5.00 − 5.00 = 0.00.
    const small = await draft(f, { items: [item(c.storage, c.storageMonthly)], coupons: [fixed.code] });
    expect(await ok(get(t, `/subscriptions/${small.id}/estimated-amount`))).toEqual({ amount: '0.00', currencyCode: 'EUR' });
    expectProblem(await get(t, '/subscriptions/nope/estimated-amount'), 404);
  });
});

// ---------------------------------------------------------------------------------------------
// Usage

const usage = (t: TestTenant, events: unknown[]) => post(t, '/subscriptions/measurements', { events });

async function usageRows(t: TestTenant) {
  return query<Record<string, any>>('SELECT * FROM usage_events WHERE tenant_id = ? ORDER BY measured_at, event_id', t.id);
}

describe('POST /subscriptions/measurements', () => {
  async function usageFixture() {
    const f = await setup();
    const sub = await activeSubscription(f, { items: [item(f.c.pro, f.c.proMonthly), item(f.c.api, f.c.apiMetered)] });
    return { ...f, sub, seatsItem: sub.items[0].id, apiItem: sub.items[1].id };
  }

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
    const withVisitors = await ok(post(t, `/subscriptions/${f.sub.id}/products`, { products: [item(product, price)] }));
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

  it('refuses a malformed batch whole: more than 1,000 events, bad quantities, no target', async () => {
    const f = await usageFixture();
    const { t } = f;
    const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, subscriptionItem: f.apiItem, quantity: '1' }));
    const tooMany = await usage(t, many(1001, 'x'));
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
    const sub = await ok(post(t, `/subscriptions/${created4.id}/products`, { products: kinds.slice(2).map((k) => item(extra[k]!.product, extra[k]!.price)) }));
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

// ---------------------------------------------------------------------------------------------
// Entitlements

async function feature(t: TestTenant, code: string, type = 'switch', extra: Record<string, unknown> = {}) {
  return created(post(t, '/entitlement/features', { code, name: `Feature ${code}`, type, ...extra }));
}

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
    const types = await eventTypes(t);
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
    const types = (await eventTypes(t)).filter((x) => x.startsWith('feature_assignment.'));
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
    const events = await eventTypes(t, pending.id);
    expect(events.filter((e) => e === 'entitlement.state.updated')).toHaveLength(2);
  });
});

// ---------------------------------------------------------------------------------------------
// Auth, isolation, events

describe('auth and tenant isolation', () => {
  it('writes need subscription:write (403), reads subscription:read; features and entitlements their own permissions', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const sub = await activeSubscription(f);
    const itemId = sub.items[0].id;
    const reader = await keyWith(t, ['subscription:read']);
    const s = `/subscriptions/${sub.id}`;
    const writes: [string, string, unknown?][] = [
      ['POST', '/subscriptions', draftBody(f)],
      ['POST', '/subscriptions/from-plan', { customer: customer.id, planCode: c.plan.code }],
      ['PUT', s, draftBody(f, { name: 'x' })],
      ['DELETE', s],
      ['PUT', `${s}/activate`, {}],
      ['PUT', `${s}/pause`],
      ['PUT', `${s}/resume`, {}],
      ['PUT', `${s}/cancel`, { cancellationDateType: 'immediate' }],
      ['PUT', `${s}/revoke-cancellation`],
      ['PUT', `${s}/terminate`],
      ['PUT', `${s}/extend-trial`, { trialDays: 1 }],
      ['PUT', `${s}/revoke-trial`],
      ['PUT', `${s}/invoice-address`, { invoiceAddress: null }],
      ['PATCH', `${s}/payment-method`, { paymentMethodId: null }],
      ['POST', `${s}/products`, { products: [item(c.storage, c.storageMonthly)] }],
      ['POST', `${s}/comments`, { text: 'x' }],
      ['PUT', `/subscription-items/${itemId}`, { name: 'x' }],
      ['PUT', `/subscription-items/${itemId}/quantity`, { quantity: '2' }],
      ['PUT', `/subscription-items/${itemId}/cancel`],
      ['POST', '/subscriptions/measurements', { events: [{ id: 'e', subscriptionItem: itemId, quantity: '1' }] }],
    ];
    for (const [method, path, body] of writes) {
      const res = await refusedUnchanged(t, sub.id, () => api(path, { token: reader, method, ...(body === undefined ? {} : { body }) }));
      expect(res.status, `${method} ${path}`).toBe(403);
      expectProblem(res, 403, '/problems/forbidden');
    }
    const reads = [
      '/subscriptions',
      s,
      `${s}/comments`,
      `${s}/estimated-amount`,
      `${s}/entitlements`,
      `/subscription-items/${itemId}`,
      `/subscription-items/${itemId}/measurement-values`,
      `/subscription-items/${itemId}/current-measurement-value`,
    ];
    for (const path of reads) expect((await api(path, { token: reader })).status, path).toBe(200);

    const stranger = await keyWith(t, ['customer:read']);
    for (const path of reads) expect((await api(path, { token: stranger })).status, path).toBe(403);
    const writer = await keyWith(t, ['subscription:write']);
    expect((await api('/subscriptions', { token: writer, body: draftBody(f) })).status).toBe(201);
    expect((await api('/entitlement/features', { token: writer, body: { code: 'sso', name: 'SSO', type: 'switch' } })).status).toBe(403);
    expect((await api(`/customers/${customer.id}/entitlements?feature=sso`, { token: writer })).status).toBe(403);
    const entitlementReader = await keyWith(t, ['entitlement:read']);
    expect((await api(`/customers/${customer.id}/entitlements?feature=sso`, { token: entitlementReader })).status).toBe(200);
    expect((await api('/subscriptions', { token: null })).status).toBe(401);
  });

  it("another tenant's subscriptions, items and customers are 404 and its usage is not accepted", async () => {
    const a = await setup();
    const sub = await activeSubscription(a, { items: [item(a.c.pro, a.c.proMonthly), item(a.c.api, a.c.apiMetered)] });
    const itemId = sub.items[1].id;
    const b = await setup();
    const { t } = b;
    const eventsOfA = await countRows('events', a.t);
    const s = `/subscriptions/${sub.id}`;
    const requests: [string, string, unknown?][] = [
      ['GET', s],
      ['PUT', s, draftBody(b)],
      ['DELETE', s],
      ['PUT', `${s}/activate`, {}],
      ['PUT', `${s}/pause`],
      ['PUT', `${s}/resume`, {}],
      ['PUT', `${s}/cancel`, { cancellationDateType: 'immediate' }],
      ['PUT', `${s}/revoke-cancellation`],
      ['PUT', `${s}/terminate`],
      ['PUT', `${s}/extend-trial`, { trialDays: 1 }],
      ['PUT', `${s}/revoke-trial`],
      ['PUT', `${s}/invoice-address`, { invoiceAddress: null }],
      ['PATCH', `${s}/payment-method`, { paymentMethodId: null }],
      ['POST', `${s}/products`, { products: [item(b.c.storage, b.c.storageMonthly)] }],
      ['POST', `${s}/comments`, { text: 'x' }],
      ['GET', `${s}/comments`],
      ['GET', `${s}/estimated-amount`],
      ['GET', `${s}/entitlements`],
      ['GET', `/subscription-items/${itemId}`],
      ['PUT', `/subscription-items/${itemId}`, { name: 'x' }],
      ['PUT', `/subscription-items/${itemId}/quantity`, { quantity: '2' }],
      ['PUT', `/subscription-items/${itemId}/cancel`],
      ['GET', `/subscription-items/${itemId}/measurement-values`],
      ['GET', `/subscription-items/${itemId}/current-measurement-value`],
      ['GET', `/customers/${a.customer.id}/entitlements?feature=sso`],
    ];
    for (const [method, path, body] of requests) {
      const res = await api(path, { token: t.key, method, ...(body === undefined ? {} : { body }) });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(404);
    }
    expect((await ok(get(t, `/subscriptions?id=${sub.id}`))).data).toEqual([]);
    expect((await ok(get(t, `/subscriptions?customer=${a.customer.id}`))).data).toEqual([]);
    const usageRes = await ok(
      usage(t, [
        { id: 'x1', subscriptionItem: itemId, quantity: '1' },
        { id: 'x2', customer: a.customer.id, measurement: 'api-calls', quantity: '1' },
      ]),
    );
    expect(usageRes).toMatchObject({ accepted: 0, rejected: [{ index: 0 }, { index: 1 }] });
    expect(violations(await post(t, '/subscriptions', { customer: a.customer.id, items: [item(a.c.pro, a.c.proMonthly)] })).sort()).toEqual([
      'customer: not_found',
      'items[0].pricePlan: not_found',
      'items[0].product: not_found',
    ]);
    expect(await countRows('events', a.t)).toBe(eventsOfA);
    expect(await countRows('usage_events', a.t)).toBe(0);
    expect((await ok(get(a.t, s))).status).toBe('active');
  });
});

describe('events', () => {
  it('writes each change exactly once, in order, and nothing for refused changes', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const pm = await paymentMethod(t, customer.id, 'card');
    const d = await draft(f, { trialDays: 10 });
    const s = `/subscriptions/${d.id}`;
    const steps: [string, () => Promise<ApiResponse>, number, string[]][] = [
      ['activate', () => put(t, `${s}/activate`, {}), 200, ['subscription.activated', 'entitlement.state.updated']],
      ['activate again', () => put(t, `${s}/activate`, {}), 409, []],
      ['resume while active', () => put(t, `${s}/resume`, {}), 409, []],
      ['extend trial', () => put(t, `${s}/extend-trial`, { trialDays: 2 }), 200, ['subscription.trial_extended']],
      ['extend trial to an earlier date', () => put(t, `${s}/extend-trial`, { trialEndsOn: '2030-01-20T00:00:00Z' }), 422, []],
      ['revoke trial', () => put(t, `${s}/revoke-trial`), 200, ['subscription.trial_expired']],
      ['revoke trial again', () => put(t, `${s}/revoke-trial`), 409, []],
      ['payment method', () => patch(t, `${s}/payment-method`, { paymentMethodId: pm }), 200, ['subscription.payment_method.updated']],
      ['unknown payment method', () => patch(t, `${s}/payment-method`, { paymentMethodId: 'nope' }), 422, []],
      ['invoice address', () => put(t, `${s}/invoice-address`, { invoiceAddress: defaultAddress(customer).id }), 200, ['subscription.invoice_address.updated']],
      ['order products', () => post(t, `${s}/products`, { products: [item(c.storage, c.storageMonthly)] }), 200, ['subscription.products.ordered', 'entitlement.state.updated']],
      ['pause', () => put(t, `${s}/pause`), 200, ['subscription.paused']],
      ['pause again', () => put(t, `${s}/pause`), 409, []],
      ['order while paused', () => post(t, `${s}/products`, { products: [item(c.storage, c.storageMonthly)] }), 409, []],
      ['resume', () => put(t, `${s}/resume`, {}), 200, ['subscription.resumed']],
      ['cancel', () => put(t, `${s}/cancel`, { cancellationDateType: 'custom', cancellationDate: '2030-05-01T00:00:00Z' }), 200, ['subscription.canceled']],
      ['cancel again', () => put(t, `${s}/cancel`, { cancellationDateType: 'immediate' }), 409, []],
      ['revoke cancellation', () => put(t, `${s}/revoke-cancellation`), 200, ['subscription.cancellation_revoked']],
      ['revoke cancellation again', () => put(t, `${s}/revoke-cancellation`), 409, []],
      ['rename', () => put(t, s, { customer: customer.id, items: [item(c.pro, c.proMonthly)], trialDays: 10, paymentMethod: pm, invoiceAddress: defaultAddress(customer).id, name: 'Renamed' }), 200, ['subscription.updated']],
      ['terminate', () => put(t, `${s}/terminate`), 200, ['subscription.terminated', 'entitlement.state.updated']],
      ['terminate again', () => put(t, `${s}/terminate`), 409, []],
      ['delete', () => del(t, s), 409, []],
    ];
    expect(await eventTypes(t, d.id)).toEqual(['subscription.created']);
    for (const [name, run, status, expected] of steps) {
      const before = (await eventsOf(t)).length;
      const res = await run();
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(status);
      const added = (await eventsOf(t)).slice(before);
      expect(added.map((e) => e.type), name).toEqual(expected);
      for (const e of added) expect(e.resourceId, name).toBe(d.id);
      if (added[0]) expect(added[0].data, name).toMatchObject({ id: d.id, status: res.body.status, updatedAt: res.body.updatedAt });
    }
    const rows = await query<{ version: string; created_at: string }>('SELECT version, created_at FROM events WHERE tenant_id = ?', t.id);
    expect(new Set(rows.map((r) => r.created_at))).toEqual(new Set([DEFAULT_NOW]));
    expect(rows.every((r) => typeof r.version === 'string' && r.version.length > 0)).toBe(true);
  });
});
