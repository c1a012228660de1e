import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, createCustomer, createTenant, type ApiResponse, type TestTenant, expectStatus } from './helpers';

// Billing scenarios (issue 5, "Tests, to the cent"). Every test works in a fresh test-mode tenant:
// it sets the test clock, builds its catalogue through the API, activates subscriptions and moves
// the clock forward; each PUT /test-clock bills everything due up to the new time.
//
// Every expected invoice is written out by hand below (net per position, tax per rate, gross, with
// the arithmetic in a comment). Nothing expected is computed by the code under test.
//
// Conventions the expectations rely on (DESIGN §6–7, docs/decisions.md):
// - The seller (tenant) is in DE; German customers pay 19 % VAT (category S).
// - Customers live in Europe/Berlin (the default): billing periods start at local midnight, so a
//   period starting on 1 April 2025 starts at 2025-03-31T22:00:00Z. `local(day)` below writes that
//   instant; the rule is the one by hand: +02:00 (CEST) in April to October, +01:00 (CET) otherwise
//   (the days used here are never in the last week of March or October, where the switch happens).
// - Rounding is half-up, once per position; tax is computed per rate on the sum of the nets.
// - Activation does not bill by itself: the next billing run (here: setting the clock to the same
//   instant) bills the first period.

// ---------------------------------------------------------------------------------------------
// Time

function local(day: string): string {
  const [, month, date] = day.split('-').map(Number) as [number, number, number];
  if ((month === 3 || month === 10) && date >= 25) throw new Error(`local(${day}): pick a day away from the DST switch`);
  const summer = month >= 4 && month <= 10;
  return new Date(`${day}T00:00:00${summer ? '+02:00' : '+01:00'}`).toISOString();
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers

const post = (t: TestTenant, path: string, body?: unknown) => api(path, { token: t.key, method: 'POST', ...(body === undefined ? {} : { body }) });
const put = (t: TestTenant, path: string, body?: unknown) => api(path, { token: t.key, method: 'PUT', ...(body === undefined ? {} : { body }) });
const patch = (t: TestTenant, path: string, body: unknown) => api(path, { token: t.key, method: 'PATCH', body });
const get = (t: TestTenant, path: string) => api(path, { token: t.key });

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

/** Moves the test clock; everything due up to `now` is billed before the answer. */
async function tick(t: TestTenant, now: string) {
  expectStatus(await put(t, '/test-clock', { now }), 200);
}

async function query<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]> {
  return (await env.DB.prepare(sql).bind(...params).all<T>()).results;
}

// ---------------------------------------------------------------------------------------------
// Catalogue, customers, subscriptions — all through the API

interface Catalogue {
  family: any;
  seats: any;
  calls: any;
  tax: any;
}

async function catalogue(t: TestTenant): Promise<Catalogue> {
  const family = await created(post(t, '/product-families', { name: 'Software' }));
  const unit = await created(post(t, '/units', { name: 'Unit', code: 'unit' }));
  const seats = await created(post(t, '/measurements', { unit: unit.id, code: 'seats', aggregationType: 'last_value', type: 'recurring' }));
  const calls = await created(post(t, '/measurements', { unit: unit.id, code: 'calls', aggregationType: 'sum', type: 'metered' }));
  const tax = await created(post(t, '/tax-groups', { type: 'standard', internalDescription: 'Standard VAT' }));
  return { family, seats, calls, tax };
}

async function product(t: TestTenant, c: Catalogue, name: string, measurement = c.seats) {
  return created(post(t, '/catalogue/products', { name, type: 'product', productFamilies: [c.family.id], measurement: measurement.id, taxGroup: c.tax.id }));
}

/** A recurring per-unit price plan (EUR unless told). */
async function price(t: TestTenant, productId: string, amount: string, interval: string, extra: Record<string, unknown> = {}) {
  return created(post(t, '/price-plans', { product: productId, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount }, billingInterval: interval, ...extra }));
}

/** A product with one recurring per-unit price: the usual fixture. */
async function offer(t: TestTenant, c: Catalogue, name: string, amount: string, interval = '1M', extra: Record<string, unknown> = {}) {
  const p = await product(t, c, name);
  const pp = await price(t, p.id, amount, interval, extra);
  return { product: p, price: pp };
}

type Offer = Awaited<ReturnType<typeof offer>>;

const item = (o: Offer, quantity = '1') => ({ product: o.product.id, pricePlan: o.price.id, quantity });

async function draft(t: TestTenant, customerId: string, items: unknown[], extra: Record<string, unknown> = {}) {
  return created(post(t, '/subscriptions', { customer: customerId, items, ...extra }));
}

async function subscribe(t: TestTenant, customerId: string, items: unknown[], extra: Record<string, unknown> = {}, activation: Record<string, unknown> = {}) {
  const d = await draft(t, customerId, items, extra);
  return ok(put(t, `/subscriptions/${d.id}/activate`, activation));
}

/** A fresh tenant with its clock set to `start` and the basic catalogue. */
async function tenantAt(start: string) {
  const t = await createTenant();
  await tick(t, start);
  const c = await catalogue(t);
  return { t, c };
}

// ---------------------------------------------------------------------------------------------
// Reading invoices, and the shape the expectations are written in

async function invoicesOf(t: TestTenant, subscriptionId: string): Promise<any[]> {
  return (await ok(get(t, `/invoices?subscription=${subscriptionId}&order[creationDate]=asc&limit=100`))).data;
}

async function invoicesOfCustomer(t: TestTenant, customerId: string): Promise<any[]> {
  return (await ok(get(t, `/invoices?customer=${customerId}&order[creationDate]=asc&limit=100`))).data;
}

async function invoiceCount(t: TestTenant): Promise<number> {
  const [row] = await query<{ n: number }>('SELECT count(*) AS n FROM invoices WHERE tenant_id = ?', t.id);
  return row!.n;
}

interface Line {
  name: any;
  from: string | null;
  to: string | null;
  quantity: any;
  net: string;
  discount: string;
  rate: string;
  category: string;
}

