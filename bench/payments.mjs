// Section `payments` (issue 13, "Benchmark"): a camt.053 statement of N credit entries imported and
// matched against N open invoices, and a pain.008 file of N direct debits — time, rate and memory.
//
// Setup: two test-mode tenants of their own (so the statement meets exactly N open invoices, and the
// direct-debit file exactly N due ones):
//   camt tenant  document settings; ONE customer and ONE finalized invoice through the API (paid by
//                bank transfer: no payment method) — the template;
//   SEPA tenant  document settings, the creditor id (sepa.creditorId); ONE customer with an active
//                sepa_debit mandate (POST /payment-methods) and ONE finalized invoice — the template.
// The dev server is stopped, the templates' rows are read back with `wrangler d1 execute --json` and
// N-1 copies written next to them in generated multi-row INSERT files (bench/billing.mjs's way):
// customer (+ its addresses and e-mails), invoice (+ its one position) and, for the SEPA tenant, the
// mandate. Every copy has its own customer, a consecutive invoice number after the template's
// (RE-…, same range), its own amounts (net 10.00 EUR + k cents at 19 %: gross, net, tax, the
// position and the tax breakdown agree), a valid IBAN of its own and a mandate reference of its own;
// every other column is the API's own value. The server starts again on the same state.
//
// Measured (each request once, RSS of the workerd processes sampled every 50 ms alongside):
//   1. GET /health closed loop (BENCH_SECONDS, BENCH_CONCURRENCY): the baseline;
//   2. POST /sepa-xml {type: direct_debit} on the SEPA tenant: one pain.008 of every due debit. Checked:
//      201, numberOfTransactions = N, controlSum = the seeded sum, nothing skipped; the XML downloaded
//      through PUT /sepa-xml/{id}/download-link (its size, N <DrctDbtTxInf>, the CtrlSum) and judged
//      as test/oracles/validate-sepa.sh --strict judges it: the ISO 20022 XSD and the German banks'
//      restricted one (xmllint --schema, the script's schema files) and the NbOfTxs/CtrlSum arithmetic
//      of GrpHdr and every PmtInf (in JS here: the script's XPath sums take xmllint over 15 minutes on
//      10,000 debits; BENCH_PAYMENTS_VALIDATE=script runs the script itself as well, timed);
//   3. POST /payment/bank-account-transactions/import (application/xml) on the camt tenant: a
//      camt.053.001.02 built here (modelled on test/fixtures/camt/own-statement-2026-03.xml), one
//      credit entry per invoice naming its number in <Ustrd> with its exact gross amount and a unique
//      AcctSvcrRef. Checked: 201, added = booked = N, nothing manual, ignored or suggested;
//   4. the same file again: 200, nothing added;
//   5. with the server stopped, SQL over the local D1: every camt invoice STATUS_PAID with exactly one
//      invoice_payments row and one bank_transfer transaction, N lines STATUS_BOOKED with one accepted
//      assignment each, one import; N processing debits in the SEPA file, each invoice once, each
//      mandate marked first used.
// Figures are printed as ratios to GET /health measured in the same run (rates ÷ /health req/s, times
// in /health p50 latencies). The section fails on a wrong count, sum, status or an invalid XML, never
// on a time. Failed requests (status, message) are reported as they came.
//
// Environment:
//   BENCH_PAYMENTS_INVOICES          N: camt entries / open invoices, and debits (default 10000)
//   BENCH_PAYMENTS_VALIDATE          1 (default): the pain.008 (and the generated camt.053) against the
//                                    oracle's XSDs (xmllint) and the count/sum arithmetic, seconds;
//                                    script: also test/oracles/validate-sepa.sh itself (over 15 min at
//                                    10,000); 0: no validation
//   BENCH_PAYMENTS_VALIDATE_TIMEOUT_SECONDS  limit per validator run (default 3600; over it: not judged)
//   BENCH_PAYMENTS_TIMEOUT_SECONDS   limit per measured request (default 1800)
//   BENCH_PAYMENTS_KEEP_FILES        a directory: keep the pain.008 and the camt.053 there
//   BENCH_PROFILE=<file>             CPU profiles of the Worker during the pain.008 and the first import
//                                    (<file>.pain008, <file>.camt, and .cpuprofile; BENCH_INSPECTOR_PORT,
//                                    default 9339): the profiler slows the requests, so not for figures
//   BENCH_PAYMENTS_HEAP=1            with BENCH_PROFILE (for the inspector port): instead of the profiles, the
//                                    Worker isolate's V8 heap before and as each request left it

import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT, assertLoopback, d1Execute, descendantPids, envInt, http, memorySampler, msSince, printTable, sleep, localDatabase, sqlLiteral, benchTenant } from './lib.mjs';

const log = (msg) => process.stderr.write(`bench: ${msg}\n`);
const describe = (r) => `HTTP ${r.status} ${r.text.length > 500 ? r.text.slice(0, 500) + '…' : r.text}`;

/** The tenants' own account (the statement's <Acct>, the creditor account of the debits). */
const OWN_IBAN = 'DE89370400440532013000';
const OWN_BIC = 'COBADEFFXXX';
const CREDITOR_ID = 'DE98ZZZ09999999999';
/** Payers' accounts: valid German IBANs of this bank code, account 5000000000 + k. */
const PAYER_BLZ = '50010517';

const SETTINGS = {
  seller: { name: 'Bench Zahlungen GmbH', street: 'Hauptstraße 1', zip: '10115', city: 'Berlin', vatId: 'DE123456789', email: 'billing@bench.test' },
  bankAccount: { iban: OWN_IBAN, bic: OWN_BIC, accountName: 'Bench Zahlungen GmbH', bankName: 'Commerzbank' },
  texts: { de: { invoice: { title: 'Rechnung {number}', introduction: 'Vielen Dank.', closing: 'Mit freundlichen Grüßen' } } },
  defaultEInvoiceType: 'cii',
};

/** Rows of a multi-row INSERT stay below this many characters (D1 takes at most 100 KB a statement). */
const MAX_STATEMENT_CHARS = 80_000;
const COPIES_PER_FILE = 5_000;

function readPaymentsConfig() {
  const validate = (process.env.BENCH_PAYMENTS_VALIDATE || '1').toLowerCase();
  const modes = { 1: 'xsd', true: 'xsd', yes: 'xsd', xsd: 'xsd', script: 'script', 0: 'off', false: 'off', no: 'off', off: 'off' };
  if (!modes[validate]) throw new Error(`BENCH_PAYMENTS_VALIDATE must be 1, script or 0, got ${JSON.stringify(validate)}`);
  return {
    invoices: Math.floor(envInt('BENCH_PAYMENTS_INVOICES', 10_000, 1)),
    validate: modes[validate],
    validateTimeoutSeconds: envInt('BENCH_PAYMENTS_VALIDATE_TIMEOUT_SECONDS', 3600, 1),
    timeoutSeconds: envInt('BENCH_PAYMENTS_TIMEOUT_SECONDS', 1800, 10),
    keepFilesDir: process.env.BENCH_PAYMENTS_KEEP_FILES || null,
  };
}

// ---------------------------------------------------------------------------------------------
// Amounts, numbers, IBANs

/** Copy k's net amount in cents: 10.00 EUR + k cents (k = 0: the template), so sums are sums of different cents. */
const netOf = (k) => 1000 + k;
/** 19 % of a net amount, rounded half-up once (as the invoice totals do). */
const taxOf = (net) => Math.floor((net * 19 + 50) / 100);
/** Cents as a decimal string, without floating point: 123456 → "1234.56". */
const eur = (cents) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

