// Billing run benchmark: N due monthly subscriptions in one fresh test-mode tenant, billed in one run.
//
// Seeding N subscriptions through the API would take far too long for 100,000, so:
//   1. the catalogue (product family, unit, recurring measurement, standard tax group, product, a flat
//      fee monthly EUR price plan) is created through the API, the tenant's test clock is set to T0,
//      and ONE customer with a subscription is created and activated through the API: the template;
//   2. the dev server is stopped (nothing else has the local D1 file open), the template's rows are
//      read back with `wrangler d1 execute --json` and N-1 copies (customer, its default address and
//      e-mail, subscription, item) are written with generated multi-row INSERT files through
//      `wrangler d1 execute --file`, each subscription active and anchored at T0 − 3 days, never billed;
//   3. the dev server starts again on the same state, and one billing run bills everything:
//      sync  — PUT /test-clock to T0 + 1 day (the clock bills everything due before it answers);
//      async — POST /billing-runs at T0 (the run continues through TenantObject alarms), polling
//              GET /billing-runs/{id} until it is no longer running.
//   While it runs, GET /invoices?limit=0 counts numbered (finalized) invoices about once a second,
//   probes send GET /health and GET /customers/{id} every 100 ms each (their latency is what the API's
//   users feel during a run), the RSS of the workerd process(es) under the harness's wrangler is
//   sampled every 250 ms, and the workerd CPU is read before and after. A webhook of the tenant
//   (BENCH_BILLING_WEBHOOK_EVENTS) points at a local receiver: at the run's end its deliveries are
//   counted (published within the run), then the bench waits until the receiver has them all.
//   4. the server is stopped once more for the check (SQL aggregates over the local D1): every
//      subscription has exactly one invoice, all finalized, numbers 1..N distinct and consecutive.
//
// Environment:
//   BENCH_BILLING_SUBSCRIPTIONS  subscriptions to bill (default 10000; 100000 with BENCH_BILLING_LARGE=1)
//   BENCH_BILLING_LARGE=1        the 100,000 case
//   BENCH_BILLING_MODE           sync | async (default: sync up to 20,000 subscriptions, else async)
//   BENCH_BILLING_TIMEOUT_SECONDS  limit for the billing run (default max(1800, 0.06 × N))
//   BENCH_BILLING_POLL_MS        progress poll interval (default 1000)
//   BENCH_BILLING_WEBHOOK_EVENTS events the bench's webhook subscribes to, comma-separated (default
//                                invoice.finalized; * for all; none for no webhook)
//   BENCH_BILLING_DELIVERY_WAIT_SECONDS  how long to wait for the receiver after the run (default 900)
//   BENCH_BILLING_D1_METER=1     count the D1 rows the run reads and writes (D1_METER, src/db/meter.ts;
//                                a metered run reads twice, so its time is not the run's)
//   BENCH_PROFILE=<file>         sync mode: CPU profile of the Worker during the run, summary in <file>,
//                                the raw profile in <file>.cpuprofile (Chrome DevTools); BENCH_INSPECTOR_PORT (9339)

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_SHARD, d1Execute, envInt, http, memorySampler, msSince, printTable, sleep, localDatabase, sqlLiteral } from './lib.mjs';
import { cpuDelta, cpuSnapshot } from './lib.mjs';

const log = (msg) => process.stderr.write(`bench: ${msg}\n`);
const describe = (r) => `HTTP ${r.status} ${r.text.length > 500 ? r.text.slice(0, 500) + '…' : r.text}`;

/** The fixed instant the tenant's test clock is set to before anything is created. */
const T0 = new Date('2027-01-10T09:00:00.000Z');
const DAY = 86_400_000;
const SEEDED_START = new Date(T0.getTime() - 3 * DAY); // anchor and activation of the seeded copies
const SYNC_CLOCK = new Date(T0.getTime() + DAY); // where PUT /test-clock moves to in sync mode
const PRICE = '19.99';

const ROWS_PER_INSERT = 50; // rows per multi-row INSERT (a statement stays far below D1's 100 KB)
const SUBSCRIPTIONS_PER_FILE = 5_000; // 5 tables × 100 statements = 500 statements a file

function readBillingConfig() {
  const large = ['1', 'true', 'yes'].includes(process.env.BENCH_BILLING_LARGE ?? '');
  const subscriptions = Math.floor(envInt('BENCH_BILLING_SUBSCRIPTIONS', large ? 100_000 : 10_000, 1));
  const mode = process.env.BENCH_BILLING_MODE || (subscriptions <= 20_000 ? 'sync' : 'async');
  if (!['sync', 'async'].includes(mode)) throw new Error(`BENCH_BILLING_MODE must be sync or async, got ${JSON.stringify(mode)}`);
  const timeoutSeconds = envInt('BENCH_BILLING_TIMEOUT_SECONDS', Math.max(1800, Math.ceil(subscriptions * 0.06)), 10);
  const pollMs = Math.floor(envInt('BENCH_BILLING_POLL_MS', 1000, 100));
  const webhookEvents = (process.env.BENCH_BILLING_WEBHOOK_EVENTS ?? 'invoice.finalized').split(',').map((e) => e.trim()).filter(Boolean);
  const deliveryWaitSeconds = envInt('BENCH_BILLING_DELIVERY_WAIT_SECONDS', 900, 0);
  const d1Meter = ['1', 'true', 'yes'].includes(process.env.BENCH_BILLING_D1_METER ?? '');
  return { subscriptions, mode, timeoutSeconds, pollMs, webhookEvents: webhookEvents.includes('none') ? [] : webhookEvents, deliveryWaitSeconds, d1Meter };
}

