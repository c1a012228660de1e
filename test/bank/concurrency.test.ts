import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { tenants } from '../../src/db/schema';
import { importStatement } from '../../src/services/bank/import';
import { createServiceContext } from '../../src/services/context';
import { countRows, get, query, type TestTenant, dbOf } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { invoiceOf } from './builders';

// An invoice that changes between the import's read and its write: the chunk's batch fails as a
// whole (every invoice write is guarded by the updatedAt that was read), the import reads again and
// writes the others; the line whose invoice was paid meanwhile waits for a person, and nothing is
// paid twice.

function statement(lines: { ref: string; amount: string; text: string }[]): string {
  const entries = lines
    .map(
      (l) =>
        `<Ntry><Amt Ccy="EUR">${l.amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-06-01</Dt></BookgDt><AcctSvcrRef>${l.ref}</AcctSvcrRef><BkTxCd/><NtryDtls><TxDtls><RmtInf><Ustrd>${l.text}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>C</MsgId><CreDtTm>2026-06-02T06:00:00Z</CreDtTm></GrpHdr><Stmt><Id>C-1</Id><CreDtTm>2026-06-02T06:00:00Z</CreDtTm><Acct><Id><IBAN>DE09100100101234567890</IBAN></Id></Acct>${entries}</Stmt></BkToCstmrStmt></Document>`;
}

/** A context whose database runs `meanwhile` once, just before the first batch that writes invoices. */
async function racingContext(t: TestTenant, meanwhile: () => Promise<unknown>) {
  let writesInvoices = false;
  let raced = false;
  const d1 = new Proxy(await dbOf(t), {
    get(target, prop) {
      if (prop === 'prepare') {
        return (q: string) => {
          if (/^UPDATE "invoices"/.test(q)) writesInvoices = true;
          return target.prepare(q);
        };
      }
      if (prop === 'batch') {
        return async (s: D1PreparedStatement[]) => {
          if (writesInvoices && !raced) {
            raced = true;
            await meanwhile();
          }
          writesInvoices = false;
          return target.batch(s);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const db = createDb(d1);
  const tenant = await db.select().from(tenants).where(eq(tenants.id, t.id)).get();
  return { ctx: createServiceContext({ env, db, tenant: tenant! }), raced: () => raced };
}

describe('an invoice changed while a statement is imported', () => {
  it('the other lines are booked; the line of the invoice paid meanwhile is left to a person, nothing is paid twice', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const inv = [await invoiceOf(t, c.id, '100.00'), await invoiceOf(t, c.id, '50.00'), await invoiceOf(t, c.id, '200.00')];
    const xml = statement([
      { ref: 'C-1', amount: '119.00', text: 'RE-0000000001' },
      { ref: 'C-2', amount: '59.50', text: 'RE-0000000002' },
      { ref: 'C-3', amount: '238.00', text: 'RE-0000000003' },
    ]);
    // Invoice 2 is paid by other means between the read and the write.
    const { ctx, raced } = await racingContext(t, async () =>
      (await dbOf(t)).prepare("UPDATE invoices SET paid_amount = gross_amount, status = 'STATUS_PAID', updated_at = '2099-01-01T00:00:00.000Z' WHERE tenant_id = ? AND id = ?")
        .bind(t.id, inv[1]!.id)
        .run(),
    );
    const outcome = await importStatement(ctx, new TextEncoder().encode(xml));
    expect(raced()).toBe(true);
    expect(outcome.result).toMatchObject({ added: 3, booked: 2, manualMatchingRequired: 1, suggestions: 0 });
    const lines = (await get(t, '/payment/bank-account-transactions')).body.data as { remittanceInformation: string; status: string; assignments: unknown[] }[];
    expect(lines.map((l) => [l.remittanceInformation, l.status, l.assignments.length]).sort()).toEqual([
      ['RE-0000000001', 'STATUS_BOOKED', 1],
      ['RE-0000000002', 'STATUS_MANUAL_MATCHING_REQUIRED', 0],
      ['RE-0000000003', 'STATUS_BOOKED', 1],
    ]);
    const rows = await query<{ number: string; status: string; paid_amount: number; gross_amount: number }>(
      t,
      'SELECT number, status, paid_amount, gross_amount FROM invoices WHERE tenant_id = ? ORDER BY number',
      t.id,
    );
    expect(rows.map((r) => [r.number, r.status, r.paid_amount, r.gross_amount])).toEqual([
      ['RE-0000000001', 'STATUS_PAID', 11900, 11900],
      ['RE-0000000002', 'STATUS_PAID', 5950, 5950],
      ['RE-0000000003', 'STATUS_PAID', 23800, 23800],
    ]);
    expect(await countRows('invoice_payments', t)).toBe(2);
    expect(await countRows('transactions', t)).toBe(2);
    expect(await countRows('events', t, "AND type = 'invoice.paid'")).toBe(2);
  });

  it('an invoice only touched meanwhile (not paid) is paid after the fresh read', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const inv = [await invoiceOf(t, c.id, '100.00'), await invoiceOf(t, c.id, '50.00')];
    const xml = statement([
      { ref: 'D-1', amount: '119.00', text: 'RE-0000000001' },
      { ref: 'D-2', amount: '59.50', text: 'RE-0000000002' },
    ]);
    const { ctx } = await racingContext(t, async () =>
      (await dbOf(t)).prepare("UPDATE invoices SET internal_note = 'looked at', updated_at = '2099-01-01T00:00:00.000Z' WHERE tenant_id = ? AND id = ?").bind(t.id, inv[0]!.id).run(),
    );
    const outcome = await importStatement(ctx, new TextEncoder().encode(xml));
    expect(outcome.result).toMatchObject({ added: 2, booked: 2, manualMatchingRequired: 0 });
    const [first] = await query<{ status: string; internal_note: string }>(t, 'SELECT status, internal_note FROM invoices WHERE tenant_id = ? AND id = ?', t.id, inv[0]!.id);
    expect(first).toEqual({ status: 'STATUS_PAID', internal_note: 'looked at' });
  });
});