interface Shape {
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

const byPeriodThenNet = (a: Line, b: Line) => (a.from ?? '').localeCompare(b.from ?? '') || Number(a.net) - Number(b.net);

/** The invoice as the expectations are written: lines grouped under their header position. */
function shape(inv: any): Shape {
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
      net: p.netAmount.amount,
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
    status: inv.status,
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
function L(name: any, from: string | null, to: string | null, quantity: any, net: string, o: { discount?: string; rate?: string; category?: string } = {}): Line {
  return { name, from, to, quantity, net, discount: o.discount ?? '0.00', rate: o.rate ?? '19', category: o.category ?? 'S' };
}

/** An expected invoice; `groups` maps each header (subscription name) to its lines. */
function I(o: {
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

function expectInvoices(actual: any[], expected: Shape[]) {
  expect(actual.map(shape)).toEqual(expected);
}

/** Any invoice number of the year (used where several subscriptions bill in one run, in id order). */
const anyNumber = (year: number) => expect.stringMatching(new RegExp(`^RE-${year}-\\d{5}$`));

async function ledgerRows(t: TestTenant, subscriptionId: string) {
  return query<{ subscription_item_id: string; period_start: string; kind: string; invoice_id: string }>(
    `SELECT l.subscription_item_id, l.period_start, l.kind, l.invoice_id FROM billing_ledger l
       JOIN subscription_items i ON i.id = l.subscription_item_id
      WHERE l.tenant_id = ? AND i.subscription_id = ? ORDER BY l.period_start`,
    t.id,
    subscriptionId,
  );
}

async function duplicateLedgerRows(t: TestTenant): Promise<number> {
  const rows = await query(
    'SELECT subscription_item_id, period_start, kind, count(*) AS n FROM billing_ledger WHERE tenant_id = ? GROUP BY 1, 2, 3 HAVING count(*) > 1',
    t.id,
  );
  return rows.length;
}

// ECB euro reference rates (1 EUR = rate USD), copied from
// test/fixtures/ecb-eurofxref-hist-90d-2014-06-13.xml (business days only, as published).
const ECB_USD_2014: [string, string][] = [
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

async function insertRates(rates: [string, string][], currency = 'USD') {
  await env.DB.batch(
    rates.map(([date, rate]) =>
      env.DB.prepare('INSERT INTO exchange_rates (date, currency, rate, source, imported_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (date, currency) DO NOTHING').bind(
        date,
        currency,
        rate,
        'ecb-fixture:ecb-eurofxref-hist-90d-2014-06-13.xml',
        new Date().toISOString(),
      ),
    ),
  );
}

// ---------------------------------------------------------------------------------------------

describe('recurring fees', () => {
  it('monthly in advance over 14 months: one invoice per period, numbered gap-free, to the cent; a rerun bills nothing twice', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '24.99');
    const customer = await createCustomer(t, { firstName: 'Ada', lastName: 'Lovelace' });
    const sub = await subscribe(t, customer.id, [item(pro, '2')], { name: 'Team Pro' });

    const months = ['2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06', '2025-07', '2025-08', '2025-09', '2025-10', '2025-11', '2025-12', '2026-01', '2026-02', '2026-03'];
    for (const m of months.slice(0, 14)) await tick(t, local(`${m}-01`));

    // Each month: 2 × 24.99 = 49.98 net; 49.98 × 19 % = 9.4962 → 9.50 tax; gross 59.48.
    // Numbers come from one range per tenant; the year is the finalization's (Berlin) year.
    const expected = months.slice(0, 14).map((m, i) =>
      I({
        number: `RE-${m.slice(0, 4)}-${String(i + 1).padStart(5, '0')}`,
        at: local(`${m}-01`),
        groups: [['Team Pro', [L('Pro', local(`${m}-01`), local(`${months[i + 1]}-01`), '2', '49.98')]]],
        taxes: [['19', 'S', '49.98', '9.50']],
        net: '49.98',
        tax: '9.50',
        gross: '59.48',
      }),
    );
    const invoices = await invoicesOf(t, sub.id);
    expectInvoices(invoices, expected);
    expect(invoices[0]).toMatchObject({
      type: 'TYPE_INVOICE',
      customer: { id: customer.id },
      subscription: sub.id,
      finalizationDate: local('2025-01-01'),
      // Payment term 14 days: 2024-12-31T23:00Z + 14 d.
      dueDate: '2025-01-14T23:00:00.000Z',
      unpaidAmount: { amount: '59.48', currencyCode: 'EUR' },
      serviceDateFrom: local('2025-01-01'),
      serviceDateTo: local('2025-02-01'),
    });

    // A rerun at the same instant bills nothing; the ledger holds one row per billed period.
    await tick(t, local('2026-02-01'));
    expect(await invoicesOf(t, sub.id)).toHaveLength(14);
    const ledger = await ledgerRows(t, sub.id);
    expect(ledger.map((r) => r.period_start)).toEqual(months.slice(0, 14).map((m) => local(`${m}-01`)));
    expect(new Set(ledger.map((r) => r.invoice_id))).toEqual(new Set(invoices.map((i) => i.id)));
    expect(await duplicateLedgerRows(t)).toBe(0);

    const events = await query<{ type: string; n: number }>('SELECT type, count(*) AS n FROM events WHERE tenant_id = ? AND type LIKE ? GROUP BY type ORDER BY type', t.id, 'invoice.%');
    expect(events).toEqual([
      { type: 'invoice.created', n: 14 },
      { type: 'invoice.finalized', n: 14 },
      { type: 'invoice.unpaid', n: 14 },
    ]);
  });

  it('yearly in advance: one invoice a year, nothing in the months between', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const suite = await offer(t, c, 'Suite', '1188.00', '1Y');
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(suite)], { name: 'Suite yearly' });
    for (const m of ['2025-01', '2025-02', '2025-05', '2025-08', '2025-11', '2025-12', '2026-01', '2026-02', '2026-06', '2026-12']) await tick(t, local(`${m}-01`));

    // 1 × 1,188.00 = 1,188.00 net; × 19 % = 225.72 tax; gross 1,413.72.
    expectInvoices(await invoicesOf(t, sub.id), [
      I({
        number: 'RE-2025-00001',
        at: local('2025-01-01'),
        groups: [['Suite yearly', [L('Suite', local('2025-01-01'), local('2026-01-01'), '1', '1188.00')]]],
        taxes: [['19', 'S', '1188.00', '225.72']],
        net: '1188.00',
        tax: '225.72',
        gross: '1413.72',
      }),
      I({
        number: 'RE-2026-00002',
        at: local('2026-01-01'),
        groups: [['Suite yearly', [L('Suite', local('2026-01-01'), local('2027-01-01'), '1', '1188.00')]]],
        taxes: [['19', 'S', '1188.00', '225.72']],
        net: '1188.00',
        tax: '225.72',
        gross: '1413.72',
      }),
    ]);
  });

  it('in arrears (payInAdvance false): each period is billed when it ends', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const support = await offer(t, c, 'Support', '30.00', '1M', { payInAdvance: false });
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(support)], { name: 'Support' });
    await tick(t, local('2025-01-01'));
    await tick(t, local('2025-01-15'));
    expect(await invoicesOf(t, sub.id)).toEqual([]);
    for (const m of ['2025-02', '2025-03', '2025-04']) await tick(t, local(`${m}-01`));

    // Each month: 30.00 net; × 19 % = 5.70; gross 35.70 — billed at the period's end.
    const month = (n: number, from: string, to: string) =>
      I({
        number: `RE-2025-0000${n}`,
        at: local(to),
        groups: [['Support', [L('Support', local(from), local(to), '1', '30.00')]]],
        taxes: [['19', 'S', '30.00', '5.70']],
        net: '30.00',
        tax: '5.70',
        gross: '35.70',
      });
    expectInvoices(await invoicesOf(t, sub.id), [month(1, '2025-01-01', '2025-02-01'), month(2, '2025-02-01', '2025-03-01'), month(3, '2025-03-01', '2025-04-01')]);
  });

  it('proRata start mid-month in a start_of_month billing group: the partial first period is billed, prorated by days', async () => {
    const { t, c } = await tenantAt(local('2025-01-15'));
    const pro = await offer(t, c, 'Pro', '49.99');
    const group = await created(post(t, '/billing-groups', { name: 'On the 1st', type: 'start_of_month' }));
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Pro monthly', billingGroup: group.id });
    for (const day of ['2025-01-15', '2025-02-01', '2025-03-01']) await tick(t, local(day));

    // Activated on 15 January; the group bills on the 1st. The time from activation to the first
    // group day is a partial period [15 Jan, 1 Feb) of the period [1 Jan, 1 Feb): 17 of 31 days.
    // 49.99 × 17 / 31 = 27.41387… → 27.41 net; × 19 % = 5.2079 → 5.21; gross 32.62. Billed in advance,
    // i.e. at activation. Then full months: 49.99 net; × 19 % = 9.4981 → 9.50; gross 59.49.
    expectInvoices(await invoicesOf(t, sub.id), [
      I({
        number: 'RE-2025-00001',
        at: local('2025-01-15'),
        groups: [['Pro monthly', [L('Pro', local('2025-01-15'), local('2025-02-01'), '1', '27.41')]]],
        taxes: [['19', 'S', '27.41', '5.21']],
        net: '27.41',
        tax: '5.21',
        gross: '32.62',
      }),
      I({
        number: 'RE-2025-00002',
        at: local('2025-02-01'),
        groups: [['Pro monthly', [L('Pro', local('2025-02-01'), local('2025-03-01'), '1', '49.99')]]],
        taxes: [['19', 'S', '49.99', '9.50']],
        net: '49.99',
        tax: '9.50',
        gross: '59.49',
      }),
      I({
        number: 'RE-2025-00003',
        at: local('2025-03-01'),
        groups: [['Pro monthly', [L('Pro', local('2025-03-01'), local('2025-04-01'), '1', '49.99')]]],
        taxes: [['19', 'S', '49.99', '9.50']],
        net: '49.99',
        tax: '9.50',
        gross: '59.49',
      }),
    ]);
  });

  it('trial then paid: nothing during the 14-day trial, then monthly from the trial end', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '29.00');
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Pro trial' }, { trialDays: 14 });
    expect(sub.trialEndsOn).toBe(local('2025-01-15'));
    for (const day of ['2025-01-01', '2025-01-10']) await tick(t, local(day));
    expect(await invoicesOf(t, sub.id)).toEqual([]);
    for (const day of ['2025-01-15', '2025-02-01', '2025-02-15', '2025-03-15']) await tick(t, local(day));

    // 29.00 net; × 19 % = 5.51; gross 34.51 per period [15th, 15th).
    const period = (n: number, from: string, to: string) =>
      I({
        number: `RE-2025-0000${n}`,
        at: local(from),
        groups: [['Pro trial', [L('Pro', local(from), local(to), '1', '29.00')]]],
        taxes: [['19', 'S', '29.00', '5.51']],
        net: '29.00',
        tax: '5.51',
        gross: '34.51',
      });
    expectInvoices(await invoicesOf(t, sub.id), [period(1, '2025-01-15', '2025-02-15'), period(2, '2025-02-15', '2025-03-15'), period(3, '2025-03-15', '2025-04-15')]);
  });
});

