// Section `documents`: PDF + EN 16931 XML rendering in the Worker, and billing runs with rendering
// in the background vs without, in the same `npm run bench` run (issue 12).
//
// Part 1, render (server restarted with DOCUMENT_RENDERING=on_demand, so finalizing renders nothing):
//   a tenant with full document settings (letterhead, bank account, texts) and one customer with a
//   full address and an eInvoiceType (zugferd: a PDF/A-3 with the CII XML embedded, plus the XML on
//   its own); N invoices of 5–20 positions at 19 % and 7 % (some discounted) created and finalized
//   through the API, then checked to have no file yet. GET /health is measured closed-loop at the
//   same concurrency, then PUT /invoices/{id}/download-link is called once per invoice with
//   closed-loop concurrency: each call renders and stores both files (cold), then once more per
//   invoice (warm: stored already, link only). Reported: renders/s, latency percentiles, both as a
//   ratio to GET /health, and the workerd CPU per render. A sample of the links is downloaded: bytes
//   per PDF and XML; each must be a PDF (`%PDF-` … `%%EOF`, application/pdf) and an XML (`<?xml`).
// Part 2, billing (bench/billing.mjs's machinery and workload): a tenant per run, each with the same
//   document settings and a template subscription (its customer with an address and the
//   eInvoiceType) copied N-1 times straight into the local D1. Runs with rendering "on" bill with
//   DOCUMENT_RENDERING=queue (every finalized invoice sends a render job; the queue consumer renders
//   in the same local workerd while billing goes on), runs with rendering "off" with
//   DOCUMENT_RENDERING=on_demand (no jobs); the server is restarted with the run's --var before each.
//   BENCH_DOCUMENTS_ROUNDS pairs, the order flipped every round (off,on / on,off / …). Reported per
//   run: invoices/s, the workerd CPU per billed invoice, the CPU other processes on the machine used
//   meanwhile (/proc/stat: a busy machine disturbs the wall-clock rates), and after a run with
//   rendering how long the queue took to render every invoice (polled until each has its `file`;
//   the next run starts only then). The section fails when the mean rate with rendering is more than
//   10 % below the mean rate without, and also when other processes used more than a quarter of a CPU
//   during a run (the wall-clock rates are then not the server's alone: inconclusive, no pass). The
//   same comparison per workerd CPU second, which other load hardly moves, is printed alongside. Finally, with the server stopped, SQL over the local D1 checks
//   every tenant (each subscription billed once, numbers 1..N; each invoice of a rendering tenant has
//   its PDF and XML, no render errors, none of the others has any) and gives the stored byte sizes.
// Part 3, drain (BENCH_DOCUMENTS_PARTS=drain, not in the default): how fast the render queue works off
//   a billing run's documents. A tenant with the document settings and N subscriptions (the billing
//   workload, SQL copies as in bench/billing.mjs; customers with an address and eInvoiceType), billed in
//   one run with DOCUMENT_RENDERING=queue (render delay 0 unless told); then polled until every invoice
//   has its PDF and XML. Progress is the count of invoices in number order that have their files (a
//   binary search over GET /invoices pages of one: the queue works in finalization order), so a poll
//   costs ~log2(N) small requests. Reported: documents rendered by the run's end, the drain time after
//   it, the render rate while nothing but rendering runs (after the run: independent of how fast
//   billing is) as documents/s and as a ratio to GET /health, workerd CPU per document in that phase,
//   bytes per document, and the time N_target documents would take from a standing start at that rate
//   (the worst case after any run: none rendered yet), checked against the target. With the server
//   stopped, SQL confirms every invoice has its PDF and XML and no render error.
// The server goes back to the harness's own vars at the end (for any later section).
//
// Environment:
//   BENCH_DOCUMENTS_PARTS            render,billing (default both)
//   BENCH_DOCUMENTS_INVOICES         invoices rendered in part 1 (default 60)
//   BENCH_DOCUMENTS_POSITIONS        positions per invoice, MIN-MAX (default 5-20)
//   BENCH_DOCUMENTS_CONCURRENCY      closed-loop concurrency of the render passes and /health (default 4)
//   BENCH_DOCUMENTS_HEALTH_SECONDS   GET /health measurement (default 5)
//   BENCH_DOCUMENTS_SAMPLE           links downloaded for the byte sizes (default 20; 0 = all)
//   BENCH_DOCUMENTS_E_INVOICE_TYPE   zugferd | xrechnung | cii | ubl (default zugferd)
//   BENCH_DOCUMENTS_SUBSCRIPTIONS    subscriptions per billing run (default 1000)
//   BENCH_DOCUMENTS_ROUNDS           pairs of billing runs (default 1; each "on" run waits for its queue to drain, ~2 min at 1000)
//   BENCH_DOCUMENTS_ORDER            off,on (default) or on,off: the first round's order
//   BENCH_DOCUMENTS_BILLING_MODE     sync | async (default sync: PUT /test-clock; async: POST /billing-runs + alarms)
//   BENCH_DOCUMENTS_TIMEOUT_SECONDS  limit per billing run (default max(600, 0.06 × N))
//   BENCH_DOCUMENTS_DRAIN_TIMEOUT_SECONDS  limit for the queue to render everything (default max(600, 1 × N); drain part: max(1800, 1 × N))
//   BENCH_DOCUMENTS_DRAIN_INVOICES   drain part: subscriptions billed, i.e. documents to render (default 2000; 100000 for the issue's case)
//   BENCH_DOCUMENTS_DRAIN_MODE       drain part: sync | async billing run (default sync up to 20,000, else async)
//   BENCH_DOCUMENTS_DRAIN_RENDER_DELAY  drain part: BILLING_RENDER_DELAY_SECONDS of the run (default 0: jobs are due at once;
//                                    the rate is taken from the documents' progress, so a delay only shifts it)
//   BENCH_PROFILE=<file>             drain part: also a CPU profile of the Worker while it drains, in <file>.drain
//   BENCH_DOCUMENTS_DRAIN_POLL_SECONDS  drain part: progress poll interval (default 5)
//   BENCH_DOCUMENTS_DRAIN_TARGET_SECONDS / _TARGET_INVOICES  drain part: the goal it is checked against (default 600 s for 100,000)

import { assertLoopback, closedLoop, cpuDelta, cpuSnapshot, d1Execute, envInt, http, msSince, pool, printTable, sleep, summarize, localDatabase, benchTenant } from './lib.mjs';
import { billingClock, billingRun, createBillingTemplate, finishNumbering, seedFromTemplate, verify } from './billing.mjs';

const log = (msg) => process.stderr.write(`bench: ${msg}\n`);
const describe = (r) => `HTTP ${r.status} ${r.text.length > 500 ? r.text.slice(0, 500) + '…' : r.text}`;