/** Multi-row INSERTs of `rows` (objects with the same keys) into `table`, ROWS_PER_INSERT at a time. */
function inserts(table, rows) {
  if (rows.length === 0) return [];
  const cols = Object.keys(rows[0]);
  const head = `INSERT INTO ${table} (${cols.map((c) => `"${c}"`).join(', ')}) VALUES\n`;
  const out = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const values = rows.slice(i, i + ROWS_PER_INSERT).map((r) => `(${cols.map((c) => sqlLiteral(r[c])).join(', ')})`);
    out.push(head + values.join(',\n') + ';');
  }
  return out;
}

const one = (resultSet, what) => {
  const rows = resultSet?.results ?? [];
  if (rows.length !== 1) throw new Error(`template ${what}: expected 1 row, got ${rows.length}`);
  return rows[0];
};

/** Reads the template's rows and checks they look like what the copies should be made of. */
async function readTemplate({ persistTo, cwd, signal, verbose }, ids) {
  const q = (table, col, id) => `SELECT * FROM ${table} WHERE tenant_id = ${sqlLiteral(ids.tenantId)} AND ${col} = ${sqlLiteral(id)} ORDER BY id`;
  const sets = await d1Execute({
    persistTo,
    cwd,
    json: true,
    signal,
    verbose,
    command: [
      q('customers', 'id', ids.customerId),
      q('customer_addresses', 'customer_id', ids.customerId),
      q('customer_email_addresses', 'customer_id', ids.customerId),
      q('subscriptions', 'id', ids.subscriptionId),
      q('subscription_items', 'subscription_id', ids.subscriptionId),
    ].join(';\n'),
  });
  if (!Array.isArray(sets) || sets.length !== 5) throw new Error(`template query returned ${JSON.stringify(sets).slice(0, 300)}`);
  const customer = one(sets[0], 'customer');
  const addresses = sets[1].results;
  const emails = sets[2].results;
  const subscription = one(sets[3], 'subscription');
  const item = one(sets[4], 'subscription item');
  const problems = [];
  if (!addresses.some((a) => a.type === 'TYPE_DEFAULT' && a.is_default === 1)) problems.push('customer has no default address');
  if (!emails.some((e) => e.type === 'default' && e.is_default === 1)) problems.push('customer has no default e-mail');
  if (subscription.status !== 'active' || !subscription.billing_anchor) problems.push(`subscription ${subscription.status}, anchor ${subscription.billing_anchor}`);
  if (subscription.trial_ends_on || subscription.cancellation_date || subscription.billing_group_id) problems.push('subscription has a trial, cancellation or billing group');
  if (item.status !== 'active' || item.last_billed_to || item.parent_id) problems.push(`item ${item.status}, lastBilledTo ${item.last_billed_to}, parent ${item.parent_id}`);
  if (problems.length) throw new Error(`the API-made template is not what the copies need: ${problems.join('; ')}`);
  return { customer, addresses, emails, subscription, item };
}

/**
 * SQL for copies k = from..to-1 of the template: customer, addresses, e-mails, subscription, item.
 * Only ids, unique keys and the dates are changed; every other column is the API's own value.
 */
function copiesSql(t, from, to) {
  const S = SEEDED_START.toISOString();
  const pad = (k) => String(k).padStart(7, '0');
  const rows = { customers: [], customer_addresses: [], customer_email_addresses: [], subscriptions: [], subscription_items: [] };
  for (let k = from; k < to; k++) {
    const customerId = randomUUID();
    const email = `bench-billing-${pad(k)}@bench.test`;
    rows.customers.push({
      ...t.customer,
      id: customerId,
      customer_number: `BB${pad(k)}`,
      email,
      email_key: email,
      last_name: t.customer.last_name === null ? null : `Billing ${k}`,
      created_at: S,
      updated_at: S,
    });
    const addressIds = new Map();
    for (const a of t.addresses) {
      const id = randomUUID();
      addressIds.set(a.id, id);
      rows.customer_addresses.push({ ...a, id, customer_id: customerId, created_at: S, updated_at: S });
    }
    for (const e of t.emails) {
      rows.customer_email_addresses.push({ ...e, id: randomUUID(), customer_id: customerId, email: e.email === t.customer.email ? email : e.email, created_at: S, updated_at: S });
    }
    const subscriptionId = randomUUID();
    rows.subscriptions.push({
      ...t.subscription,
      id: subscriptionId,
      number: `BBS${pad(k)}`,
      external_id: null,
      customer_id: customerId,
      invoice_address_id: t.subscription.invoice_address_id === null ? null : addressIds.get(t.subscription.invoice_address_id) ?? null,
      contract_start: S,
      billing_anchor: S,
      activated_at: S,
      last_billing_at: null,
      created_at: S,
      updated_at: S,
    });
    rows.subscription_items.push({
      ...t.item,
      id: randomUUID(),
      subscription_id: subscriptionId,
      start_date: t.item.start_date === null ? null : S,
      billing_start: t.item.billing_start === null ? null : S,
      last_billed_from: null,
      last_billed_to: null,
      last_billed_at: null,
      activated_at: S,
      created_at: S,
      updated_at: S,
    });
  }
  return Object.entries(rows).flatMap(([table, r]) => inserts(table, r));
}