describe('pause, resume and cancellation', () => {
  it('pause stops billing; resume without a date bills the missed periods, with nextBillingDate skips them', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const basic = await offer(t, c, 'Basic', '15.00');
    const customer = await createCustomer(t);
    const a = await subscribe(t, customer.id, [item(basic)], { name: 'Catch up' });
    const b = await subscribe(t, customer.id, [item(basic)], { name: 'Skip' });
    for (const day of ['2025-01-01', '2025-02-01', '2025-02-10']) await tick(t, local(day));
    await ok(put(t, `/subscriptions/${a.id}/pause`));
    await ok(put(t, `/subscriptions/${b.id}/pause`));
    for (const day of ['2025-03-01', '2025-04-01', '2025-04-10']) await tick(t, local(day));
    expect(await invoicesOf(t, a.id)).toHaveLength(2);
    expect(await invoicesOf(t, b.id)).toHaveLength(2);

    await ok(put(t, `/subscriptions/${a.id}/resume`, {}));
    await ok(put(t, `/subscriptions/${b.id}/resume`, { nextBillingDate: local('2025-05-01') }));
    for (const day of ['2025-04-10', '2025-05-01', '2025-06-01']) await tick(t, local(day));

    // One month: 15.00 net; × 19 % = 2.85; gross 17.85.
    const one = (name: string, at: string, from: string, to: string) =>
      I({
        number: anyNumber(2025),
        at: local(at),
        groups: [[name, [L('Basic', local(from), local(to), '1', '15.00')]]],
        taxes: [['19', 'S', '15.00', '2.85']],
        net: '15.00',
        tax: '2.85',
        gross: '17.85',
      });
    // Resumed on 10 April without a date: March and April, missed while paused, are billed at once:
    // 2 × 15.00 = 30.00 net; × 19 % = 5.70; gross 35.70.
    expectInvoices(await invoicesOf(t, a.id), [
      one('Catch up', '2025-01-01', '2025-01-01', '2025-02-01'),
      one('Catch up', '2025-02-01', '2025-02-01', '2025-03-01'),
      I({
        number: anyNumber(2025),
        at: local('2025-04-10'),
        groups: [['Catch up', [L('Basic', local('2025-03-01'), local('2025-04-01'), '1', '15.00'), L('Basic', local('2025-04-01'), local('2025-05-01'), '1', '15.00')]]],
        taxes: [['19', 'S', '30.00', '5.70']],
        net: '30.00',
        tax: '5.70',
        gross: '35.70',
      }),
      one('Catch up', '2025-05-01', '2025-05-01', '2025-06-01'),
      one('Catch up', '2025-06-01', '2025-06-01', '2025-07-01'),
    ]);
    // Resumed with nextBillingDate 1 May: March and April are skipped — no invoice (and no empty,
    // numbered zero invoice) on 10 April; billing restarts with May.
    expectInvoices(await invoicesOf(t, b.id), [
      one('Skip', '2025-01-01', '2025-01-01', '2025-02-01'),
      one('Skip', '2025-02-01', '2025-02-01', '2025-03-01'),
      one('Skip', '2025-05-01', '2025-05-01', '2025-06-01'),
      one('Skip', '2025-06-01', '2025-06-01', '2025-07-01'),
    ]);
  });

  it('cancel next_possible with 3 months notice on a 12-month contract: billing stops at the contract end (13 months driven)', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '19.99');
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Contract', periods: { contractPeriod: '12M', cancellationPeriod: '3M' } });
    const months = ['2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06', '2025-07', '2025-08', '2025-09', '2025-10', '2025-11', '2025-12', '2026-01', '2026-02', '2026-03'];
    for (const m of months.slice(0, 9)) await tick(t, local(`${m}-01`));

    // On 20 September the notice deadline of the first term (1 Oct = 1 Jan 2026 − 3 months) has not
    // passed: the next possible end is 1 January 2026.
    await tick(t, local('2025-09-20'));
    const cancelled = await ok(put(t, `/subscriptions/${sub.id}/cancel`, { cancellationDateType: 'next_possible' }));
    expect(cancelled).toMatchObject({ status: 'active', cancellationDate: local('2026-01-01'), isCancellationPending: true });
    for (const m of months.slice(9)) await tick(t, local(`${m}-01`));

    // January to December 2025, then nothing: 19.99 net; × 19 % = 3.7981 → 3.80; gross 23.79.
    expectInvoices(
      await invoicesOf(t, sub.id),
      months.slice(0, 12).map((m, i) =>
        I({
          number: `RE-2025-${String(i + 1).padStart(5, '0')}`,
          at: local(`${m}-01`),
          groups: [['Contract', [L('Pro', local(`${m}-01`), local(`${months[i + 1]}-01`), '1', '19.99')]]],
          taxes: [['19', 'S', '19.99', '3.80']],
          net: '19.99',
          tax: '3.80',
          gross: '23.79',
        }),
      ),
    );
    expect((await ok(get(t, `/subscriptions/${sub.id}`))).status).toBe('cancelled');
  });
});

