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
//   BENCH_CONCURRENCY       closed-loop workers per scenario (default 16)
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
//
// Sections: http (endpoints vs GET /health), usage (measurement ingestion), billing (one billing run
// over seeded subscriptions), webhooks (API latency with a slow receiver), documents (PDF + XML
// renders per second, bytes per document, billing rate with rendering on vs off), payments (a camt.053
// of N entries imported and matched against N open invoices, a pain.008 of N debits: time, memory),
// checkout (public cart reads vs GET /health, the open → change → confirm flow), ratelimit (reads with
// the rate limits on and off, restarting the server between).
//
// Adding a section: append an object to
// SECTIONS with { name, title, run(ctx) }. run() returns { setup?, results: [summary…], baseline? }
// where each summary comes from ctx.measure() (or lib.summarize()). ctx gives the target URL,
// admin token, config, the shutdown signal, and memoised shared fixtures: ctx.tenant() and
// ctx.customers() (created on first use, reused by later sections). A section with results of
// another shape brings its own report(out); out.failed (a message) makes the benchmark exit 1.
// ctx.server is the local server handle (persistTo, restart(between, { vars }), extraVars(), pid()) or
// undefined with BENCH_URL; billing and documents need it (they seed the local D1, and documents restarts
// the server with other --vars).

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  BENCH_PLAN,
  PROJECT_ROOT,
  assertLoopback,
  closedLoop,
  envInt,
  fileTimestamp,
  http,
  installShutdown,
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
    customers: Math.floor(envInt('BENCH_CUSTOMERS', 10_000)),
    fillConcurrency: Math.floor(envInt('BENCH_FILL_CONCURRENCY', 16)),
    listPages: Math.floor(envInt('BENCH_LIST_PAGES', 10)),
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

function makeContext(config, url, signal, server) {
  let tenantP;
  let customersP;
  const ctx = {
    url,
    config,
    signal,
    server,
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
          onProgress: (done) => {
            if (done % step === 0 && done < total) log(`  ${done}/${total}`);
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

    /** Closed-loop measurement with the configured duration, warm-up and concurrency. */
    async measure(name, makeRequest, opts = {}) {
      log(`measuring ${name} (${config.seconds} s, concurrency ${config.concurrency})…`);
      const r = await closedLoop({
        name,
        baseUrl: url,
        makeRequest,
        durationMs: config.seconds * 1000,
        warmupMs: config.warmupSeconds * 1000,
        concurrency: config.concurrency,
        signal,
        ...opts,
      });
      if (r.errors) log(`  ${name}: ${r.errors} errors ${JSON.stringify(r.errorKinds)}`);
      return r;
    },
  };
  return ctx;
}

// ---------------------------------------------------------------------------------------------
// Sections

const httpSection = {
  name: 'http',
  title: 'HTTP endpoints',
  baseline: 'GET /health',
  async run(ctx) {
    const { auth } = await ctx.tenant();
    const { ids, fill } = await ctx.customers();
    const pages = Math.max(1, Math.min(ctx.config.listPages, Math.ceil(ids.length / 30)));
    const results = [];

    results.push(await ctx.measure('GET /health', () => ({ path: '/health' })));

    results.push(
      await ctx.measure('POST /customers', (seq) => ({
        method: 'POST',
        path: '/customers',
        headers: auth,
        body: { email: `n-${ctx.runTag}-${seq}@bench.test`, countryCode: 'DE', firstName: 'New', lastName: `Customer${seq}`, companyName: `New Co ${seq}` },
      })),
    );

    results.push(
      await ctx.measure(`GET /customers?limit=30 (pages 1-${pages})`, () => ({
        path: `/customers?limit=30&page=${1 + Math.floor(Math.random() * pages)}`,
        headers: auth,
      })),
    );

    results.push(await ctx.measure('GET /customers/{id}', () => ({ path: `/customers/${encodeURIComponent(pick(ids))}`, headers: auth })));

    return { setup: { fill }, results };
  },
};

/** Usage ingestion: 1,000-event batches against metered subscription items. */
const usageSection = {
  name: 'usage',
  title: 'Usage ingestion (POST /subscriptions/measurements, 1,000 events a batch)',
  async run(ctx) {
    const { auth } = await ctx.tenant();
    const call = async (method, path, body) => {
      const r = await http(ctx.url, method, path, { headers: auth, body, signal: ctx.signal });
      if (r.status >= 300) throw new Error(`${method} ${path}: ${describe(r)}`);
      return r.json;
    };
    // Usage is only accepted inside the 35-day window around the tenant's clock: follow the real clock.
    const family = await call('POST', '/product-families', { name: 'Bench usage' });
    const unit = await call('POST', '/units', { name: 'Call', code: `call-${ctx.runTag}` });
    const measurement = await call('POST', '/measurements', { unit: unit.id, code: `calls-${ctx.runTag}`, aggregationType: 'sum', type: 'metered' });
    const taxGroup = await call('POST', '/tax-groups', { type: 'standard' });
    const product = await call('POST', '/catalogue/products', { name: 'API calls', type: 'product', productFamilies: [family.id], measurement: measurement.id, taxGroup: taxGroup.id });
    const price = await call('POST', '/price-plans', { product: product.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '0.0001' }, billingInterval: '1M' });
    const items = [];
    const subscriptions = Number(process.env.BENCH_USAGE_SUBSCRIPTIONS ?? 50);
    log(`creating ${subscriptions} metered subscriptions…`);
    for (let i = 0; i < subscriptions; i++) {
      const customer = await call('POST', '/customers', { email: `usage-${ctx.runTag}-${i}@bench.test`, countryCode: 'DE' });
      const sub = await call('POST', '/subscriptions', { customer: customer.id, items: [{ product: product.id, pricePlan: price.id }] });
      const active = await call('PUT', `/subscriptions/${sub.id}/activate`, {});
      items.push(active.items[0].id);
    }
    const batchSize = 1000;
    const concurrency = Number(process.env.BENCH_USAGE_CONCURRENCY ?? 4);
    let accepted = 0;
    const r = await ctx.measure(
      `POST /subscriptions/measurements (${batchSize} events)`,
      (seq) => ({
        method: 'POST',
        path: '/subscriptions/measurements',
        headers: auth,
        body: {
          events: Array.from({ length: batchSize }, (_, k) => ({
            id: `${ctx.runTag}-${seq}-${k}`,
            subscriptionItem: items[(seq * batchSize + k) % items.length],
            quantity: String(1 + (k % 7)),
          })),
        },
      }),
      { concurrency, isOk: (status) => status === 200 },
    );
    accepted = r.requests * batchSize;
    const eventsPerSecond = r.rps * batchSize;
    log(`usage: ${eventsPerSecond.toFixed(0)} events/s (${r.rps.toFixed(1)} batches/s at concurrency ${concurrency}, ~${accepted} events)`);
    return { setup: { subscriptions, concurrency, eventsPerSecond: Math.round(eventsPerSecond) }, results: [{ ...r, name: `${r.name} → ${eventsPerSecond.toFixed(0)} events/s` }] };
  },
};

