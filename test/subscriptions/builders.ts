// Builders of the subscription tests (test/subscriptions/*.test.ts): a tenant with its clock set
// and a catalogue made through the API, drafts and active subscriptions, and what a refused change
// must leave as it was.
import { expect } from 'vitest';
import { expectProblem, post, put, query, unique, type ApiResponse, type TestTenant, dbOf } from '../support/api';
import { created, createCustomer, createTenant, eventTypes, ok, setClock, type Unchanged } from '../support/builders';

/**
 * Event types of a tenant (or of one resource), without those of billing: every move of the test
 * clock also bills what became due (subscription.billed, invoice.*), which is not the subject of
 * the subscription tests.
 */
export async function nonBillingEventTypes(t: TestTenant, resourceId?: string): Promise<string[]> {
  return (await eventTypes(t, resourceId)).filter((type) => type !== 'subscription.billed' && !type.startsWith('invoice.'));
}

/** 409 invalid-transition whose detail names the current status. */
export function expectRefused(res: ApiResponse, status: string) {
  expectProblem(res, 409, '/problems/invalid-transition');
  expect(res.body.detail).toContain(status);
}

export const addDays = (s: string, days: number) => new Date(new Date(s).getTime() + days * 86_400_000).toISOString();

export async function subscriptionRow(t: TestTenant, id: string) {
  const [row] = await query<Record<string, any>>(t, 'SELECT * FROM subscriptions WHERE tenant_id = ? AND id = ?', t.id, id);
  return row;
}

export async function itemRows(t: TestTenant, subscriptionId: string) {
  return query<Record<string, any>>(t, 'SELECT * FROM subscription_items WHERE tenant_id = ? AND subscription_id = ? ORDER BY created_at, id', t.id, subscriptionId);
}

/** What a refused change must leave as it was (see refusedUnchanged): the stored subscription and its items. */
export function storedSubscription(t: TestTenant, subscriptionId: string): Unchanged {
  return [() => subscriptionRow(t, subscriptionId), () => itemRows(t, subscriptionId)];
}

/** A payment method row (payment methods have no API yet). */
export async function paymentMethod(t: TestTenant, customerId: string, type = 'card', isDefault = false): Promise<string> {
  const id = unique('pm');
  await (await dbOf(t)).prepare(
    'INSERT INTO payment_methods (id, tenant_id, customer_id, gateway_name, type, name, status, is_default, enabled, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  )
    .bind(id, t.id, customerId, type === 'card' ? 'card_provider' : type, type, `My ${type}`, 'active', isDefault ? 1 : 0, 1, new Date().toISOString())
    .run();
  return id;
}

// ---------------------------------------------------------------------------------------------
// Catalogue fixture, made through the API

export interface Catalogue {
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

export const DEFAULT_NOW = '2030-01-15T10:00:00.000Z';

export async function createCatalogue(t: TestTenant): Promise<Catalogue> {
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

export interface Fixture {
  t: TestTenant;
  c: Catalogue;
  customer: any;
}

export async function setup(now = DEFAULT_NOW): Promise<Fixture> {
  const t = await createTenant();
  await setClock(t, now);
  const c = await createCatalogue(t);
  const customer = await createCustomer(t, { firstName: 'Ada', lastName: 'Lovelace' });
  return { t, c, customer };
}

export const item = (product: any, pricePlan: any, quantity = '1') => ({ product: product.id, pricePlan: pricePlan.id, quantity });

export function draftBody(f: Fixture, overrides: Record<string, unknown> = {}) {
  return { customer: f.customer.id, items: [item(f.c.pro, f.c.proMonthly)], ...overrides };
}

export async function draft(f: Fixture, overrides: Record<string, unknown> = {}) {
  return created(post(f.t, '/subscriptions', draftBody(f, overrides)));
}

export async function activeSubscription(f: Fixture, overrides: Record<string, unknown> = {}, activation: Record<string, unknown> = {}) {
  const d = await draft(f, overrides);
  return ok(put(f.t, `/subscriptions/${d.id}/activate`, activation));
}

export async function customField(t: TestTenant, name: string, type: string, required = false) {
  return created(post(t, '/custom-fields', { name, type, resource: 'subscription', required }));
}

export async function coupon(t: TestTenant, overrides: Record<string, unknown> = {}) {
  const percentage = overrides.type === 'fixed_amount' ? null : 10;
  return created(post(t, '/coupons', { code: unique('CPN'), name: 'Welcome', type: 'percentage', percentage, frequency: 'once', ...overrides }));
}

export const defaultAddress = (customer: any) => customer.addresses.find((a: any) => a.type === 'TYPE_DEFAULT');

export const usage = (t: TestTenant, events: unknown[]) => post(t, '/subscriptions/measurements', { events });

export async function feature(t: TestTenant, code: string, type = 'switch', extra: Record<string, unknown> = {}) {
  return created(post(t, '/entitlement/features', { code, name: `Feature ${code}`, type, ...extra }));
}