describe('coupons (item price → coupon discount → tax)', () => {
  it('once and lifetime percentage, limited(3) fixed amount, counted per period', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '39.90');
    const customer = await createCustomer(t);
    const once = await created(post(t, '/coupons', { code: 'WELCOME25', name: '25 % once', type: 'percentage', percentage: 25, frequency: 'once' }));
    const limited = await created(
      post(t, '/coupons', { code: 'FIVE-OFF-3', name: '5 EUR for 3 months', type: 'fixed_amount', fixedAmount: { amount: '5.00', currencyCode: 'EUR' }, frequency: 'limited', frequencyInterval: 3 }),
    );
    const lifetime = await created(post(t, '/coupons', { code: 'FRIEND10', name: '10 % forever', type: 'percentage', percentage: 10, frequency: 'lifetime' }));
    const s1 = await subscribe(t, customer.id, [item(pro)], { name: 'Once', coupons: [once.code] });
    const s2 = await subscribe(t, customer.id, [item(pro)], { name: 'Limited', coupons: [limited.code] });
    const s3 = await subscribe(t, customer.id, [item(pro)], { name: 'Lifetime', coupons: [lifetime.code] });
    const months = ['2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06'];
    for (const m of months.slice(0, 5)) await tick(t, local(`${m}-01`));

    const month = (name: string, i: number, net: string, discount: string, tax: string, gross: string) =>
      I({
        number: anyNumber(2025),
        at: local(`${months[i]}-01`),
        groups: [[name, [L('Pro', local(`${months[i]}-01`), local(`${months[i + 1]}-01`), '1', net, { discount })]]],
        taxes: [['19', 'S', net, tax]],
        net,
        tax,
        gross,
        discount,
      });
    // Full price: 39.90 net; × 19 % = 7.581 → 7.58; gross 47.48.
    const full = (name: string, i: number) => month(name, i, '39.90', '0.00', '7.58', '47.48');
    // once 25 %: 39.90 × 25 % = 9.975 → 9.98 off; net 29.92; × 19 % = 5.6848 → 5.68; gross 35.60.
    expectInvoices(await invoicesOf(t, s1.id), [month('Once', 0, '29.92', '9.98', '5.68', '35.60'), full('Once', 1), full('Once', 2), full('Once', 3), full('Once', 4)]);
    // limited(3) fixed 5.00: net 34.90; × 19 % = 6.631 → 6.63; gross 41.53 for three periods, then full price.
    const fiveOff = (i: number) => month('Limited', i, '34.90', '5.00', '6.63', '41.53');
    expectInvoices(await invoicesOf(t, s2.id), [fiveOff(0), fiveOff(1), fiveOff(2), full('Limited', 3), full('Limited', 4)]);
    // lifetime 10 %: 3.99 off; net 35.91; × 19 % = 6.8229 → 6.82; gross 42.73, every period.
    const tenOff = (i: number) => month('Lifetime', i, '35.91', '3.99', '6.82', '42.73');
    expectInvoices(await invoicesOf(t, s3.id), [tenOff(0), tenOff(1), tenOff(2), tenOff(3), tenOff(4)]);

    const applied = async (id: string) => (await ok(get(t, `/subscriptions/${id}`))).appliedDiscounts.map((d: any) => d.appliedIntervals);
    expect(await applied(s1.id)).toEqual([1]);
    expect(await applied(s2.id)).toEqual([3]);
    expect(await applied(s3.id)).toEqual([5]);
  });
});

describe('usage (metered, billed in arrears)', () => {
  it('tiered, volume and stair_step usage and free units, reset every period', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const tiers = [
      { upTo: '100', unitPrice: '0.10', flatPrice: '0' },
      { upTo: '1000', unitPrice: '0.08', flatPrice: '5.00' },
      { upTo: null, unitPrice: '0.05', flatPrice: '0' },
    ];
    const stairs = [
      { upTo: '100', unitPrice: '0', flatPrice: '9.00' },
      { upTo: '1000', unitPrice: '0', flatPrice: '49.00' },
      { upTo: null, unitPrice: '0', flatPrice: '99.00' },
    ];
    const usagePrice = async (name: string, body: Record<string, unknown>) => {
      const p = await product(t, c, name, c.calls);
      const pp = await created(post(t, '/price-plans', { product: p.id, currencyCode: 'EUR', billingInterval: '1M', ...body }));
      return { product: p, price: pp };
    };
    const tiered = await usagePrice('Tiered calls', { calculationType: 'tiered', tiers });
    const volume = await usagePrice('Volume calls', { calculationType: 'volume', tiers });
    const stair = await usagePrice('Stair calls', { calculationType: 'stair_step', tiers: stairs });
    const free = await usagePrice('Free calls', { calculationType: 'per_unit', price: { amount: '0.0125' }, freeUnits: '1000' });
    expect(tiered.price.type).toBe('metered');
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(tiered), item(volume), item(stair), item(free)], { name: 'API usage' });
    const itemOf = (o: Offer) => sub.items.find((i: any) => i.product.id === o.product.id).id;
    const usage = async (events: [Offer, string, string][]) => {
      const res = await ok(
        post(t, '/subscriptions/measurements', {
          events: events.map(([o, quantity, at], k) => ({ id: `${at}-${o.product.id}-${k}`, subscriptionItem: itemOf(o), quantity, measuredAt: at })),
        }),
      );
      expect(res).toMatchObject({ accepted: events.length, rejected: [] });
    };

    await tick(t, local('2025-01-01'));
    await tick(t, local('2025-01-20'));
    expect(await invoicesOf(t, sub.id)).toEqual([]);
    await usage([
      [tiered, '1000', local('2025-01-05')],
      [tiered, '250', local('2025-01-18')],
      [volume, '1000', local('2025-01-05')],
      [volume, '250', local('2025-01-18')],
      [stair, '1000', local('2025-01-05')],
      [stair, '250', local('2025-01-18')],
      [free, '1000', local('2025-01-05')],
      [free, '234', local('2025-01-18')],
    ]);
    await tick(t, local('2025-02-01'));
    await tick(t, local('2025-02-20'));
    await usage([
      [tiered, '80', local('2025-02-10')],
      [volume, '80', local('2025-02-10')],
      [stair, '80', local('2025-02-10')],
      [free, '1500', local('2025-02-10')],
    ]);
    await tick(t, local('2025-03-01'));

    const jan: [string, string] = [local('2025-01-01'), local('2025-02-01')];
    const feb: [string, string] = [local('2025-02-01'), local('2025-03-01')];
    expectInvoices(await invoicesOf(t, sub.id), [
      // January, 1,250 calls (1,234 on the free-units item):
      //   tiered  100 × 0.10 = 10.00; 900 × 0.08 = 72.00 + 5.00 flat; 250 × 0.05 = 12.50 → 99.50
      //   volume  1,250 in the last tier: 1,250 × 0.05 = 62.50
      //   stair   1,250 in the last step: 99.00
      //   free    (1,234 − 1,000) × 0.0125 = 2.925 → 2.93
      //   net 99.50 + 62.50 + 99.00 + 2.93 = 263.93; × 19 % = 50.1467 → 50.15; gross 314.08
      I({
        number: 'RE-2025-00001',
        at: local('2025-02-01'),
        groups: [
          [
            'API usage',
            [
              L('Tiered calls', ...jan, '1250', '99.50'),
              L('Volume calls', ...jan, '1250', '62.50'),
              L('Stair calls', ...jan, '1250', '99.00'),
              L('Free calls', ...jan, '1234', '2.93'),
            ],
          ],
        ],
        taxes: [['19', 'S', '263.93', '50.15']],
        net: '263.93',
        tax: '50.15',
        gross: '314.08',
      }),
      // February, 80 calls (1,500 on the free-units item), counted from zero again:
      //   tiered 80 × 0.10 = 8.00; volume 80 × 0.10 = 8.00; stair first step 9.00;
      //   free (1,500 − 1,000) × 0.0125 = 6.25
      //   net 8.00 + 8.00 + 9.00 + 6.25 = 31.25; × 19 % = 5.9375 → 5.94; gross 37.19
      I({
        number: 'RE-2025-00002',
        at: local('2025-03-01'),
        groups: [
          [
            'API usage',
            [L('Tiered calls', ...feb, '80', '8.00'), L('Volume calls', ...feb, '80', '8.00'), L('Stair calls', ...feb, '80', '9.00'), L('Free calls', ...feb, '1500', '6.25')],
          ],
        ],
        taxes: [['19', 'S', '31.25', '5.94']],
        net: '31.25',
        tax: '5.94',
        gross: '37.19',
      }),
    ]);
  });
});