/** Writes `count` copies of the template into the local D1 (server stopped), file by file. */
async function seedCopies({ persistTo, cwd, signal, verbose }, template, count, tenantId) {
  const dir = await mkdtemp(join(tmpdir(), 'edge-billing-seed-'));
  const t0 = process.hrtime.bigint();
  try {
    const files = Math.ceil(count / SUBSCRIPTIONS_PER_FILE);
    for (let f = 0; f < files; f++) {
      if (signal?.aborted) throw signal.reason;
      const from = 1 + f * SUBSCRIPTIONS_PER_FILE;
      const to = Math.min(1 + count, from + SUBSCRIPTIONS_PER_FILE);
      const file = join(dir, `seed-${String(f).padStart(4, '0')}.sql`);
      await writeFile(file, copiesSql(template, from, to).join('\n') + '\n');
      await d1Execute({ persistTo, cwd, file, signal, verbose, timeoutMs: 600_000 });
      log(`  seeded ${to - 1}/${count} subscriptions (${(msSince(t0) / 1000).toFixed(1)} s)`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
  const [counts] = await d1Execute({
    persistTo,
    cwd,
    json: true,
    signal,
    verbose,
    command: `SELECT
      (SELECT count(*) FROM customers WHERE tenant_id = ${sqlLiteral(tenantId)}) AS customers,
      (SELECT count(*) FROM subscriptions WHERE tenant_id = ${sqlLiteral(tenantId)} AND status = 'active' AND billing_anchor IS NOT NULL) AS subscriptions,
      (SELECT count(*) FROM subscription_items WHERE tenant_id = ${sqlLiteral(tenantId)} AND status = 'active' AND last_billed_to IS NULL) AS items,
      (SELECT count(*) FROM customer_addresses WHERE tenant_id = ${sqlLiteral(tenantId)} AND is_default = 1) AS addresses,
      (SELECT count(*) FROM customer_email_addresses WHERE tenant_id = ${sqlLiteral(tenantId)} AND is_default = 1) AS emails`,
  });
  return { ...counts.results[0], seconds: msSince(t0) / 1000 };
}

/** The check after the run: SQL aggregates over the tenant's invoices (server stopped). */
async function verify({ persistTo, cwd, signal, verbose }, tenantId, expected) {
  const t = sqlLiteral(tenantId);
  const sets = await d1Execute({
    persistTo,
    cwd,
    json: true,
    signal,
    verbose,
    timeoutMs: 300_000,
    command: [
      `SELECT count(*) AS invoices, count(DISTINCT subscription_id) AS subscriptionsInvoiced,
         sum(number_seq IS NOT NULL) AS numbered, count(DISTINCT number_seq) AS distinctSeq, count(DISTINCT number) AS distinctNumbers,
         min(number_seq) AS minSeq, max(number_seq) AS maxSeq, sum(status = 'STATUS_DRAFT') AS drafts,
         min(finalization_date) AS firstFinalization, max(finalization_date) AS lastFinalization,
         count(DISTINCT gross_amount) AS distinctGross, min(gross_amount) AS gross
       FROM invoices WHERE tenant_id = ${t} AND type = 'TYPE_INVOICE'`,
      `SELECT count(*) AS n FROM subscriptions s WHERE s.tenant_id = ${t}
         AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.tenant_id = s.tenant_id AND i.subscription_id = s.id)`,
      `SELECT count(*) AS n FROM (SELECT subscription_id FROM invoices WHERE tenant_id = ${t} GROUP BY subscription_id HAVING count(*) > 1)`,
      `SELECT count(*) AS n FROM subscriptions WHERE tenant_id = ${t}`,
      `SELECT count(*) AS n FROM billing_ledger WHERE tenant_id = ${t}`,
      `SELECT count(*) AS n FROM invoices WHERE tenant_id = ${t} AND type <> 'TYPE_INVOICE'`,
    ].join(';\n'),
  });
  const inv = sets[0].results[0];
  const v = {
    ...inv,
    subscriptions: sets[3].results[0].n,
    withoutInvoice: sets[1].results[0].n,
    withSeveralInvoices: sets[2].results[0].n,
    ledgerRows: sets[4].results[0].n,
    otherDocuments: sets[5].results[0].n,
  };
  const failures = [];
  if (v.subscriptions !== expected) failures.push(`${v.subscriptions} subscriptions, expected ${expected}`);
  if (v.invoices !== expected) failures.push(`${v.invoices} invoices`);
  if (v.subscriptionsInvoiced !== expected) failures.push(`${v.subscriptionsInvoiced} subscriptions invoiced`);
  if (v.withoutInvoice) failures.push(`${v.withoutInvoice} subscriptions without an invoice`);
  if (v.withSeveralInvoices) failures.push(`${v.withSeveralInvoices} subscriptions with more than one invoice`);
  if (v.drafts) failures.push(`${v.drafts} invoices still drafts`);
  if (v.numbered !== expected || v.distinctSeq !== expected || v.distinctNumbers !== expected) {
    failures.push(`${v.numbered} numbered, ${v.distinctSeq} distinct sequence values, ${v.distinctNumbers} distinct numbers`);
  }
  if (v.minSeq !== 1 || v.maxSeq !== expected) failures.push(`numbers run ${v.minSeq}..${v.maxSeq}, expected 1..${expected}`);
  if (v.ledgerRows !== expected) failures.push(`${v.ledgerRows} ledger rows`);
  if (v.distinctGross !== 1) failures.push(`${v.distinctGross} different gross amounts`);
  return { ...v, ok: failures.length === 0, failures };
}

/** A local webhook receiver that answers 200 at once and counts what it received. */
export function webhookReceiver() {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200).end('ok');
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://localhost:${server.address().port}/hook`,
        received: () => received,
        close: () => new Promise((r) => server.close(() => r()) && server.closeAllConnections?.()),
      }),
    );
  });
}