/** The most the billing rate may drop with rendering on (issue 12). Not a knob. */
const MAX_SLOWDOWN = 0.1;
const E_INVOICE_TYPES = ['zugferd', 'xrechnung', 'cii', 'ubl'];
const RENDERING = { on: { DOCUMENT_RENDERING: 'queue' }, off: { DOCUMENT_RENDERING: 'on_demand' } };

function readDocumentsConfig() {
  const parts = (process.env.BENCH_DOCUMENTS_PARTS || 'render,billing').split(',').map((s) => s.trim()).filter(Boolean);
  for (const p of parts) if (!['render', 'billing', 'drain'].includes(p)) throw new Error(`BENCH_DOCUMENTS_PARTS: unknown part ${JSON.stringify(p)} (render, billing, drain)`);
  const positions = (process.env.BENCH_DOCUMENTS_POSITIONS || '5-20').match(/^(\d+)(?:-(\d+))?$/);
  if (!positions) throw new Error(`BENCH_DOCUMENTS_POSITIONS must be MIN-MAX, got ${JSON.stringify(process.env.BENCH_DOCUMENTS_POSITIONS)}`);
  const minPositions = Math.max(1, Number(positions[1]));
  const maxPositions = Math.max(minPositions, Number(positions[2] ?? positions[1]));
  const eInvoiceType = process.env.BENCH_DOCUMENTS_E_INVOICE_TYPE || 'zugferd';
  if (!E_INVOICE_TYPES.includes(eInvoiceType)) throw new Error(`BENCH_DOCUMENTS_E_INVOICE_TYPE must be one of ${E_INVOICE_TYPES.join(', ')}`);
  const mode = process.env.BENCH_DOCUMENTS_BILLING_MODE || 'sync';
  if (!['sync', 'async'].includes(mode)) throw new Error(`BENCH_DOCUMENTS_BILLING_MODE must be sync or async, got ${JSON.stringify(mode)}`);
  const order = (process.env.BENCH_DOCUMENTS_ORDER || 'off,on').split(',').map((s) => s.trim());
  const rounds = Math.floor(envInt('BENCH_DOCUMENTS_ROUNDS', 1, 1));
  if (order.length !== 2 || !order.includes('on') || !order.includes('off')) throw new Error('BENCH_DOCUMENTS_ORDER must be off,on or on,off');
  const invoices = Math.floor(envInt('BENCH_DOCUMENTS_INVOICES', 60, 1));
  const subscriptions = Math.floor(envInt('BENCH_DOCUMENTS_SUBSCRIPTIONS', 1000, 1));
  const sample = Math.floor(envInt('BENCH_DOCUMENTS_SAMPLE', 20, 0));
  const drainInvoices = Math.floor(envInt('BENCH_DOCUMENTS_DRAIN_INVOICES', 2000, 1));
  return {
    parts,
    invoices,
    minPositions,
    maxPositions,
    concurrency: Math.floor(envInt('BENCH_DOCUMENTS_CONCURRENCY', 4, 1)),
    healthSeconds: envInt('BENCH_DOCUMENTS_HEALTH_SECONDS', 5, 0.5),
    sample: sample === 0 ? invoices : Math.min(sample, invoices),
    eInvoiceType,
    subscriptions,
    mode,
    order,
    rounds,
    timeoutSeconds: envInt('BENCH_DOCUMENTS_TIMEOUT_SECONDS', Math.max(600, Math.ceil(subscriptions * 0.06)), 10),
    drainTimeoutSeconds: envInt('BENCH_DOCUMENTS_DRAIN_TIMEOUT_SECONDS', Math.max(600, subscriptions), 10),
    pollMs: 1000,
    drain: {
      invoices: drainInvoices,
      mode: process.env.BENCH_DOCUMENTS_DRAIN_MODE || (drainInvoices <= 20_000 ? 'sync' : 'async'),
      renderDelaySeconds: Math.floor(envInt('BENCH_DOCUMENTS_DRAIN_RENDER_DELAY', 0, 0)),
      timeoutSeconds: envInt('BENCH_DOCUMENTS_DRAIN_TIMEOUT_SECONDS', Math.max(1800, drainInvoices), 10),
      pollSeconds: envInt('BENCH_DOCUMENTS_DRAIN_POLL_SECONDS', 5, 1),
      targetSeconds: envInt('BENCH_DOCUMENTS_DRAIN_TARGET_SECONDS', 600, 1),
      targetInvoices: Math.floor(envInt('BENCH_DOCUMENTS_DRAIN_TARGET_INVOICES', 100_000, 1)),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Fixtures

/** Full document settings: what a real tenant's letterhead, bank details and texts look like. */
const documentSettings = (eInvoiceType) => ({
  seller: {
    name: 'Bench Dokumente GmbH',
    street: 'Friedrichstraße 123',
    addition: '3. OG',
    zip: '10117',
    city: 'Berlin',
    vatId: 'DE123456789',
    taxNumber: '30/123/45678',
    registration: 'Amtsgericht Charlottenburg, HRB 123456 B',
    legalInfo: 'Geschäftsführerin: Erika Mustermann',
    contactName: 'Erika Mustermann',
    email: 'billing@bench.test',
    phone: '+49 30 1234567',
    website: 'https://bench.test',
  },
  bankAccount: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', accountName: 'Bench Dokumente GmbH', bankName: 'Commerzbank Berlin' },
  texts: {
    de: { invoice: { title: 'Rechnung', introduction: 'Vielen Dank für Ihren Auftrag. Wir berechnen Ihnen folgende Leistungen:', closing: 'Bitte überweisen Sie den Betrag bis zum Fälligkeitsdatum. Mit freundlichen Grüßen' } },
    en: { invoice: { title: 'Invoice', introduction: 'Thank you for your business. We invoice the following:', closing: 'Please pay by the due date. Kind regards' } },
  },
  defaultEInvoiceType: eInvoiceType,
});

/** A business customer with a full address (fields of POST /customers). */
const customerFields = (eInvoiceType) => ({
  countryCode: 'DE',
  companyName: 'Müller & Söhne Maschinenbau GmbH',
  firstName: 'Jürgen',
  lastName: 'Weiß',
  street: 'Königsallee',
  houseNumber: '27a',
  zip: '40212',
  city: 'Düsseldorf',
  vatId: 'DE136695976',
  language: 'de',
  eInvoiceType,
  ...(eInvoiceType === 'xrechnung' ? { leitwegId: '04011000-12345-34' } : {}),
});

const ITEMS = [
  ['Softwarelizenz Professional', '49.00', '19'],
  ['Wartung & Support (Stufe M)', '129.50', '19'],
  ['Fachbuch „Abrechnung für Fortgeschrittene“', '34.90', '7'],
  ['Beratungsstunde Überführung', '95.00', '19'],
  ['Zusätzlicher Speicher 100 GB', '4.99', '19'],
  ['Schulungsunterlagen (gedruckt)', '12.80', '7'],
  ['Einrichtungspauschale', '250.00', '19'],
  ['Zeitschriften-Abonnement', '8.40', '7'],
];

/** Invoice i's positions: between min and max, mixed 19 % / 7 %, every fourth with 10 % off. */
function positionsFor(i, cfg) {
  const span = cfg.maxPositions - cfg.minPositions + 1;
  const n = cfg.minPositions + ((i * 7) % span);
  return Array.from({ length: n }, (_, k) => {
    const [name, unitPrice, taxRate] = ITEMS[(i + k) % ITEMS.length];
    return {
      name: `${name} ${k + 1}`,
      description: k % 3 === 0 ? `Leistungszeitraum Januar, Vertrag Nr. ${1000 + i}-${k}` : null,
      quantity: String(1 + ((i + 3 * k) % 5)),
      unitPrice,
      taxRate,
      ...(k % 4 === 3 ? { discountPercentage: '10' } : {}),
    };
  });
}



// ---------------------------------------------------------------------------------------------
// Measuring

/**
 * Each item once, `concurrency` at a time (a closed loop over a fixed list): latencies of every
 * answered request, errors by status. Returns lib.summarize()'s shape plus `answers` (index → json).
 */
async function onceEach(ctx, name, items, concurrency, request) {
  const latencies = [];
  const errorKinds = {};
  let errors = 0;
  const answers = new Array(items.length);
  const res = await pool({
    label: name,
    total: items.length,
    concurrency,
    signal: ctx.signal,
    task: async (i) => {
      let r;
      try {
        const [method, path, opts] = request(items[i]);
        r = await http(ctx.url, method, path, { ...opts, signal: ctx.signal, timeoutMs: 120_000 });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        errors += 1;
        errorKinds.network = (errorKinds.network ?? 0) + 1;
        return;
      }
      latencies.push(r.ms);
      if (r.status !== 200) {
        errors += 1;
        errorKinds[r.status] = (errorKinds[r.status] ?? 0) + 1;
        if (errors <= 3) log(`  ${name}: ${describe(r)}`);
        return;
      }
      answers[i] = r.json;
    },
  });
  return { ...summarize(name, latencies, { errors, errorKinds, elapsedMs: res.elapsedMs, concurrency }), answers };
}

/** Fetches a file behind a download link (binary), against the benchmark's own origin. */
async function download(ctx, link) {
  const u = new URL(link);
  const url = assertLoopback(ctx.url) + u.pathname + u.search;
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(60_000)]);
  const res = await fetch(url, { signal });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', bytes };
}

const ascii = (bytes, from, to) => Buffer.from(bytes.subarray(from, to)).toString('latin1');

function sizeStats(sizes) {
  if (!sizes.length) return { count: 0, avg: NaN, min: NaN, max: NaN };
  return { count: sizes.length, avg: sizes.reduce((a, b) => a + b, 0) / sizes.length, min: Math.min(...sizes), max: Math.max(...sizes) };
}

/** Every invoice of the tenant (pages of 100): [{ id, number, file, xmlFile }]. */
async function allInvoices(ctx, call) {
  const out = [];
  for (let page = 1; ; page++) {
    const r = await call('GET', `/invoices?limit=100&page=${page}&order[number]=asc`, undefined, { timeoutMs: 120_000 });
    for (const inv of r.data) out.push({ id: inv.id, number: inv.number, file: inv.file, xmlFile: inv.xmlFile });
    if (page >= r.meta.pagination.lastPage || r.data.length === 0) return out;
  }
}

// ---------------------------------------------------------------------------------------------
// Part 1: rendering throughput

async function renderPart(ctx, cfg) {
  const t = await benchTenant(ctx, 'Bench documents');
  const { call } = t;
  await call('PUT', '/settings/documents', documentSettings(cfg.eInvoiceType));
  const customer = await call('POST', '/customers', { email: `documents-${ctx.runTag}@bench.test`, ...customerFields(cfg.eInvoiceType) });
  log(`documents: tenant ${t.tenantId}, customer ${customer.id} (${cfg.eInvoiceType}); creating and finalizing ${cfg.invoices} invoices of ${cfg.minPositions}-${cfg.maxPositions} positions…`);

  const created = await pool({
    label: 'invoices',
    total: cfg.invoices,
    concurrency: cfg.concurrency,
    signal: ctx.signal,
    maxFailures: 5,
    task: async (i) => {
      const positions = positionsFor(i, cfg);
      const draft = await call('POST', '/invoices', { customer: customer.id, positions });
      const fin = await call('POST', `/invoices/${draft.id}/finalize`, {});
      if (!fin.number) throw new Error(`finalized invoice ${draft.id} has no number: ${JSON.stringify(fin).slice(0, 300)}`);
      return { id: fin.id, number: fin.number, positions: positions.length, gross: fin.grossAmount?.amount, file: fin.file };
    },
  });
  if (created.failures.length) throw new Error(`creating invoices failed: ${created.failures[0].error.message}`);
  const invoices = created.results;
  log(`documents: ${invoices.length} invoices finalized in ${(created.elapsedMs / 1000).toFixed(1)} s`);

  // Nothing may be rendered yet, or the cold pass below would measure the cached path.
  await sleep(1500); // a queue batch would have been delivered by now (max_batch_timeout 1 s)
  const listed = await allInvoices(ctx, call);
  const preRendered = listed.filter((x) => x.file).length;
  if (listed.length !== invoices.length) throw new Error(`GET /invoices lists ${listed.length} invoices, ${invoices.length} were created`);
  if (preRendered) throw new Error(`${preRendered} of ${invoices.length} invoices have a file right after finalization: the server does not run with DOCUMENT_RENDERING=on_demand`);

  log(`documents: measuring GET /health (${cfg.healthSeconds} s, concurrency ${cfg.concurrency})…`);
  const health = await closedLoop({
    name: 'GET /health',
    baseUrl: ctx.url,
    makeRequest: () => ({ path: '/health' }),
    durationMs: cfg.healthSeconds * 1000,
    warmupMs: 1000,
    concurrency: cfg.concurrency,
    signal: ctx.signal,
  });

  const link = (inv) => ['PUT', `/invoices/${inv.id}/download-link?secondsValid=3600`, { headers: t.auth }];
  log(`documents: cold pass: PUT /invoices/{id}/download-link once per invoice (renders PDF + XML), concurrency ${cfg.concurrency}…`);
  const cpu0 = cpuSnapshot(ctx.server.pid());
  const coldPass = () => onceEach(ctx, 'download-link, cold (renders PDF + XML)', invoices, cfg.concurrency, link);
  // BENCH_PROFILE=<file>: a CPU profile of the Worker during the cold pass (bench/profile.mjs).
  const cold = process.env.BENCH_PROFILE
    ? await (await import('./profile.mjs')).withProfile(Number(process.env.BENCH_INSPECTOR_PORT || 9339), coldPass, process.env.BENCH_PROFILE)
    : await coldPass();
  const coldCpu = cpuDelta(cpu0, cpuSnapshot(ctx.server.pid()));
  log(`documents: cold pass ${cold.rps.toFixed(2)} renders/s, p50 ${cold.latencyMs.p50.toFixed(0)} ms, ${cold.errors} errors`);
  log('documents: warm pass: the same again (stored already: link only)…');
  const warm = await onceEach(ctx, 'download-link, warm (stored: link only)', invoices, cfg.concurrency, link);
  log(`documents: warm pass ${warm.rps.toFixed(1)} links/s, p50 ${warm.latencyMs.p50.toFixed(0)} ms, ${warm.errors} errors`);

  // Bytes per document, and each file is what it claims to be.
  const problems = [];
  const pdfSizes = [];
  const xmlSizes = [];
  const sample = Array.from({ length: cfg.sample }, (_, k) => Math.floor((k * invoices.length) / cfg.sample));
  let embeddedName = 0;
  for (const i of sample) {
    const links = warm.answers[i] ?? cold.answers[i];
    if (!links?.url) {
      problems.push(`invoice ${invoices[i].number}: no link`);
      continue;
    }
    const pdf = await download(ctx, links.url);
    const head = ascii(pdf.bytes, 0, 5);
    const tail = ascii(pdf.bytes, Math.max(0, pdf.bytes.length - 1024), pdf.bytes.length);
    if (pdf.status !== 200 || !pdf.contentType.startsWith('application/pdf') || head !== '%PDF-' || !tail.includes('%%EOF')) {
      problems.push(`invoice ${invoices[i].number}: PDF HTTP ${pdf.status} ${pdf.contentType}, starts ${JSON.stringify(head)}, %%EOF ${tail.includes('%%EOF')}`);
    } else pdfSizes.push(pdf.bytes.length);
    if (ascii(pdf.bytes, 0, pdf.bytes.length).includes('factur-x.xml')) embeddedName += 1;
    if (!links.xmlUrl) {
      problems.push(`invoice ${invoices[i].number}: no XML link`);
      continue;
    }
    const xml = await download(ctx, links.xmlUrl);
    const xhead = ascii(xml.bytes, 0, 5);
    if (xml.status !== 200 || !/xml/.test(xml.contentType) || xhead !== '<?xml') {
      problems.push(`invoice ${invoices[i].number}: XML HTTP ${xml.status} ${xml.contentType}, starts ${JSON.stringify(xhead)}`);
    } else xmlSizes.push(xml.bytes.length);
  }
  // The invoice shows its files once rendered.
  const after = await allInvoices(ctx, call);
  const withFile = after.filter((x) => x.file).length;
  const withXml = after.filter((x) => x.xmlFile).length;
  if (withFile !== invoices.length || withXml !== invoices.length) problems.push(`after the cold pass ${withFile} invoices show a file and ${withXml} an xmlFile, of ${invoices.length}`);
  if (cold.errors || warm.errors) problems.push(`${cold.errors} cold and ${warm.errors} warm download-link errors (${JSON.stringify({ ...cold.errorKinds, ...warm.errorKinds })})`);
  const { answers: _c, ...coldResult } = cold;
  const { answers: _w, ...warmResult } = warm;
  return {
    tenantId: t.tenantId,
    eInvoiceType: cfg.eInvoiceType,
    invoices: invoices.length,
    positions: sizeStats(invoices.map((x) => x.positions)),
    finalizeSeconds: created.elapsedMs / 1000,
    health,
    cold: { ...coldResult, cpu: coldCpu, cpuMsPerRender: (coldCpu.workerd * 1000) / invoices.length },
    warm: warmResult,
    bytes: { sampled: sample.length, pdf: sizeStats(pdfSizes), xml: sizeStats(xmlSizes), pdfsNamingFacturX: embeddedName },
    problems,
  };
}

// ---------------------------------------------------------------------------------------------
// Part 2: billing with rendering in the background vs without

/**
 * After the billing run with rendering: polls until every invoice of the tenant has its `file`.
 * Cheap while the queue works (the invoice numbered last), a full scan to confirm, then the missing
 * ones by id. Times are seconds after the billing run ended.
 */
async function waitForRenders(ctx, call, N, runEndedAt, timeoutSeconds) {
  const since = () => msSince(runEndedAt) / 1000;
  const first = await allInvoices(ctx, call);
  const atRunEnd = { seconds: since(), rendered: first.filter((x) => x.file).length, invoices: first.length };
  log(`documents: ${atRunEnd.rendered}/${first.length} invoices rendered ${atRunEnd.seconds.toFixed(1)} s after the billing run; waiting for the queue…`);
  const deadline = Date.now() + timeoutSeconds * 1000;
  let lastLog = Date.now();
  let missing = first.filter((x) => !x.file);
  const timeline = [{ seconds: atRunEnd.seconds, rendered: atRunEnd.rendered }];
  while (missing.length && Date.now() < deadline && !ctx.signal.aborted) {
    // The queue works roughly in finalization order: the last one first, then everything.
    const last = missing[missing.length - 1];
    const inv = await call('GET', `/invoices/${last.id}`, undefined, { timeoutMs: 120_000 });
    if (inv.file) {
      const scan = missing.length > 20 ? await allInvoices(ctx, call) : await Promise.all(missing.map((m) => call('GET', `/invoices/${m.id}`, undefined, { timeoutMs: 120_000 })));
      missing = scan.filter((x) => !x.file);
      timeline.push({ seconds: since(), rendered: N - missing.length });
      if (!missing.length) break;
    }
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      log(`  ${since().toFixed(0)} s after the run: ${missing.length} of ${N} at most still without a file`);
    }
    await sleep(500);
  }
  const drainSeconds = missing.length ? null : since();
  if (drainSeconds !== null) log(`documents: every invoice rendered ${drainSeconds.toFixed(1)} s after the billing run ended`);
  else log(`documents: ${missing.length} invoices still without a file after ${timeoutSeconds} s`);
  return { atRunEnd, drainSeconds, stillMissing: missing.length, timeline };
}

