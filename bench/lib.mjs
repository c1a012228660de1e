// Benchmark toolkit: local server start/stop, closed-loop HTTP load (autocannon), a bounded worker
// pool and table/JSON output. Single requests go through global fetch (undici, keep-alive).
//
// Safety rules kept by every function here:
//   - only loopback URLs are ever requested (assertLoopback);
//   - every loop ends by itself (deadline or item count), every request has a timeout;
//   - only processes started here are killed, by their own process group id.

import { spawn } from 'node:child_process';
import { mkdtemp, rm, mkdir, writeFile, readFile, cp, symlink } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import nodeHttp from 'node:http';
import { setMaxListeners } from 'node:events';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { projectShards } from '../scripts/lib/shards.mjs';
import autocannon from 'autocannon';
import cliProgress from 'cli-progress';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// ---------------------------------------------------------------------------------------------
// Small helpers

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Like sleep, but does not keep the process alive (for races against another promise). */
const sleepUnref = (ms) => new Promise((r) => setTimeout(r, ms).unref());

/** Elapsed milliseconds since a process.hrtime.bigint() reading. */
export const msSince = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

/** Integer from env, with a default and a lower bound; a bad value is an error, not a silent default. */
export function envInt(name, fallback, min = 1) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Throws unless the URL points at this machine (the benchmark never contacts anything else). */
export function assertLoopback(url) {
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`Unsupported protocol in ${url}`);
  if (!LOOPBACK_HOSTS.has(u.hostname) && !/^127\.\d+\.\d+\.\d+$/.test(u.hostname)) {
    throw new Error(`Refusing to benchmark ${u.origin}: only localhost targets are allowed.`);
  }
  return u.origin;
}

/** Process-wide shutdown switch: SIGINT/SIGTERM abort it; loops check it between requests. */
export function installShutdown({ onForce } = {}) {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal); // every in-flight request listens to it
  let count = 0;
  const handler = (sig) => {
    count += 1;
    if (count === 1) {
      process.stderr.write(`\n${sig}: stopping (press again to force)…\n`);
      controller.abort(new Error(`Interrupted by ${sig}`));
    } else {
      onForce?.();
      killAllChildrenSync();
      process.exit(130);
    }
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return controller.signal;
}

// ---------------------------------------------------------------------------------------------
// HTTP

/** fetch (undici) gives up on a response whose headers take longer than this (its headersTimeout). */
const FETCH_HEADERS_LIMIT_MS = 290_000;

