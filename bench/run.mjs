// HTTP benchmarks for the billing API.  Usage:  npm run bench [-- [--json[=DIR]] [SECTION ...]]
//
// Target: BENCH_URL (a running server on localhost), else a fresh `wrangler dev` on BENCH_PORT
// (default 8799) with a temporary persistence directory that is deleted afterwards.
//
// Environment (all optional):
//   BENCH_URL               use this running server (must be localhost) instead of starting one
//   BENCH_ADMIN_TOKEN       admin bearer token (default bench-admin; passed to the local server too)
//   BENCH_JWT_SECRET        JWT_SECRET for the local server
//   BENCH_PORT              port for the local server (default 8799)
//   BENCH_SECONDS           measured duration per scenario (default 10)
//   BENCH_WARMUP_SECONDS    unrecorded warm-up per scenario (default 1; 0 = none)
//   BENCH_CONCURRENCY       closed-loop connections per scenario (default 16; autocannon, one request
//                           in flight per connection)
//   BENCH_ROUNDS            the endpoints of a section are measured in turns, this many rounds of
//                           BENCH_SECONDS/BENCH_ROUNDS each (default 5), so background load on a shared
//                           machine weighs on every endpoint alike (bench/lib.mjs, interleavedLoops)
//   BENCH_CEILING_PORT      port of the hello-world Hono worker (bench/hello), started beside the API
//                           with its compatibility date and flags: the platform's ceiling (default BENCH_PORT+1)
//   BENCH_CEILING_URL       use this running ceiling worker instead (with BENCH_URL there is none otherwise)
//   BENCH_PROFILE=<path>    CPU-profile the API during each measurement (not the warm-up): top functions
//                           by self and inclusive time in <path>.<endpoint>.txt, the raw profile beside it
//                           (.cpuprofile); the inspector on BENCH_INSPECTOR_PORT (default 9339). Profiling
//                           slows the API: read ratios from a run without it
//   BENCH_CUSTOMERS         customers created during setup (default 10000)
//   BENCH_FILL_CONCURRENCY  concurrent requests while filling (default 16)
//   BENCH_LIST_PAGES        GET /customers spreads `page` over 1..N (default 10)
//   BENCH_PLAN              plan of the bench tenants (default enterprise, whose local rate limit no
//                           local client reaches: docs/decisions.md, Rate limits)
//   BENCH_SECTIONS          comma list of sections to run (default: all); positional args do the same
//   BENCH_JSON              unset: print only; "1": write bench/results/<section>-<timestamp>.json;
//                           any other value: directory for those files.  `--json[=DIR]` does the same.
//   BENCH_VERBOSE=1         echo wrangler's output;  BENCH_KEEP_STATE=1 keep the temp state dir
//   BENCH_SNAPSHOT=1        run wrangler dev on a temp copy of src/, migrations/ and the config, so edits
//                           made to the project meanwhile do not reload the Worker mid-benchmark
//   BENCH_WRANGLER_LOG_LEVEL  wrangler dev --log-level (default warn: no per-request log lines)
//   BENCH_BILLING_*         the billing section (subscriptions, mode, timeout): see bench/billing.mjs
//   BENCH_DOCUMENTS_*       the documents section (invoices rendered, subscriptions billed with rendering on
//                           and off, rounds, e-invoice type): see bench/documents.mjs
//   BENCH_PAYMENTS_*        the payments section (invoices = camt entries and debits, default 10000;
//                           VALIDATE=0 skips the XSD check of the pain.008): see bench/payments.mjs
//   BENCH_CHECKOUT_*        the checkout section (carts opened, flows timed): see bench/checkout.mjs
//   BENCH_RATE_LIMIT_*      the ratelimit section (rounds, customers, carts): see bench/rate-limit.mjs
//   BENCH_MAIL_*            the mail section (customers, runs): see bench/mail.mjs
//
// The http, usage and checkout sections measure GET /health and the ceiling worker in the same run,
// in turns with their endpoints (ctx.baselineEntries(), ctx.measureAll()), and print each row as a
// share of both.
//
// Sections: http (endpoints vs GET /health, entitlement check), usage (measurement ingestion, 1,000 and
// 10,000 events a batch), billing (one billing run
// over seeded subscriptions), webhooks (API latency with a slow receiver), documents (PDF + XML
// renders per second, bytes per document, billing rate with rendering on vs off), payments (a camt.053
// of N entries imported and matched against N open invoices, a pain.008 of N debits: time, memory),
// checkout (public cart reads vs GET /health, the open → change → confirm flow), ratelimit (reads with
// the rate limits on and off, restarting the server between), mail (one-time code requests for a
// customer's address against a stranger's).
//
// Adding a section: append an object to
// SECTIONS with { name, title, run(ctx) }. run() returns { setup?, results: [summary…], goals? }
// where each summary comes from ctx.measure() / ctx.measureAll() (or lib.summarize()), the baselines
// from ctx.baselineEntries(), and goals ([{ name, goal }]) are printed with the ratio of the row named so to
// GET /health. ctx gives the target URL,
// admin token, config, the shutdown signal, and memoised shared fixtures: ctx.tenant() and
// ctx.customers() (created on first use, reused by later sections). A section with results of
// another shape brings its own report(out); out.failed (a message) makes the benchmark exit 1.
// ctx.server is the local server handle (persistTo, restart(between, { vars }), extraVars(), pid()) or
// undefined with BENCH_URL; billing and documents need it (they seed the local D1, and documents restarts
// the server with other --vars).