describe('taxes and currencies', () => {
  it('EU B2B reverse charge (AE 0 %), B2C destination rate (FR 20 %), exempt customer (E 0 %)', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '99.99');
    const b2b = await createCustomer(t, { countryCode: 'FR', companyName: 'Acme SARL', vatId: 'FR40303265045' });
    expect(b2b.isVatIdValid).toBe(true);
    const b2c = await createCustomer(t, { countryCode: 'FR', firstName: 'Marie', lastName: 'Curie' });
    const exempt = await createCustomer(t, { countryCode: 'DE', companyName: 'Verein e.V.', taxExempt: 'exempt' });
    const s1 = await subscribe(t, b2b.id, [item(pro)], { name: 'B2B' });
    const s2 = await subscribe(t, b2c.id, [item(pro)], { name: 'B2C' });
    const s3 = await subscribe(t, exempt.id, [item(pro)], { name: 'Exempt' });
    for (const m of ['2025-01', '2025-02']) await tick(t, local(`${m}-01`));

    const twoMonths = (name: string, rate: string, category: string, tax: string, gross: string) =>
      [
        ['2025-01-01', '2025-02-01'],
        ['2025-02-01', '2025-03-01'],
      ].map(([from, to]) =>
        I({
          number: anyNumber(2025),
          at: local(from!),
          groups: [[name, [L('Pro', local(from!), local(to!), '1', '99.99', { rate, category })]]],
          taxes: [[rate, category, '99.99', tax]],
          net: '99.99',
          tax,
          gross,
        }),
      );
    // FR business with a valid VAT id: reverse charge, 0 %: gross 99.99.
    const inv1 = await invoicesOf(t, s1.id);
    expectInvoices(inv1, twoMonths('B2B', '0', 'AE', '0.00', '99.99'));
    expect(inv1[0].positions.find((p: any) => p.kind !== 'header').taxNote).toMatch(/reverse charge/i);
    // FR consumer: the French rate, 99.99 × 20 % = 19.998 → 20.00; gross 119.99.
    expectInvoices(await invoicesOf(t, s2.id), twoMonths('B2C', '20', 'S', '20.00', '119.99'));
    // Exempt customer: E 0 %: gross 99.99.
    const inv3 = await invoicesOf(t, s3.id);
    expectInvoices(inv3, twoMonths('Exempt', '0', 'E', '0.00', '99.99'));
    expect(inv3[0].positions.find((p: any) => p.kind !== 'header').taxNote).toMatch(/exempt/i);
  });

  it('a USD customer with EUR prices: converted at the ECB rate of the invoice date, recorded in applicatedExchangeRates', async () => {
    await insertRates(ECB_USD_2014);
    const { t, c } = await tenantAt(local('2014-03-19'));
    const pro = await offer(t, c, 'Pro', '49.99');
    const customer = await createCustomer(t, { currencyCode: 'USD' });
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Pro USD' });
    for (const day of ['2014-03-19', '2014-04-19', '2014-05-19']) await tick(t, local(day));

    // The invoice date is the Berlin calendar day (billing runs at local midnight, which is the
    // previous day in UTC): 19 March → rate of 19 March; 19 April (Saturday; 18 April Good Friday)
    // → the latest rate before, 17 April; 19 May → 19 May.
    const month = (n: number, from: string, to: string, rate: string, rateDate: string, net: string, tax: string, gross: string) => ({
      ...I({
        number: `RE-2014-0000${n}`,
        at: local(from),
        currency: 'USD',
        groups: [['Pro USD', [L('Pro', local(from), local(to), '1', net)]]],
        taxes: [['19', 'S', net, tax]],
        net,
        tax,
        gross,
      }),
      rates: [{ sourceCurrencyCode: 'EUR', destinationCurrencyCode: 'USD', exchangeRate: rate, exchangeRateDate: rateDate }],
    });
    const invoices = await invoicesOf(t, sub.id);
    expect(invoices.map((i) => ({ ...shape(i), rates: i.applicatedExchangeRates }))).toEqual([
      // 49.99 × 1.3913 = 69.551087 → 69.55; × 19 % = 13.2145 → 13.21; gross 82.76
      month(1, '2014-03-19', '2014-04-19', '1.3913', '2014-03-19', '69.55', '13.21', '82.76'),
      // 49.99 × 1.3855 = 69.261145 → 69.26; × 19 % = 13.1594 → 13.16; gross 82.42
      month(2, '2014-04-19', '2014-05-19', '1.3855', '2014-04-17', '69.26', '13.16', '82.42'),
      // 49.99 × 1.3715 = 68.561285 → 68.56; × 19 % = 13.0264 → 13.03; gross 81.59
      month(3, '2014-05-19', '2014-06-19', '1.3715', '2014-05-19', '68.56', '13.03', '81.59'),
    ]);
  });
});

describe('who is billed, and how', () => {
  it('partner billing: the invoice goes to the partner, at its address, taxed for the partner', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '50.00');
    const partner = await createCustomer(t, { companyName: 'Reseller GmbH', isPartner: true, street: 'Hauptstraße', houseNumber: '1', zip: '10115', city: 'Berlin' });
    const customer = await createCustomer(t, { countryCode: 'FR', firstName: 'Jean', lastName: 'Dupont', street: 'Rue de Rivoli', houseNumber: '5', zip: '75001', city: 'Paris' });
    await ok(put(t, `/customers/${customer.id}/partner`, { partner: partner.id }));
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Via reseller' });
    await tick(t, local('2025-01-01'));

    // The partner (DE) receives it: 50.00 net; × 19 % = 9.50; gross 59.50 (not the French 20 % of the end customer).
    const invoices = await invoicesOf(t, sub.id);
    expectInvoices(invoices, [
      I({
        number: 'RE-2025-00001',
        at: local('2025-01-01'),
        groups: [['Via reseller', [L('Pro', local('2025-01-01'), local('2025-02-01'), '1', '50.00')]]],
        taxes: [['19', 'S', '50.00', '9.50']],
        net: '50.00',
        tax: '9.50',
        gross: '59.50',
      }),
    ]);
    expect(invoices[0].customer.id).toBe(partner.id);
    expect(invoices[0].invoiceAddress).toMatchObject({ city: 'Berlin', zip: '10115', companyName: 'Reseller GmbH' });
    expect((await invoicesOfCustomer(t, partner.id)).map((i) => i.id)).toEqual([invoices[0].id]);
    expect(await invoicesOfCustomer(t, customer.id)).toEqual([]);
  });

  it('manual approval (tenant setting): drafts without a number, invoice.requires_approval, numbered when approved', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '25.00');
    await ok(patch(t, '/settings', { settings: [{ key: 'requiresManualInvoiceApproval', value: true }] }));
    const needsApproval = await createCustomer(t);
    const optedOut = await createCustomer(t);
    await ok(patch(t, `/customers/${optedOut.id}/settings/billing`, { requiresManualInvoiceApproval: false }));
    const s1 = await subscribe(t, needsApproval.id, [item(pro)], { name: 'Approved' });
    const s2 = await subscribe(t, optedOut.id, [item(pro)], { name: 'Direct' });
    await tick(t, local('2025-01-01'));
    await tick(t, local('2025-02-01'));

    // 25.00 net; × 19 % = 4.75; gross 29.75 each month.
    const month = (name: string, number: any, status: string, from: string, to: string) =>
      I({
        number,
        status,
        at: local(from),
        groups: [[name, [L('Pro', local(from), local(to), '1', '25.00')]]],
        taxes: [['19', 'S', '25.00', '4.75']],
        net: '25.00',
        tax: '4.75',
        gross: '29.75',
      });
    const drafts = await invoicesOf(t, s1.id);
    expectInvoices(drafts, [month('Approved', null, 'STATUS_DRAFT', '2025-01-01', '2025-02-01'), month('Approved', null, 'STATUS_DRAFT', '2025-02-01', '2025-03-01')]);
    const approvalEvents = await query<{ resource_id: string }>("SELECT resource_id FROM events WHERE tenant_id = ? AND type = 'invoice.requires_approval'", t.id);
    expect(approvalEvents.map((e) => e.resource_id).sort()).toEqual(drafts.map((d) => d.id).sort());
    // The customer who opted out is billed and numbered at once (numbers 1 and 2).
    expectInvoices(await invoicesOf(t, s2.id), [
      month('Direct', 'RE-2025-00001', 'STATUS_UNPAID', '2025-01-01', '2025-02-01'),
      month('Direct', 'RE-2025-00002', 'STATUS_UNPAID', '2025-02-01', '2025-03-01'),
    ]);

    // Approval finalizes: numbers are taken in the order of approval, without gaps.
    await tick(t, local('2025-02-03'));
    const second = await ok(post(t, `/invoices/${drafts[1].id}/approve`));
    expect(second).toMatchObject({ number: 'RE-2025-00003', status: 'STATUS_UNPAID', finalizationDate: local('2025-02-03') });
    const first = await ok(post(t, `/invoices/${drafts[0].id}/approve`));
    expect(first.number).toBe('RE-2025-00004');
    expectStatus(await post(t, `/invoices/${drafts[0].id}/approve`), 409);
    // Approving bills nothing again.
    await tick(t, local('2025-02-04'));
    expect(await invoicesOf(t, s1.id)).toHaveLength(2);
  });

  it('manual approval (customer billing setting) on a tenant without it', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '25.00');
    const customer = await createCustomer(t);
    await ok(patch(t, `/customers/${customer.id}/settings/billing`, { requiresManualInvoiceApproval: true }));
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Approved' });
    await tick(t, local('2025-01-01'));
    const [inv] = await invoicesOf(t, sub.id);
    // 25.00 net; × 19 % = 4.75; gross 29.75, left as a draft.
    expectInvoices([inv], [
      I({
        number: null,
        status: 'STATUS_DRAFT',
        at: local('2025-01-01'),
        groups: [['Approved', [L('Pro', local('2025-01-01'), local('2025-02-01'), '1', '25.00')]]],
        taxes: [['19', 'S', '25.00', '4.75']],
        net: '25.00',
        tax: '4.75',
        gross: '29.75',
      }),
    ]);
    expect((await ok(post(t, `/invoices/${inv.id}/approve`))).number).toBe('RE-2025-00001');
  });
});