/**
 * Requests sent at a steady pace while something else runs (one at a time per probe, every
 * `everyMs`): what a user of the API feels during a billing run. stop() → { name, count, errors, p50, p99, max } per probe.
 */
function startProbes(ctx, probes, everyMs = 100) {
  const { signal } = ctx;
  let stopped = false;
  const results = probes.map((p) => ({ name: p.name, latencies: [], errors: 0 }));
  const loops = probes.map(async (p, i) => {
    while (!stopped && !signal.aborted) {
      const t0 = process.hrtime.bigint();
      try {
        const r = await http(ctx.url, 'GET', p.path, { headers: p.headers, signal, timeoutMs: 120_000 });
        if (r.status !== 200) results[i].errors++;
      } catch {
        results[i].errors++;
      }
      results[i].latencies.push(msSince(t0));
      await sleep(everyMs);
    }
  });
  return async () => {
    stopped = true;
    await Promise.all(loops);
    return results.map((r) => {
      const sorted = [...r.latencies].sort((a, b) => a - b);
      const at = (q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? null;
      return { name: r.name, count: sorted.length, errors: r.errors, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? null };
    });
  };
}

/**
 * Step 1: a test-mode tenant of its own (other sections' subscriptions must not be billed in its
 * run), the catalogue, the test clock at T0 and ONE customer with an active subscription, all through
 * the API: the template the copies are made of. `customer` adds fields to the template customer
 * (every copy gets them, e.g. an address). Returns { tenantId, auth, call, customer, subscription }.
 */
export async function createBillingTemplate(ctx, { name = 'Bench billing', tag = ctx.runTag, customer: customerFields = {} } = {}) {
  const { signal } = ctx;
  const tr = await http(ctx.url, 'POST', '/admin/tenants', {
    headers: { Authorization: `Bearer ${ctx.config.adminToken}` },
    // On the shard d1Execute seeds and reads (BENCH_SHARD).
    body: { name, countryCode: 'DE', defaultCurrency: 'EUR', timeZone: 'Europe/Berlin', mode: 'test', shard: BENCH_SHARD },
    signal,
  });
  if (tr.status !== 201 || !tr.json?.tenant?.id || !tr.json?.apiKey?.key) throw new Error(`POST /admin/tenants: ${describe(tr)}`);
  const tenantId = tr.json.tenant.id;
  const auth = { Authorization: `Bearer ${tr.json.apiKey.key}` };
  const call = async (method, path, body, opts = {}) => {
    const r = await http(ctx.url, method, path, { headers: auth, body, signal, ...opts });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${describe(r)}`);
    return r.json;
  };
  log(`billing: tenant ${tenantId} (${name})`);

  const family = await call('POST', '/product-families', { name: 'Bench billing' });
  const unit = await call('POST', '/units', { name: 'Seat', code: `seat-${tag}` });
  const measurement = await call('POST', '/measurements', { unit: unit.id, code: `seats-${tag}`, aggregationType: 'last_value', type: 'recurring' });
  const taxGroup = await call('POST', '/tax-groups', { type: 'standard' });
  const product = await call('POST', '/catalogue/products', { name: 'Bench plan', type: 'product', productFamilies: [family.id], measurement: measurement.id, taxGroup: taxGroup.id });
  const price = await call('POST', '/price-plans', { product: product.id, calculationType: 'flat_fee', currencyCode: 'EUR', price: { amount: PRICE }, billingInterval: '1M' });
  await call('PUT', '/test-clock', { now: T0.toISOString() });
  const customer = await call('POST', '/customers', {
    email: `bench-billing-0000000@bench.test`,
    countryCode: 'DE',
    firstName: 'Bench',
    lastName: 'Billing 0',
    companyName: 'Bench Billing GmbH',
    ...customerFields,
  });
  const draft = await call('POST', '/subscriptions', { customer: customer.id, items: [{ product: product.id, pricePlan: price.id }] });
  const active = await call('PUT', `/subscriptions/${draft.id}/activate`, {});
  if (active.status !== 'active' || active.items?.[0]?.status !== 'active') throw new Error(`activated template is ${active.status} / item ${active.items?.[0]?.status}`);
  log(`billing: catalogue, clock ${T0.toISOString()} and template subscription ${active.id} created through the API`);
  return { tenantId, auth, call, customer, subscription: active };
}

/**
 * Step 2, with the dev server stopped (inside server.restart's `between`): reads the template's rows
 * and writes N-1 copies next to them. `local` = { persistTo, cwd, signal, verbose }.
 */
export async function seedFromTemplate(local, template, N) {
  const t = await readTemplate(local, { tenantId: template.tenantId, customerId: template.customer.id, subscriptionId: template.subscription.id });
  log(
    `billing: template subscription anchor ${t.subscription.billing_anchor}, item start ${t.item.start_date}, ` +
      `billing start ${t.item.billing_start}; seeding ${N - 1} copies anchored at ${SEEDED_START.toISOString()}…`,
  );
  const seed = await seedCopies(local, t, N - 1, template.tenantId);
  if (seed.subscriptions !== N || seed.items !== N || seed.customers !== N || seed.addresses < N || seed.emails < N) {
    throw new Error(`seeding left ${JSON.stringify(seed)}, expected ${N} of each`);
  }
  return seed;
}

/**
 * Step 3: one billing run over everything due in the template's tenant (sync: PUT /test-clock; async:
 * POST /billing-runs and alarms), with progress polls and the workerd RSS sampled alongside.
 * Returns { run, runMs, timeline, numbering, memory, final }; numbering.perSecond is set by the caller
 * after the check (finishNumbering).
 */
export async function billingRun(ctx, { auth, N, mode, timeoutSeconds, pollMs, probeCustomerId }) {
  const { signal } = ctx;
  const server = ctx.server;
  const call = async (method, path, body, opts = {}) => {
    const r = await http(ctx.url, method, path, { headers: auth, body, signal, ...opts });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${describe(r)}`);
    return r.json;
  };
  const sampler = memorySampler({ rootPid: server.pid, name: 'workerd', intervalMs: 250 });
  await sleep(300);
  const before = sampler.current();
  const timeline = [];
  const deadline = Date.now() + timeoutSeconds * 1000;
  const cpu0 = cpuSnapshot(server.pid());
  const t0 = process.hrtime.bigint();
  const stopProbes = startProbes(ctx, [
    { name: 'GET /health', path: '/health' },
    ...(probeCustomerId ? [{ name: 'GET /customers/{id}', path: `/customers/${probeCustomerId}`, headers: auth }] : []),
  ]);
  let finished = false;
  let wakePolls = () => {};
  const pollPause = () => new Promise((r) => ((wakePolls = r), setTimeout(r, pollMs)));
  let lastLog = 0;
  // Each poll waits as long as it must: the local workerd answers no request at all (not even
  // /health) while a billing invocation runs, so a poll is answered only between invocations (async:
  // between alarm chunks) or after the run (sync). A sample is dated when its answer arrives.
  const countInvoices = async (status) => {
    const timeoutMs = Math.max(30_000, deadline - Date.now() + 60_000);
    const r = await http(ctx.url, 'GET', `/invoices?limit=0${status ? `&status=${status}` : ''}`, { headers: auth, signal, timeoutMs });
    if (r.status !== 200 || typeof r.json?.meta?.pagination?.totalItems !== 'number') throw new Error(`GET /invoices: ${describe(r)}`);
    return r.json.meta.pagination.totalItems;
  };
  const sampleProgress = async () => {
    const sentMs = msSince(t0);
    const [total, unpaid, paid] = await Promise.all([countInvoices(), countInvoices('STATUS_UNPAID'), countInvoices('STATUS_PAID')]);
    const s = { ms: msSince(t0), sentMs, total, numbered: unpaid + paid };
    timeline.push(s);
    return s;
  };
  const progress = (async () => {
    while (!finished && !signal.aborted) {
      try {
        const s = await sampleProgress();
        if (s.ms - lastLog >= 10_000 || s.ms - s.sentMs >= 5_000) {
          lastLog = s.ms;
          const stall = s.ms - s.sentMs >= 5_000 ? ` (answered after ${((s.ms - s.sentMs) / 1000).toFixed(1)} s)` : '';
          log(`  ${(s.ms / 1000).toFixed(0)} s: ${s.total} invoices, ${s.numbered} numbered${stall}`);
        }
      } catch (err) {
        if (signal.aborted) break;
        log(`  progress poll failed: ${err.message}`);
      }
      await pollPause();
    }
  })();

  let run;
  try {
    if (mode === 'sync') {
      log(`billing: PUT /test-clock ${SYNC_CLOCK.toISOString()} (synchronous run)…`);
      const put = () => http(ctx.url, 'PUT', '/test-clock', { headers: auth, body: { now: SYNC_CLOCK.toISOString() }, signal, timeoutMs: timeoutSeconds * 1000 });
      // BENCH_PROFILE=<file>: a CPU profile of the Worker during the run (top functions by self time).
      const r = process.env.BENCH_PROFILE
        ? await (await import('./profile.mjs')).withProfile(Number(process.env.BENCH_INSPECTOR_PORT || 9339), put, process.env.BENCH_PROFILE)
        : await put();
      if (r.status !== 200) {
        const reloaded = /restarted mid-request/i.test(r.text) ? ' — the Worker was reloaded mid-run (a source file changed?); BENCH_SNAPSHOT=1 serves a copy of the sources' : '';
        throw new Error(`PUT /test-clock: ${describe(r)}${reloaded}`);
      }
      const runs = await call('GET', '/billing-runs?limit=10');
      run = runs.data.find((r) => r.trigger === 'test_clock' && r.asOf === SYNC_CLOCK.toISOString());
      if (!run) throw new Error(`no test_clock run as of ${SYNC_CLOCK.toISOString()} in ${JSON.stringify(runs.data)}`);
    } else {
      log('billing: POST /billing-runs (continues through alarms)…');
      run = await call('POST', '/billing-runs', undefined, { timeoutMs: 120_000 });
      while (run.status === 'running') {
        if (Date.now() > deadline) throw new Error(`billing run ${run.id} still running after ${timeoutSeconds} s: ${JSON.stringify(run)}`);
        await sleep(Math.min(1000, pollMs));
        // Answered only between alarm invocations (see the progress polls above): wait up to the deadline.
        run = await call('GET', `/billing-runs/${run.id}`, undefined, { timeoutMs: Math.max(30_000, deadline - Date.now()) });
      }
    }
  } finally {
    finished = true;
    wakePolls();
  }
  const runMs = msSince(t0);
  const cpu = cpuDelta(cpu0, cpuSnapshot(server.pid()));
  const probes = await stopProbes();
  await progress;
  const final = await sampleProgress().catch(() => null);
  const memory = sampler.stop();
  log(`billing: run ${run.status} in ${(runMs / 1000).toFixed(1)} s: ${run.invoicesCreated} invoices, ${run.itemsBilled} items, ${run.errors} errors${run.lastError ? ` (last: ${run.lastError})` : ''}`);

  // Numbering over time. finalization_date is the frozen test clock (the same on every invoice),
  // so the window comes from the clock here: inside the run each invoice is written and numbered in
  // one batch (TenantObject commitNumbered), so the run's end is when the last number was given
  // (the check below confirms no draft is left). The polls add what
  // they can see: drafts waiting for a number at any answered poll, and how long the API stood
  // still (a poll is answered only between billing invocations, see above).
  const numbering = {
    allNumberedSeconds: runMs / 1000,
    firstSeenNumberedSeconds: timeline.find((x) => x.numbered > 0)?.ms / 1000 || null,
    maxDraftsSeen: timeline.reduce((m, x) => Math.max(m, x.total - x.numbered), 0),
    pollsAnsweredDuringRun: timeline.filter((x) => x.ms < runMs).length,
    pollsAnsweredMidRun: timeline.filter((x) => x.numbered > 0 && x.numbered < N).length,
    maxApiStallSeconds: timeline.reduce((m, x) => Math.max(m, (x.ms - x.sentMs) / 1000), 0),
    pollMs,
    samples: timeline.length,
  };
  return {
    run,
    runMs,
    cpu,
    probes,
    timeline,
    numbering,
    final,
    memory: {
      samples: memory.samples,
      rssBeforeMb: before.lastRssKb / 1024,
      peakRssMb: memory.peakRssKb / 1024,
      hwmMb: memory.hwmKb / 1024,
      rssAfterMb: memory.lastRssKb / 1024,
      processes: memory.processes.map((p) => ({ pid: p.pid, entry: p.entry, peakRssMb: p.peakRssKb / 1024, hwmMb: p.hwmKb / 1024 })),
    },
  };
}