import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  BENCH_PLAN,
  PROJECT_ROOT,
  CEILING,
  HEALTH,
  assertLoopback,
  baselineColumns,
  cpuColumns,
  closedLoop,
  interleavedLoops,
  envInt,
  fileTimestamp,
  http,
  installShutdown,
  apiCaller,
  pool,
  printTable,
  snapshotProject,
  startLocalServer,
  writeJson,
} from './lib.mjs';
import { billingSection } from './billing.mjs';
import { webhookSection } from './webhooks.mjs';
import { documentsSection } from './documents.mjs';
import { paymentsSection } from './payments.mjs';
import { checkoutSection } from './checkout.mjs';
import { rateLimitSection } from './rate-limit.mjs';
import { mailSection } from './mail.mjs';

// ---------------------------------------------------------------------------------------------
// Configuration

function readConfig(argv) {
  const positional = [];
  let json = process.env.BENCH_JSON || undefined;
  for (const a of argv) {
    if (a === '--json') json = '1';
    else if (a.startsWith('--json=')) json = a.slice('--json='.length);
    else if (a === '-h' || a === '--help') {
      process.stdout.write('Usage: npm run bench [-- [--json[=DIR]] [SECTION ...]]  (see bench/run.mjs header for env vars)\n');
      process.exit(0);
    } else if (a.startsWith('-')) throw new Error(`Unknown option ${a}`);
    else positional.push(a);
  }
  const sections = positional.length ? positional : (process.env.BENCH_SECTIONS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return {
    url: process.env.BENCH_URL ? assertLoopback(process.env.BENCH_URL) : undefined,
    adminToken: process.env.BENCH_ADMIN_TOKEN || 'bench-admin',
    jwtSecret: process.env.BENCH_JWT_SECRET || 'bench-secret-0123456789abcdef0123456789',
    // 32 bytes, base64: the server's key for gateway credentials (src/lib/secret-box.ts).
    paymentSecretsKey: process.env.BENCH_PAYMENT_SECRETS_KEY || Buffer.from('bench-only-payment-secrets-key-32').subarray(0, 32).toString('base64'),
    port: envInt('BENCH_PORT', 8799),
    seconds: envInt('BENCH_SECONDS', 10, 0.1),
    warmupSeconds: envInt('BENCH_WARMUP_SECONDS', 1, 0),
    concurrency: Math.floor(envInt('BENCH_CONCURRENCY', 16)),
    rounds: Math.floor(envInt('BENCH_ROUNDS', 5)),
    customers: Math.floor(envInt('BENCH_CUSTOMERS', 10_000)),
    fillConcurrency: Math.floor(envInt('BENCH_FILL_CONCURRENCY', 16)),
    listPages: Math.floor(envInt('BENCH_LIST_PAGES', 10)),
    ceilingUrl: process.env.BENCH_CEILING_URL ? assertLoopback(process.env.BENCH_CEILING_URL) : undefined,
    ceilingPort: Math.floor(envInt('BENCH_CEILING_PORT', envInt('BENCH_PORT', 8799) + 1)),
    // The inspector is opened only for profiles (BENCH_PROFILE): bench/profile.mjs attaches to it.
    inspectorPort: process.env.BENCH_PROFILE ? Math.floor(envInt('BENCH_INSPECTOR_PORT', 9339)) : undefined,
    sections,
    jsonDir: json === undefined ? undefined : ['1', 'true', 'yes'].includes(json) ? join(PROJECT_ROOT, 'bench', 'results') : json,
    verbose: ['1', 'true'].includes(process.env.BENCH_VERBOSE ?? ''),
    keepState: ['1', 'true'].includes(process.env.BENCH_KEEP_STATE ?? ''),
    snapshot: ['1', 'true'].includes(process.env.BENCH_SNAPSHOT ?? ''),
    wranglerLogLevel: process.env.BENCH_WRANGLER_LOG_LEVEL || 'warn',
  };
}

const log = (msg) => process.stderr.write(`bench: ${msg}\n`);
const describe = (r) => `HTTP ${r.status} ${r.text.length > 500 ? r.text.slice(0, 500) + '…' : r.text}`;
const pick = (arr) => arr[Math.floor(Math.random() * arr.length)];

// ---------------------------------------------------------------------------------------------
// Shared fixtures

const slug = (name) => name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase();

function makeContext(config, url, signal, server, ceilingUrl, ceilingPid) {
  let tenantP;
  let customersP;
  const ctx = {
    url,
    config,
    signal,
    server,
    /** The hello-world worker's URL (undefined with BENCH_URL and no BENCH_CEILING_URL). */
    ceilingUrl,
    runTag: randomBytes(4).toString('hex'),

    /** Fresh tenant for this run: { id, apiKey, auth } (auth = headers with the API key). */
    tenant() {
      tenantP ??= (async () => {
        const r = await http(url, 'POST', '/admin/tenants', {
          headers: { Authorization: `Bearer ${config.adminToken}` },
          body: { name: 'Bench', countryCode: 'DE', defaultCurrency: 'EUR', timeZone: 'Europe/Berlin', mode: 'test', plan: BENCH_PLAN },
          signal,
        });
        if (r.status !== 201 || !r.json?.tenant?.id || !r.json?.apiKey?.key) throw new Error(`POST /admin/tenants: ${describe(r)}`);
        const apiKey = r.json.apiKey.key;
        log(`tenant ${r.json.tenant.id} created`);
        return { id: r.json.tenant.id, apiKey, auth: { Authorization: `Bearer ${apiKey}` } };
      })();
      return tenantP;
    },

    /** config.customers customers in the tenant: { ids, fill: { requested, created, failed, seconds, rate } }. */
    customers() {
      customersP ??= (async () => {
        const { auth } = await ctx.tenant();
        const total = config.customers;
        const step = Math.max(1, Math.floor(total / 10));
        log(`creating ${total} customers with ${config.fillConcurrency} concurrent requests…`);
        const res = await pool({
          total,
          concurrency: config.fillConcurrency,
          signal,
          maxFailures: 100,
          task: async (i) => {
            const r = await http(url, 'POST', '/customers', {
              headers: auth,
              body: { email: `c${i}@bench.test`, countryCode: 'DE', firstName: 'First', lastName: `Last${i}`, companyName: `Company ${i}` },
              signal,
            });
            if (r.status !== 201 || typeof r.json?.id !== 'string') throw new Error(`POST /customers: ${describe(r)}`);
            return r.json.id;
          },
          label: 'customers',
          // Without a terminal (logs, CI) a line every tenth instead of the bar.
          onProgress: (done) => {
            if (!process.stderr.isTTY && done % step === 0 && done < total) log(`  ${done}/${total}`);
          },
        });
        const ids = res.results.filter((id) => id !== undefined);
        const seconds = res.elapsedMs / 1000;
        const fill = { requested: total, created: ids.length, failed: res.failures.length, seconds, rate: ids.length / seconds };
        if (res.failures.length) log(`${res.failures.length} customer creations failed; first: ${res.failures[0].error.message}`);
        if (res.done < total || ids.length === 0) throw new Error(`customer fill aborted after ${res.done}/${total} requests (${res.failures.length} failures)`);
        log(`filled ${ids.length} customers in ${seconds.toFixed(1)} s (${fill.rate.toFixed(0)} customers/s)`);
        return { ids, fill };
      })();
      return customersP;
    },

    /** An endpoint to measure: opts.url another server (the ceiling), opts.concurrency, opts.isOk, opts.timeoutMs. */
    entry(name, makeRequest, opts = {}) {
      const { url: target = url, concurrency = config.concurrency, ...rest } = opts;
      // The CPU its requests cost, from the processes of the server that answers them (local servers only).
      const serverPid = target === url ? server?.pid : target === ceilingUrl ? ceilingPid : undefined;
      return { name, baseUrl: target, makeRequest, concurrency, serverPid, ...rest };
    },

    /** GET /health of the API and of the hello-world worker (the platform's ceiling on this machine), when one runs. */
    baselineEntries() {
      const health = ctx.entry(HEALTH, () => ({ path: '/health' }));
      return ctx.ceilingUrl ? [health, ctx.entry(CEILING, () => ({ path: '/health' }), { url: ctx.ceilingUrl })] : [health];
    },

    /**
     * Closed-loop measurements (autocannon) of several endpoints with the configured duration,
     * warm-up and connections, taken in turns (BENCH_ROUNDS rounds; lib.interleavedLoops) so that
     * what the rest of the machine does meanwhile weighs on all of them alike. With BENCH_PROFILE
     * they are taken one after another instead, each against the API CPU-profiled into
     * <BENCH_PROFILE>.<endpoint>.txt (bench/profile.mjs).
     */
    async measureAll(entries) {
      const names = entries.map((e) => e.name).join(', ');
      let results;
      if (process.env.BENCH_PROFILE) {
        results = [];
        for (const e of entries) {
          log(`measuring ${e.name} (${config.seconds} s, ${e.concurrency} connections)…`);
          const profileTo = e.baseUrl === url ? `${process.env.BENCH_PROFILE}.${slug(e.name)}.txt` : undefined;
          const around = profileTo ? async (run) => (await import('./profile.mjs')).withProfile(config.inspectorPort, run, profileTo) : undefined;
          results.push(await closedLoop({ ...e, durationMs: config.seconds * 1000, warmupMs: config.warmupSeconds * 1000, signal, around }));
          if (profileTo) log(`  profile: ${profileTo}`);
        }
      } else {
        log(`measuring in ${config.rounds} rounds of ${(config.seconds / config.rounds).toFixed(1)} s: ${names}…`);
        results = await interleavedLoops(entries, { durationMs: config.seconds * 1000, warmupMs: config.warmupSeconds * 1000, rounds: config.rounds, signal });
      }
      for (const r of results) if (r.errors) log(`  ${r.name}: ${r.errors} errors ${JSON.stringify(r.errorKinds)}`);
      const rounds = process.env.BENCH_PROFILE ? 1 : config.rounds;
      return results.map((r) => ({ ...r, rounds }));
    },

    /** One endpoint (ctx.entry's arguments), measured as measureAll does. */
    async measure(name, makeRequest, opts = {}) {
      return (await ctx.measureAll([ctx.entry(name, makeRequest, opts)]))[0];
    },
  };
  return ctx;
}

// ---------------------------------------------------------------------------------------------
// Sections

/** A metered (or recurring) product with a monthly price, for subscriptions of the bench's customers. */
async function benchProduct(ctx, call, { name, type = 'metered', aggregationType = 'sum' }) {
  const family = await call('POST', '/product-families', { name: `Bench ${name}` });
  const code = `${slug(name)}-${ctx.runTag}`;
  const unit = await call('POST', '/units', { name, code });
  const measurement = await call('POST', '/measurements', { unit: unit.id, code, aggregationType, type });
  const taxGroup = await call('POST', '/tax-groups', { type: 'standard' });
  const product = await call('POST', '/catalogue/products', { name, type: 'product', productFamilies: [family.id], measurement: measurement.id, taxGroup: taxGroup.id });
  const price = await call('POST', '/price-plans', { product: product.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '0.0001' }, billingInterval: '1M' });
  return { product, price };
}