const SECTIONS = [httpSection, usageSection, billingSection, webhookSection, documentsSection, paymentsSection, checkoutSection, rateLimitSection];

// ---------------------------------------------------------------------------------------------
// Report

function report(section, out) {
  const base = out.results.find((r) => r.name === section.baseline) ?? out.results[0];
  process.stdout.write(`\n${section.title}  (closed loop, ${out.results[0]?.concurrency ?? '-'} concurrent, ${out.results[0]?.seconds.toFixed(1) ?? '-'} s each)\n`);
  if (out.setup?.fill) {
    const f = out.setup.fill;
    process.stdout.write(`setup: ${f.created} customers in ${f.seconds.toFixed(1)} s (${f.rate.toFixed(0)}/s)${f.failed ? `, ${f.failed} failed` : ''}\n`);
  }
  process.stdout.write('\n');
  printTable(out.results, [
    { title: 'endpoint', value: (r) => r.name },
    { title: 'requests', value: (r) => r.requests },
    { title: 'errors', value: (r) => r.errors },
    { title: 'req/s', value: (r) => r.rps, digits: 1 },
    { title: 'p50 ms', value: (r) => r.latencyMs.p50, digits: 2 },
    { title: 'p99 ms', value: (r) => r.latencyMs.p99, digits: 2 },
    { title: `vs ${base?.name ?? 'base'}`, value: (r) => (base?.rps ? `${(r.rps / base.rps).toFixed(3)}x` : '-') },
  ]);
  for (const r of out.results) {
    if (r.errors) process.stdout.write(`  ${r.name}: errors by kind ${JSON.stringify(r.errorKinds)}\n`);
  }
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  const config = readConfig(process.argv.slice(2));
  const unknown = config.sections.filter((s) => !SECTIONS.some((x) => x.name === s));
  if (unknown.length) throw new Error(`Unknown section(s): ${unknown.join(', ')}; known: ${SECTIONS.map((s) => s.name).join(', ')}`);
  const selected = config.sections.length ? SECTIONS.filter((s) => config.sections.includes(s.name)) : SECTIONS;

  const signal = installShutdown();
  let server;
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
        signal,
      });
      url = server.url;
      log(`server ready at ${url}`);
    } else {
      const h = await http(url, 'GET', '/health', { timeoutMs: 5_000, signal });
      if (h.status !== 200) throw new Error(`${url}/health: ${describe(h)}`);
    }

    const ctx = makeContext(config, url, signal, server);
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
    await snapshot?.remove();
  }
  process.exitCode = signal.aborted ? 130 : failed ? 1 : 0;
}

await main().catch((err) => {
  log(`failed: ${err?.message ?? err}`);
  process.exitCode = 1;
});