/**
 * What the run read and wrote in D1: each invocation of the run logs the isolate's meter at its start
 * and end (src/db/meter.ts); the sum of the differences. Includes what else ran in those moments in
 * the same isolate (the probes' reads: a few rows each).
 */
function d1MeterOfRun(logs, runId) {
  const marks = [];
  for (const line of logs.split('\n')) {
    const at = line.indexOf('{"level"');
    if (at < 0 || !line.includes('"d1Meter"')) continue;
    try {
      const entry = JSON.parse(line.slice(at));
      if (entry.billingRun === runId) marks.push(entry);
    } catch {
      // not one of ours
    }
  }
  const total = { rowsRead: 0, rowsWritten: 0, statements: 0, uncounted: 0, invocations: 0 };
  for (let i = 0; i + 1 < marks.length; i++) {
    if (marks[i].at !== 'invocation start' || marks[i + 1].at !== 'invocation end') continue;
    for (const k of ['rowsRead', 'rowsWritten', 'statements', 'uncounted']) total[k] += marks[i + 1].d1Meter[k] - marks[i].d1Meter[k];
    total.invocations++;
  }
  return total.invocations ? total : null;
}

/** Completes `numbering` from the check: numbered/s only when every invoice was numbered. */
export function finishNumbering(numbering, check, N) {
  const allNumbered = check.numbered === N && check.drafts === 0;
  numbering.perSecond = allNumbered ? N / numbering.allNumberedSeconds : null;
  if (!allNumbered) numbering.allNumberedSeconds = null;
  return numbering;
}