/** A valid German IBAN (MOD 97-10 check digits) of bank code `blz` and account number `account`. */
function germanIban(blz, account) {
  const bban = `${blz}${String(account).padStart(10, '0')}`;
  const check = 98n - (BigInt(`${bban}131400`) % 97n); // DE = 13 14, check digits 00
  return `DE${String(check).padStart(2, '0')}${bban}`;
}
const payerIban = (k) => germanIban(PAYER_BLZ, 5_000_000_000 + k);
/** A SEPA method's default name (src/services/payments/methods-render.ts defaultMethodName). */
const methodNameOf = (iban) => `SEPA ${iban.slice(0, 4)} …${iban.slice(-4)}`;
const maskIban = (iban) => `${iban.slice(0, 4)}${'*'.repeat(Math.max(0, iban.length - 8))}${iban.slice(-4)}`;

/** "RE-0000000001" with sequence 1 → (seq) => the same format with another sequence value. */
function numberFormatOf(number, seq) {
  const m = /^(.*?)(\d+)$/.exec(number ?? '');
  if (!m || Number(m[2]) !== seq) throw new Error(`template invoice number ${JSON.stringify(number)} does not end in its sequence value ${seq}`);
  return (s) => `${m[1]}${String(s).padStart(m[2].length, '0')}`;
}

// ---------------------------------------------------------------------------------------------
// SQL helpers


/** Multi-row INSERTs of `rows` (objects with the same keys), each statement below MAX_STATEMENT_CHARS. */
function inserts(table, rows) {
  if (rows.length === 0) return [];
  const cols = Object.keys(rows[0]);
  const head = `INSERT INTO ${table} (${cols.map((c) => `"${c}"`).join(', ')}) VALUES\n`;
  const out = [];
  let values = [];
  let size = head.length;
  for (const r of rows) {
    const v = `(${cols.map((c) => sqlLiteral(r[c])).join(', ')})`;
    if (values.length && size + v.length + 2 > MAX_STATEMENT_CHARS) {
      out.push(head + values.join(',\n') + ';');
      values = [];
      size = head.length;
    }
    values.push(v);
    size += v.length + 2;
  }
  if (values.length) out.push(head + values.join(',\n') + ';');
  return out;
}

const one = (set, what) => {
  const rows = set?.results ?? [];
  if (rows.length !== 1) throw new Error(`template ${what}: expected 1 row, got ${rows.length}`);
  return rows[0];
};

// ---------------------------------------------------------------------------------------------
// Step 1: tenants and templates through the API


/** A tenant with document settings, one customer (a mandate with `sepa`) and one finalized invoice of 10.00 EUR net. */
async function createTemplate(ctx, { name, sepa, debitsPerFile = 5000 }) {
  const t = await benchTenant(ctx, name);
  await t.call('PUT', '/settings/documents', SETTINGS);
  // One file of every due debit: the cap per file (sepa.maxDebitsPerFile, default 5,000) goes up to N.
  if (sepa) await t.call('PATCH', '/settings', { settings: [{ key: 'sepa.creditorId', value: CREDITOR_ID }, { key: 'sepa.maxDebitsPerFile', value: Math.min(10000, Math.max(debitsPerFile, 1)) }] });
  const customer = await t.call('POST', '/customers', {
    email: `payments-${sepa ? 'sepa' : 'camt'}-0@bench.test`,
    countryCode: 'DE',
    firstName: 'Erika',
    lastName: 'Payer 0',
    companyName: 'Payer 0 GmbH',
    street: 'Königsallee',
    houseNumber: '27a',
    zip: '40212',
    city: 'Düsseldorf',
  });
  let method = null;
  if (sepa) {
    method = await t.call('POST', '/payment-methods', { customer: customer.id, type: 'sepa_debit', sepaDebit: { iban: payerIban(0), accountHolder: 'Payer 0 GmbH' } });
    if (method.status !== 'active') throw new Error(`template mandate is ${method.status}`);
  }
  const draft = await t.call('POST', '/invoices', { customer: customer.id, positions: [{ name: 'Abonnement', unitPrice: eur(netOf(0)), quantity: '1', taxRate: '19' }] });
  const invoice = await t.call('POST', `/invoices/${draft.id}/finalize`, {});
  if (!invoice.number || invoice.status !== 'STATUS_UNPAID') throw new Error(`template invoice: number ${invoice.number}, status ${invoice.status}`);
  log(`payments: ${name}: tenant ${t.tenantId}, template customer ${customer.id}${method ? `, mandate ${method.id}` : ''}, invoice ${invoice.number}`);
  return { ...t, name, sepa, customer, method, invoice };
}

// ---------------------------------------------------------------------------------------------
// Step 2: N-1 copies in the local D1 (server stopped)

async function readTemplate(local, tpl) {
  const q = (table, col, id) => `SELECT * FROM ${table} WHERE tenant_id = ${sqlLiteral(tpl.tenantId)} AND ${col} = ${sqlLiteral(id)} ORDER BY id`;
  const statements = [
    q('customers', 'id', tpl.customer.id),
    q('customer_addresses', 'customer_id', tpl.customer.id),
    q('customer_email_addresses', 'customer_id', tpl.customer.id),
    q('invoices', 'id', tpl.invoice.id),
    q('invoice_positions', 'invoice_id', tpl.invoice.id),
    tpl.method ? q('payment_methods', 'id', tpl.method.id) : 'SELECT 1 AS none',
  ];
  const sets = await d1Execute({ ...local, json: true, command: statements.join(';\n') });
  if (!Array.isArray(sets) || sets.length !== statements.length) throw new Error(`template query returned ${JSON.stringify(sets).slice(0, 300)}`);
  const t = {
    customer: one(sets[0], 'customer'),
    addresses: sets[1].results,
    emails: sets[2].results,
    invoice: one(sets[3], 'invoice'),
    positions: sets[4].results,
    method: tpl.method ? one(sets[5], 'payment method') : null,
  };
  const problems = [];
  const inv = t.invoice;
  if (inv.status !== 'STATUS_UNPAID' || inv.type !== 'TYPE_INVOICE' || inv.currency_code !== 'EUR') problems.push(`invoice ${inv.type} ${inv.status} ${inv.currency_code}`);
  if (inv.number_seq === null || !inv.finalization_date || !inv.due_date || !inv.updated_at) problems.push('invoice without number_seq, finalization_date, due_date or updated_at');
  if (inv.paid_amount !== 0 || inv.discount_amount !== 0) problems.push(`invoice paid ${inv.paid_amount}, discount ${inv.discount_amount}`);
  if (inv.net_amount !== netOf(0) || inv.tax_amount !== taxOf(netOf(0)) || inv.gross_amount !== netOf(0) + taxOf(netOf(0))) {
    problems.push(`invoice amounts ${inv.net_amount}/${inv.tax_amount}/${inv.gross_amount}, expected ${netOf(0)}/${taxOf(netOf(0))}`);
  }
  if (t.positions.length !== 1 || t.positions[0].quantity !== '1' || t.positions[0].discount_amount !== 0 || t.positions[0].net_amount !== netOf(0)) {
    problems.push(`positions ${JSON.stringify(t.positions.map((p) => [p.quantity, p.net_amount, p.discount_amount]))}, expected one of quantity 1 net ${netOf(0)}`);
  }
  const breakdown = JSON.parse(inv.tax_breakdown ?? 'null');
  if (!Array.isArray(breakdown) || breakdown.length !== 1 || breakdown[0].taxableAmount !== eur(netOf(0)) || breakdown[0].taxAmount !== eur(taxOf(netOf(0)))) {
    problems.push(`tax breakdown ${inv.tax_breakdown}`);
  }
  if (t.method && (t.method.status !== 'active' || t.method.is_default !== 1 || t.method.iban !== payerIban(0) || !t.method.mandate_reference || !t.method.mandate_signed_at || t.method.mandate_first_used_at)) {
    problems.push(`mandate ${t.method.status}, default ${t.method.is_default}, reference ${t.method.mandate_reference}, signed ${t.method.mandate_signed_at}, first used ${t.method.mandate_first_used_at}`);
  }
  if (inv.payment_method_id !== null && inv.payment_method_id !== t.method?.id) problems.push(`invoice names payment method ${inv.payment_method_id}`);
  if (problems.length) throw new Error(`the API-made template of ${tpl.name} is not what the copies need: ${problems.join('; ')}`);
  return t;
}

