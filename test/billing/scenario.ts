// Builders and invoice expectations of the billing scenarios (test/billing/*.test.ts, except the
// *.unit.test.ts files).
//
// Billing scenarios, to the cent. Every test works in a fresh test-mode tenant:
// it sets the test clock, builds its catalogue through the API, activates subscriptions and moves
// the clock forward; each PUT /test-clock bills everything due up to the new time.
//
// Every expected invoice is written out by hand in the tests (net per position, tax per rate,
// gross, with the arithmetic in a comment). Nothing expected is computed by the code under test.
//
// Conventions the expectations rely on (docs/decisions.md, "Invoices and billing"):
// - The seller (tenant) is in DE; German customers pay 19 % VAT (category S).
// - Customers live in Europe/Berlin (the default): billing periods start at local midnight, so a
//   period starting on 1 April 2025 starts at 2025-03-31T22:00:00Z. `local(day)` below writes that
//   instant; the rule is the one by hand: +02:00 (CEST) in April to October, +01:00 (CET) otherwise
//   (the days used here are never in the last week of March or October, where the switch happens).
// - Rounding is half-up, once per position; tax is computed per rate on the sum of the nets.
// - Activation does not bill by itself: the next billing run (here: setting the clock to the same
//   instant) bills the first period.
import { expect } from 'vitest';
import { api, get, post, put, query, type TestTenant, everyShard } from '../support/api';
import { countedStatus, created, createTenant, ok, tick } from '../support/builders';

// ---------------------------------------------------------------------------------------------
// Time

export function local(day: string): string {
  const [, month, date] = day.split('-').map(Number) as [number, number, number];
  if ((month === 3 || month === 10) && date >= 25) throw new Error(`local(${day}): pick a day away from the DST switch`);
  const summer = month >= 4 && month <= 10;
  return new Date(`${day}T00:00:00${summer ? '+02:00' : '+01:00'}`).toISOString();
}

// ---------------------------------------------------------------------------------------------
// Catalogue, customers, subscriptions — all through the API

export interface Catalogue {
  family: any;
  seats: any;
  calls: any;
  tax: any;
}

export async function catalogue(t: TestTenant): Promise<Catalogue> {
  const family = await created(post(t, '/product-families', { name: 'Software' }));
  const unit = await created(post(t, '/units', { name: 'Unit', code: 'unit' }));
  const seats = await created(post(t, '/measurements', { unit: unit.id, code: 'seats', aggregationType: 'last_value', type: 'recurring' }));
  const calls = await created(post(t, '/measurements', { unit: unit.id, code: 'calls', aggregationType: 'sum', type: 'metered' }));
  const tax = await created(post(t, '/tax-groups', { type: 'standard', internalDescription: 'Standard VAT' }));
  return { family, seats, calls, tax };
}

export async function product(t: TestTenant, c: Catalogue, name: string, measurement = c.seats) {
  return created(post(t, '/catalogue/products', { name, type: 'product', productFamilies: [c.family.id], measurement: measurement.id, taxGroup: c.tax.id }));
}

/** A recurring per-unit price plan (EUR unless told). */
export async function price(t: TestTenant, productId: string, amount: string, interval: string, extra: Record<string, unknown> = {}) {
  return created(post(t, '/price-plans', { product: productId, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount }, billingInterval: interval, ...extra }));
}

/** A product with one recurring per-unit price: the usual fixture. */
export async function offer(t: TestTenant, c: Catalogue, name: string, amount: string, interval = '1M', extra: Record<string, unknown> = {}) {
  const p = await product(t, c, name);
  const pp = await price(t, p.id, amount, interval, extra);
  return { product: p, price: pp };
}

export type Offer = Awaited<ReturnType<typeof offer>>;

export const item = (o: Offer, quantity = '1') => ({ product: o.product.id, pricePlan: o.price.id, quantity });