/** `count` active subscriptions of fresh customers to the product: the subscriptions as activated. */
async function activeSubscriptions(ctx, call, { product, price }, count, label) {
  log(`creating ${count} ${label} subscriptions…`);
  const out = [];
  for (let i = 0; i < count; i++) {
    const customer = await call('POST', '/customers', { email: `${label}-${ctx.runTag}-${i}@bench.test`, countryCode: 'DE' });
    const sub = await call('POST', '/subscriptions', { customer: customer.id, items: [{ product: product.id, pricePlan: price.id }] });
    out.push(await call('PUT', `/subscriptions/${sub.id}/activate`, {}));
  }
  return out;
}

const httpSection = {
  name: 'http',
  title: 'HTTP endpoints',
  async run(ctx) {
    const { auth } = await ctx.tenant();
    const { ids, fill } = await ctx.customers();
    const call = apiCaller(ctx, auth);
    const pages = Math.max(1, Math.min(ctx.config.listPages, Math.ceil(ids.length / 30)));

    // Entitlements: a switch feature on a product; half the customers checked hold it through an
    // active subscription, the other half are answered "not entitled".
    const feature = await call('POST', '/entitlement/features', { code: `bench-${ctx.runTag}`, name: 'Bench feature', type: 'switch' });
    const entitled = await benchProduct(ctx, call, { name: 'Entitled seat', type: 'recurring', aggregationType: 'last_value' });
    await call('POST', '/entitlement/feature-assignments', { feature: feature.id, object: 'product', objectId: entitled.product.id, value: 'true' });
    const holders = (await activeSubscriptions(ctx, call, entitled, ENTITLED_CUSTOMERS, 'entitled')).map((s) => s.customer.id);
    const checked = [...holders, ...ids.slice(0, holders.length)];
    const sample = await http(ctx.url, 'GET', `/customers/${encodeURIComponent(holders[0])}/entitlements?feature=${encodeURIComponent(feature.code)}`, { headers: auth, signal: ctx.signal });
    if (sample.status !== 200 || sample.json?.entitled !== true) throw new Error(`GET /customers/{id}/entitlements: ${describe(sample)}`);

    const results = await ctx.measureAll([
      ...ctx.baselineEntries(),
      ctx.entry('POST /customers', (seq) => ({
        method: 'POST',
        path: '/customers',
        headers: auth,
        body: { email: `n-${ctx.runTag}-${seq}@bench.test`, countryCode: 'DE', firstName: 'New', lastName: `Customer${seq}`, companyName: `New Co ${seq}` },
      })),
      ctx.entry(`GET /customers?limit=30 (pages 1-${pages})`, () => ({
        path: `/customers?limit=30&page=${1 + Math.floor(Math.random() * pages)}`,
        headers: auth,
      })),
      ctx.entry('GET /customers/{id}', () => ({ path: `/customers/${encodeURIComponent(pick(ids))}`, headers: auth })),
      ctx.entry('GET /customers/{id}/entitlements?feature=', () => ({
        path: `/customers/${encodeURIComponent(pick(checked))}/entitlements?feature=${encodeURIComponent(feature.code)}`,
        headers: auth,
      })),
    ]);

    return { setup: { fill }, results, goals: HTTP_GOALS };
  },
};