/** Replaces every occurrence of the template's values in a row's strings (names, masked IBANs, references). */
function substituted(row, pairs) {
  const out = {};
  for (const [k, v] of Object.entries(row)) {
    if (typeof v !== 'string') out[k] = v;
    else out[k] = pairs.reduce((s, [from, to]) => (from ? s.replaceAll(from, to) : s), v);
  }
  return out;
}

/** SQL of copies k = from..to-1 of a template; also returns each copy's { number, gross, payer, iban }. */
function copiesSql(t, numberOf, from, to) {
  const pad = (k) => String(k).padStart(7, '0');
  const rows = { customers: [], customer_addresses: [], customer_email_addresses: [], payment_methods: [], invoices: [], invoice_positions: [] };
  const made = [];
  const tplBreakdown = JSON.parse(t.invoice.tax_breakdown);
  for (let k = from; k < to; k++) {
    const customerId = randomUUID();
    const email = `payments-${pad(k)}-${t.customer.email}`;
    const payer = `Payer ${k} GmbH`;
    const iban = payerIban(k);
    const pairs = [
      ['Payer 0 GmbH', payer],
      ['Payer 0', `Payer ${k}`],
      [t.method?.mandate_reference, `BENCH-MNDT-${pad(k)}`],
      [payerIban(0), iban],
      [maskIban(payerIban(0)), maskIban(iban)],
      [methodNameOf(payerIban(0)), methodNameOf(iban)],
      [t.customer.id, customerId],
    ];
    rows.customers.push({ ...substituted(t.customer, pairs), id: customerId, customer_number: `BP${pad(k)}`, email, email_key: email.toLowerCase() });
    for (const a of t.addresses) {
      // The invoice's address snapshot names the address by id.
      const addressId = randomUUID();
      pairs.push([a.id, addressId]);
      rows.customer_addresses.push({ ...substituted(a, pairs), id: addressId, customer_id: customerId });
    }
    for (const e of t.emails) rows.customer_email_addresses.push({ ...e, id: randomUUID(), customer_id: customerId, email: e.email === t.customer.email ? email : e.email });
    let methodId = null;
    if (t.method) {
      methodId = randomUUID();
      rows.payment_methods.push({ ...substituted(t.method, pairs), id: methodId, customer_id: customerId });
    }
    const net = netOf(k);
    const tax = taxOf(net);
    const invoiceId = randomUUID();
    const seq = t.invoice.number_seq + k;
    const number = numberOf(seq);
    rows.invoices.push({
      // The title holds the number ("Rechnung {number}").
      ...substituted(t.invoice, [...pairs, [t.invoice.number, number]]),
      id: invoiceId,
      customer_id: customerId,
      number,
      number_seq: seq,
      net_amount: net,
      tax_amount: tax,
      gross_amount: net + tax,
      tax_breakdown: JSON.stringify([{ ...tplBreakdown[0], taxableAmount: eur(net), taxAmount: eur(tax) }]),
      payment_method_id: t.invoice.payment_method_id === null ? null : methodId,
      file_id: null,
      xml_file_id: null,
      render_attempts: 0,
      render_error: null,
      usage_token: null,
    });
    for (const p of t.positions) rows.invoice_positions.push({ ...p, id: randomUUID(), invoice_id: invoiceId, unit_price: eur(net), net_amount: net });
    made.push({ k, invoiceId, number, gross: net + tax, payer, iban });
  }
  return { statements: Object.entries(rows).flatMap(([table, r]) => inserts(table, r)), made };
}

/** Writes N-1 copies of the template next to it; returns every invoice (template first) as { number, gross, payer, iban }. */
async function seedTenant(local, tpl, N) {
  const t = await readTemplate(local, tpl);
  const numberOf = numberFormatOf(t.invoice.number, t.invoice.number_seq);
  const invoices = [{ k: 0, invoiceId: t.invoice.id, number: t.invoice.number, gross: t.invoice.gross_amount, payer: 'Payer 0 GmbH', iban: payerIban(0) }];
  const dir = await mkdtemp(join(tmpdir(), 'edge-billing-payments-seed-'));
  const t0 = process.hrtime.bigint();
  try {
    for (let from = 1, f = 0; from < N; from += COPIES_PER_FILE, f++) {
      if (local.signal?.aborted) throw local.signal.reason;
      const to = Math.min(N, from + COPIES_PER_FILE);
      const { statements, made } = copiesSql(t, numberOf, from, to);
      invoices.push(...made);
      const file = join(dir, `seed-${String(f).padStart(4, '0')}.sql`);
      await writeFile(file, statements.join('\n') + '\n');
      await d1Execute({ ...local, file, timeoutMs: 600_000 });
      log(`  ${tpl.name}: seeded ${to}/${N} (${(msSince(t0) / 1000).toFixed(1)} s)`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
  const tn = sqlLiteral(tpl.tenantId);
  const [counts] = await d1Execute({
    ...local,
    json: true,
    command: `SELECT
      (SELECT count(*) FROM customers WHERE tenant_id = ${tn}) AS customers,
      (SELECT count(*) FROM invoices WHERE tenant_id = ${tn} AND type = 'TYPE_INVOICE' AND status = 'STATUS_UNPAID' AND gross_amount > paid_amount) AS openInvoices,
      (SELECT count(DISTINCT number) FROM invoices WHERE tenant_id = ${tn}) AS distinctNumbers,
      (SELECT coalesce(sum(gross_amount - paid_amount), 0) FROM invoices WHERE tenant_id = ${tn} AND status = 'STATUS_UNPAID') AS openCents,
      (SELECT count(*) FROM invoice_positions WHERE tenant_id = ${tn}) AS positions,
      (SELECT count(*) FROM payment_methods WHERE tenant_id = ${tn} AND type = 'sepa_debit' AND status = 'active' AND is_default = 1) AS mandates`,
  });
  const c = counts.results[0];
  const expectedCents = invoices.reduce((s, i) => s + i.gross, 0);
  const expectedMandates = tpl.sepa ? N : 0;
  if (c.customers !== N || c.openInvoices !== N || c.distinctNumbers !== N || c.positions !== N || c.mandates !== expectedMandates || c.openCents !== expectedCents) {
    throw new Error(`seeding ${tpl.name} left ${JSON.stringify(c)}, expected ${N} each, ${expectedMandates} mandates and ${expectedCents} cents open`);
  }
  return { invoices, counts: c, openCents: expectedCents, seconds: msSince(t0) / 1000 };
}

// ---------------------------------------------------------------------------------------------
// The camt.053 statement

/** A camt.053.001.02 with one booked credit transfer per invoice, paying it exactly and naming its number. */
function camtStatement(invoices, { bookingDate, tag }) {
  const total = invoices.reduce((s, i) => s + i.gross, 0);
  const opening = 100_000_00;
  const created = `${bookingDate}T06:00:00+00:00`;
  const entries = invoices.map(
    (inv, i) =>
      `<Ntry><Amt Ccy="EUR">${eur(inv.gross)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${bookingDate}</Dt></BookgDt><ValDt><Dt>${bookingDate}</Dt></ValDt>` +
      `<AcctSvcrRef>BENCH-${tag}-${String(i + 1).padStart(7, '0')}</AcctSvcrRef>` +
      `<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn><Prtry><Cd>NTRF+166+9310+997</Cd><Issr>DK</Issr></Prtry></BkTxCd>` +
      `<NtryDtls><TxDtls><Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>` +
      `<RltdPties><Dbtr><Nm>${inv.payer}</Nm></Dbtr><DbtrAcct><Id><IBAN>${inv.iban}</IBAN></Id></DbtrAcct><Cdtr><Nm>Bench Zahlungen GmbH</Nm></Cdtr><CdtrAcct><Id><IBAN>${OWN_IBAN}</IBAN></Id></CdtrAcct></RltdPties>` +
      `<RmtInf><Ustrd>Rechnung ${inv.number} ${inv.payer}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
  );
  const balance = (code, cents) => `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${eur(cents)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${bookingDate}</Dt></Dt></Bal>`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><BkToCstmrStmt>` +
    `<GrpHdr><MsgId>BENCH-${tag}</MsgId><CreDtTm>${created}</CreDtTm></GrpHdr>` +
    `<Stmt><Id>BENCH-${tag}-1</Id><ElctrncSeqNb>1</ElctrncSeqNb><CreDtTm>${created}</CreDtTm>` +
    `<Acct><Id><IBAN>${OWN_IBAN}</IBAN></Id><Ccy>EUR</Ccy><Ownr><Nm>Bench Zahlungen GmbH</Nm></Ownr></Acct>` +
    balance('OPBD', opening) +
    balance('CLBD', opening + total) +
    `\n${entries.join('\n')}\n</Stmt></BkToCstmrStmt></Document>\n`
  );
}

// ---------------------------------------------------------------------------------------------
// Measuring one request: wall time, workerd RSS every 50 ms, workerd CPU

const CLOCK_TICK = 100; // USER_HZ: /proc times are in 1/100 s

/** CPU seconds (user + system) of the workerd processes under the server, and of the whole machine. */
function cpuNow(rootPid) {
  let workerd = 0;
  for (const pid of rootPid ? descendantPids(rootPid) : []) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'workerd') continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      workerd += (Number(f[11]) + Number(f[12])) / CLOCK_TICK;
    } catch {
      /* exited meanwhile */
    }
  }
  let machine = NaN;
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    machine = (f[0] + f[1] + f[2] + f[5] + f[6]) / CLOCK_TICK;
  } catch {
    /* not Linux */
  }
  return { workerd, machine };
}