/** One request through node:http (no headers timeout of its own; `signal` bounds it). */
function nodeHttpRequest(url, { method, headers, body, signal }) {
  return new Promise((resolvePromise, reject) => {
    const req = nodeHttp.request(url, { method, headers, agent: false, signal }, (res) => {
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolvePromise({ status: res.statusCode, text }));
      res.on('error', reject);
    });
    req.on('error', (err) => reject(signal?.aborted ? signal.reason : err));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/**
 * One request with a timeout; returns { status, ok, json, text, ms }. Body is always consumed so the
 * keep-alive connection goes back to the pool. A timeout above fetch's own 300 s headers limit (a
 * long synchronous call such as a billing run) goes through node:http on a fresh connection instead.
 */
export async function http(baseUrl, method, path, { headers = {}, body, timeoutMs = 30_000, signal } = {}) {
  assertLoopback(baseUrl);
  if (signal?.aborted) throw signal.reason;
  const h = { ...headers };
  let payload;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    h['Content-Type'] ??= 'application/json';
  }
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new Error(`timeout after ${timeoutMs} ms`)), timeoutMs);
  const onAbort = () => ctl.abort(signal.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const t0 = process.hrtime.bigint();
  try {
    let status;
    let text;
    if (timeoutMs > FETCH_HEADERS_LIMIT_MS) {
      ({ status, text } = await nodeHttpRequest(baseUrl + path, { method, headers: h, body: payload, signal: ctl.signal }));
    } else {
      const res = await fetch(baseUrl + path, { method, headers: h, body: payload, signal: ctl.signal });
      status = res.status;
      text = await res.text();
    }
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status, ok: status >= 200 && status < 300, json, text, ms: msSince(t0) };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

// ---------------------------------------------------------------------------------------------
// Statistics

/** Nearest-rank percentile of an ascending-sorted array. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function summarize(name, latenciesMs, { errors, errorKinds, elapsedMs, concurrency, extra = {} }) {
  const sorted = Float64Array.from(latenciesMs).sort();
  const requests = sorted.length + (errorKinds.network ?? 0);
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    name,
    requests,
    errors,
    errorKinds,
    seconds: elapsedMs / 1000,
    concurrency,
    rps: requests / (elapsedMs / 1000),
    latencyMs: {
      // Latencies cover every request that got an HTTP response (2xx or not); network failures have none.
      mean: sorted.length ? sum / sorted.length : NaN,
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted.length ? sorted[sorted.length - 1] : NaN,
    },
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------------
// Load generation

/**
 * Closed-loop load through autocannon: `concurrency` keep-alive connections, each sends one request,
 * waits for the whole response, then sends the next, until `durationMs` has passed; requests in
 * flight then are completed and counted (each connection sends nothing more), so a slow request
 * (a 10,000-event batch) is neither lost nor left running into the next measurement. A request is
 * an error unless `isOk(status)` (default: 2xx); connection failures and timeouts are errors too.
 * The first `warmupMs` run the same load without recording. `around(run)` wraps the measured phase
 * (a CPU profile of the server, say) and answers what run() answers.
 *
 * makeRequest(seq) → { method = 'GET', path, headers, body } (body: string or object → JSON), called
 * for every request, so each may differ (another id, another batch).
 *
 * Latencies are autocannon's own per-request times (from writing the request to the last byte of
 * the answer, process.hrtime), collected unrounded from its `response` events rather than read from
 * its millisecond histogram, so sub-millisecond endpoints keep their percentiles.
 */
export async function closedLoop({ name, durationMs, warmupMs = 0, around = (run) => run(), signal, ...load }) {
  const loop = loadLoop({ ...load, signal });
  if (warmupMs > 0) await loop.phase(warmupMs, false);
  const r = await around(() => loop.phase(durationMs, true));
  return withCpu(summarize(name, r.latencies, { errors: r.errors, errorKinds: r.errorKinds, elapsedMs: r.elapsedMs, concurrency: load.concurrency }), r.cpu);
}

/** A summary with the CPU its requests cost: milliseconds per request of the server and of this process. */
function withCpu(summary, cpu) {
  if (!cpu || !summary.requests) return summary;
  return { ...summary, cpuMsPerRequest: { server: (cpu.server * 1000) / summary.requests, bench: (cpu.bench * 1000) / summary.requests } };
}

/**
 * Several closed loops measured in turns: `rounds` rounds, each giving every entry durationMs/rounds
 * (after one warm-up per entry), so load that others put on the machine meanwhile falls on all of
 * them alike instead of on whichever was measured at the time; ratios between entries stay
 * comparable on a shared machine. entries: [{ name, baseUrl, makeRequest, concurrency, isOk?,
 * timeoutMs? }]. Answers one summary per entry, in their order, as closedLoop does.
 */
export async function interleavedLoops(entries, { durationMs, warmupMs = 0, rounds = 1, signal, onSlice }) {
  if (!(rounds >= 1)) throw new Error('interleavedLoops: rounds must be at least 1');
  const loops = entries.map((e) => ({ entry: e, loop: loadLoop({ ...e, signal }), latencies: [], errors: 0, errorKinds: {}, elapsedMs: 0, cpu: null, warm: false }));
  const slice = durationMs / rounds;
  for (let round = 0; round < rounds; round++) {
    for (const l of loops) {
      if (!l.warm && warmupMs > 0) await l.loop.phase(warmupMs, false);
      l.warm = true;
      onSlice?.(l.entry, round);
      const r = await l.loop.phase(slice, true);
      for (const v of r.latencies) l.latencies.push(v);
      l.errors += r.errors;
      for (const [k, n] of Object.entries(r.errorKinds)) l.errorKinds[k] = (l.errorKinds[k] ?? 0) + n;
      l.elapsedMs += r.elapsedMs;
      if (r.cpu) l.cpu = { server: (l.cpu?.server ?? 0) + r.cpu.server, bench: (l.cpu?.bench ?? 0) + r.cpu.bench };
    }
  }
  return loops.map((l) => withCpu(summarize(l.entry.name, l.latencies, { errors: l.errors, errorKinds: l.errorKinds, elapsedMs: l.elapsedMs, concurrency: l.entry.concurrency }), l.cpu));
}

/**
 * One endpoint's load generator; phase(ms, record) runs it once (see closedLoop). With serverPid
 * (a function answering the server's root process id), a recorded phase also answers the CPU
 * seconds the server's processes and this one spent meanwhile: a cost per request that the load
 * of other programs on the machine hardly changes, unlike requests per second.
 */
function loadLoop({ baseUrl, makeRequest, concurrency, timeoutMs = 30_000, isOk = (status) => status >= 200 && status < 300, signal, serverPid }) {
  const origin = assertLoopback(baseUrl);
  if (!(concurrency >= 1)) throw new Error('closedLoop: concurrency must be positive');
  let seq = 0;
  const requestOf = (req) => {
    const spec = makeRequest(seq++);
    const headers = { ...req.headers, ...(spec.headers ?? {}) };
    let body = spec.body;
    if (body !== undefined && typeof body !== 'string') {
      body = JSON.stringify(body);
      headers['Content-Type'] ??= 'application/json';
    }
    return { ...req, method: spec.method ?? 'GET', path: spec.path, headers, body };
  };

  const phase = (ms, record) =>
    new Promise((resolvePhase, rejectPhase) => {
      if (!(ms > 0)) return rejectPhase(new Error('closedLoop: the duration must be positive'));
      if (signal?.aborted) return rejectPhase(signal.reason);
      const latencies = [];
      const errorKinds = {};
      let errors = 0;
      const clients = [];
      const cpu0 = record && serverPid ? cpuSnapshot(serverPid()) : null;
      const t0 = process.hrtime.bigint();
      let endedMs = 0;
      // At the deadline every connection finishes the request it has in flight and sends no other:
      // autocannon ends a client that has made `responseMax` requests when it would send the next.
      const deadline = setTimeout(() => {
        for (const c of clients) c.responseMax = c.reqsMade;
      }, ms);
      const instance = autocannon(
        {
          url: origin,
          connections: concurrency,
          pipelining: 1,
          // Only a backstop: the loop ends when the last connection has drained after the deadline.
          duration: (ms + timeoutMs + 1_000) / 1000,
          timeout: timeoutMs / 1000,
          // autocannon notices that every connection is done on this tick.
          sampleInt: 50,
          requests: [{ setupRequest: requestOf }],
          setupClient: (client) => {
            clients.push(client);
            client.on('done', () => (endedMs = msSince(t0)));
          },
        },
        (err) => {
          clearTimeout(deadline);
          signal?.removeEventListener('abort', onAbort);
          if (err) return rejectPhase(err);
          if (signal?.aborted) return rejectPhase(signal.reason);
          const elapsedMs = Math.max(ms, endedMs || msSince(t0));
          const cpu = cpu0 ? cpuDelta(cpu0, cpuSnapshot(serverPid())) : null;
          resolvePhase({ latencies, errors, errorKinds, elapsedMs, cpu });
        },
      );
      const onAbort = () => instance.stop();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (!record) return;
      instance.on('response', (_client, status, _bytes, responseMs) => {
        latencies.push(responseMs);
        if (!isOk(status)) {
          errors += 1;
          errorKinds[status] = (errorKinds[status] ?? 0) + 1;
        }
      });
      instance.on('reqError', (err) => {
        errors += 1;
        errorKinds.network = (errorKinds.network ?? 0) + 1;
        const kind = err?.code ?? (/timed out/.test(err?.message ?? '') ? 'timeout' : (err?.name ?? 'Error'));
        errorKinds[`network:${kind}`] = (errorKinds[`network:${kind}`] ?? 0) + 1;
      });
    });
  return { phase };
}

/**
 * Runs task(i) for i in [0, total) with at most `concurrency` at a time. Never throws for a task:
 * returns { results (index → value or undefined), failures: [{ i, error }], elapsedMs }.
 * Stops early on `signal` or after `maxFailures` failures.
 */
/**
 * A progress bar on stderr for `total` steps when a person watches (stderr is a terminal), else
 * nothing: logs and CI keep their lines. `tick(done)` moves it, `stop()` ends the line.
 */
export function progressBar(label, total) {
  if (!process.stderr.isTTY || total <= 0) return { tick: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { format: `${label} {bar} {value}/{total} {eta_formatted}`, stream: process.stderr, hideCursor: true, etaBuffer: 50 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return { tick: (done) => bar.update(done), stop: () => bar.stop() };
}

/** Runs `task(i)` for i < total, `concurrency` at a time; `label` shows a progress bar (progressBar). */
export async function pool({ total, concurrency, task, signal, maxFailures = Infinity, onProgress, label }) {
  const bar = label ? progressBar(label, total) : null;
  const results = new Array(total);
  const failures = [];
  let next = 0;
  let done = 0;
  const t0 = process.hrtime.bigint();
  const worker = async () => {
    while (next < total && !signal?.aborted && failures.length < maxFailures) {
      const i = next++;
      try {
        results[i] = await task(i);
      } catch (error) {
        failures.push({ i, error });
      }
      done += 1;
      if (bar) bar.tick(done);
      onProgress?.(done, total);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  } finally {
    bar?.stop();
  }
  if (signal?.aborted) throw signal.reason;
  return { results, failures, done, elapsedMs: msSince(t0) };
}

// ---------------------------------------------------------------------------------------------
// Local server (wrangler dev)

const children = new Set();

function killGroup(child, sig) {
  try {
    process.kill(-child.pid, sig); // the child leads its own process group (detached: true)
  } catch {
    try {
      child.kill(sig);
    } catch {
      /* already gone */
    }
  }
}

/** Last-resort synchronous cleanup (process 'exit' or forced second Ctrl-C). */
export function killAllChildrenSync() {
  for (const child of children) killGroup(child, 'SIGKILL');
  children.clear();
}
process.on('exit', killAllChildrenSync);

let wranglerBin;
async function resolveWrangler() {
  if (wranglerBin) return wranglerBin;
  const require = createRequire(join(PROJECT_ROOT, 'package.json'));
  const pkgPath = require.resolve('wrangler/package.json');
  const pkg = JSON.parse(await readFile(pkgPath, 'utf8'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin.wrangler;
  wranglerBin = join(dirname(pkgPath), bin);
  return wranglerBin;
}

function wranglerEnv() {
  return {
    ...process.env,
    CI: 'true',
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_SEND_ERROR_REPORTS: 'false',
    WRANGLER_CI_DISABLE_CONFIG_WATCHING: 'true', // no reloads while a benchmark runs
    FORCE_COLOR: '0',
    NO_COLOR: '1',
  };
}

/** Keeps the last `max` lines of a stream (and drains it so the child never blocks on a full pipe). */
function tail(stream, lines, max, echo) {
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    if (echo) process.stderr.write(chunk);
    // eslint-disable-next-line no-control-regex
    const parts = (partial + chunk).replace(/\x1b\[[0-9;]*m/g, '').split('\n');
    partial = parts.pop();
    for (const l of parts) {
      lines.push(l);
      if (lines.length > max) lines.shift();
    }
  });
}

function spawnWrangler(args, { verbose, cwd = PROJECT_ROOT, captureStdout = false }) {
  return resolveWrangler().then((bin) => {
    // process.execPath: the same Node that runs the benchmark (Node 22 under `npm run`).
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: wranglerEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.add(child);
    const lines = [];
    const stdout = [];
    if (captureStdout) {
      // The whole of stdout (e.g. `--json` output); stderr still goes to the tail for error messages.
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk) => {
        if (verbose) process.stderr.write(chunk);
        stdout.push(chunk);
      });
    } else tail(child.stdout, lines, 200, verbose);
    tail(child.stderr, lines, 200, verbose);
    const exited = new Promise((res) => {
      child.once('exit', (code, sig) => {
        children.delete(child);
        res({ code, sig });
      });
      child.once('error', (err) => {
        children.delete(child);
        lines.push(String(err));
        res({ code: -1, sig: null });
      });
    });
    return { child, lines, exited, stdout: () => stdout.join('') };
  });
}

async function stopChild({ child, exited }, graceMs = 5_000) {
  if (child.exitCode === null && child.signalCode === null) {
    killGroup(child, 'SIGTERM');
    const r = await Promise.race([exited.then(() => true), sleepUnref(graceMs).then(() => false)]);
    if (!r) {
      killGroup(child, 'SIGKILL');
      await Promise.race([exited, sleepUnref(2_000)]);
    }
  }
  killGroup(child, 'SIGKILL'); // any grandchild (workerd) left in the group
  children.delete(child);
}

async function runWranglerToEnd(args, { timeoutMs, verbose, label, signal, cwd, captureStdout = false }) {
  if (signal?.aborted) throw signal.reason;
  const proc = await spawnWrangler(args, { verbose, cwd, captureStdout });
  let timer;
  let onAbort;
  const stopper = new Promise((res) => {
    timer = setTimeout(() => res('timeout'), timeoutMs);
    onAbort = () => res('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  const r = await Promise.race([proc.exited, stopper]);
  clearTimeout(timer);
  signal?.removeEventListener('abort', onAbort);
  if (r === 'aborted') {
    await stopChild(proc);
    throw signal.reason;
  }
  if (r === 'timeout') {
    await stopChild(proc);
    throw new Error(`${label} timed out after ${timeoutMs} ms:\n${proc.lines.join('\n')}`);
  }
  killGroup(proc.child, 'SIGKILL');
  if (r.code !== 0) throw new Error(`${label} failed (exit ${r.code ?? r.sig}):\n${proc.lines.join('\n')}${captureStdout ? `\n${proc.stdout().slice(-2000)}` : ''}`);
  return proc.stdout();
}

/**
 * `wrangler d1 execute <db> --local --persist-to <dir>` with either `command` (SQL text, may hold
 * several statements) or `file` (a .sql file). With json: true returns the parsed result sets
 * ([{ results, success, meta }] one per statement); otherwise nothing. Bounded by timeoutMs.
 */
export async function d1Execute({ persistTo, database = BENCH_SHARD, command, file, json = false, timeoutMs = 120_000, verbose = false, signal, cwd }) {
  if ((command === undefined) === (file === undefined)) throw new Error('d1Execute: give exactly one of command and file');
  const args = ['d1', 'execute', database, '--local', '--persist-to', persistTo];
  if (command !== undefined) args.push('--command', command);
  else args.push('--file', file);
  if (json) args.push('--json');
  const label = `wrangler d1 execute ${database} ${command !== undefined ? `--command ${JSON.stringify(command.length > 80 ? command.slice(0, 80) + '…' : command)}` : `--file ${file}`}`;
  const out = await runWranglerToEnd(args, { timeoutMs, verbose: verbose && !json, label, signal, cwd, captureStdout: json });
  if (!json) return undefined;
  const start = out.indexOf('[');
  try {
    return JSON.parse(out.slice(start));
  } catch {
    throw new Error(`${label}: could not parse the --json output: ${out.slice(0, 500)}`);
  }
}

function portInUse(port) {
  return new Promise((res) => {
    const s = connect({ port, host: '127.0.0.1' });
    s.once('connect', () => {
      s.destroy();
      res(true);
    });
    s.once('error', () => res(false));
    s.setTimeout(1_000, () => {
      s.destroy();
      res(false);
    });
  });
}

/**
 * Starts the Worker with `wrangler dev` on 127.0.0.1:<port> against a fresh temporary persistence
 * directory (after applying D1 migrations to it), waits until GET <readyPath> answers 200 and
 * returns { url, persistTo, stop(), restart(between?), pid(), logs() }. stop() is idempotent and
 * removes the temp dir unless keepState. restart(between) stops the dev server (keeping its state),
 * awaits between() — e.g. to write the local D1 database while nothing else has it open — and
 * starts it again on the same port and state; restart(between, { vars }) starts it with `vars`
 * (e.g. { DOCUMENT_RENDERING: 'on_demand' }) over the ones given here, for this and every later
 * start, until another restart gives other vars ({ vars: {} } goes back to the start's own).
 * extraVars() are the vars of the last restart. pid() is the current wrangler process id.
 */
export async function startLocalServer({
  port = 8799,
  vars = {},
  d1,
  readyPath = '/health',
  startTimeoutMs = 180_000,
  logLevel = 'warn',
  verbose = false,
  keepState = false,
  cwd = PROJECT_ROOT, // directory holding wrangler.toml
  inspectorPort, // wrangler dev's inspector (bench/profile.mjs attaches to it); none by default
  extraArgs = [], // more `wrangler dev` arguments (the ceiling worker's compatibility date and flags)
  signal,
}) {
  if (await portInUse(port)) {
    throw new Error(`Port ${port} is already in use. Stop that process, pick another BENCH_PORT, or set BENCH_URL to benchmark it.`);
  }
  const persistTo = await mkdtemp(join(tmpdir(), 'edge-billing-bench-'));
  const url = `http://127.0.0.1:${port}`;
  let proc;
  let stopped = false;
  let extraVars = {}; // restart(between, { vars }): over `vars`, for this and later starts

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (proc) await stopChild(proc);
    if (!keepState) await rm(persistTo, { recursive: true, force: true }).catch(() => {});
    else process.stderr.write(`bench: kept local state in ${persistTo}\n`);
  };

  const launch = async () => {
    const args = ['dev', '--local', '--ip', '127.0.0.1', '--port', String(port), '--persist-to', persistTo];
    args.push('--show-interactive-dev-session=false', '--log-level', logLevel);
    if (inspectorPort) args.push('--inspector-port', String(inspectorPort));
    args.push(...extraArgs);
    for (const [k, v] of Object.entries({ ...vars, ...extraVars })) args.push('--var', `${k}:${v}`);
    proc = await spawnWrangler(args, { verbose, cwd });
    const current = proc;

    const deadline = Date.now() + startTimeoutMs;
    let exited = null;
    current.exited.then((r) => (exited = r));
    let last = '';
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      if (exited) throw new Error(`wrangler dev exited (${exited.code ?? exited.sig}) before ${readyPath} answered:\n${current.lines.join('\n')}`);
      if (Date.now() > deadline) throw new Error(`wrangler dev: ${readyPath} did not answer 200 within ${startTimeoutMs} ms (last: ${last}):\n${current.lines.join('\n')}`);
      try {
        const r = await http(url, 'GET', readyPath, { timeoutMs: 2_000, signal });
        if (r.status === 200) break;
        last = `HTTP ${r.status}`;
      } catch (err) {
        last = err?.cause?.code ?? err?.message ?? String(err);
      }
      await sleep(250);
    }
  };

  const restart = async (between, options = {}) => {
    if (stopped) throw new Error('restart: the server was stopped');
    if (options.vars) extraVars = { ...options.vars };
    try {
      await stopChild(proc);
      proc = undefined;
      // The port is free again before the next start (wrangler may take a moment to release it).
      for (let i = 0; i < 40 && (await portInUse(port)); i++) await sleep(250);
      if (await portInUse(port)) throw new Error(`restart: port ${port} still in use after stopping wrangler dev`);
      if (between) await between();
      await launch();
    } catch (err) {
      await stop();
      throw err;
    }
  };

  try {
    // Every shard of the wrangler.toml it serves (D1_SHARDS) gets the migrations.
    for (const db of d1 ?? projectShards(cwd)) {
      await runWranglerToEnd(['d1', 'migrations', 'apply', db, '--local', '--persist-to', persistTo], {
        timeoutMs: 120_000,
        verbose,
        label: `wrangler d1 migrations apply ${db}`,
        signal,
        cwd,
      });
    }
    await launch();
    return { url, persistTo, cwd, stop, restart, extraVars: () => ({ ...extraVars }), pid: () => proc?.child.pid, logs: () => proc?.lines.join('\n') ?? '' };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * A copy of what `wrangler dev` builds from (wrangler.toml, package.json, tsconfig.json, src/,
 * migrations/) in a temp dir, with node_modules linked: wrangler dev reloads the Worker when a
 * watched source file changes — which kills a long request mid-way — and a snapshot keeps edits
 * made to the project during a benchmark out of it. Returns { dir, remove() }.
 */
export async function snapshotProject(root = PROJECT_ROOT) {
  const dir = await mkdtemp(join(tmpdir(), 'edge-billing-src-'));
  try {
    for (const name of ['wrangler.toml', 'package.json', 'tsconfig.json', 'src', 'migrations']) {
      await cp(join(root, name), join(dir, name), { recursive: true, errorOnExist: true, force: false });
    }
    await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  } catch (err) {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
    throw err;
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }).catch(() => {}) };
}

// ---------------------------------------------------------------------------------------------
// Process memory (Linux /proc)

/** Pids of every live descendant of `rootPid` (children, grandchildren, …), from /proc/<pid>/stat. */
export function descendantPids(rootPid) {
  const parentOf = new Map();
  let entries = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      // pid (comm) state ppid …  — comm may hold spaces or parentheses: split after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(Number(e), ppid);
    } catch {
      /* exited meanwhile */
    }
  }
  const out = [];
  const frontier = [rootPid];
  while (frontier.length) {
    const p = frontier.pop();
    for (const [pid, ppid] of parentOf) {
      if (ppid === p) {
        out.push(pid);
        frontier.push(pid);
      }
    }
  }
  return out;
}

/** { name, rssKb, hwmKb } of a process from /proc/<pid>/status, or null when it is gone. */
export function procMemory(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (k) => {
      const m = text.match(new RegExp(`^${k}:\\s*(\\d+) kB`, 'm'));
      return m ? Number(m[1]) : 0;
    };
    const name = text.match(/^Name:\s*(.*)$/m)?.[1] ?? '';
    return { name, rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
  } catch {
    return null;
  }
}

/** workerd's `--socket-addr=entry=…` argument (tells wrangler's proxy from the Worker's own process). */
function entrySocket(pid) {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args.find((a) => a.startsWith('--socket-addr=entry='))?.slice('--socket-addr=entry='.length) ?? null;
  } catch {
    return null;
  }
}

/**
 * Samples every `intervalMs` the RSS of the processes named `name` below rootPid() (re-resolved on
 * each tick, so a restarted server is followed). stop() returns { samples, firstRssKb, lastRssKb,
 * peakRssKb (highest summed VmRSS seen), hwmKb (sum of the processes' VmHWM: the kernel's own peak
 * per process), processes: [{ pid, peakRssKb, hwmKb }] }. Only reads /proc; never signals anything.
 */
export function memorySampler({ rootPid, name = 'workerd', intervalMs = 250 }) {
  let samples = 0;
  let peakRssKb = 0;
  let lastRssKb = 0;
  let firstRssKb;
  const perPid = new Map(); // pid → { pid, entry, peakRssKb, hwmKb }
  const tick = () => {
    const root = rootPid();
    if (!root) return;
    let rss = 0;
    let seen = 0;
    for (const pid of descendantPids(root)) {
      const m = procMemory(pid);
      if (!m || m.name !== name) continue;
      seen += 1;
      rss += m.rssKb;
      const p = perPid.get(pid) ?? { pid, entry: entrySocket(pid), peakRssKb: 0, hwmKb: 0 };
      p.peakRssKb = Math.max(p.peakRssKb, m.rssKb);
      p.hwmKb = Math.max(p.hwmKb, m.hwmKb);
      perPid.set(pid, p);
    }
    if (!seen) return;
    samples += 1;
    firstRssKb ??= rss;
    lastRssKb = rss;
    if (rss > peakRssKb) peakRssKb = rss;
  };
  const state = () => ({
    samples,
    firstRssKb,
    lastRssKb,
    peakRssKb,
    hwmKb: [...perPid.values()].reduce((a, p) => a + p.hwmKb, 0),
    processes: [...perPid.values()].map((p) => ({ ...p })),
  });
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    current: state,
    stop() {
      clearInterval(timer);
      tick();
      return state();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// CPU time (Linux /proc)

const CLOCK_TICK = 100; // USER_HZ on Linux: /proc times are in 1/100 s

/** user + system seconds of a process from /proc/<pid>/stat, and its name; null when gone. */
export function procCpu(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), seconds: (Number(f[11]) + Number(f[12])) / CLOCK_TICK };
  } catch {
    return null;
  }
}