/** The goals of issue 20 for this section: requests per second as a share of GET /health's. */
const HTTP_GOALS = [
  { name: 'GET /customers/{id}', goal: 0.6 },
  { name: 'GET /customers?limit=30', goal: 0.5 },
  { name: 'POST /customers', goal: 0.35 },
  { name: 'GET /customers/{id}/entitlements?feature=', goal: 0.8 },
];
const ENTITLED_CUSTOMERS = 50;

/**
 * Usage ingestion: batches of 1,000 events (and, once the rest is measured, of 10,000) against
 * metered subscription items. Every event id is new, so all are stored; the answers are checked
 * (accepted = sent) and the stored count is read back through the API at the end.
 */
const usageSection = {
  name: 'usage',
  title: 'Usage ingestion (POST /subscriptions/measurements)',
  async run(ctx) {
    const { auth } = await ctx.tenant();
    const call = apiCaller(ctx, auth);
    // Usage is only accepted inside the 35-day window around the tenant's clock: follow the real clock.
    const metered = await benchProduct(ctx, call, { name: 'API calls' });
    const subscriptions = Number(process.env.BENCH_USAGE_SUBSCRIPTIONS ?? 50);
    const items = (await activeSubscriptions(ctx, call, metered, subscriptions, 'usage')).map((s) => s.items[0].id);
    const concurrency = Number(process.env.BENCH_USAGE_CONCURRENCY ?? 4);
    const sizes = [1000, 10_000];
    const batches = sizes.map((batchSize) =>
      ctx.entry(
        `POST /subscriptions/measurements (${batchSize.toLocaleString('en')} events)`,
        (seq) => ({
          method: 'POST',
          path: '/subscriptions/measurements',
          headers: auth,
          body: {
            events: Array.from({ length: batchSize }, (_, k) => ({
              id: `${ctx.runTag}-${batchSize}-${seq}-${k}`,
              subscriptionItem: items[(seq * batchSize + k) % items.length],
              quantity: String(1 + (k % 7)),
            })),
          },
        }),
        { concurrency, isOk: (status) => status === 200, timeoutMs: 120_000 },
      ),
    );
    const measured = await ctx.measureAll([...ctx.baselineEntries(), ...batches]);
    const results = [];
    const rates = [];
    for (const r of measured) {
      const size = sizes[batches.findIndex((b) => b.name === r.name)];
      if (size === undefined) {
        results.push(r);
        continue;
      }
      const eventsPerSecond = r.rps * size;
      log(`usage: ${eventsPerSecond.toFixed(0)} events/s (${r.rps.toFixed(1)} batches/s of ${size} at concurrency ${concurrency})`);
      rates.push({ batchSize: size, eventsPerSecond: Math.round(eventsPerSecond) });
      results.push({ ...r, name: `${r.name} → ${eventsPerSecond.toFixed(0)} events/s` });
    }
    // A repeated batch is counted once: every event of it a duplicate.
    const repeat = {
      events: Array.from({ length: 1000 }, (_, k) => ({ id: `${ctx.runTag}-1000-0-${k}`, subscriptionItem: items[k % items.length], quantity: '1' })),
    };
    const again = await call('POST', '/subscriptions/measurements', repeat);
    const failed = again.accepted !== 0 || again.duplicates !== 1000 ? `a repeated batch was stored again: ${JSON.stringify(again)}` : undefined;
    return {
      setup: { subscriptions, concurrency, rates, goal: USAGE_GOAL },
      results,
      goals: [{ name: 'POST /subscriptions/measurements (1,000 events)', goal: USAGE_GOAL, eventsPerSecond: rates[0].eventsPerSecond }],
      failed,
    };
  },
};
const USAGE_GOAL = 20_000;