describe('exactly once', () => {
  it('overlapping runs (two PUT /test-clock and two POST /billing-runs at once) bill every subscription once', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '10.00');
    const customer = await createCustomer(t);
    // 30 subscriptions: more than one chunk of a run (25).
    const subs: any[] = [];
    for (let i = 0; i < 3; i++) subs.push(...(await Promise.all(Array.from({ length: 10 }, () => subscribe(t, customer.id, [item(pro)], { name: 'Seat' })))));

    const results = await Promise.all([
      put(t, '/test-clock', { now: local('2025-01-01') }),
      put(t, '/test-clock', { now: local('2025-01-01') }),
      post(t, '/billing-runs'),
      post(t, '/billing-runs'),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 202, 202]);
    // The object may still work on an API-triggered run in the background; wait until it is done.
    for (let i = 0; i < 50; i++) {
      const runs = (await ok(get(t, '/billing-runs?limit=100'))).data;
      if (runs.every((r: any) => r.status !== 'running')) break;
      await new Promise((r) => setTimeout(r, 100));
    }

    // 10.00 net; × 19 % = 1.90; gross 11.90, once per subscription, numbered 1…30 without a gap.
    const check = async (count: number, from: string, to: string) => {
      const invoices: any[] = (await ok(get(t, `/invoices?customer=${customer.id}&limit=100`))).data;
      expect(invoices).toHaveLength(count);
      expect(await invoiceCount(t)).toBe(count);
      expect(invoices.map((i) => i.number).sort()).toEqual(Array.from({ length: count }, (_, i) => `RE-2025-${String(i + 1).padStart(5, '0')}`));
      for (const s of subs) {
        const mine = await invoicesOf(t, s.id);
        expect(mine.map((i) => i.number)).toHaveLength(count / subs.length);
        expect(shape(mine[mine.length - 1])).toEqual(
          I({
            number: anyNumber(2025),
            at: local(from),
            groups: [['Seat', [L('Pro', local(from), local(to), '1', '10.00')]]],
            taxes: [['19', 'S', '10.00', '1.90']],
            net: '10.00',
            tax: '1.90',
            gross: '11.90',
          }),
        );
      }
      const [ledger] = await query<{ n: number }>('SELECT count(*) AS n FROM billing_ledger WHERE tenant_id = ?', t.id);
      expect(ledger!.n).toBe(count);
      expect(await duplicateLedgerRows(t)).toBe(0);
      const [created] = await query<{ n: number }>("SELECT count(*) AS n FROM events WHERE tenant_id = ? AND type = 'invoice.created'", t.id);
      expect(created!.n).toBe(count);
    };
    await check(30, '2025-01-01', '2025-02-01');

    await Promise.all([put(t, '/test-clock', { now: local('2025-02-01') }), put(t, '/test-clock', { now: local('2025-02-01') })]);
    await check(60, '2025-02-01', '2025-03-01');
  });

  it('a run that fails half-way records the error, bills the others, and a rerun bills the failed one exactly once', async () => {
    // 14 March 2014, 12:00 in Berlin: before the first rate of the fixture (17 March).
    const start = '2014-03-14T11:00:00.000Z';
    const [before] = await query<{ n: number }>("SELECT count(*) AS n FROM exchange_rates WHERE currency = 'USD' AND date <= '2014-03-14'");
    expect(before!.n, 'precondition: no USD rate on or before 2014-03-14').toBe(0);
    const { t, c } = await tenantAt(start);
    const pro = await offer(t, c, 'Pro', '49.99');
    const eur1 = await createCustomer(t);
    const usd = await createCustomer(t, { currencyCode: 'USD' });
    const eur2 = await createCustomer(t);
    const s1 = await subscribe(t, eur1.id, [item(pro)], { name: 'EUR one' });
    const sUsd = await subscribe(t, usd.id, [item(pro)], { name: 'USD' });
    const s2 = await subscribe(t, eur2.id, [item(pro)], { name: 'EUR two' });

    await tick(t, start);
    const runs = async () => (await ok(get(t, '/billing-runs?limit=100'))).data as any[];
    expect((await runs()).filter((r) => r.errors > 0)).toEqual([
      expect.objectContaining({ trigger: 'test_clock', status: 'completed', invoicesCreated: 2, itemsBilled: 2, errors: 1, lastError: expect.stringContaining(sUsd.id) }),
    ]);
    expect(await invoicesOf(t, sUsd.id)).toEqual([]);
    expect(await ledgerRows(t, sUsd.id)).toEqual([]);
    // Still no rate: a rerun fails the same subscription again and bills nothing twice.
    await tick(t, start);
    expect(await invoiceCount(t)).toBe(2);

    // The rate arrives (ECB, 17 March 2014: 1 EUR = 1.3906 USD); the next run bills the failed one once.
    await insertRates([['2014-03-17', '1.3906']]);
    await tick(t, '2014-03-17T11:00:00.000Z');
    await tick(t, '2014-03-17T11:00:00.000Z');
    expect(await invoiceCount(t)).toBe(3);
    expect((await runs())[0]).toMatchObject({ errors: 0, invoicesCreated: 0 });

    // EUR: 49.99 net; × 19 % = 9.4981 → 9.50; gross 59.49. Period [14 Mar 12:00, 14 Apr 12:00) Berlin.
    const period: [string, string] = [start, '2014-04-14T10:00:00.000Z'];
    for (const [s, name] of [
      [s1, 'EUR one'],
      [s2, 'EUR two'],
    ] as const) {
      expectInvoices(await invoicesOf(t, s.id), [
        I({ number: anyNumber(2014), at: start, groups: [[name, [L('Pro', ...period, '1', '49.99')]]], taxes: [['19', 'S', '49.99', '9.50']], net: '49.99', tax: '9.50', gross: '59.49' }),
      ]);
    }
    // USD, billed on 17 March: 49.99 × 1.3906 = 69.516094 → 69.52; × 19 % = 13.2088 → 13.21; gross 82.73.
    const usdInvoices = await invoicesOf(t, sUsd.id);
    expectInvoices(usdInvoices, [
      I({
        number: 'RE-2014-00003',
        at: '2014-03-17T11:00:00.000Z',
        currency: 'USD',
        groups: [['USD', [L('Pro', ...period, '1', '69.52')]]],
        taxes: [['19', 'S', '69.52', '13.21']],
        net: '69.52',
        tax: '13.21',
        gross: '82.73',
      }),
    ]);
    expect(usdInvoices[0].applicatedExchangeRates).toEqual([{ sourceCurrencyCode: 'EUR', destinationCurrencyCode: 'USD', exchangeRate: '1.3906', exchangeRateDate: '2014-03-17' }]);
    expect(await ledgerRows(t, sUsd.id)).toHaveLength(1);
    expect(await duplicateLedgerRows(t)).toBe(0);
  });
});