/**
 * CPU seconds so far: the workerd processes under the harness's wrangler, the whole server (wrangler
 * and everything below it), this benchmark process, and the machine (busy time of every CPU, from
 * /proc/stat). The difference of two tells what else ran on the machine meanwhile.
 */
export function cpuSnapshot(rootPid) {
  let workerd = 0;
  let serverCpu = 0;
  if (rootPid) {
    for (const pid of [rootPid, ...descendantPids(rootPid)]) {
      const c = procCpu(pid);
      if (!c) continue;
      serverCpu += c.seconds;
      if (c.name === 'workerd') workerd += c.seconds;
    }
  }
  const u = process.cpuUsage();
  let machine = NaN;
  try {
    const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal …: busy = user + nice + system + irq + softirq
    machine = (f[0] + f[1] + f[2] + f[5] + f[6]) / CLOCK_TICK;
  } catch {
    /* not Linux */
  }
  return { workerd, server: serverCpu, bench: (u.user + u.system) / 1e6, machine, at: process.hrtime.bigint() };
}

export function cpuDelta(a, b) {
  const d = (k) => b[k] - a[k];
  const wall = Number(b.at - a.at) / 1e9;
  return { wallSeconds: wall, workerd: d('workerd'), server: d('server'), bench: d('bench'), machine: d('machine'), others: Math.max(0, d('machine') - d('server') - d('bench')) };
}