/** SQL over the local D1 (server stopped): files and renders of a tenant's invoices. */
async function fileCheck(local, tenantId) {
  const t = `'${tenantId.replaceAll("'", "''")}'`;
  const sets = await d1Execute({
    ...local,
    json: true,
    timeoutMs: 300_000,
    command: [
      `SELECT count(*) AS invoices, sum(file_id IS NOT NULL) AS withFile, sum(xml_file_id IS NOT NULL) AS withXml,
         sum(render_error IS NOT NULL) AS renderErrors, sum(render_attempts > 0) AS retried, max(render_error) AS lastError
       FROM invoices WHERE tenant_id = ${t}`,
      `SELECT purpose, count(*) AS files, avg(byte_size) AS avg, min(byte_size) AS min, max(byte_size) AS max
       FROM media WHERE tenant_id = ${t} AND owner_type = 'invoice' GROUP BY purpose ORDER BY purpose`,
    ].join(';\n'),
  });
  const row = sets[0].results[0];
  const media = Object.fromEntries(sets[1].results.map((m) => [m.purpose, { count: m.files, avg: m.avg, min: m.min, max: m.max }]));
  return { ...row, media };
}

/** Runs of `rounds` pairs, the order flipped every round (off,on / on,off / …) against drift. */
function runPlan(cfg) {
  const plan = [];
  for (let r = 0; r < cfg.rounds; r++) {
    const order = r % 2 === 0 ? cfg.order : [...cfg.order].reverse();
    for (const which of order) plan.push({ round: r + 1, which, key: `${which}-${r + 1}` });
  }
  return plan;
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Runs during which other processes used more than a quarter of a CPU: their wall-clock rate is not the server's. */
const disturbedRuns = (results) => results.filter((x) => x.cpu.run.others > 0.25 * x.cpu.run.wallSeconds);

async function billingPart(ctx, cfg, local) {
  const server = ctx.server;
  const N = cfg.subscriptions;
  const plan = runPlan(cfg);
  // A tenant per run (the same settings and template), all seeded at once while the server is stopped.
  const templates = {};
  for (const p of plan) {
    const t = await createBillingTemplate(ctx, {
      name: `Bench documents billing (rendering ${p.which}, round ${p.round})`,
      tag: `${ctx.runTag}-${p.key}`,
      customer: customerFields(cfg.eInvoiceType),
    });
    await t.call('PUT', '/settings/documents', documentSettings(cfg.eInvoiceType));
    templates[p.key] = t;
  }
  const seeds = {};
  log(`documents: seeding ${N} subscriptions in each of ${plan.length} tenants; runs: ${plan.map((p) => p.key).join(', ')}`);
  await server.restart(
    async () => {
      for (const p of plan) seeds[p.key] = await seedFromTemplate(local, templates[p.key], N);
    },
    { vars: RENDERING[plan[0].which] },
  );

  const runs = [];
  for (const [i, p] of plan.entries()) {
    if (i > 0) {
      log(`documents: restarting the server with DOCUMENT_RENDERING=${RENDERING[p.which].DOCUMENT_RENDERING}…`);
      await server.restart(undefined, { vars: RENDERING[p.which] });
    }
    const t = templates[p.key];
    log(`documents: run ${i + 1}/${plan.length}: billing ${N} subscriptions, rendering ${p.which} (DOCUMENT_RENDERING=${RENDERING[p.which].DOCUMENT_RENDERING}, ${cfg.mode})…`);
    const cpu0 = cpuSnapshot(server.pid());
    const r = await billingRun(ctx, { auth: t.auth, N, mode: cfg.mode, timeoutSeconds: cfg.timeoutSeconds, pollMs: cfg.pollMs });
    const runEndedAt = process.hrtime.bigint();
    const cpuRun = cpuDelta(cpu0, cpuSnapshot(server.pid()));
    let drain;
    let cpuDrain = null;
    if (p.which === 'on') {
      // The next run must not share the machine with this one's renders: wait for the queue.
      const cpu1 = cpuSnapshot(server.pid());
      drain = await waitForRenders(ctx, t.call, N, runEndedAt, cfg.drainTimeoutSeconds);
      cpuDrain = cpuDelta(cpu1, cpuSnapshot(server.pid()));
    } else {
      // Without rendering nothing may have been rendered (a download would, but none is asked for).
      const listed = await allInvoices(ctx, t.call);
      drain = { atRunEnd: { rendered: listed.filter((x) => x.file).length, invoices: listed.length }, drainSeconds: null };
    }
    log(`  ${p.key}: ${(N / (r.runMs / 1000)).toFixed(1)} invoices/s; CPU s during the run: workerd ${cpuRun.workerd.toFixed(1)}, other processes ${cpuRun.others.toFixed(1)}`);
    runs.push({ ...p, tenantId: t.tenantId, ...r, cpuRun, cpuDrain, drain });
  }

  const checks = {};
  log(`documents: checking the ${plan.length} tenants in the local D1, then restarting with the harness vars…`);
  await server.restart(
    async () => {
      for (const r of runs) {
        const billing = await verify(local, r.tenantId, N);
        finishNumbering(r.numbering, billing, N);
        checks[r.key] = { billing, files: await fileCheck(local, r.tenantId) };
      }
    },
    { vars: {} },
  );

  const results = runs.map((r, i) => {
    const c = checks[r.key];
    const failures = [...c.billing.failures];
    if (r.run.status !== 'completed' || r.run.errors) failures.push(`run ${r.run.status}, ${r.run.errors} errors${r.run.lastError ? ` (last: ${r.run.lastError})` : ''}`);
    if (r.which === 'on') {
      if (c.files.withFile !== N || c.files.withXml !== N) failures.push(`${c.files.withFile} invoices with a PDF and ${c.files.withXml} with an XML of ${N}`);
      if (c.files.renderErrors) failures.push(`${c.files.renderErrors} render errors (last: ${c.files.lastError})`);
      if (r.drain.drainSeconds === null) failures.push(`${r.drain.stillMissing} invoices not rendered ${cfg.drainTimeoutSeconds} s after the run`);
    } else if (c.files.withFile || r.drain.atRunEnd.rendered) failures.push(`${c.files.withFile} invoices rendered without rendering`);
    return {
      name: `rendering ${r.which} (DOCUMENT_RENDERING=${RENDERING[r.which].DOCUMENT_RENDERING})`,
      rendering: r.which,
      round: r.round,
      position: i + 1,
      subscriptions: N,
      mode: cfg.mode,
      runSeconds: r.runMs / 1000,
      invoicesPerSecond: r.run.invoicesCreated / (r.runMs / 1000),
      run: { id: r.run.id, status: r.run.status, itemsBilled: r.run.itemsBilled, invoicesCreated: r.run.invoicesCreated, errors: r.run.errors, lastError: r.run.lastError },
      cpu: { run: r.cpuRun, drain: r.cpuDrain, workerdMsPerInvoice: (r.cpuRun.workerd * 1000) / Math.max(1, r.run.invoicesCreated) },
      numbering: r.numbering,
      memory: { rssBeforeMb: r.memory.rssBeforeMb, peakRssMb: r.memory.peakRssMb, hwmMb: r.memory.hwmMb },
      renderedAtRunEnd: r.drain.atRunEnd.rendered,
      renderedAtRunEndSeconds: r.drain.atRunEnd.seconds ?? null,
      drainSeconds: r.drain.drainSeconds ?? null,
      drainTimeline: r.drain.timeline,
      files: c.files,
      check: { ok: failures.length === 0, failures, billing: c.billing },
    };
  });
  const of = (which) => results.filter((r) => r.rendering === which);
  const summary = Object.fromEntries(
    ['off', 'on'].map((which) => {
      const rs = of(which);
      return [which, { runs: rs.length, invoicesPerSecond: mean(rs.map((r) => r.invoicesPerSecond)), workerdMsPerInvoice: mean(rs.map((r) => r.cpu.workerdMsPerInvoice)), othersCpuSeconds: mean(rs.map((r) => r.cpu.run.others)) }];
    }),
  );
  const drains = of('on').map((r) => r.drainSeconds).filter((x) => x !== null);
  summary.on.drainSeconds = drains.length ? mean(drains) : null;
  const ratio = summary.on.invoicesPerSecond / summary.off.invoicesPerSecond;
  // The same comparison in workerd CPU: invoices per CPU second, which other load on the machine
  // hardly moves (the wall-clock rate above moves with it).
  const cpuRatio = summary.off.workerdMsPerInvoice / summary.on.workerdMsPerInvoice;
  return { seeds, clock: billingClock(cfg.mode), plan: plan.map((p) => p.key), results, summary, ratio, slowdown: 1 - ratio, cpuRatio, cpuSlowdown: 1 - cpuRatio };
}

// ---------------------------------------------------------------------------------------------
// Part 3: draining a billing run's documents

/**
 * How many of the tenant's invoices, in number order, have their PDF and XML: the first one without
 * is found by a binary search over pages of one invoice (the queue renders in finalization order,
 * so the rendered ones are a prefix up to the few in flight). ~log2(N) requests.
 */
async function renderedPrefix(call, total) {
  const rendered = async (k) => {
    const r = await call('GET', `/invoices?limit=1&page=${k}&order[number]=asc`, undefined, { timeoutMs: 120_000 });
    const inv = r.data[0];
    return !!(inv?.file && inv?.xmlFile);
  };
  let lo = 0; // invoices 1..lo are rendered
  let hi = total; // invoice hi+1 would be past the end
  while (lo < hi) {
    const mid = Math.floor((lo + hi + 1) / 2);
    if (await rendered(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

async function drainPart(ctx, cfg, local) {
  const server = ctx.server;
  const d = cfg.drain;
  const N = d.invoices;
  const vars = { DOCUMENT_RENDERING: 'queue', BILLING_RENDER_DELAY_SECONDS: String(d.renderDelaySeconds) };
  const t = await createBillingTemplate(ctx, { name: 'Bench documents drain', tag: `${ctx.runTag}-drain`, customer: customerFields(cfg.eInvoiceType) });
  await t.call('PUT', '/settings/documents', documentSettings(cfg.eInvoiceType));
  log(`documents drain: seeding ${N} subscriptions, then billing them with ${JSON.stringify(vars)}…`);
  let seed;
  await server.restart(async () => void (seed = await seedFromTemplate(local, t, N)), { vars });

  log('documents drain: measuring GET /health (5 s, concurrency 4)…');
  const health = await closedLoop({ name: 'GET /health', baseUrl: ctx.url, makeRequest: () => ({ path: '/health' }), durationMs: 5000, warmupMs: 1000, concurrency: 4, signal: ctx.signal });

  const cpu0 = cpuSnapshot(server.pid());
  const r = await billingRun(ctx, { auth: t.auth, N, mode: d.mode, timeoutSeconds: Math.max(1800, Math.ceil(N * 0.06)), pollMs: cfg.pollMs });
  const runEndedAt = process.hrtime.bigint();
  const cpuRun = cpuDelta(cpu0, cpuSnapshot(server.pid()));
  const invoices = r.run.invoicesCreated;
  const atRunEnd = await renderedPrefix(t.call, invoices);
  const cpu1 = cpuSnapshot(server.pid());
  log(`documents drain: run ${r.run.status} in ${(r.runMs / 1000).toFixed(1)} s, ${invoices} invoices; ${atRunEnd} rendered at its end`);

  const timeline = [{ seconds: 0, rendered: atRunEnd }];
  const deadline = Date.now() + d.timeoutSeconds * 1000;
  let rendered = atRunEnd;
  let lastLog = Date.now();
  const drain = async () => {
    while (rendered < invoices && Date.now() < deadline && !ctx.signal.aborted) {
      await sleep(d.pollSeconds * 1000);
      rendered = await renderedPrefix(t.call, invoices);
      timeline.push({ seconds: msSince(runEndedAt) / 1000, rendered });
      if (Date.now() - lastLog > 30_000) {
        lastLog = Date.now();
        log(`  ${timeline.at(-1).seconds.toFixed(0)} s after the run: ${rendered}/${invoices} rendered`);
      }
    }
  };
  if (process.env.BENCH_PROFILE) await (await import('./profile.mjs')).withProfile(Number(process.env.BENCH_INSPECTOR_PORT || 9339), drain, `${process.env.BENCH_PROFILE}.drain`);
  else await drain();
  const drainSeconds = rendered >= invoices ? msSince(runEndedAt) / 1000 : null;
  const cpuDrain = cpuDelta(cpu1, cpuSnapshot(server.pid()));
  log(drainSeconds === null ? `documents drain: ${invoices - rendered} not rendered after ${d.timeoutSeconds} s` : `documents drain: all rendered ${drainSeconds.toFixed(1)} s after the run`);

  let files;
  let billing;
  await server.restart(
    async () => {
      billing = await verify(local, t.tenantId, N);
      finishNumbering(r.numbering, billing, N);
      files = await fileCheck(local, t.tenantId);
    },
    { vars: {} },
  );
  // The rate with nothing but rendering on the machine's workerd: from the poll before the first
  // progress after the run (a render delay leaves the queue idle until then) to the drain's end.
  const drainedDocuments = invoices - atRunEnd;
  const start = timeline[Math.max(0, timeline.findIndex((x) => x.rendered > atRunEnd) - 1)];
  const rate = drainSeconds && drainedDocuments > 0 ? drainedDocuments / (drainSeconds - start.seconds) : null;
  const failures = [...billing.failures];
  if (files.withFile !== N || files.withXml !== N) failures.push(`${files.withFile} invoices with a PDF and ${files.withXml} with an XML of ${N}`);
  if (files.renderErrors) failures.push(`${files.renderErrors} render errors (last: ${files.lastError})`);
  if (drainSeconds === null) failures.push(`${invoices - rendered} invoices not rendered ${d.timeoutSeconds} s after the run`);
  const projected = rate ? d.targetInvoices / rate : null;
  return {
    invoices: N,
    mode: d.mode,
    renderDelaySeconds: d.renderDelaySeconds,
    seed,
    health,
    run: { seconds: r.runMs / 1000, status: r.run.status, invoicesCreated: invoices, errors: r.run.errors, cpu: cpuRun },
    renderedAtRunEnd: atRunEnd,
    drainSeconds,
    drainedDocuments,
    renderingFromSeconds: start.seconds,
    documentsPerSecond: rate,
    cpu: { drain: cpuDrain, workerdMsPerDocument: drainedDocuments > 0 ? (cpuDrain.workerd * 1000) / drainedDocuments : null },
    timeline,
    files,
    target: { invoices: d.targetInvoices, seconds: d.targetSeconds, projectedSeconds: projected, met: projected !== null && projected <= d.targetSeconds },
    check: { ok: failures.length === 0, failures },
  };
}

// ---------------------------------------------------------------------------------------------
// The section

export const documentsSection = {
  name: 'documents',
  title: 'Documents: PDF + EN 16931 XML rendering, and billing runs with rendering on vs off (local)',

  async run(ctx) {
    const cfg = readDocumentsConfig();
    const { server, local } = localDatabase(ctx, 'the documents section restarts the server with other vars and seeds its local D1');
    log(`documents: ${JSON.stringify(cfg)}`);
    const out = { config: cfg };
    const failures = [];
    try {
      if (cfg.parts.includes('render')) {
        log('documents: restarting the server with DOCUMENT_RENDERING=on_demand (finalizing renders nothing)…');
        await server.restart(undefined, { vars: RENDERING.off });
        out.render = await renderPart(ctx, cfg);
        if (out.render.problems.length) failures.push(...out.render.problems);
      }
      if (cfg.parts.includes('drain')) {
        out.drain = await drainPart(ctx, cfg, local);
        if (!out.drain.check.ok) failures.push(`drain: ${out.drain.check.failures.join('; ')}`);
      }
      if (cfg.parts.includes('billing')) {
        out.billing = await billingPart(ctx, cfg, local);
        for (const r of out.billing.results) if (!r.check.ok) failures.push(`billing ${r.name}: ${r.check.failures.join('; ')}`);
        const m = out.billing.summary;
        if (out.billing.slowdown > MAX_SLOWDOWN) {
          failures.push(
            `rendering in the background lowers the billing rate by ${(out.billing.slowdown * 100).toFixed(1)} % ` +
              `(${m.on.invoicesPerSecond.toFixed(1)} vs ${m.off.invoicesPerSecond.toFixed(1)} invoices/s), more than ${MAX_SLOWDOWN * 100} %`,
          );
        }
        // A run that shared the machine with other work says little: no pass on its figures.
        const disturbed = disturbedRuns(out.billing.results);
        if (disturbed.length) {
          failures.push(
            `the billing comparison is inconclusive: other processes used ${disturbed.map((x) => `${x.cpu.run.others.toFixed(1)} CPU s during run #${x.position} (${x.cpu.run.wallSeconds.toFixed(1)} s)`).join(', ')}; ` +
              `rerun on a quiet machine (per workerd CPU second, which other load hardly moves, rendering on is ${(out.billing.cpuSlowdown * 100).toFixed(1)} % slower)`,
          );
        }
      }
    } finally {
      // Later sections get the server as the harness started it.
      if (Object.keys(server.extraVars()).length) await server.restart(undefined, { vars: {} });
    }
    out.results = [out.render?.health, out.render?.cold, out.render?.warm, ...(out.billing?.results ?? []), out.drain?.health].filter(Boolean);
    out.failed = failures.length ? failures.join('; ') : undefined;
    return out;
  },

  report(out) {
    const w = (s) => process.stdout.write(s);
    w(`\n${this.title}\n`);
    const r = out.render;
    if (r) {
      w(
        `\nRendering: ${r.invoices} finalized invoices (${r.positions.min}-${r.positions.max} positions, avg ${r.positions.avg.toFixed(1)}; 19 % and 7 %), ` +
          `eInvoiceType ${r.eInvoiceType}, server in DOCUMENT_RENDERING=on_demand; each PUT /invoices/{id}/download-link once, ${r.cold.concurrency} concurrent\n\n`,
      );
      const base = r.health.rps;
      printTable([r.health, r.cold, r.warm], [
        { title: 'request', value: (x) => x.name },
        { title: 'requests', value: (x) => x.requests },
        { title: 'errors', value: (x) => x.errors },
        { title: 'req/s', value: (x) => x.rps, digits: 2 },
        { title: 'p50 ms', value: (x) => x.latencyMs.p50, digits: 1 },
        { title: 'p90 ms', value: (x) => x.latencyMs.p90, digits: 1 },
        { title: 'p99 ms', value: (x) => x.latencyMs.p99, digits: 1 },
        { title: 'max ms', value: (x) => x.latencyMs.max, digits: 1 },
        { title: 'vs GET /health', value: (x) => `${(x.rps / base).toFixed(4)}x` },
      ]);
      w(
        `  renders (PDF + XML) per second: ${r.cold.rps.toFixed(2)} = ${(r.cold.rps / base).toFixed(4)}x GET /health ` +
          `(one render costs the time of ~${(base / r.cold.rps).toFixed(0)} /health requests); workerd CPU ${r.cold.cpuMsPerRender.toFixed(0)} ms per render\n`,
      );
      const b = r.bytes;
      w(
        `  bytes per document (${b.sampled} downloaded): PDF avg ${b.pdf.avg.toFixed(0)} (min ${b.pdf.min}, max ${b.pdf.max}), ` +
          `XML avg ${b.xml.avg.toFixed(0)} (min ${b.xml.min}, max ${b.xml.max})` +
          (r.eInvoiceType === 'zugferd' ? `; ${b.pdfsNamingFacturX}/${b.sampled} PDFs name factur-x.xml in their bytes` : '') +
          '\n',
      );
      if (r.problems.length) w(`  PROBLEMS: ${r.problems.join('; ')}\n`);
    }
    const dr = out.drain;
    if (dr) {
      const cfg = out.config;
      const rate = dr.documentsPerSecond;
      w(
        `\nDrain: ${dr.invoices} due subscriptions billed in one ${dr.mode} run (bench/billing.mjs's workload: one flat-fee position each; ` +
          `eInvoiceType ${cfg.eInvoiceType}, so a PDF/A-3 with the CII XML embedded plus the XML), DOCUMENT_RENDERING=queue, ` +
          `BILLING_RENDER_DELAY_SECONDS=${dr.renderDelaySeconds}; GET /health ${dr.health.rps.toFixed(1)} req/s before the run\n`,
      );
      w(`  billing run: ${dr.run.seconds.toFixed(1)} s (${(dr.run.invoicesCreated / dr.run.seconds).toFixed(1)} invoices/s), ${dr.renderedAtRunEnd} documents rendered by its end\n`);
      w(
        `  drain after the run: ${dr.drainSeconds === null ? 'TIMEOUT' : `${dr.drainSeconds.toFixed(1)} s`} for ${dr.drainedDocuments} documents` +
          (rate ? ` (rendering from ${dr.renderingFromSeconds.toFixed(0)} s on) = ${rate.toFixed(1)} documents/s = ${(rate / dr.health.rps).toFixed(4)}x GET /health` : '') +
          (dr.cpu.workerdMsPerDocument ? `; workerd CPU ${dr.cpu.workerdMsPerDocument.toFixed(1)} ms per document (other processes ${dr.cpu.drain.others.toFixed(0)} CPU s meanwhile)` : '') +
          '\n',
      );
      const m = dr.files.media;
      if (m.pdf) w(`  stored: ${m.pdf.count} PDFs avg ${m.pdf.avg.toFixed(0)} bytes (${m.pdf.min}-${m.pdf.max}), ${m.xml?.count ?? 0} XMLs avg ${m.xml?.avg?.toFixed(0) ?? '-'} bytes\n`);
      if (dr.target.projectedSeconds !== null) {
        w(
          `  at that rate ${dr.target.invoices} documents take ${dr.target.projectedSeconds.toFixed(0)} s from a standing start (none rendered when the run ends): ` +
            `${dr.target.met ? 'within' : 'MORE than'} the ${dr.target.seconds} s target\n`,
        );
      }
      if (!dr.check.ok) w(`  check FAILED: ${dr.check.failures.join('; ')}\n`);
    }
    const bl = out.billing;
    if (bl) {
      const res = bl.results;
      const cfg = out.config;
      w(
        `\nBilling with rendering on vs off: ${cfg.subscriptions} due monthly subscriptions per tenant and run (bench/billing.mjs's workload: ` +
          `one flat-fee position each; customers with an address, eInvoiceType ${cfg.eInvoiceType}), ${cfg.mode} runs in the order ${bl.plan.join(', ')}, ` +
          `the server restarted with DOCUMENT_RENDERING=queue (on) or on_demand (off) before each\n\n`,
      );
      const health = r?.health.rps;
      printTable(res, [
        { title: 'run', value: (x) => x.name },
        { title: '#', value: (x) => x.position },
        { title: 'run s', value: (x) => x.runSeconds, digits: 1 },
        { title: 'invoices/s', value: (x) => x.invoicesPerSecond, digits: 1 },
        ...(health ? [{ title: 'vs GET /health', value: (x) => `${(x.invoicesPerSecond / health).toFixed(4)}x` }] : []),
        { title: 'workerd CPU s', value: (x) => x.cpu.run.workerd, digits: 1 },
        { title: 'CPU ms/invoice', value: (x) => x.cpu.workerdMsPerInvoice, digits: 2 },
        { title: 'others CPU s', value: (x) => x.cpu.run.others, digits: 1 },
        { title: 'rendered at end', value: (x) => `${x.renderedAtRunEnd}/${x.subscriptions}` },
        { title: 'drained after s', value: (x) => (x.rendering === 'on' ? x.drainSeconds ?? 'timeout' : '-'), digits: 1 },
        { title: 'peak RSS MB', value: (x) => x.memory.peakRssMb, digits: 0 },
        { title: 'check', value: (x) => (x.check.ok ? 'ok' : 'FAILED') },
      ]);
      const sm = bl.summary;
      const verdict = (slowdown) => (slowdown > MAX_SLOWDOWN ? `FAILED: more than ${MAX_SLOWDOWN * 100} % slower` : `within ${MAX_SLOWDOWN * 100} %`);
      const change = (slowdown) => (slowdown >= 0 ? `${(slowdown * 100).toFixed(1)} % slower` : `${(-slowdown * 100).toFixed(1)} % faster`);
      const runs = sm.on.runs > 1 ? ` (means of ${sm.on.runs} runs each)` : '';
      w(
        `  billing rate with rendering / without${runs}: ${sm.on.invoicesPerSecond.toFixed(1)} / ${sm.off.invoicesPerSecond.toFixed(1)} invoices/s = ${bl.ratio.toFixed(3)} ` +
          `(${change(bl.slowdown)}): ${verdict(bl.slowdown)}\n`,
      );
      w(
        `  per workerd CPU second (other load hardly moves it; for information): ${(1000 / sm.on.workerdMsPerInvoice).toFixed(1)} / ${(1000 / sm.off.workerdMsPerInvoice).toFixed(1)} invoices = ${bl.cpuRatio.toFixed(3)} ` +
          `(${sm.on.workerdMsPerInvoice.toFixed(2)} vs ${sm.off.workerdMsPerInvoice.toFixed(2)} CPU ms per billed invoice; ${change(bl.cpuSlowdown)})\n`,
      );
      w(
        `  (locally the documents queue's consumer runs in the same workerd as the billing Durable Object, so renders during the run would take its CPU; ` +
          `with rendering on, billing sends one delayed batch of render jobs per chunk: BILLING_RENDER_DELAY_SECONDS)\n`,
      );
      const busy = disturbedRuns(res);
      if (busy.length) {
        w(
          `  INCONCLUSIVE: other processes on this machine used CPU during ${busy.map((x) => `run #${x.position} (${x.cpu.run.others.toFixed(1)} CPU s in ${x.cpu.run.wallSeconds.toFixed(1)} s)`).join(', ')}; ` +
            `the wall-clock rates above are not the server's alone, so the section does not pass on them\n`,
        );
      }
      for (const on of res.filter((x) => x.rendering === 'on' && x.drainSeconds !== null)) {
        const after = on.subscriptions - on.renderedAtRunEnd;
        w(
          `  queue drain (run #${on.position}): ${on.renderedAtRunEnd} of ${on.subscriptions} rendered when the billing run had answered, all ${on.drainSeconds.toFixed(1)} s after it ` +
            `(${after ? `${(after / on.drainSeconds).toFixed(1)} renders/s in the background` : 'nothing left'}; workerd CPU ${on.cpu.drain?.workerd.toFixed(1)} s meanwhile, ` +
            `${((on.cpu.drain?.workerd * 1000) / Math.max(1, after)).toFixed(0)} ms a render)\n`,
        );
        const m = on.files.media;
        if (m.pdf) w(`    stored: ${m.pdf.count} PDFs avg ${m.pdf.avg.toFixed(0)} bytes (${m.pdf.min}-${m.pdf.max}), ${m.xml?.count ?? 0} XMLs avg ${m.xml?.avg?.toFixed(0) ?? '-'} bytes (one position each)\n`);
      }
      for (const x of res) if (!x.check.ok) w(`  run #${x.position} ${x.name}: check FAILED: ${x.check.failures.join('; ')}\n`);
    }
  },
};
