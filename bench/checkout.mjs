// Section `checkout` (issue 15, "Low latency"): public cart reads against GET /health in the same
// run, and the time of a buyer's whole flow.
//
// Setup: a test-mode tenant of its own with a per-seat monthly plan (10.00 EUR) and a checkout link
// with an editable quantity; BENCH_CHECKOUT_CARTS carts opened through the hosted page
// (GET /checkout/{tenant}/{slug} → 303 to /checkout/cart/{id}).
//
// Measured (closed loop, BENCH_SECONDS, BENCH_CONCURRENCY, the run's warm-up), BENCH_CHECKOUT_RUNS times:
//   1. GET /health and the hello-world worker's (the platform's ceiling): the baselines of the run,
//      measured in turns with 2. and 3. (BENCH_ROUNDS);
//   2. GET /public/checkout/cart/{id} over the opened carts (a read that must not touch D1: the cart
//      is served by its Durable Object) — goal: at least 0.8 of /health's requests per second, in
//      every run;
//   3. GET /checkout/cart/{id}: the same read rendered as the HTML page — goal: at least 0.6;
//   4. BENCH_CHECKOUT_FLOWS buyer flows one after another: open the link (the page's redirect),
//      read the cart, PUT …/change-quantity, PUT …/confirm (testing gateway): each flow timed as a
//      whole, plus its steps. Every confirmed cart must read back `completed` or `paid`.
// The section fails on a wrong answer (a cart read that is not 200 with the cart, a flow step that
// is refused), never on a time; the throughput goal is printed with its ratio.
//
// Environment:
//   BENCH_CHECKOUT_CARTS   carts opened for the read measurements (default 200)
//   BENCH_CHECKOUT_FLOWS   open → change → confirm flows timed (default 20)
//   BENCH_CHECKOUT_RUNS    runs of the read measurements (1–3 below), each with its own baselines (default 5)

import { CEILING, HEALTH, assertLoopback, baselineColumns, benchTenant, buyerAddress, cpuColumns, envInt, http, msSince, printTable, summarize } from './lib.mjs';

const log = (msg) => process.stderr.write(`bench: ${msg}\n`);
const describe = (r) => `HTTP ${r.status} ${r.text.length > 300 ? r.text.slice(0, 300) + '…' : r.text}`;
const pick = (arr) => arr[Math.floor(Math.random() * arr.length)];
const GOAL = 0.8;
const PAGE_GOAL = 0.6;
const CART_READ = 'GET /public/checkout/cart/{id}';
const PAGE_READ = 'GET /checkout/cart/{id} (HTML page)';

/** Opens a cart through the hosted page as `buyer` (a client address): the cart id from the page's 303. */
export async function openCart(ctx, linkPath, buyer = buyerAddress()) {
  const origin = assertLoopback(ctx.url);
  const res = await fetch(origin + linkPath, { redirect: 'manual', headers: buyer, signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(30_000)]) });
  await res.arrayBuffer();
  const location = res.headers.get('location') ?? '';
  const m = /^\/checkout\/cart\/([^/?#]+)/.exec(location);
  if (res.status !== 303 || !m) throw new Error(`GET ${linkPath}: HTTP ${res.status}, Location ${JSON.stringify(location)}`);
  return decodeURIComponent(m[1]);
}

/** A tenant of its own with a per-seat monthly plan (10.00 EUR) and a checkout link selling it: the link's path. */
export async function benchCheckoutLink(ctx) {
  const { call } = await benchTenant(ctx, 'Bench checkout');
  const family = await call('POST', '/product-families', { name: 'Bench checkout' });
  const unit = await call('POST', '/units', { name: 'Seat', code: `seat-${ctx.runTag}` });
  const measurement = await call('POST', '/measurements', { unit: unit.id, code: `seats-${ctx.runTag}`, aggregationType: 'last_value', type: 'recurring' });
  const taxGroup = await call('POST', '/tax-groups', { type: 'standard' });
  const product = await call('POST', '/catalogue/products', { name: 'Team plan', type: 'product', productFamilies: [family.id], measurement: measurement.id, taxGroup: taxGroup.id });
  const price = await call('POST', '/price-plans', { product: product.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '10.00' }, billingInterval: '1M' });
  const link = await call('POST', '/checkout-links', {
    slug: `bench-${ctx.runTag}`,
    items: [{ product: product.id, price: price.id, quantity: 1 }],
    options: { trialDays: 0, allowCoupons: true, quantityEditable: true, forceCompany: false },
    afterCheckout: { action: 'confirmation_message', confirmationMessage: 'Thanks' },
  });
  return new URL(link.url).pathname;
}