// ---------------------------------------------------------------------------------------------
// Output

const fmt = (v, digits) => (typeof v === 'number' ? (Number.isFinite(v) ? v.toFixed(digits) : '-') : String(v ?? ''));

/**
 * Prints an aligned text table. columns: [{ title, value: (row) => any, digits?, align? ('left'|'right') }].
 */
export function printTable(rows, columns, out = process.stdout) {
  const cells = rows.map((r) => columns.map((c) => fmt(c.value(r), c.digits ?? 0)));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((row) => row[i].length)));
  const line = (vals) =>
    vals.map((v, i) => ((columns[i].align ?? (i === 0 ? 'left' : 'right')) === 'left' ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  out.write(line(columns.map((c) => c.title)) + '\n');
  out.write(widths.map((w) => '-'.repeat(w)).join('  ') + '\n');
  for (const row of cells) out.write(line(row) + '\n');
}

/** The two baseline rows of a section (bench/run.mjs, ctx.baselineEntries()): the API's GET /health and the ceiling. */
export const HEALTH = 'GET /health';
export const CEILING = 'hello-world Hono (platform ceiling)';

/**
 * printTable columns comparing each row's requests per second with the section's baselines:
 * `vs /health` and, when the ceiling was measured, `vs ceiling`.
 */
export function baselineColumns(results) {
  const health = results.find((r) => r.name === HEALTH);
  const ceiling = results.find((r) => r.name === CEILING);
  const ratio = (r, base) => (base?.rps ? `${(r.rps / base.rps).toFixed(3)}x` : '-');
  return [
    { title: 'vs /health', value: (r) => ratio(r, health) },
    ...(ceiling ? [{ title: 'vs ceiling', value: (r) => ratio(r, ceiling) }] : []),
  ];
}

/**
 * printTable columns of the CPU each request cost (when measured): the server's processes (wrangler
 * dev's proxy and the Worker's workerd) and the load generator, in milliseconds, and the server's
 * as a multiple of GET /health's: what the requests per second would come to on an otherwise idle
 * machine, whatever else ran on it meanwhile.
 */
export function cpuColumns(results) {
  if (!results.some((r) => r.cpuMsPerRequest)) return [];
  const health = results.find((r) => r.name === HEALTH)?.cpuMsPerRequest;
  return [
    { title: 'server CPU ms/req', value: (r) => r.cpuMsPerRequest?.server, digits: 2 },
    { title: 'bench CPU ms/req', value: (r) => r.cpuMsPerRequest?.bench, digits: 2 },
    { title: 'CPU vs /health', value: (r) => (health && r.cpuMsPerRequest ? `${(r.cpuMsPerRequest.server / health.server).toFixed(2)}x` : '-') },
  ];
}

/** Writes `data` as pretty JSON, creating the directory. Returns the path. */
export async function writeJson(path, data) {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(data, null, 2) + '\n');
  return path;
}

