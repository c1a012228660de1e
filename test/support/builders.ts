// Builders shared by the workerd tests of several domains, one copy each, all through the API.
// Builders only one domain needs live in its folder (test/<domain>/builders.ts, and
// test/billing/scenario.ts for the billing scenarios).
import { expect } from 'vitest';
import { ADMIN_TOKEN, api, countRows, eventsOf, expectStatus, get, put, unique, type ApiResponse, type TestTenant } from './api';

// ---------------------------------------------------------------------------------------------
// Tenants, keys, customers

export async function createTenant(overrides: Record<string, unknown> = {}): Promise<TestTenant> {
  const res = await api('/admin/tenants', {
    token: ADMIN_TOKEN,
    body: { name: `Tenant ${unique()}`, countryCode: 'DE', defaultCurrency: 'EUR', timeZone: 'Europe/Berlin', mode: 'test', ...overrides },
  });
  if (res.status !== 201) throw new Error(`tenant creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.tenant.id, key: res.body.apiKey.key };
}

export async function createCustomer(t: TestTenant, overrides: Record<string, unknown> = {}) {
  const res = await api('/customers', { token: t.key, body: { email: `${unique('c')}@example.com`, countryCode: 'DE', ...overrides } });
  if (res.status !== 201) throw new Error(`customer creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function keyWith(t: TestTenant, permissions: string[]): Promise<string> {
  const res = await api('/api-keys', { token: t.key, body: { name: 'scoped', permissions } });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.key;
}

// ---------------------------------------------------------------------------------------------
// Answers that must succeed

/** The body of a 201 answer. */
export async function created(res: Promise<ApiResponse>): Promise<any> {
  const r = await res;
  expectStatus(r, 201);
  return r.body;
}

/** The body of a 200 answer. */
export async function ok(res: Promise<ApiResponse>): Promise<any> {
  const r = await res;
  expectStatus(r, 200);
  return r.body;
}

// ---------------------------------------------------------------------------------------------
// The test clock

/** Sets the tenant's test clock; everything due up to `now` is billed before the answer. */
export async function setClock(t: TestTenant, now: string) {
  expectStatus(await put(t, '/test-clock', { now }), 200);
}

/** Moves the test clock; everything due up to `now` is billed before the answer (`setClock`). */
export const tick = setClock;

// ---------------------------------------------------------------------------------------------
// Outbox events and refused changes

/** Event types of a tenant (or of one resource) in the order they were written. */
export async function eventTypes(t: TestTenant, resourceId?: string): Promise<string[]> {
  return (await eventsOf(t, resourceId)).map((e) => e.type);
}

/**
 * What a refused request must leave as it was: the path of a record (its GET representation is
 * compared), or reads of stored state (each compared on its own), or nothing but the outbox.
 */
export type Unchanged = string | readonly (() => Promise<unknown>)[] | null;

/** Runs a refused request and proves it changed nothing: no new event, `unchanged` as before. */
export async function refusedUnchanged(t: TestTenant, unchanged: Unchanged, request: () => Promise<ApiResponse>): Promise<ApiResponse> {
  const reads = unchanged === null ? [] : typeof unchanged === 'string' ? [async () => (await get(t, unchanged)).body] : unchanged;
  const before: unknown[] = [];
  for (const read of reads) before.push(await read());
  const eventsBefore = await countRows('events', t);
  const res = await request();
  expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
  expect(await countRows('events', t), 'a refused change wrote an event').toBe(eventsBefore);
  for (const [i, read] of reads.entries()) expect(await read()).toEqual(before[i]);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Catalogue

/**
 * The smallest catalogue that sells something: a product (on a recurring `seats` measurement) with
 * one flat monthly EUR price plan.
 */
export async function flatMonthlyFee(t: TestTenant, amount: string, name: string) {
  const make = async (path: string, body: unknown) => {
    const res = await api(path, { token: t.key, body });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const fam = await make('/product-families', { name: 'F' });
  const unit = await make('/units', { name: 'U', code: 'u' });
  const m = await make('/measurements', { unit: unit.id, code: 'seats', aggregationType: 'last_value', type: 'recurring' });
  const tg = await make('/tax-groups', { type: 'standard' });
  const product = await make('/catalogue/products', { name, type: 'product', productFamilies: [fam.id], measurement: m.id, taxGroup: tg.id });
  const price = await make('/price-plans', { product: product.id, calculationType: 'flat_fee', currencyCode: 'EUR', price: { amount }, billingInterval: '1M' });
  return { product, price };
}

// ---------------------------------------------------------------------------------------------
// Invoice status

/**
 * The status an invoice counts as: one still STATUS_FINALIZING (its files render in the
 * background, docs/decisions.md, Invoices and billing, "Document state") as the status the render
 * gives it — paid when nothing of its gross is left, else unpaid. Tests about amounts and billing
 * read this, so the render's progress does not decide them; test/invoices/document-state.test.ts
 * is about the state itself.
 */
export function countedStatus(inv: { status: string; grossAmount: number | { amount: string }; paidAmount?: number; unpaidAmount?: { amount: string } }): string {
  if (inv.status !== 'STATUS_FINALIZING') return inv.status;
  if (inv.unpaidAmount) return Number(inv.unpaidAmount.amount) === 0 ? 'STATUS_PAID' : 'STATUS_UNPAID';
  return (inv.paidAmount ?? 0) >= Number(inv.grossAmount) ? 'STATUS_PAID' : 'STATUS_UNPAID';
}