const SECTIONS = [httpSection, usageSection, billingSection, webhookSection, documentsSection, paymentsSection, checkoutSection, rateLimitSection, mailSection];

// ---------------------------------------------------------------------------------------------
// Report

function report(section, out) {
  const first = out.results[0];
  process.stdout.write(`\n${section.title}  (closed loop, autocannon, ${first?.seconds.toFixed(1) ?? '-'} s each, in ${first?.rounds ?? 1} rounds)\n`);
  if (out.setup?.fill) {
    const f = out.setup.fill;
    process.stdout.write(`setup: ${f.created} customers in ${f.seconds.toFixed(1)} s (${f.rate.toFixed(0)}/s)${f.failed ? `, ${f.failed} failed` : ''}\n`);
  }
  process.stdout.write('\n');
  printTable(out.results, [
    { title: 'endpoint', value: (r) => r.name },
    { title: 'conns', value: (r) => r.concurrency },
    { title: 'requests', value: (r) => r.requests },
    { title: 'errors', value: (r) => r.errors },
    { title: 'req/s', value: (r) => r.rps, digits: 1 },
    { title: 'p50 ms', value: (r) => r.latencyMs.p50, digits: 2 },
    { title: 'p99 ms', value: (r) => r.latencyMs.p99, digits: 2 },
    ...baselineColumns(out.results),
    ...cpuColumns(out.results),
  ]);
  for (const r of out.results) {
    if (r.errors) process.stdout.write(`  ${r.name}: errors by kind ${JSON.stringify(r.errorKinds)}\n`);
  }
  const health = out.results.find((r) => r.name === HEALTH);
  for (const g of out.goals ?? []) {
    if (g.eventsPerSecond !== undefined) {
      process.stdout.write(`goal: ${g.name} ≥ ${g.goal} events/s: ${g.eventsPerSecond} events/s, ${g.eventsPerSecond >= g.goal ? 'met' : 'NOT met'}\n`);
      continue;
    }
    const row = out.results.find((r) => r.name.startsWith(g.name));
    if (!row || !health) continue;
    const ratio = row.rps / health.rps;
    process.stdout.write(`goal: ${g.name} ≥ ${g.goal} × GET /health: ${ratio.toFixed(3)}x, ${ratio >= g.goal ? 'met' : 'NOT met'}\n`);
  }
}