describe('mid-period changes', () => {
  it('quantity change mid-period: credit for the rest at the old quantity, charge at the new one', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const seat = await offer(t, c, 'Seat', '20.00');
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(seat, '2')], { name: 'Seats' });
    await tick(t, local('2025-01-01'));
    await tick(t, local('2025-01-11'));
    await ok(put(t, `/subscription-items/${sub.items[0].id}/quantity`, { quantity: '5' }));
    await tick(t, local('2025-02-01'));

    // January in advance: 2 × 20.00 = 40.00; × 19 % = 7.60; gross 47.60.
    // From 11 January (21 of January's 31 days left) 5 instead of 2 seats, settled by 1 February
    // at the latest, together with February:
    //   credit 2 × 20.00 × 21/31 = 27.0967… → −27.10
    //   charge 5 × 20.00 × 21/31 = 67.7419… →  67.74
    //   February 5 × 20.00 = 100.00
    //   net −27.10 + 67.74 + 100.00 = 140.64; × 19 % = 26.7216 → 26.72; gross 167.36
    expectInvoices(await invoicesOf(t, sub.id), [
      I({
        number: 'RE-2025-00001',
        at: local('2025-01-01'),
        groups: [['Seats', [L('Seat', local('2025-01-01'), local('2025-02-01'), '2', '40.00')]]],
        taxes: [['19', 'S', '40.00', '7.60']],
        net: '40.00',
        tax: '7.60',
        gross: '47.60',
      }),
      I({
        number: 'RE-2025-00002',
        at: local('2025-02-01'),
        groups: [
          [
            'Seats',
            [
              L(expect.stringContaining('Seat'), local('2025-01-11'), local('2025-02-01'), expect.stringMatching(/^-?2$/), '-27.10'),
              L(expect.stringContaining('Seat'), local('2025-01-11'), local('2025-02-01'), '5', '67.74'),
              L('Seat', local('2025-02-01'), local('2025-03-01'), '5', '100.00'),
            ],
          ],
        ],
        taxes: [['19', 'S', '140.64', '26.72']],
        net: '140.64',
        tax: '26.72',
        gross: '167.36',
      }),
    ]);
  });

  it('upgrade and downgrade mid-period (PUT /subscription-items/{id}/price-plan): at once with credit and charge, or at the end of the period', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const workspace = await product(t, c, 'Workspace');
    const basic = await price(t, workspace.id, '10.00', '1M');
    const standard = await price(t, workspace.id, '20.00', '1M');
    const premium = await price(t, workspace.id, '30.00', '1M');
    const plan = async (code: string, changeApplyBehaviour: string, pp: any) => {
      const p = await created(
        post(t, '/plans', { family: c.family.id, code, name: code, changeApplyBehaviour, items: [{ product: workspace.id, pricePlan: pp.id, quantity: '1' }] }),
      );
      return ok(put(t, `/plans/${p.id}/activate`));
    };
    const flexible = await plan('flexible', 'immediately', standard);
    const committed = await plan('committed', 'end_of_period', premium);
    const customer = await createCustomer(t);
    const a = await subscribe(t, customer.id, [{ product: workspace.id, pricePlan: standard.id, quantity: '1' }], { name: 'Flexible', plan: flexible.id });
    const b = await subscribe(t, customer.id, [{ product: workspace.id, pricePlan: premium.id, quantity: '1' }], { name: 'Committed', plan: committed.id });
    const change = (sub: any, pp: any) => ok(put(t, `/subscription-items/${sub.items[0].id}/price-plan`, { pricePlan: pp.id }));
    await tick(t, local('2025-01-01'));
    await tick(t, local('2025-01-11'));
    await change(a, premium); // upgrade, applies at once
    await change(b, basic); // downgrade, waits for 1 February
    await tick(t, local('2025-02-01'));
    await tick(t, local('2025-02-11'));
    await change(a, standard); // downgrade, applies at once
    await tick(t, local('2025-03-01'));

    const plain = (name: string, from: string, to: string, net: string, tax: string, gross: string) =>
      I({ number: anyNumber(2025), at: local(from), groups: [[name, [L('Workspace', local(from), local(to), '1', net)]]], taxes: [['19', 'S', net, tax]], net, tax, gross });
    expectInvoices(await invoicesOf(t, a.id), [
      // January, Standard: 20.00; × 19 % = 3.80; gross 23.80.
      plain('Flexible', '2025-01-01', '2025-02-01', '20.00', '3.80', '23.80'),
      // Upgrade on 11 January (21 of 31 days left), settled with February:
      //   credit Standard 20.00 × 21/31 = 13.5483… → −13.55; charge Premium 30.00 × 21/31 = 20.3225… → 20.32;
      //   February Premium 30.00; net −13.55 + 20.32 + 30.00 = 36.77; × 19 % = 6.9863 → 6.99; gross 43.76.
      I({
        number: anyNumber(2025),
        at: local('2025-02-01'),
        groups: [
          [
            'Flexible',
            [
              L(expect.stringContaining('Workspace'), local('2025-01-11'), local('2025-02-01'), expect.stringMatching(/^-?1$/), '-13.55'),
              L(expect.stringContaining('Workspace'), local('2025-01-11'), local('2025-02-01'), '1', '20.32'),
              L('Workspace', local('2025-02-01'), local('2025-03-01'), '1', '30.00'),
            ],
          ],
        ],
        taxes: [['19', 'S', '36.77', '6.99']],
        net: '36.77',
        tax: '6.99',
        gross: '43.76',
      }),
      // Downgrade on 11 February (18 of February's 28 days left), settled with March:
      //   credit Premium 30.00 × 18/28 = 19.2857… → −19.29; charge Standard 20.00 × 18/28 = 12.8571… → 12.86;
      //   March Standard 20.00; net −19.29 + 12.86 + 20.00 = 13.57; × 19 % = 2.5783 → 2.58; gross 16.15.
      I({
        number: anyNumber(2025),
        at: local('2025-03-01'),
        groups: [
          [
            'Flexible',
            [
              L(expect.stringContaining('Workspace'), local('2025-02-11'), local('2025-03-01'), expect.stringMatching(/^-?1$/), '-19.29'),
              L(expect.stringContaining('Workspace'), local('2025-02-11'), local('2025-03-01'), '1', '12.86'),
              L('Workspace', local('2025-03-01'), local('2025-04-01'), '1', '20.00'),
            ],
          ],
        ],
        taxes: [['19', 'S', '13.57', '2.58']],
        net: '13.57',
        tax: '2.58',
        gross: '16.15',
      }),
    ]);
    // changeApplyBehaviour end_of_period: January stays Premium (30.00; 5.70; 35.70); the downgrade
    // takes effect on 1 February without a credit: Basic 10.00; × 19 % = 1.90; gross 11.90.
    expectInvoices(await invoicesOf(t, b.id), [
      plain('Committed', '2025-01-01', '2025-02-01', '30.00', '5.70', '35.70'),
      plain('Committed', '2025-02-01', '2025-03-01', '10.00', '1.90', '11.90'),
      plain('Committed', '2025-03-01', '2025-04-01', '10.00', '1.90', '11.90'),
    ]);
    expect(await duplicateLedgerRows(t)).toBe(0);
  });
});