/** 2026-11-22T02-27-00Z — safe in file names. */
export function fileTimestamp(d = new Date()) {
  return d.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}

/**
 * The local D1 of the server the harness started, for sections that seed it directly; throws with
 * the section's reason when the target is a server of BENCH_URL instead.
 */
export function localDatabase(ctx, why) {
  const server = ctx.server;
  if (!server?.restart || !server.persistTo) throw new Error(`${why}: it needs the server the harness starts itself (unset BENCH_URL)`);
  return { server, local: { persistTo: server.persistTo, cwd: server.cwd, signal: ctx.signal, verbose: ctx.config.verbose } };
}

/** SQL literal of a value as D1 returns it (strings, numbers, booleans, null): the tenant export's. */
export { sqlLiteral } from '../scripts/lib/tenant-export.mjs';

const describeReply = (r) => `HTTP ${r.status} ${r.text.length > 500 ? r.text.slice(0, 500) + '…' : r.text}`;

/** A function calling the API with `auth` that throws on anything but 2xx and answers the JSON. */
export function apiCaller(ctx, auth) {
  return async (method, path, body, opts = {}) => {
    const r = await http(ctx.url, method, path, { headers: auth, body, signal: ctx.signal, ...opts });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${describeReply(r)}`);
    return r.json;
  };
}

/**
 * The shard bench tenants are pinned to (the admin API's placement option): the local D1 database
 * the sections seed and check with d1Execute. The server still runs with every shard of wrangler.toml.
 */
export const BENCH_SHARD = 'DB';

/**
 * The plan of bench tenants (BENCH_PLAN, default enterprise): local development gives it a rate
 * limit no local client reaches, so the benchmarks measure what the limiter costs without being
 * refused (docs/decisions.md, Rate limits).
 */
export const BENCH_PLAN = process.env.BENCH_PLAN || 'enterprise';

/**
 * A buyer's client address for the public routes (a new one per call), as a header: they are limited
 * per address, and every local client has the same (wrangler dev sets CF-Connecting-IP from the
 * socket, but keeps one a client sends). A buyer keeps its address for its cart: under wrangler dev
 * every new address costs miniflare's limiter a scan of its counters, which production does not have.
 */
export function buyerAddress() {
  const octet = () => Math.floor(Math.random() * 256);
  return { 'CF-Connecting-IP': `10.${octet()}.${octet()}.${octet()}` };
}

/** A fresh test-mode tenant (EUR, Germany) on BENCH_SHARD through the admin API, with its key and a caller. */
export async function benchTenant(ctx, name) {
  const r = await http(ctx.url, 'POST', '/admin/tenants', {
    headers: { Authorization: `Bearer ${ctx.config.adminToken}` },
    body: { name, countryCode: 'DE', defaultCurrency: 'EUR', timeZone: 'Europe/Berlin', mode: 'test', shard: BENCH_SHARD, plan: BENCH_PLAN },
    signal: ctx.signal,
  });
  if (r.status !== 201 || !r.json?.tenant?.id || !r.json?.apiKey?.key) throw new Error(`POST /admin/tenants: ${describeReply(r)}`);
  const auth = { Authorization: `Bearer ${r.json.apiKey.key}` };
  return { tenantId: r.json.tenant.id, auth, call: apiCaller(ctx, auth) };
}
