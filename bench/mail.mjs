// Section `mail` (issue 22): POST /public/customer/request-otp answers a customer's address and a
// stranger's in the same time (docs/decisions.md, Mail: no timing oracle). Two views:
// - Probes, as someone asking about addresses would: one request at a time, a customer's and a
//   stranger's alternating, a pause after each (so the work a customer's request leaves behind is
//   done before the next one), each answer timed. Their latency percentiles, and their ratio.
// - Saturation, in turns in the same run: GET /health, request-otp for customers' addresses (a
//   random one of BENCH_MAIL_CUSTOMERS each, so most get a code and a mail after the answer, the
//   rest are past the hourly limit) and for addresses no customer has, closed loops of
//   BENCH_CONCURRENCY. Here the customers' after-answer work competes with the next requests for
//   the same Worker: a capacity signal, which the public rate limit keeps anyone from producing.
// Every request comes from its own client address, so the rate limit refuses none. The section
// fails on a refused or wrong answer, never on a time.
//
// Environment:
//   BENCH_MAIL_CUSTOMERS   customers whose addresses are asked for (default 300)
//   BENCH_MAIL_RUNS        saturation runs, each with its own baselines (default 2; 0: probes only)
//   BENCH_MAIL_PROBES      probe pairs (default 200)
//   BENCH_MAIL_PAUSE_MS    pause after each probe (default 100)

import { benchTenant, buyerAddress, envInt, HEALTH, http, pool, printTable, baselineColumns, cpuColumns, summarize } from './lib.mjs';

const log = (msg) => process.stderr.write(`bench: ${msg}\n`);
const KNOWN = 'POST /public/customer/request-otp (customer)';
const UNKNOWN = 'POST /public/customer/request-otp (stranger)';

