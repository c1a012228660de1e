// Section `ratelimit` (issue 20, "Scale"): what the rate limiter costs a request. The same reads
// with the limits on and off — the server restarted over the same state, with RATE_LIMIT_PLANS,
// RATE_LIMIT_PUBLIC and RATE_LIMIT_PUBLIC_CREATE emptied for "off", which leaves nothing limited
// (docs/decisions.md, Rate limits) — each against GET /health in the same round, rounds alternating.
//
// Measured per round and mode (closed loop, BENCH_SECONDS, BENCH_CONCURRENCY, the run's warm-up):
// GET /health, GET /customers/{id}, GET /customers?limit=30, POST /customers and the entitlement
// check (an API key on the bench plan, never refused; the write waits for the binding's verdict,
// the reads do not), and GET /public/checkout/cart/{id} and the cart's hosted page, each cart read
// from its buyer's address (BENCH_RATE_LIMIT_CARTS
// buyers, none near the public limit). Under `wrangler dev` every `limit()` is a call to miniflare's
// simulation, one Durable Object per binding that writes each count to disk; Cloudflare answers it
// on the machine that runs the Worker.
// The section fails on a refused or wrong answer, never on a time.
//
// Environment:
//   BENCH_RATE_LIMIT_ROUNDS     on/off rounds (default 2)
//   BENCH_RATE_LIMIT_CUSTOMERS  customers read by id (default 300)
//   BENCH_RATE_LIMIT_CARTS      carts read (default 100)

import { benchTenant, buyerAddress, envInt, pool, printTable } from './lib.mjs';
import { benchCheckoutLink, openCart } from './checkout.mjs';

const log = (msg) => process.stderr.write(`bench: ${msg}\n`);
const pick = (arr) => arr[Math.floor(Math.random() * arr.length)];
const OFF = { RATE_LIMIT_PLANS: '', RATE_LIMIT_PUBLIC: '', RATE_LIMIT_PUBLIC_CREATE: '' };

