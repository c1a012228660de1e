import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { tenants } from '../../src/db/schema';
import { createServiceContext } from '../../src/services/context';
import { importStatement } from '../../src/services/bank/import';
import { countRows, query, dbOf, type TestTenant } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';

// A statement of 10,000 transfers against 10,000 open invoices, each naming its invoice and paying
// it exactly: every line is booked, every invoice paid, in well under the 1,000 D1 queries a Worker
// invocation may make. The import runs through the service (the file is ~7 MB, beyond the JSON
// body limit); the time is printed for the notes.

const N = 10_000;
const amount = (i: number) => 1000 + (i % 500) * 7; // 10.00 … 44.93 EUR, in cents
const cents = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
const number = (i: number) => `BULK-${String(i).padStart(7, '0')}`;

function statement(): string {
  const entries: string[] = [];
  for (let i = 1; i <= N; i++) {
    entries.push(`<Ntry><Amt Ccy="EUR">${cents(amount(i))}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-05-04</Dt></BookgDt><ValDt><Dt>2026-05-04</Dt></ValDt><AcctSvcrRef>BULK-REF-${i}</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls><TxDtls><RltdPties><Dbtr><Nm>Payer ${i}</Nm></Dbtr><DbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></DbtrAcct></RltdPties><RmtInf><Ustrd>Rechnung ${number(i)} Kunde ${i}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`);
  }
  return `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>BULK</MsgId><CreDtTm>2026-05-05T06:00:00Z</CreDtTm></GrpHdr><Stmt><Id>BULK-1</Id><CreDtTm>2026-05-05T06:00:00Z</CreDtTm><Acct><Id><IBAN>DE09100100101234567890</IBAN></Id></Acct><Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-05-04</Dt></Dt></Bal>${entries.join('')}</Stmt></BkToCstmrStmt></Document>`;
}

/** 10,000 open invoices of one customer, written directly (finalizing them one by one through the API would take minutes). */
async function openInvoices(tenantId: string, customerId: string) {
  const now = new Date().toISOString();
  for (let start = 1; start <= N; start += 2000) {
    const rows = [];
    for (let i = start; i < start + 2000 && i <= N; i++) {
      const gross = amount(i);
      rows.push([`inv-${tenantId.slice(0, 8)}-${i}`, number(i), i, gross]);
    }
    await (await dbOf(tenantId)).prepare(
      `INSERT INTO invoices (id, tenant_id, customer_id, type, status, number, number_seq, created_at, currency_code, finalization_date, due_date, net_amount, tax_amount, gross_amount, updated_at)
       SELECT json_extract(value, '$[0]'), ?, ?, 'TYPE_INVOICE', 'STATUS_UNPAID', json_extract(value, '$[1]'), json_extract(value, '$[2]') + 1000000, ?, 'EUR', ?, '2026-05-01T00:00:00.000Z', json_extract(value, '$[3]'), 0, json_extract(value, '$[3]'), ?
       FROM json_each(?)`,
    )
      .bind(tenantId, customerId, now, now, now, JSON.stringify(rows))
      .run();
  }
}

/** The tenant's database, counting the statements it is sent. */
async function countingDb(t: TestTenant) {
  const real = await dbOf(t);
  const counter = { statements: 0, batches: 0 };
  const d1 = new Proxy(real, {
    get(target, prop) {
      if (prop === 'prepare') {
        return (q: string) => {
          counter.statements += 1;
          return target.prepare(q);
        };
      }
      if (prop === 'batch') {
        return (s: D1PreparedStatement[]) => {
          counter.batches += 1;
          return target.batch(s);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db: createDb(d1), counter };
}

describe('a statement of 10,000 lines against 10,000 open invoices', () => {
  it('books every line and pays every invoice, in few D1 queries', { timeout: 300_000 }, async () => {
    const t = await createTenant();
    const customer = await createCustomer(t);
    await openInvoices(t.id, customer.id);
    const xml = statement();
    const bytes = new TextEncoder().encode(xml);
    const { db, counter } = await countingDb(t);
    const tenant = await db.select().from(tenants).where(eq(tenants.id, t.id)).get();
    const ctx = createServiceContext({ env, db, tenant: tenant! });
    const started = Date.now();
    const outcome = await importStatement(ctx, bytes);
    const ms = Date.now() - started;
    console.log(`bank import: ${N} lines, ${(bytes.length / 1e6).toFixed(1)} MB, ${ms} ms (${Math.round((N * 1000) / ms)} lines/s), ${counter.statements} D1 statements in ${counter.batches} batches`);
    expect(outcome.result).toMatchObject({ added: N, booked: N, manualMatchingRequired: 0, ignored: 0, suggestions: 0 });
    expect(counter.statements).toBeLessThan(1000);
    const [open] = await query<{ n: number }>(t, "SELECT count(*) AS n FROM invoices WHERE tenant_id = ? AND status <> 'STATUS_PAID'", t.id);
    expect(open!.n).toBe(0);
    expect(await countRows('transactions', t, "AND status = 'succeeded'")).toBe(N);
    expect(await countRows('events', t, "AND type = 'invoice.paid'")).toBe(N);
    const [sum] = await query<{ paid: number; assigned: number }>(
      t,
      'SELECT (SELECT sum(paid_amount) FROM invoices WHERE tenant_id = ?1) AS paid, (SELECT sum(assigned_amount) FROM bank_account_transactions WHERE tenant_id = ?1) AS assigned',
      t.id,
    );
    let expected = 0;
    for (let i = 1; i <= N; i++) expected += amount(i);
    expect(sum).toEqual({ paid: expected, assigned: expected });
  });
});