export const mailSection = {
  name: 'mail',
  title: 'One-time code requests: a customer’s address against a stranger’s, and GET /health, in the same run',
  async run(ctx) {
    const customerCount = envInt('BENCH_MAIL_CUSTOMERS', 300);
    const runCount = envInt('BENCH_MAIL_RUNS', 2, 0);
    const { tenantId, call } = await benchTenant(ctx, 'Bench mail');
    log(`creating ${customerCount} customers…`);
    const made = await pool({
      total: customerCount,
      concurrency: 8,
      signal: ctx.signal,
      task: async (i) => (await call('POST', '/customers', { email: `otp-${ctx.runTag}-${i}@bench.test`, countryCode: 'DE' })).email,
    });
    if (made.failures.length) throw made.failures[0].error;
    const emails = made.results;
    const request = (email) => ({
      method: 'POST',
      path: '/public/customer/request-otp',
      headers: { 'X-Tenant-Id': tenantId, ...buyerAddress() },
      body: { email },
    });
    const isOk = (status) => status === 200;
    let stranger = 0;
    const strangerEmail = () => `nobody-${ctx.runTag}-${stranger++}@bench.test`;
    const customerEmail = () => emails[Math.floor(Math.random() * emails.length)];

    const probes = envInt('BENCH_MAIL_PROBES', 200);
    const pauseMs = envInt('BENCH_MAIL_PAUSE_MS', 100, 0);
    log(`${probes} probe pairs, one request at a time, ${pauseMs} ms apart…`);
    const timed = { customer: [], stranger: [] };
    let probeErrors = 0;
    const probeStart = process.hrtime.bigint();
    for (let i = 0; i < probes && !ctx.signal.aborted; i++) {
      // Alternating which goes first, so neither always follows the other's leftover work.
      const order = i % 2 ? ['stranger', 'customer'] : ['customer', 'stranger'];
      for (const who of order) {
        const spec = request(who === 'customer' ? customerEmail() : strangerEmail());
        const r = await http(ctx.url, spec.method, spec.path, { headers: spec.headers, body: spec.body, signal: ctx.signal });
        if (r.status !== 200 || r.json?.success !== true) probeErrors++;
        timed[who].push(r.ms);
        await new Promise((done) => setTimeout(done, pauseMs));
      }
    }
    const probeMs = Number(process.hrtime.bigint() - probeStart) / 1e6;
    const probeSummary = (name, list) => summarize(name, list, { errors: 0, errorKinds: {}, elapsedMs: probeMs, concurrency: 1 });
    const probeResults = [probeSummary(KNOWN, timed.customer), probeSummary(UNKNOWN, timed.stranger)];

    const runs = [];
    for (let i = 0; i < runCount && !ctx.signal.aborted; i++) {
      log(`mail run ${i + 1}/${runCount}…`);
      const results = await ctx.measureAll([
        ...ctx.baselineEntries(),
        ctx.entry(KNOWN, () => request(customerEmail()), { isOk }),
        ctx.entry(UNKNOWN, () => request(strangerEmail()), { isOk }),
      ]);
      const row = (name) => results.find((r) => r.name === name);
      const known = row(KNOWN);
      const unknown = row(UNKNOWN);
      runs.push({
        results,
        ratios: {
          rps: known.rps / unknown.rps,
          p50: known.latencyMs.p50 / unknown.latencyMs.p50,
          p90: known.latencyMs.p90 / unknown.latencyMs.p90,
          p99: known.latencyMs.p99 / unknown.latencyMs.p99,
        },
      });
    }
    const errors = probeErrors + runs.flatMap((r) => r.results).filter((r) => r.name !== HEALTH).reduce((n, r) => n + r.errors, 0);
    return { setup: { customers: customerCount, runs: runCount, probes, pauseMs }, probeResults, runs, results: runs.at(-1)?.results ?? probeResults, failed: errors ? `${errors} request-otp answers were not 200 {success: true}` : undefined };
  },

  report(out) {
    const [known, unknown] = out.probeResults;
    process.stdout.write(`\n${this.title}\n\nprobes: ${out.setup.probes} pairs, one request at a time, ${out.setup.pauseMs} ms apart\n`);
    printTable(out.probeResults, [
      { title: 'probe', value: (r) => r.name },
      { title: 'n', value: (r) => r.requests },
      { title: 'p50 ms', value: (r) => r.latencyMs.p50, digits: 2 },
      { title: 'p90 ms', value: (r) => r.latencyMs.p90, digits: 2 },
      { title: 'p99 ms', value: (r) => r.latencyMs.p99, digits: 2 },
      { title: 'mean ms', value: (r) => r.latencyMs.mean, digits: 2 },
    ]);
    process.stdout.write(`customer / stranger: p50 ${(known.latencyMs.p50 / unknown.latencyMs.p50).toFixed(3)}, p90 ${(known.latencyMs.p90 / unknown.latencyMs.p90).toFixed(3)}, mean ${(known.latencyMs.mean / unknown.latencyMs.mean).toFixed(3)}\n`);
    if (!out.runs.length) return void process.stdout.write('\n');
    const base = out.runs[0].results[0];
    process.stdout.write(`\nsaturation: closed loops, autocannon, ${base.concurrency} connections, ${base.seconds.toFixed(1)} s each in ${base.rounds ?? 1} rounds, ${out.runs.length} runs\n`);
    out.runs.forEach((run, i) => {
      process.stdout.write(`\nrun ${i + 1}\n`);
      printTable(run.results, [
        { title: 'endpoint', value: (r) => r.name },
        { title: 'requests', value: (r) => r.requests },
        { title: 'errors', value: (r) => r.errors },
        { title: 'req/s', value: (r) => r.rps, digits: 1 },
        { title: 'p50 ms', value: (r) => r.latencyMs.p50, digits: 2 },
        { title: 'p90 ms', value: (r) => r.latencyMs.p90, digits: 2 },
        { title: 'p99 ms', value: (r) => r.latencyMs.p99, digits: 2 },
        ...baselineColumns(run.results),
        ...cpuColumns(run.results),
      ]);
      const r = run.ratios;
      process.stdout.write(`customer / stranger: req/s ${r.rps.toFixed(3)}, p50 ${r.p50.toFixed(3)}, p90 ${r.p90.toFixed(3)}, p99 ${r.p99.toFixed(3)}\n`);
    });
    process.stdout.write('\n');
  },
};