// ---------------------------------------------------------------------------------------------
// Main

/** The API's compatibility date and flags (wrangler.toml), for the ceiling worker: the same runtime. */
async function sameCompatibility() {
  const toml = await readFile(join(PROJECT_ROOT, 'wrangler.toml'), 'utf8');
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1].match(/"[^"]+"/g)?.map((f) => f.slice(1, -1)) ?? [];
  if (!date) throw new Error('wrangler.toml names no compatibility_date');
  return ['--compatibility-date', date, ...flags.flatMap((f) => ['--compatibility-flags', f])];
}

async function main() {
  const config = readConfig(process.argv.slice(2));
  const unknown = config.sections.filter((s) => !SECTIONS.some((x) => x.name === s));
  if (unknown.length) throw new Error(`Unknown section(s): ${unknown.join(', ')}; known: ${SECTIONS.map((s) => s.name).join(', ')}`);
  const selected = config.sections.length ? SECTIONS.filter((s) => config.sections.includes(s.name)) : SECTIONS;

  const signal = installShutdown();
  let server;
  let ceiling;
  let snapshot;
  let failed = false;
  try {
    let url = config.url;
    if (!url) {
      if (config.snapshot) {
        snapshot = await snapshotProject();
        log(`serving a snapshot of the sources in ${snapshot.dir}`);
      }
      log(`starting wrangler dev on port ${config.port} (fresh temp state)…`);
      server = await startLocalServer({
        cwd: snapshot?.dir,
        port: config.port,
        vars: { ADMIN_TOKEN: config.adminToken, JWT_SECRET: config.jwtSecret, PAYMENT_SECRETS_KEY: config.paymentSecretsKey },
        logLevel: config.wranglerLogLevel,
        verbose: config.verbose,
        keepState: config.keepState,
        inspectorPort: config.inspectorPort,
        signal,
      });
      url = server.url;
      log(`server ready at ${url}`);
    } else {
      const h = await http(url, 'GET', '/health', { timeoutMs: 5_000, signal });
      if (h.status !== 200) throw new Error(`${url}/health: ${describe(h)}`);
    }

    let ceilingUrl = config.ceilingUrl;
    if (!ceilingUrl && !config.url) {
      log(`starting the hello-world worker (platform ceiling) on port ${config.ceilingPort}…`);
      ceiling = await startLocalServer({
        cwd: join(PROJECT_ROOT, 'bench', 'hello'),
        port: config.ceilingPort,
        d1: [],
        extraArgs: await sameCompatibility(),
        logLevel: config.wranglerLogLevel,
        verbose: config.verbose,
        signal,
      });
      ceilingUrl = ceiling.url;
    }

    const ctx = makeContext(config, url, signal, server, ceilingUrl, ceiling?.pid);
    const startedAt = new Date();
    for (const section of selected) {
      const out = await section.run(ctx);
      if (section.report) section.report(out);
      else report(section, out);
      if (config.jsonDir) {
        const path = join(config.jsonDir, `${section.name}-${fileTimestamp(startedAt)}.json`);
        await writeJson(path, {
          section: section.name,
          startedAt: startedAt.toISOString(),
          target: { url, localServer: !config.url },
          node: process.version,
          config: {
            seconds: config.seconds,
            warmupSeconds: config.warmupSeconds,
            concurrency: config.concurrency,
            customers: config.customers,
            fillConcurrency: config.fillConcurrency,
            listPages: config.listPages,
          },
          ...out,
        });
        log(`wrote ${path}`);
      }
      if (out.failed) {
        failed = true;
        log(`${section.name}: ${out.failed}`);
      }
    }
  } catch (err) {
    failed = true;
    if (signal.aborted) log('interrupted');
    else log(`failed: ${err?.stack ?? err}`);
  } finally {
    if (server) {
      log('stopping server…');
      await server.stop();
    }
    await ceiling?.stop();
    await snapshot?.remove();
  }
  process.exitCode = signal.aborted ? 130 : failed ? 1 : 0;
}

await main().catch((err) => {
  log(`failed: ${err?.message ?? err}`);
  process.exitCode = 1;
});