/**
 * One request with the workerd RSS sampled every 50 ms: { r (http() answer) | error, ms, memory, cpu }.
 * memory: RSS just before, the highest summed RSS seen, the increase, VmHWM before and after.
 */
async function measured(ctx, label, request, profileTag) {
  const rootPid = ctx.server.pid;
  const sampler = memorySampler({ rootPid, name: 'workerd', intervalMs: 50 });
  await sleep(300);
  const before = sampler.current();
  const cpu0 = cpuNow(rootPid());
  const t0 = process.hrtime.bigint();
  let r;
  let error;
  let heap = null;
  try {
    const port = Number(process.env.BENCH_INSPECTOR_PORT || 9339);
    if (process.env.BENCH_PROFILE && HEAP_ONLY) ({ r, heap } = await withHeapReadings(port, request));
    // BENCH_PROFILE=<file>: a CPU profile of the Worker during the request into <file>.<tag> (bench/profile.mjs).
    else if (process.env.BENCH_PROFILE && profileTag) r = await (await import('./profile.mjs')).withProfile(port, request, `${process.env.BENCH_PROFILE}.${profileTag}`);
    else r = await request();
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    error = err?.message ?? String(err);
  }
  const ms = msSince(t0);
  const cpu1 = cpuNow(rootPid());
  await sleep(100);
  const m = sampler.stop();
  const memory = {
    samples: m.samples - before.samples,
    rssBeforeMb: before.lastRssKb / 1024,
    peakRssMb: m.peakRssKb / 1024,
    increaseMb: (m.peakRssKb - before.lastRssKb) / 1024,
    rssAfterMb: m.lastRssKb / 1024,
    hwmBeforeMb: before.hwmKb / 1024,
    hwmAfterMb: m.hwmKb / 1024,
    processes: m.processes.map((p) => ({ pid: p.pid, entry: p.entry, peakRssMb: p.peakRssKb / 1024, hwmMb: p.hwmKb / 1024 })),
  };
  if (heap) memory.v8Heap = heap;
  const wall = ms / 1000;
  const cpu = { workerdSeconds: cpu1.workerd - cpu0.workerd, machineSeconds: cpu1.machine - cpu0.machine, wallSeconds: wall };
  log(
    `payments: ${label}: ${r ? `HTTP ${r.status}` : `no answer (${error})`} in ${wall.toFixed(2)} s; workerd RSS ${memory.rssBeforeMb.toFixed(0)} → peak ${memory.peakRssMb.toFixed(0)} MB ` +
      `(+${memory.increaseMb.toFixed(0)}), workerd CPU ${cpu.workerdSeconds.toFixed(1)} s` +
      (heap ? `; V8 heap used ${heap.before.usedMb.toFixed(0)} → ${heap.after.usedMb.toFixed(0)} MB, committed ${heap.before.totalMb.toFixed(0)} → ${heap.after.totalMb.toFixed(0)} MB (answered ${heap.after.answeredAfterMs.toFixed(0)} ms after it was asked)` : ''),
  );
  return { r, error, ms, memory, cpu };
}

/** A sleep that does not keep the process alive (for races against an answer that may never come). */
const unrefSleep = (ms) => new Promise((res) => setTimeout(res, ms).unref());

const HEAP_ONLY = ['1', 'true', 'yes'].includes(process.env.BENCH_PAYMENTS_HEAP ?? '');

/**
 * The Worker isolate's V8 heap (Runtime.getHeapUsage over the wrangler dev inspector) just before the
 * request and once more while it runs: the inspector answers only when the isolate is free again, so
 * the second reading is the heap as the request left it — garbage not yet collected included, a
 * bound of what it allocated, not of what it kept live (earlier requests' garbage is in both
 * readings). { r, heap: { before, after } | null } in MB.
 */
async function withHeapReadings(port, request) {
  const list = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const target = list.find((t) => t.webSocketDebuggerUrl) ?? list[0];
  const ws = new WebSocket(target.webSocketDebuggerUrl, { headers: { Origin: 'https://devtools.devprod.cloudflare.dev' } });
  await new Promise((res, rej) => {
    ws.onopen = res;
    ws.onerror = rej;
  });
  let id = 0;
  const pending = new Map();
  ws.onmessage = (m) => {
    const d = JSON.parse(m.data);
    if (d.id && pending.has(d.id)) {
      pending.get(d.id)(d);
      pending.delete(d.id);
    }
  };
  // Each reading is bounded: workerd's inspector answers Runtime.getHeapUsage, but never, e.g.,
  // HeapProfiler.collectGarbage (so no GC can be forced between readings).
  const usage = async (timeoutMs) => {
    const t0 = process.hrtime.bigint();
    const i = ++id;
    const d = await Promise.race([
      new Promise((res) => {
        pending.set(i, res);
        ws.send(JSON.stringify({ id: i, method: 'Runtime.getHeapUsage' }));
      }),
      unrefSleep(timeoutMs).then(() => null),
    ]);
    if (!d?.result) return null;
    return { usedMb: d.result.usedSize / 2 ** 20, totalMb: d.result.totalSize / 2 ** 20, answeredAfterMs: msSince(t0) };
  };
  try {
    const before = await usage(10_000);
    const pendingRequest = request();
    await sleep(50);
    // Answered once the isolate is free; a request that ended in the first 50 ms is read after it.
    const after = usage(60 * 60_000);
    const r = await pendingRequest;
    const left = await Promise.race([after, unrefSleep(60_000).then(() => null)]);
    return { r, heap: before && left ? { before, after: left } : null };
  } finally {
    ws.close();
  }
}