export async function draft(t: TestTenant, customerId: string, items: unknown[], extra: Record<string, unknown> = {}) {
  return created(post(t, '/subscriptions', { customer: customerId, items, ...extra }));
}

export async function subscribe(t: TestTenant, customerId: string, items: unknown[], extra: Record<string, unknown> = {}, activation: Record<string, unknown> = {}) {
  const d = await draft(t, customerId, items, extra);
  return ok(put(t, `/subscriptions/${d.id}/activate`, activation));
}

/** A fresh tenant with its clock set to `start` and the basic catalogue. */
export async function tenantAt(start: string) {
  const t = await createTenant();
  // The scenarios leave invoices unpaid for months: dunning (test/dunning) would remind them and
  // change their status, which is not what these tests are about.
  expect((await api('/settings', { token: t.key, method: 'PATCH', body: { settings: [{ key: 'dunning.enabled', value: false }] } })).status).toBe(200);
  await tick(t, start);
  const c = await catalogue(t);
  return { t, c };
}

// ---------------------------------------------------------------------------------------------
// Reading invoices, and the shape the expectations are written in

export async function invoicesOf(t: TestTenant, subscriptionId: string): Promise<any[]> {
  return (await ok(get(t, `/invoices?subscription=${subscriptionId}&order[creationDate]=asc&limit=100`))).data;
}

export async function invoicesOfCustomer(t: TestTenant, customerId: string): Promise<any[]> {
  return (await ok(get(t, `/invoices?customer=${customerId}&order[creationDate]=asc&limit=100`))).data;
}

export async function invoiceCount(t: TestTenant): Promise<number> {
  const [row] = await query<{ n: number }>(t, 'SELECT count(*) AS n FROM invoices WHERE tenant_id = ?', t.id);
  return row!.n;
}

export interface Line {
  name: any;
  from: string | null;
  to: string | null;
  quantity: any;
  net: string;
  discount: string;
  rate: string;
  category: string;
}

export interface Shape {
  number: any;
  status: string;
  creationDate: string;
  currency: string;
  groups: { name: string; lines: Line[] }[];
  taxes: [string, string, string, string][];
  net: string;
  tax: string;
  gross: string;
  discount: string;
}

export const byPeriodThenNet = (a: Line, b: Line) => (a.from ?? '').localeCompare(b.from ?? '') || Number(a.net) - Number(b.net);

/** The invoice as the expectations are written: lines grouped under their header position. */
export function shape(inv: any): Shape {
  const positions: any[] = inv.positions;
  const headers = positions.filter((p) => p.kind === 'header');
  const groups = headers.map((h) => ({ id: h.id, name: h.name as string, lines: [] as Line[] }));
  const orphans: Line[] = [];
  for (const p of positions.filter((x) => x.kind !== 'header')) {
    const l: Line = {
      name: p.name,
      from: p.serviceDateFrom,
      to: p.serviceDateTo,
      quantity: p.quantity,
      net: p.netAmountAfterDiscount.amount, // netAmount is before the discount (spec §2.5)
      discount: p.discountAmount.amount,
      rate: p.taxRate,
      category: p.taxCategory,
    };
    const g = groups.find((x) => x.id === p.parent);
    (g ? g.lines : orphans).push(l);
  }
  const all = [...groups.map(({ name, lines }) => ({ name, lines: lines.sort(byPeriodThenNet) }))];
  if (orphans.length) all.push({ name: '(positions without a header)', lines: orphans.sort(byPeriodThenNet) });
  return {
    number: inv.number,
    status: countedStatus(inv),
    creationDate: inv.creationDate,
    currency: inv.currencyCode,
    groups: all,
    taxes: inv.taxes.map((x: any) => [x.rate, x.category, x.taxableAmount.amount, x.taxAmount.amount]),
    net: inv.netAmount.amount,
    tax: inv.taxAmount.amount,
    gross: inv.grossAmount.amount,
    discount: inv.discountAmount.amount,
  };
}