export const rateLimitSection = {
  name: 'ratelimit',
  title: 'Rate limiter: reads with the limits on and off, against GET /health in the same round',
  async run(ctx) {
    if (!ctx.server) throw new Error('the ratelimit section restarts its server: run it without BENCH_URL');
    const rounds = envInt('BENCH_RATE_LIMIT_ROUNDS', 2);
    const customerCount = envInt('BENCH_RATE_LIMIT_CUSTOMERS', 300);
    const cartCount = envInt('BENCH_RATE_LIMIT_CARTS', 100);

    const { auth, call } = await benchTenant(ctx, 'Bench rate limits');
    log(`creating ${customerCount} customers and opening ${cartCount} carts…`);
    const made = await pool({
      label: 'customers',
      total: customerCount,
      concurrency: 8,
      signal: ctx.signal,
      task: async (i) => (await call('POST', '/customers', { email: `rl-${ctx.runTag}-${i}@bench.test`, countryCode: 'DE' })).id,
    });
    if (made.failures.length) throw made.failures[0].error;
    const customers = made.results;
    // The entitlement check (answered from the isolate's cache after the first read of a pair).
    const feature = await call('POST', '/entitlement/features', { code: `rl-${ctx.runTag}`, name: 'Rate limit bench feature', type: 'switch' });
    const linkPath = await benchCheckoutLink(ctx);
    // Each cart is a buyer's, read from the buyer's address.
    const carts = [];
    for (let i = 0; i < cartCount; i++) {
      const buyer = buyerAddress();
      carts.push({ id: await openCart(ctx, linkPath, buyer), buyer });
    }

    const ok = (status) => status === 200;
    const results = [];
    for (let round = 1; round <= rounds; round++) {
      for (const mode of ['on', 'off']) {
        await ctx.server.restart(undefined, { vars: mode === 'on' ? {} : OFF });
        const tag = `${mode} #${round}`;
        const health = await ctx.measure(`GET /health (${tag})`, () => ({ path: '/health' }), { isOk: ok });
        const byId = await ctx.measure(`GET /customers/{id} (${tag})`, () => ({ path: `/customers/${encodeURIComponent(pick(customers))}`, headers: auth }), { isOk: ok });
        const list = await ctx.measure(`GET /customers?limit=30 (${tag})`, () => ({ path: '/customers?limit=30', headers: auth }), { isOk: ok });
        // A write waits for the binding's verdict.
        const write = await ctx.measure(
          `POST /customers (${tag})`,
          (seq) => ({ method: 'POST', path: '/customers', headers: auth, body: { email: `rl-${ctx.runTag}-${round}-${mode}-${seq}@bench.test`, countryCode: 'DE' } }),
          { isOk: (status) => status === 201 },
        );
        const cart = await ctx.measure(
          `GET /public/checkout/cart/{id} (${tag})`,
          () => {
            const { id, buyer } = pick(carts);
            return { path: `/public/checkout/cart/${encodeURIComponent(id)}`, headers: buyer };
          },
          { isOk: ok },
        );
        const page = await ctx.measure(
          `GET /checkout/cart/{id} (HTML page) (${tag})`,
          () => {
            const { id, buyer } = pick(carts);
            return { path: `/checkout/cart/${encodeURIComponent(id)}`, headers: buyer };
          },
          { isOk: ok },
        );
        const entitlement = await ctx.measure(
          `GET /customers/{id}/entitlements?feature= (${tag})`,
          () => ({ path: `/customers/${encodeURIComponent(pick(customers))}/entitlements?feature=${encodeURIComponent(feature.code)}`, headers: auth }),
          { isOk: ok },
        );
        for (const r of [health, byId, list, write, cart, page, entitlement]) results.push({ ...r, mode, round, vsHealth: r.rps / health.rps });
      }
    }
    if (Object.keys(ctx.server.extraVars()).length) await ctx.server.restart(undefined, { vars: {} });

    const mean = (mode, prefix) => {
      const rows = results.filter((r) => r.mode === mode && r.name.startsWith(`${prefix} (`));
      return rows.reduce((sum, r) => sum + r.vsHealth, 0) / rows.length;
    };
    // Issue 20's goals, as shares of GET /health.
    const goals = {
      'GET /customers/{id}': 0.6,
      'GET /customers?limit=30': 0.5,
      'POST /customers': 0.35,
      'GET /customers/{id}/entitlements?feature=': 0.8,
      'GET /public/checkout/cart/{id}': 0.8,
      'GET /checkout/cart/{id} (HTML page)': 0.6,
    };
    const summary = Object.entries(goals).map(([name, goal]) => ({ name, goal, on: mean('on', name), off: mean('off', name) }));
    const errors = results.reduce((n, r) => n + r.errors, 0);
    return { setup: { rounds, customers: customers.length, carts: carts.length }, results, summary, failed: errors ? `${errors} refused or failed reads` : undefined };
  },

  report(out) {
    process.stdout.write(`\n${this.title}  (closed loop, ${out.results[0]?.concurrency ?? '-'} concurrent, ${out.results[0]?.seconds.toFixed(1) ?? '-'} s each)\n\n`);
    printTable(out.results, [
      { title: 'endpoint (limits, round)', value: (r) => r.name },
      { title: 'requests', value: (r) => r.requests },
      { title: 'errors', value: (r) => r.errors },
      { title: 'req/s', value: (r) => r.rps, digits: 1 },
      { title: 'p50 ms', value: (r) => r.latencyMs.p50, digits: 2 },
      { title: 'p99 ms', value: (r) => r.latencyMs.p99, digits: 2 },
      { title: 'vs GET /health', value: (r) => `${r.vsHealth.toFixed(3)}x` },
    ]);
    process.stdout.write('\nmean of the rounds, vs GET /health\n\n');
    printTable(out.summary, [
      { title: 'endpoint', value: (r) => r.name },
      { title: 'limits on', value: (r) => `${r.on.toFixed(3)}x` },
      { title: 'limits off', value: (r) => `${r.off.toFixed(3)}x` },
      { title: 'on / off', value: (r) => `${(r.on / r.off).toFixed(2)}` },
      { title: 'goal', value: (r) => `${r.goal.toFixed(2)}x` },
    ]);
  },
};