export const checkoutSection = {
  name: 'checkout',
  title: 'Checkout: public cart reads vs GET /health, and the buyer flow',
  async run(ctx) {
    const carts = envInt('BENCH_CHECKOUT_CARTS', 200);
    const flows = envInt('BENCH_CHECKOUT_FLOWS', 20);
    const runCount = Math.floor(envInt('BENCH_CHECKOUT_RUNS', 5));
    const linkPath = await benchCheckoutLink(ctx);

    log(`opening ${carts} carts through ${linkPath}…`);
    const t0 = process.hrtime.bigint();
    // Each cart is a buyer's, read from the buyer's address (the public routes count per address).
    const opened = [];
    for (let i = 0; i < carts; i++) {
      const buyer = buyerAddress();
      opened.push({ id: await openCart(ctx, linkPath, buyer), buyer });
    }
    const ids = opened.map((o) => o.id);
    const openSeconds = msSince(t0) / 1000;
    // A read must answer the cart itself, not just any 200.
    const sample = await http(ctx.url, 'GET', `/public/checkout/cart/${encodeURIComponent(ids[0])}`, { headers: opened[0].buyer, signal: ctx.signal });
    if (sample.status !== 200 || sample.json?.id !== ids[0]) throw new Error(`GET /public/checkout/cart/{id}: ${describe(sample)}`);

    // Each run measures its own baselines next to the reads: the goal holds per run, not on average.
    const runs = [];
    for (let i = 0; i < runCount; i++) {
      log(`checkout run ${i + 1}/${runCount}…`);
      const buyersRead = (path) => () => {
        const { id, buyer } = pick(opened);
        return { path: `${path}${encodeURIComponent(id)}`, headers: buyer };
      };
      const results = await ctx.measureAll([
        ...ctx.baselineEntries(),
        ctx.entry(CART_READ, buyersRead('/public/checkout/cart/')),
        ctx.entry(PAGE_READ, buyersRead('/checkout/cart/')),
      ]);
      const rps = (name) => results.find((r) => r.name === name)?.rps;
      runs.push({ results, cartRatio: rps(CART_READ) / rps(HEALTH), pageRatio: rps(PAGE_READ) / rps(HEALTH) });
    }

    log(`timing ${flows} open → change → confirm flows…`);
    const whole = [];
    const steps = { open: [], read: [], change: [], confirm: [] };
    const failures = [];
    const flowStart = process.hrtime.bigint();
    for (let i = 0; i < flows && !ctx.signal.aborted; i++) {
      const f0 = process.hrtime.bigint();
      // One buyer (one address) per flow.
      const buyer = buyerAddress();
      try {
        const id = await openCart(ctx, linkPath, buyer);
        steps.open.push(msSince(f0));
        // The buyer's page reads the cart (its item ids are the cart's own).
        const r0 = process.hrtime.bigint();
        const cart = await http(ctx.url, 'GET', `/public/checkout/cart/${encodeURIComponent(id)}`, { headers: buyer, signal: ctx.signal });
        steps.read.push(msSince(r0));
        if (cart.status !== 200 || !cart.json?.items?.[0]?.id) throw new Error(`read: ${describe(cart)}`);
        const c0 = process.hrtime.bigint();
        const changed = await http(ctx.url, 'PUT', `/public/checkout/cart/${encodeURIComponent(id)}/change-quantity`, { headers: buyer, body: { cartItemId: cart.json.items[0].id, quantity: 3 }, signal: ctx.signal });
        steps.change.push(msSince(c0));
        if (changed.status !== 200 || changed.json?.items?.[0]?.quantity !== 3) throw new Error(`change-quantity: ${describe(changed)}`);
        const k0 = process.hrtime.bigint();
        const confirmed = await http(ctx.url, 'PUT', `/public/checkout/cart/${encodeURIComponent(id)}/confirm`, {
          headers: buyer,
          body: {
            email: `flow-${ctx.runTag}-${i}@bench.test`,
            newInvoiceAddress: { street: 'Hauptstraße', houseNumber: '1', zip: '10115', city: 'Berlin', countryCode: 'DE', firstName: 'Bench', lastName: `Buyer ${i}` },
            newPaymentMethod: { type: 'fake_provider' },
          },
          signal: ctx.signal,
        });
        steps.confirm.push(msSince(k0));
        if (confirmed.status !== 200 || !['completed', 'paid'].includes(confirmed.json?.status)) throw new Error(`confirm: ${describe(confirmed)}`);
        whole.push(msSince(f0));
      } catch (err) {
        failures.push(err.message);
        if (failures.length >= 3) break;
      }
    }
    const flowElapsed = msSince(flowStart);
    const flowSummary = (name, list) => summarize(name, list, { errors: failures.length, errorKinds: failures.length ? { refused: failures.length } : {}, elapsedMs: flowElapsed, concurrency: 1 });
    const flowResults = [
      flowSummary('open → read → change → confirm', whole),
      flowSummary('  open (GET /checkout/{tenant}/{slug})', steps.open),
      flowSummary('  GET /public/checkout/cart/{id}', steps.read),
      flowSummary('  PUT …/change-quantity', steps.change),
      flowSummary('  PUT …/confirm', steps.confirm),
    ];

    const readErrors = runs.flatMap((r) => r.results).filter((r) => r.name !== HEALTH && r.name !== CEILING).reduce((n, r) => n + r.errors, 0);
    const failed = [readErrors ? `${readErrors} failed cart reads` : null, failures.length ? `flow refused: ${failures[0]}` : null].filter(Boolean).join('; ') || undefined;
    return { setup: { carts, openSeconds, flows, flowsCompleted: whole.length, runs: runCount }, runs, results: runs.at(-1).results, flowResults, goal: GOAL, pageGoal: PAGE_GOAL, failed };
  },

  report(out) {
    const base = out.runs[0].results[0];
    process.stdout.write(`\n${this.title}  (closed loop, autocannon, ${base.concurrency} connections, ${base.seconds.toFixed(1)} s each in ${base.rounds ?? 1} rounds, ${out.runs.length} runs)\n`);
    process.stdout.write(`setup: ${out.setup.carts} carts opened through the hosted page in ${out.setup.openSeconds.toFixed(1)} s\n`);
    out.runs.forEach((run, i) => {
      process.stdout.write(`\nrun ${i + 1}\n`);
      printTable(run.results, [
        { title: 'endpoint', value: (r) => r.name },
        { title: 'requests', value: (r) => r.requests },
        { title: 'errors', value: (r) => r.errors },
        { title: 'req/s', value: (r) => r.rps, digits: 1 },
        { title: 'p50 ms', value: (r) => r.latencyMs.p50, digits: 2 },
        { title: 'p99 ms', value: (r) => r.latencyMs.p99, digits: 2 },
        ...baselineColumns(run.results),
        ...cpuColumns(run.results),
      ]);
    });
    const cart = out.runs.map((r) => r.cartRatio);
    const page = out.runs.map((r) => r.pageRatio);
    const list = (xs) => xs.map((x) => x.toFixed(3)).join(', ');
    process.stdout.write(`\ncart read vs GET /health per run: ${list(cart)}; lowest ${Math.min(...cart).toFixed(3)} (goal ≥ ${out.goal} in every run): ${cart.every((x) => x >= out.goal) ? 'met' : 'NOT met'}\n`);
    process.stdout.write(`hosted page vs GET /health per run: ${list(page)}; lowest ${Math.min(...page).toFixed(3)} (goal ≥ ${out.pageGoal}): ${page.every((x) => x >= out.pageGoal) ? 'met' : 'NOT met'}\n\n`);
    process.stdout.write(`buyer flows, one after another: ${out.setup.flowsCompleted}/${out.setup.flows} completed\n\n`);
    printTable(out.flowResults, [
      { title: 'flow', value: (r) => r.name },
      { title: 'n', value: (r) => r.requests },
      { title: 'p50 ms', value: (r) => r.latencyMs.p50, digits: 1 },
      { title: 'p99 ms', value: (r) => r.latencyMs.p99, digits: 1 },
      { title: 'max ms', value: (r) => r.latencyMs.max, digits: 1 },
      { title: 'p50 in /health p50s', value: (r) => (r.requests ? `${(r.latencyMs.p50 / base.latencyMs.p50).toFixed(1)}x` : '-') },
    ]);
  },
};