/**
 * Deliveries the run must have published: one per event of a subscribed type (the check counts the
 * invoices; each finalized one is invoice.finalized, invoice.unpaid, invoice.created,
 * invoice.pdf.generation_requested, and its subscription.billed).
 */
function expectedDeliveries(events, check) {
  const perInvoice = { 'invoice.finalized': 1, 'invoice.unpaid': 1, 'invoice.created': 1, 'invoice.pdf.generation_requested': 1, 'subscription.billed': 1 };
  return events.includes('*') ? check.invoices * 5 : events.reduce((n, e) => n + (perInvoice[e] ?? 0) * check.invoices, 0);
}

/** The clock facts of a run, for the report. */
export const billingClock = (mode) => ({ t0: T0.toISOString(), seededStart: SEEDED_START.toISOString(), billedAt: mode === 'sync' ? SYNC_CLOCK.toISOString() : T0.toISOString() });

export { readBillingConfig, verify };

export const billingSection = {
  name: 'billing',
  title: 'Billing run (due monthly subscriptions, one test-mode tenant, local D1)',

  async run(ctx) {
    const cfg = readBillingConfig();
    const { server, local } = localDatabase(ctx, 'the billing section seeds the local D1 database directly');
    const { signal } = ctx;
    const N = cfg.subscriptions;
    log(`billing: ${N} subscriptions, ${cfg.mode} run, timeout ${cfg.timeoutSeconds} s`);

    // 1. Catalogue, clock and the template through the API; the webhook to a local receiver.
    const template = await createBillingTemplate(ctx);
    const { tenantId } = template;
    const receiver = cfg.webhookEvents.length ? await webhookReceiver() : null;
    const webhook = receiver ? await template.call('POST', '/webhooks', { url: receiver.url, events: cfg.webhookEvents }) : null;
    if (webhook) log(`billing: webhook ${webhook.id} for ${cfg.webhookEvents.join(', ')} → ${receiver.url}`);

    // 2. N-1 copies written straight into the local D1 while the dev server is stopped.
    let seed;
    await server.restart(
      async () => {
        seed = await seedFromTemplate(local, template, N);
      },
      cfg.d1Meter ? { vars: { D1_METER: '1' } } : {},
    );
    log(`billing: seeded in ${seed.seconds.toFixed(1)} s: ${JSON.stringify(seed)}; server restarted`);

    // 3. The run, with progress and memory sampled alongside.
    const { run, runMs, cpu, probes, timeline, numbering, memory, final } = await billingRun(ctx, {
      auth: template.auth,
      N,
      mode: cfg.mode,
      timeoutSeconds: cfg.timeoutSeconds,
      pollMs: cfg.pollMs,
      probeCustomerId: template.customer.id,
    });

    const d1 = cfg.d1Meter ? d1MeterOfRun(server.logs(), run.id) : null;
    if (d1) log(`billing: D1 rows read ${d1.rowsRead}, written ${d1.rowsWritten} in ${d1.statements} statements over ${d1.invocations} invocations (${d1.uncounted} writes through raw() not counted)`);

    // 3b. Webhooks: deliveries written by the run's end (published within the run), then delivered.
    let webhooks = null;
    if (webhook) {
      const count = async () => (await template.call('GET', `/webhooks/${webhook.id}/deliveries?limit=0`, undefined, { timeoutMs: 120_000 })).meta.pagination.totalItems;
      const publishedAtEnd = await count();
      const t1 = process.hrtime.bigint();
      const waitUntil = Date.now() + cfg.deliveryWaitSeconds * 1000;
      let lastLog = Date.now();
      while (receiver.received() < publishedAtEnd && Date.now() < waitUntil && !signal.aborted) {
        await sleep(500);
        if (Date.now() - lastLog > 10_000) {
          lastLog = Date.now();
          log(`  webhooks: ${receiver.received()}/${publishedAtEnd} delivered`);
        }
      }
      const deliveredSeconds = msSince(t1) / 1000;
      webhooks = { events: cfg.webhookEvents, publishedAtEnd, delivered: receiver.received(), deliveredSecondsAfterRun: receiver.received() >= publishedAtEnd ? deliveredSeconds : null };
      log(`billing: webhooks: ${publishedAtEnd} deliveries published by the run's end, ${webhooks.delivered} received ${deliveredSeconds.toFixed(1)} s after it`);
      await receiver.close();
    }

    // 4. The check, with the server stopped again (then started for any later section).
    let check;
    await server.restart(
      async () => {
        log('billing: checking invoices and numbers in the local D1…');
        check = await verify(local, tenantId, N);
      },
      cfg.d1Meter ? { vars: {} } : {},
    );
    log(`billing: check ${check.ok ? 'passed' : `FAILED: ${check.failures.join('; ')}`}`);
    finishNumbering(numbering, check, N);

    const result = {
      name: `${N} subscriptions, ${cfg.mode}`,
      subscriptions: N,
      mode: cfg.mode,
      runSeconds: runMs / 1000,
      invoicesPerSecond: run.invoicesCreated / (runMs / 1000),
      // CPU the server's workerd spent during the run, per invoice, and what other processes used
      // meanwhile (a busy machine stretches the wall time, hardly the CPU).
      cpu: { workerdSeconds: cpu.workerd, msPerInvoice: (cpu.workerd * 1000) / Math.max(1, run.invoicesCreated), othersSeconds: cpu.others },
      probes,
      webhooks,
      d1,
      run: { id: run.id, status: run.status, itemsBilled: run.itemsBilled, invoicesCreated: run.invoicesCreated, errors: run.errors, lastError: run.lastError },
      numbering,
      memory,
      finalProgress: final,
      check,
    };
    return {
      setup: { seed, template: { customer: template.customer.id, subscription: template.subscription.id }, clock: billingClock(cfg.mode) },
      results: [result],
      timeline,
      failed: check.ok && run.errors === 0 && run.status === 'completed' && (!webhooks || webhooks.publishedAtEnd === expectedDeliveries(cfg.webhookEvents, check)) ? undefined : `billing check failed: ${[...check.failures, run.errors ? `${run.errors} run errors` : null, run.status !== 'completed' ? `run ${run.status}` : null].filter(Boolean).join('; ')}`,
    };
  },

  report(out) {
    const s = out.setup.seed;
    process.stdout.write(`\n${this.title}\n`);
    process.stdout.write(
      `setup: ${s.subscriptions} active subscriptions (1 through the API, the rest as SQL copies in ${s.seconds.toFixed(1)} s); ` +
        `billed at ${out.setup.clock.billedAt}\n\n`,
    );
    printTable(out.results, [
      { title: 'run', value: (r) => r.name },
      { title: 'run s', value: (r) => r.runSeconds, digits: 1 },
      { title: 'invoices/s', value: (r) => r.invoicesPerSecond, digits: 1 },
      { title: 'all numbered s', value: (r) => r.numbering.allNumberedSeconds, digits: 1 },
      { title: 'numbered/s', value: (r) => r.numbering.perSecond, digits: 1 },
      { title: 'workerd CPU s', value: (r) => r.cpu.workerdSeconds, digits: 1 },
      { title: 'CPU ms/invoice', value: (r) => r.cpu.msPerInvoice, digits: 2 },
      { title: 'others CPU s', value: (r) => r.cpu.othersSeconds, digits: 1 },
      { title: 'max drafts', value: (r) => r.numbering.maxDraftsSeen },
      { title: 'API stall s', value: (r) => r.numbering.maxApiStallSeconds, digits: 1 },
      { title: 'RSS before MB', value: (r) => r.memory.rssBeforeMb, digits: 0 },
      { title: 'peak RSS MB', value: (r) => r.memory.peakRssMb, digits: 0 },
      { title: 'VmHWM MB', value: (r) => r.memory.hwmMb, digits: 0 },
      { title: 'check', value: (r) => (r.check.ok ? 'ok' : 'FAILED') },
    ]);
    for (const r of out.results) {
      process.stdout.write(
        `  run ${r.run.status}: itemsBilled ${r.run.itemsBilled}, invoicesCreated ${r.run.invoicesCreated}, errors ${r.run.errors}${r.run.lastError ? ` (last: ${r.run.lastError})` : ''}\n`,
      );
      const c = r.check;
      process.stdout.write(
        `  check: ${c.invoices} invoices for ${c.subscriptionsInvoiced}/${c.subscriptions} subscriptions, ${c.withoutInvoice} without, ${c.withSeveralInvoices} with several, ` +
          `${c.drafts} drafts; numbers ${c.minSeq}..${c.maxSeq}, ${c.distinctNumbers} distinct; finalization_date ${c.firstFinalization} .. ${c.lastFinalization} (the frozen test clock)\n`,
      );
      const n = r.numbering;
      process.stdout.write(
        `  numbering: finalization_date is the frozen test clock on every invoice, so it spans 0 s; each invoice is written and numbered in one batch ` +
          `inside the run, so all ${r.subscriptions} were numbered by the run's end (${n.allNumberedSeconds?.toFixed(1) ?? '-'} s). ` +
          `Polls every ${n.pollMs} ms: ${n.pollsAnsweredMidRun} answered mid-run, at most ${n.maxDraftsSeen} draft(s) waiting for a number, ` +
          `longest wait for an answer ${n.maxApiStallSeconds.toFixed(1)} s (the local workerd answers nothing while a billing invocation runs)\n`,
      );
      for (const p of r.probes ?? []) {
        process.stdout.write(`  during the run: ${p.name} ${p.count} requests, ${p.errors} errors, p50 ${p.p50?.toFixed(1)} ms, p99 ${p.p99?.toFixed(1)} ms, max ${p.max?.toFixed(1)} ms\n`);
      }
      if (r.webhooks) {
        const w = r.webhooks;
        process.stdout.write(
          `  webhooks (${w.events.join(', ')}): ${w.publishedAtEnd} deliveries published by the run's end; ${w.delivered} received, ` +
            `${w.deliveredSecondsAfterRun === null ? 'not all' : `all ${w.deliveredSecondsAfterRun.toFixed(1)} s after the run`}\n`,
        );
      }
      process.stdout.write(
        `  workerd memory: ${r.memory.processes.map((p) => `pid ${p.pid} (entry ${p.entry ?? '?'}) peak RSS ${p.peakRssMb.toFixed(0)} MB, VmHWM ${p.hwmMb.toFixed(0)} MB`).join('; ')}\n`,
      );
      if (!c.ok) process.stdout.write(`  check FAILED: ${c.failures.join('; ')}\n`);
    }
  },
};