/** An expected position: name, service period [from, to), quantity, net; 19 % S unless told. */
export function L(name: any, from: string | null, to: string | null, quantity: any, net: string, o: { discount?: string; rate?: string; category?: string } = {}): Line {
  return { name, from, to, quantity, net, discount: o.discount ?? '0.00', rate: o.rate ?? '19', category: o.category ?? 'S' };
}

/** An expected invoice; `groups` maps each header (subscription name) to its lines. */
export function I(o: {
  number: any;
  at: string;
  status?: string;
  currency?: string;
  groups: [string, Line[]][];
  taxes: [string, string, string, string][];
  net: string;
  tax: string;
  gross: string;
  discount?: string;
}): Shape {
  return {
    number: o.number,
    status: o.status ?? 'STATUS_UNPAID',
    creationDate: o.at,
    currency: o.currency ?? 'EUR',
    groups: o.groups.map(([name, lines]) => ({ name, lines: [...lines].sort(byPeriodThenNet) })),
    taxes: o.taxes,
    net: o.net,
    tax: o.tax,
    gross: o.gross,
    discount: o.discount ?? '0.00',
  };
}

export function expectInvoices(actual: any[], expected: Shape[]) {
  expect(actual.map(shape)).toEqual(expected);
}

/**
 * Any invoice number (used where several subscriptions bill in one run, in id order). New tenants
 * number in Fynn's format `RE-{number:10}`, which has no year: `year` only documents the call site.
 */
export const anyNumber = (_year: number) => expect.stringMatching(/^RE-\d{10}$/);

export async function ledgerRows(t: TestTenant, subscriptionId: string) {
  return query<{ subscription_item_id: string; period_start: string; kind: string; invoice_id: string }>(
    t,
    `SELECT l.subscription_item_id, l.period_start, l.kind, l.invoice_id FROM billing_ledger l
       JOIN subscription_items i ON i.id = l.subscription_item_id
      WHERE l.tenant_id = ? AND i.subscription_id = ? ORDER BY l.period_start`,
    t.id,
    subscriptionId,
  );
}

export async function duplicateLedgerRows(t: TestTenant): Promise<number> {
  const rows = await query(
    t,
    'SELECT subscription_item_id, period_start, kind, count(*) AS n FROM billing_ledger WHERE tenant_id = ? GROUP BY 1, 2, 3 HAVING count(*) > 1',
    t.id,
  );
  return rows.length;
}

// ECB euro reference rates (1 EUR = rate USD), copied from
// test/fixtures/ecb-eurofxref-hist-90d-2014-06-13.xml (business days only, as published).
export const ECB_USD_2014: [string, string][] = [
  ['2014-03-17', '1.3906'],
  ['2014-03-18', '1.3902'],
  ['2014-03-19', '1.3913'],
  ['2014-03-20', '1.3762'],
  ['2014-03-21', '1.378'],
  ['2014-04-14', '1.3827'],
  ['2014-04-15', '1.3803'],
  ['2014-04-16', '1.384'],
  ['2014-04-17', '1.3855'],
  ['2014-04-22', '1.3817'],
  ['2014-05-15', '1.3659'],
  ['2014-05-16', '1.3696'],
  ['2014-05-19', '1.3715'],
  ['2014-05-20', '1.3702'],
];

/** ECB rates, as the import stores them: in every shard (docs/decisions.md, Tenancy and shards). */
export async function insertRates(rates: [string, string][], currency = 'USD') {
  for (const db of everyShard()) {
    await db.batch(
      rates.map(([date, rate]) =>
        db.prepare('INSERT INTO exchange_rates (date, currency, rate, source, imported_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (date, currency) DO NOTHING').bind(
          date,
          currency,
          rate,
          'ecb-fixture:ecb-eurofxref-hist-90d-2014-06-13.xml',
          new Date().toISOString(),
        ),
      ),
    );
  }
}