describe('billing groups', () => {
  it('a start_of_month billing group puts every subscription of a customer due on the group day on one invoice', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '24.99');
    const storage = await offer(t, c, 'Storage', '5.00');
    const group = await created(post(t, '/billing-groups', { name: 'On the 1st', type: 'start_of_month' }));
    const customer = await createCustomer(t);
    const s1 = await subscribe(t, customer.id, [item(pro)], { name: 'Workspace', billingGroup: group.id });
    const s2 = await subscribe(t, customer.id, [item(storage, '2')], { name: 'Archive', billingGroup: group.id });
    for (const m of ['2025-01', '2025-02']) await tick(t, local(`${m}-01`));

    // Each month one invoice, positions grouped under the subscription names:
    //   Workspace: 1 × 24.99 = 24.99; Archive: 2 × 5.00 = 10.00
    //   net 34.99; × 19 % = 6.6481 → 6.65; gross 41.64
    const month = (n: number, from: string, to: string) =>
      I({
        number: `RE-2025-0000${n}`,
        at: local(from),
        groups: [
          ['Archive', [L('Storage', local(from), local(to), '2', '10.00')]],
          ['Workspace', [L('Pro', local(from), local(to), '1', '24.99')]],
        ],
        taxes: [['19', 'S', '34.99', '6.65']],
        net: '34.99',
        tax: '6.65',
        gross: '41.64',
      });
    const byName = (s: Shape) => ({ ...s, groups: [...s.groups].sort((x, y) => x.name.localeCompare(y.name)) });
    const invoices = await invoicesOfCustomer(t, customer.id);
    expect(invoices.map((i) => byName(shape(i)))).toEqual([month(1, '2025-01-01', '2025-02-01'), month(2, '2025-02-01', '2025-03-01')]);
    // Both subscriptions find the invoices that bill them.
    expect((await invoicesOf(t, s1.id)).map((i) => i.id)).toEqual(invoices.map((i) => i.id));
    expect((await invoicesOf(t, s2.id)).map((i) => i.id)).toEqual(invoices.map((i) => i.id));
  });
});

// ---------------------------------------------------------------------------------------------
// Scenarios of issue 5 whose feature is not built yet (docs/decisions.md, "Not built yet"). They
// assert the correct documents and fail until the feature exists.

describe('credit notes from billing and instant_metered billed at once', () => {
  it('a downgrade whose credit exceeds the charge becomes a finalized credit note, not a draft invoice', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const suite = await product(t, c, 'Suite');
    const premium = await price(t, suite.id, '1200.00', '1Y');
    const basic = await price(t, suite.id, '120.00', '1Y');
    const plan = await created(
      post(t, '/plans', { family: c.family.id, code: 'suite', name: 'Suite', changeApplyBehaviour: 'immediately', items: [{ product: suite.id, pricePlan: premium.id, quantity: '1' }] }),
    );
    await ok(put(t, `/plans/${plan.id}/activate`));
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [{ product: suite.id, pricePlan: premium.id, quantity: '1' }], { name: 'Suite yearly', plan: plan.id });
    await tick(t, local('2025-01-01'));
    await tick(t, local('2025-07-01'));
    await ok(put(t, `/subscription-items/${sub.items[0].id}/price-plan`, { pricePlan: basic.id }));
    await tick(t, local('2025-07-01'));

    const docs = await invoicesOf(t, sub.id);
    expect(docs.map((d) => d.type)).toEqual(['TYPE_INVOICE', 'TYPE_CREDIT']);
    // 1 January: 1,200.00; × 19 % = 228.00; gross 1,428.00.
    // 1 July, 184 of 365 days left (Jul 31 + Aug 31 + Sep 30 + Oct 31 + Nov 30 + Dec 31):
    //   credit 1,200.00 × 184/365 = 604.9315… → −604.93; charge 120.00 × 184/365 = 60.4931… → 60.49
    //   net −544.44; × 19 % = −103.4436 → −103.44; gross −647.88: a credit note (own number range).
    expectInvoices(docs, [
      I({
        number: 'RE-2025-00001',
        at: local('2025-01-01'),
        groups: [['Suite yearly', [L('Suite', local('2025-01-01'), local('2026-01-01'), '1', '1200.00')]]],
        taxes: [['19', 'S', '1200.00', '228.00']],
        net: '1200.00',
        tax: '228.00',
        gross: '1428.00',
      }),
      I({
        number: 'GS-2025-00001',
        status: expect.stringMatching(/^STATUS_(PAID|UNPAID)$/) as never,
        at: local('2025-07-01'),
        groups: [
          [
            'Suite yearly',
            [
              L(expect.stringContaining('Suite'), local('2025-07-01'), local('2026-01-01'), expect.stringMatching(/^-?1$/), '-604.93'),
              L(expect.stringContaining('Suite'), local('2025-07-01'), local('2026-01-01'), '1', '60.49'),
            ],
          ],
        ],
        taxes: [['19', 'S', '-544.44', '-103.44']],
        net: '-544.44',
        tax: '-103.44',
        gross: '-647.88',
      }),
    ]);
  });

  it('instant_metered usage is billed at once, each push on its own invoice', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const unit = await created(post(t, '/units', { name: 'Message', code: 'sms' }));
    const sms = await created(post(t, '/measurements', { unit: unit.id, code: 'sms', aggregationType: 'last_value', type: 'instant_metered' }));
    const text = await product(t, c, 'SMS', sms);
    const perSms = await created(post(t, '/price-plans', { product: text.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '0.09' } }));
    expect(perSms.type).toBe('instant_metered');
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [{ product: text.id, pricePlan: perSms.id, quantity: '1' }], { name: 'Messaging' });
    const push = async (id: string, quantity: string, at: string) => {
      await tick(t, at);
      expect(await ok(post(t, '/subscriptions/measurements', { events: [{ id, subscriptionItem: sub.items[0].id, quantity, measuredAt: at }] }))).toMatchObject({ accepted: 1 });
      await tick(t, at);
    };
    await tick(t, local('2025-01-01'));
    await push('sms-1', '100', local('2025-01-10'));
    await push('sms-2', '40', local('2025-01-20'));
    await tick(t, local('2025-02-01'));

    // 100 × 0.09 = 9.00; × 19 % = 1.71; gross 10.71. Then 40 × 0.09 = 3.60; × 19 % = 0.684 → 0.68; gross 4.28.
    // Nothing more at the end of the month.
    const invoices = await invoicesOf(t, sub.id);
    expect(
      invoices.map((i) => {
        const s = shape(i);
        return { at: s.creationDate, lines: s.groups.flatMap((g) => g.lines.map((l) => [l.quantity, l.net])), net: s.net, tax: s.tax, gross: s.gross };
      }),
    ).toEqual([
      { at: local('2025-01-10'), lines: [['100', '9.00']], net: '9.00', tax: '1.71', gross: '10.71' },
      { at: local('2025-01-20'), lines: [['40', '3.60']], net: '3.60', tax: '0.68', gross: '4.28' },
    ]);
  });
});