/** A file behind a download link (against the benchmark's own origin). */
async function download(ctx, link) {
  const u = new URL(link);
  const res = await fetch(assertLoopback(ctx.url) + u.pathname + u.search, { signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(300_000)]) });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', bytes: Buffer.from(await res.arrayBuffer()) };
}

const ORACLES = join(PROJECT_ROOT, 'test', 'oracles');

/** A command to its end (bounded): { code, killed, stdout, stderr, seconds }. Never throws. */
function runTool(cmd, args, { timeoutSeconds, signal }) {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: timeoutSeconds * 1000, maxBuffer: 64 * 1024 * 1024, signal }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, killed: Boolean(err && (err.killed || err.signal)), error: err && typeof err.code !== 'number' ? String(err.message) : null, stdout: String(stdout ?? ''), stderr: String(stderr ?? ''), seconds: msSince(t0) / 1000 });
    });
  });
}

const tail = (text, n = 2000) => (text.length > n ? `…${text.slice(-n)}` : text);

/** xmllint --schema: { verdict: 'valid' | 'invalid' | 'not judged', seconds, errors? }. */
async function xsdVerdict(file, xsd, opts) {
  const r = await runTool('xmllint', ['--noout', '--schema', xsd, file], opts);
  if (r.killed || r.code === null) return { xsd: xsd.slice(ORACLES.length + 1), verdict: 'not judged', reason: r.killed ? `stopped after ${opts.timeoutSeconds} s` : r.error, seconds: r.seconds };
  return { xsd: xsd.slice(ORACLES.length + 1), verdict: r.code === 0 ? 'valid' : 'invalid', seconds: r.seconds, ...(r.code === 0 ? {} : { errors: tail(r.stderr.split('\n').filter((l) => !/fails to validate$/.test(l)).join('\n')) }) };
}

/** "123.45" → 12345 cents; null when it is not a positive amount of at most two decimals. */
function centsOf(text) {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(text ?? '');
  return m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : null;
}

/**
 * validate-sepa.sh's arithmetic, in the benchmark: GrpHdr and each PmtInf state NbOfTxs and CtrlSum
 * of their transactions (`txTag`), amounts have at most two decimals. Sums in integer cents.
 */
function sepaArithmetic(text, txTag) {
  const problems = [];
  const value = (part, tag) => new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(part)?.[1];
  const amounts = (part) => [...part.matchAll(/<InstdAmt\b[^>]*>([^<]*)<\/InstdAmt>/g)].map((m) => m[1]);
  const check = (label, header, txs) => {
    const declaredN = value(header, 'NbOfTxs');
    const declaredSum = value(header, 'CtrlSum');
    const list = txs.flatMap(amounts);
    const bad = list.filter((a) => centsOf(a) === null);
    if (bad.length) problems.push(`${label}: ${bad.length} amounts that are not decimals of at most two places (first ${bad[0]})`);
    const sum = list.reduce((s, a) => s + (centsOf(a) ?? 0), 0);
    if (declaredN !== undefined && Number(declaredN) !== txs.length) problems.push(`${label}: NbOfTxs=${declaredN} but ${txs.length} transactions`);
    if (declaredSum !== undefined && centsOf(declaredSum) !== sum) problems.push(`${label}: CtrlSum=${declaredSum} but the transactions sum to ${eur(sum)}`);
    return { label, transactions: txs.length, nbOfTxs: declaredN ?? null, ctrlSum: declaredSum ?? null, sum: eur(sum) };
  };
  const split = (part, tag) => part.split(`<${tag}>`).slice(1).map((p) => p.slice(0, p.indexOf(`</${tag}>`)));
  const groupHeader = /<GrpHdr>([\s\S]*?)<\/GrpHdr>/.exec(text)?.[1] ?? '';
  const pmtInfs = split(text, 'PmtInf');
  const groups = [check('GrpHdr', groupHeader, pmtInfs.flatMap((p) => split(p, txTag)))];
  pmtInfs.forEach((p, i) => groups.push(check(`PmtInf[${i + 1}]`, p.slice(0, p.indexOf(`<${txTag}>`)), split(p, txTag))));
  return { verdict: problems.length ? 'invalid' : 'valid', groups, problems };
}

/**
 * Judges a SEPA/camt file the way test/oracles/validate-sepa.sh does: the ISO 20022 XSD of its root
 * namespace, with `strict` the German banks' restricted XSD too (when there is one), and for pain
 * files the count/sum arithmetic — here as direct xmllint --schema runs plus the arithmetic in JS,
 * because the script's XPath sums take libxml2 more than 15 minutes on 10,000 debits. With
 * `script`, the script itself is run as well (timed). Returns { verdict, seconds, parts, script? }.
 */
export async function judgeFile(path, text, { strict, script, timeoutSeconds, signal }) {
  const t0 = process.hrtime.bigint();
  const message = /xmlns="urn:iso:std:iso:20022:tech:xsd:([a-z]{4}\.\d{3}\.\d{3}\.\d{2})"/.exec(text.slice(0, 2000))?.[1];
  if (!message) return { verdict: 'invalid', seconds: 0, parts: [], problems: ['no ISO 20022 root namespace'] };
  const opts = { timeoutSeconds, signal };
  const parts = [await xsdVerdict(path, join(ORACLES, 'sepa', 'xsd', 'iso', `${message}.xsd`), opts)];
  const restricted = join(ORACLES, 'sepa', 'xsd', 'dk-sepa', `${message}.xsd`);
  if (strict && existsSync(restricted)) parts.push(await xsdVerdict(path, restricted, opts));
  const txTag = message.startsWith('pain.008') ? 'DrctDbtTxInf' : message.startsWith('pain.001') ? 'CdtTrfTxInf' : null;
  let arithmetic = null;
  if (txTag) {
    const a0 = process.hrtime.bigint();
    arithmetic = { ...sepaArithmetic(text, txTag), seconds: msSince(a0) / 1000 };
  }
  const verdicts = [...parts.map((p) => p.verdict), ...(arithmetic ? [arithmetic.verdict] : [])];
  const out = {
    message,
    verdict: verdicts.includes('invalid') ? 'invalid' : verdicts.includes('not judged') ? 'not judged' : 'valid',
    seconds: msSince(t0) / 1000,
    parts,
    arithmetic,
  };
  if (script) {
    const r = await runTool('bash', [join(ORACLES, 'validate-sepa.sh'), ...(strict ? ['--strict'] : []), path], opts);
    const verdict = r.killed || (r.code !== 0 && r.code !== 1) ? 'not judged' : r.code === 0 && /RESULT: VALID/.test(r.stdout) ? 'valid' : 'invalid';
    out.script = { verdict, seconds: r.seconds, ...(verdict === 'not judged' ? { reason: r.killed ? `stopped after ${timeoutSeconds} s` : `exit ${r.code}` } : {}), output: tail(`${r.stdout}${r.stderr}`) };
    if (verdict === 'invalid') out.verdict = 'invalid';
  }
  return out;
}

/** Writes a file into BENCH_PAYMENTS_KEEP_FILES. */
async function keepFile(dir, name, data) {
  await mkdir(dir, { recursive: true });
  const path = join(dir, name);
  await writeFile(path, data);
  log(`payments: kept ${path}`);
}

/** fn(path) on `data` written to a temporary file, removed afterwards. */
async function withTempFile(name, data, fn) {
  const dir = await mkdtemp(join(tmpdir(), 'edge-billing-payments-xml-'));
  try {
    const path = join(dir, name);
    await writeFile(path, data);
    return await fn(path);
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}

/** A one-line account of a judgement. */
function judgement(j) {
  if (!j) return 'not validated';
  const parts = j.parts.map((p) => `${p.xsd.replace(/^sepa\/xsd\//, '')} ${p.verdict}${p.reason ? ` (${p.reason})` : ''} ${p.seconds.toFixed(1)} s`);
  if (j.arithmetic) parts.push(`NbOfTxs/CtrlSum ${j.arithmetic.verdict} (${j.arithmetic.groups.map((g) => `${g.label} ${g.transactions}/${g.ctrlSum}`).join(', ')})`);
  if (j.script) parts.push(`validate-sepa.sh${j.message.startsWith('pain') ? ' --strict' : ''} ${j.script.verdict}${j.script.reason ? ` (${j.script.reason})` : ''} in ${j.script.seconds.toFixed(1)} s`);
  return `${j.verdict.toUpperCase()}: ${parts.join('; ')}`;
}

// ---------------------------------------------------------------------------------------------
// Step 5: SQL over the local D1 (server stopped)

async function verifyStores(local, { camt, sepa, fileId, N }) {
  const a = sqlLiteral(camt.tenantId);
  const b = sqlLiteral(sepa.tenantId);
  const sets = await d1Execute({
    ...local,
    json: true,
    timeoutMs: 300_000,
    command: [
      `SELECT count(*) AS invoices, sum(status = 'STATUS_PAID') AS paid, sum(paid_amount = gross_amount) AS paidInFull, sum(pay_date IS NOT NULL) AS withPayDate
         FROM invoices WHERE tenant_id = ${a} AND type = 'TYPE_INVOICE'`,
      `SELECT count(*) AS payments, count(DISTINCT invoice_id) AS invoicesPaid, coalesce(sum(amount), 0) AS cents, sum(transaction_id IS NOT NULL) AS withTransaction
         FROM invoice_payments WHERE tenant_id = ${a}`,
      `SELECT count(*) AS lines, sum(status = 'STATUS_BOOKED') AS booked, sum(assigned_amount = amount) AS fullyAssigned, count(DISTINCT import_id) AS imports
         FROM bank_account_transactions WHERE tenant_id = ${a}`,
      `SELECT count(*) AS n FROM bank_statement_imports WHERE tenant_id = ${a}`,
      `SELECT count(*) AS assignments, sum(status = 'accepted') AS accepted, count(DISTINCT bank_account_transaction_id) AS lines, count(DISTINCT invoice_id) AS invoices
         FROM bank_account_transaction_assignments WHERE tenant_id = ${a}`,
      `SELECT count(*) AS transactions, sum(gateway = 'bank_transfer' AND status = 'succeeded' AND type = 'payment') AS bankTransfers, count(DISTINCT invoice_id) AS invoices
         FROM transactions WHERE tenant_id = ${a}`,
      `SELECT count(*) AS transactions, sum(type = 'payment' AND gateway = 'sepa_debit' AND status = 'processing' AND sepa_file_id = ${sqlLiteral(fileId ?? '')}) AS inFile,
         count(DISTINCT invoice_id) AS invoices, coalesce(sum(amount), 0) AS cents, sum(sepa_sequence_type = 'FRST') AS frst
         FROM transactions WHERE tenant_id = ${b}`,
      `SELECT count(*) AS mandates, sum(mandate_first_used_at IS NOT NULL) AS firstUsed FROM payment_methods WHERE tenant_id = ${b} AND type = 'sepa_debit'`,
      `SELECT count(*) AS files, coalesce(sum(number_of_transactions), 0) AS transactions FROM sepa_files WHERE tenant_id = ${b}`,
      `SELECT count(*) AS n FROM invoices WHERE tenant_id = ${b} AND status <> 'STATUS_UNPAID'`,
    ].join(';\n'),
  });
  const row = (i) => sets[i].results[0];
  const v = {
    camt: { invoices: row(0), payments: row(1), lines: row(2), imports: row(3).n, assignments: row(4), transactions: row(5) },
    sepa: { transactions: row(6), mandates: row(7), files: row(8), invoicesNotOpen: row(9).n },
  };
  const f = [];
  const c = v.camt;
  if (c.invoices.invoices !== N || c.invoices.paid !== N || c.invoices.paidInFull !== N || c.invoices.withPayDate !== N) f.push(`camt: of ${c.invoices.invoices} invoices ${c.invoices.paid} STATUS_PAID, ${c.invoices.paidInFull} paid in full (expected ${N})`);
  if (c.payments.payments !== N || c.payments.invoicesPaid !== N || c.payments.cents !== camt.openCents || c.payments.withTransaction !== N) {
    f.push(`camt: ${c.payments.payments} invoice_payments rows on ${c.payments.invoicesPaid} invoices, ${c.payments.cents} cents (expected ${N} on ${N}, ${camt.openCents} cents)`);
  }
  if (c.lines.lines !== N || c.lines.booked !== N || c.lines.fullyAssigned !== N || c.imports !== 1) f.push(`camt: ${c.lines.lines} bank lines, ${c.lines.booked} STATUS_BOOKED, ${c.lines.fullyAssigned} fully assigned, ${c.imports} imports (expected ${N}, ${N}, ${N}, 1)`);
  if (c.assignments.assignments !== N || c.assignments.accepted !== N || c.assignments.lines !== N || c.assignments.invoices !== N) f.push(`camt: ${JSON.stringify(c.assignments)} assignments (expected ${N} accepted, one per line and invoice)`);
  if (c.transactions.transactions !== N || c.transactions.bankTransfers !== N || c.transactions.invoices !== N) f.push(`camt: ${JSON.stringify(c.transactions)} transactions (expected ${N} bank transfers, one per invoice)`);
  const s = v.sepa;
  if (s.transactions.transactions !== N || s.transactions.inFile !== N || s.transactions.invoices !== N || s.transactions.cents !== sepa.openCents || s.transactions.frst !== N) {
    f.push(`sepa: ${JSON.stringify(s.transactions)} transactions (expected ${N} processing in the file, one per invoice, FRST, ${sepa.openCents} cents)`);
  }
  if (s.mandates.mandates !== N || s.mandates.firstUsed !== N) f.push(`sepa: ${s.mandates.firstUsed} of ${s.mandates.mandates} mandates marked first used (expected ${N})`);
  if (s.files.files !== 1 || s.files.transactions !== N) f.push(`sepa: ${s.files.files} files of ${s.files.transactions} transactions`);
  if (s.invoicesNotOpen) f.push(`sepa: ${s.invoicesNotOpen} invoices no longer open (a debit in a file leaves its invoice open until the statement)`);
  return { ...v, ok: f.length === 0, failures: f };
}

// ---------------------------------------------------------------------------------------------
// The section

export const paymentsSection = {
  name: 'payments',
  title: 'Payments: a camt.053 statement imported and matched, a pain.008 file of direct debits (local)',

  async run(ctx) {
    const cfg = readPaymentsConfig();
    const { server, local } = localDatabase(ctx, 'the payments section seeds the local D1 database directly');
    const { signal } = ctx;
    const N = cfg.invoices;
    const timeoutMs = cfg.timeoutSeconds * 1000;
    log(`payments: ${JSON.stringify(cfg)}`);
    const failures = [];
    // The harness's closed-loop settings (for GET /health) next to the section's own.
    const out = { config: { seconds: ctx.config.seconds, warmupSeconds: ctx.config.warmupSeconds, concurrency: ctx.config.concurrency, ...cfg } };

    // 1. Tenants and templates through the API, N-1 copies each in SQL.
    const camt = await createTemplate(ctx, { name: 'Bench payments (camt)', sepa: false });
    const sepa = await createTemplate(ctx, { name: 'Bench payments (SEPA)', sepa: true, debitsPerFile: N });
    const seeds = {};
    await server.restart(async () => {
      log(`payments: seeding ${N - 1} copies of each template into the local D1…`);
      seeds.camt = await seedTenant(local, camt, N);
      seeds.sepa = await seedTenant(local, sepa, N);
    });
    camt.openCents = seeds.camt.openCents;
    sepa.openCents = seeds.sepa.openCents;
    out.setup = {
      invoicesPerTenant: N,
      camtTenant: camt.tenantId,
      sepaTenant: sepa.tenantId,
      seedSeconds: seeds.camt.seconds + seeds.sepa.seconds,
      camtOpen: eur(camt.openCents),
      sepaOpen: eur(sepa.openCents),
      numbers: `${seeds.camt.invoices[0].number} … ${seeds.camt.invoices[N - 1].number}`,
    };
    log(`payments: seeded in ${out.setup.seedSeconds.toFixed(1)} s; open: camt tenant ${out.setup.camtOpen} EUR, SEPA tenant ${out.setup.sepaOpen} EUR; server restarted`);

    // 2. Baseline.
    const health = await ctx.measure('GET /health', () => ({ path: '/health' }));
    out.health = health;

    // 3. pain.008.
    const expectedSum = eur(sepa.openCents);
    log(`payments: POST /sepa-xml (direct debits, ${N} due, expected control sum ${expectedSum})…`);
    const pain = await measured(ctx, 'POST /sepa-xml', () => http(ctx.url, 'POST', '/sepa-xml', { headers: sepa.auth, body: { type: 'direct_debit' }, timeoutMs, signal }), 'pain008');
    const painCheck = { problems: [] };
    let fileId = null;
    if (!pain.r || pain.r.status !== 201) {
      painCheck.problems.push(`POST /sepa-xml: ${pain.r ? describe(pain.r) : `no answer: ${pain.error}`}`);
    } else {
      const file = pain.r.json;
      fileId = file.id;
      Object.assign(painCheck, { id: file.id, format: file.format, collectionDate: file.collectionDate, numberOfTransactions: file.numberOfTransactions, controlSum: file.controlSum, skipped: file.skipped?.length ?? null });
      if (file.numberOfTransactions !== N) painCheck.problems.push(`numberOfTransactions ${file.numberOfTransactions}, expected ${N}`);
      if (file.controlSum !== expectedSum) painCheck.problems.push(`controlSum ${file.controlSum}, expected ${expectedSum}`);
      if (file.skipped?.length) painCheck.problems.push(`${file.skipped.length} skipped (first: ${JSON.stringify(file.skipped[0])})`);
      const link = await http(ctx.url, 'PUT', `/sepa-xml/${file.id}/download-link`, { headers: sepa.auth, signal, timeoutMs: 120_000 });
      if (link.status !== 200 || !link.json?.url) painCheck.problems.push(`PUT /sepa-xml/{id}/download-link: ${describe(link)}`);
      else {
        const t0 = process.hrtime.bigint();
        const xml = await download(ctx, link.json.url);
        painCheck.downloadSeconds = msSince(t0) / 1000;
        painCheck.bytes = xml.bytes.length;
        painCheck.contentType = xml.contentType;
        const text = xml.bytes.toString('utf8');
        painCheck.debitsInXml = (text.match(/<DrctDbtTxInf>/g) ?? []).length;
        if (xml.status !== 200) painCheck.problems.push(`download: HTTP ${xml.status}`);
        if (painCheck.debitsInXml !== N) painCheck.problems.push(`${painCheck.debitsInXml} <DrctDbtTxInf> in the XML, expected ${N}`);
        if (!text.includes(`<CtrlSum>${expectedSum}</CtrlSum>`)) painCheck.problems.push(`the XML has no <CtrlSum>${expectedSum}</CtrlSum>`);
        if (cfg.keepFilesDir) await keepFile(cfg.keepFilesDir, 'pain008.xml', xml.bytes);
        if (cfg.validate !== 'off') {
          log(`payments: judging the pain.008 (${(xml.bytes.length / 1e6).toFixed(1)} MB): ISO and DK-SEPA XSD, NbOfTxs/CtrlSum${cfg.validate === 'script' ? ', and validate-sepa.sh --strict itself' : ''}…`);
          painCheck.validation = await withTempFile('pain008.xml', xml.bytes, (path) => judgeFile(path, text, { strict: true, script: cfg.validate === 'script', timeoutSeconds: cfg.validateTimeoutSeconds, signal }));
          log(`payments: pain.008 ${judgement(painCheck.validation)}`);
          if (painCheck.validation.verdict === 'invalid') painCheck.problems.push(`the XML is invalid: ${JSON.stringify(painCheck.validation).slice(0, 3000)}`);
        }
      }
    }
    out.pain008 = { ms: pain.ms, status: pain.r?.status ?? null, error: pain.error ?? null, memory: pain.memory, cpu: pain.cpu, check: { ...painCheck, ok: painCheck.problems.length === 0 } };
    failures.push(...painCheck.problems.map((p) => `pain.008: ${p}`));

    // 4. camt.053: import, then the same file again.
    const bookingDate = new Date().toISOString().slice(0, 10);
    const xml = camtStatement(seeds.camt.invoices, { bookingDate, tag: ctx.runTag.toUpperCase() });
    const camtBytes = Buffer.byteLength(xml);
    const camtCheck = { bytes: camtBytes, entries: N, problems: [] };
    if (cfg.keepFilesDir) await keepFile(cfg.keepFilesDir, 'camt053.xml', xml);
    if (cfg.validate !== 'off') {
      camtCheck.validation = await withTempFile('camt053.xml', xml, (path) => judgeFile(path, xml, { strict: false, script: cfg.validate === 'script', timeoutSeconds: cfg.validateTimeoutSeconds, signal }));
      log(`payments: the generated camt.053: ${judgement(camtCheck.validation)}`);
      if (camtCheck.validation.verdict === 'invalid') camtCheck.problems.push(`the generated statement is not valid camt.053.001.02 (a benchmark bug): ${JSON.stringify(camtCheck.validation).slice(0, 3000)}`);
    }
    const importRequest = () =>
      http(ctx.url, 'POST', '/payment/bank-account-transactions/import', { headers: { ...camt.auth, 'Content-Type': 'application/xml' }, body: xml, timeoutMs, signal });
    log(`payments: POST /payment/bank-account-transactions/import (camt.053, ${N} entries, ${(camtBytes / 1e6).toFixed(1)} MB)…`);
    const first = await measured(ctx, 'camt import', importRequest, 'camt');
    const expectImport = (label, m, status, added) => {
      if (!m.r || m.r.status !== status) {
        camtCheck.problems.push(`${label}: ${m.r ? describe(m.r) : `no answer: ${m.error}`} (expected ${status})`);
        return null;
      }
      const b = m.r.json;
      if (b.added !== added || b.booked !== N || b.manualMatchingRequired !== 0 || b.ignored !== 0 || b.suggestions !== 0 || b.import?.entries !== N) {
        camtCheck.problems.push(`${label}: added ${b.added}, booked ${b.booked}, manual ${b.manualMatchingRequired}, ignored ${b.ignored}, suggestions ${b.suggestions}, entries ${b.import?.entries} (expected added ${added}, booked ${N}, nothing else)`);
      }
      return b;
    };
    camtCheck.first = expectImport('first import', first, 201, N);
    const again = first.r?.status === 201 ? await measured(ctx, 'camt import again', importRequest) : null;
    if (again) camtCheck.again = expectImport('the same file again', again, 200, 0);
    if (again && camtCheck.first && camtCheck.again && camtCheck.again.import?.id !== camtCheck.first.import?.id) camtCheck.problems.push(`the second import answered import ${camtCheck.again.import?.id}, not the first one's ${camtCheck.first.import?.id}`);
    out.camt = {
      ms: first.ms,
      status: first.r?.status ?? null,
      error: first.error ?? null,
      memory: first.memory,
      cpu: first.cpu,
      again: again ? { ms: again.ms, status: again.r?.status ?? null, error: again.error ?? null, memory: again.memory, cpu: again.cpu } : null,
      check: { ...camtCheck, ok: camtCheck.problems.length === 0 },
    };
    failures.push(...camtCheck.problems.map((p) => `camt: ${p}`));

    // 5. The stored rows, with the server stopped (then started again for any later section).
    let stored;
    await server.restart(async () => {
      log('payments: checking the stored rows in the local D1…');
      stored = await verifyStores(local, { camt, sepa, fileId, N });
    });
    log(`payments: stored rows ${stored.ok ? 'as expected' : `WRONG: ${stored.failures.join('; ')}`}`);
    out.stored = stored;
    failures.push(...stored.failures);

    // Rows of the table: the figures and their ratios to GET /health.
    const hRps = health.rps;
    const hP50 = health.latencyMs.p50;
    const row = (name, items, unit, m, extra = {}) => ({
      name,
      items,
      unit,
      status: m.r?.status ?? 'none',
      seconds: m.ms / 1000,
      perSecond: m.r?.ok ? items / (m.ms / 1000) : null,
      vsHealthRps: m.r?.ok ? items / (m.ms / 1000) / hRps : null,
      inHealthLatencies: m.ms / hP50,
      workerdCpuSeconds: m.cpu.workerdSeconds,
      rssBeforeMb: m.memory.rssBeforeMb,
      peakRssMb: m.memory.peakRssMb,
      increaseMb: m.memory.increaseMb,
      hwmMb: m.memory.hwmAfterMb,
      ...extra,
    });
    out.results = [
      health,
      row(`POST /sepa-xml (pain.008, ${N} debits)`, N, 'debits', pain, { bytes: painCheck.bytes ?? null, ok: out.pain008.check.ok }),
      row(`POST …/import (camt.053, ${N} entries)`, N, 'entries', first, { bytes: camtBytes, ok: camtCheck.problems.filter((p) => !p.startsWith('the same')).length === 0 }),
      ...(again ? [row('POST …/import, same file again', N, 'entries', again, { bytes: camtBytes, ok: Boolean(camtCheck.again) })] : []),
    ];
    out.failed = failures.length ? failures.join('; ') : undefined;
    return out;
  },

  report(out) {
    const w = (s) => process.stdout.write(s);
    const N = out.config.invoices;
    const h = out.health;
    w(`\n${this.title}\n`);
    w(
      `setup: two test-mode tenants, ${N} customers and ${N} finalized open invoices each (1 through the API, ${N - 1} SQL copies, ${out.setup.seedSeconds.toFixed(1)} s), ` +
        `numbers ${out.setup.numbers}; camt tenant ${out.setup.camtOpen} EUR open (bank transfer), SEPA tenant ${out.setup.sepaOpen} EUR open (one mandate per customer)\n`,
    );
    w(`baseline GET /health: ${h.rps.toFixed(1)} req/s, p50 ${h.latencyMs.p50.toFixed(2)} ms (closed loop, ${h.concurrency} concurrent, ${h.seconds.toFixed(1)} s, ${h.errors} errors)\n\n`);
    const ops = out.results.slice(1);
    printTable(ops, [
      { title: 'request (once each)', value: (r) => r.name },
      { title: 'HTTP', value: (r) => r.status },
      { title: 'seconds', value: (r) => r.seconds, digits: 2 },
      { title: 'items/s', value: (r) => r.perSecond ?? '-', digits: 0 },
      { title: 'vs /health req/s', value: (r) => (r.vsHealthRps === null ? '-' : `${r.vsHealthRps.toFixed(2)}x`) },
      { title: '/health p50s', value: (r) => r.inHealthLatencies, digits: 0 },
      { title: 'workerd CPU s', value: (r) => r.workerdCpuSeconds, digits: 1 },
      { title: 'MB', value: (r) => (r.bytes ? (r.bytes / 1e6).toFixed(1) : '-') },
      { title: 'RSS before MB', value: (r) => r.rssBeforeMb, digits: 0 },
      { title: 'peak RSS MB', value: (r) => r.peakRssMb, digits: 0 },
      { title: 'peak +MB', value: (r) => r.increaseMb, digits: 0 },
      { title: 'VmHWM MB', value: (r) => r.hwmMb, digits: 0 },
      { title: 'check', value: (r) => (r.ok ? 'ok' : 'FAILED') },
    ]);
    w(`  items/s: debits or entries per second of the one request; vs /health req/s: that rate ÷ GET /health's; /health p50s: the request's time in GET /health p50 latencies\n`);
    const p = out.pain008;
    const pc = p.check;
    w(
      `  pain.008: ${pc.numberOfTransactions ?? '-'} debits, control sum ${pc.controlSum ?? '-'} EUR (expected ${out.setup.sepaOpen}), ${pc.skipped ?? '-'} skipped, ` +
        `format ${pc.format ?? '-'}, collection ${pc.collectionDate ?? '-'}; XML ${pc.bytes ?? '-'} bytes (${pc.debitsInXml ?? '-'} <DrctDbtTxInf>, downloaded in ${pc.downloadSeconds?.toFixed(2) ?? '-'} s); ` +
        `validation ${judgement(pc.validation)}\n`,
    );
    const c = out.camt;
    const cc = c.check;
    w(
      `  camt.053: ${N} entries, ${cc.bytes} bytes (the generated file: ${judgement(cc.validation)}); ` +
        `first import ${cc.first ? `added ${cc.first.added}, booked ${cc.first.booked}, manual ${cc.first.manualMatchingRequired}, suggestions ${cc.first.suggestions}` : '-'}; ` +
        `again ${cc.again ? `HTTP ${c.again.status}, added ${cc.again.added} in ${(c.again.ms / 1000).toFixed(2)} s` : '-'}\n`,
    );
    for (const [label, m] of [
      ['pain.008', p.memory],
      ['camt import', c.memory],
    ]) {
      w(`  workerd memory during the ${label}: ${m.processes.map((x) => `pid ${x.pid} (entry ${x.entry ?? '?'}) peak RSS ${x.peakRssMb.toFixed(0)} MB, VmHWM ${x.hwmMb.toFixed(0)} MB`).join('; ')} (${m.samples} samples)\n`);
      const v = m.v8Heap;
      if (v) w(`    Worker V8 heap: used ${v.before.usedMb.toFixed(0)} MB before, ${v.after.usedMb.toFixed(0)} MB as the request left it (garbage included); committed ${v.before.totalMb.toFixed(0)} → ${v.after.totalMb.toFixed(0)} MB\n`);
    }
    const s = out.stored;
    w(
      `  stored: camt tenant ${s.camt.invoices.paid}/${s.camt.invoices.invoices} invoices STATUS_PAID, ${s.camt.payments.payments} invoice_payments on ${s.camt.payments.invoicesPaid} invoices, ` +
        `${s.camt.lines.booked}/${s.camt.lines.lines} bank lines STATUS_BOOKED, ${s.camt.imports} import(s); SEPA tenant ${s.sepa.transactions.inFile} processing debits in the file ` +
        `on ${s.sepa.transactions.invoices} invoices, ${s.sepa.mandates.firstUsed}/${s.sepa.mandates.mandates} mandates first used — ${s.ok ? 'ok' : 'WRONG'}\n`,
    );
    if (out.failed) w(`  FAILED: ${out.failed}\n`);
  },
};
