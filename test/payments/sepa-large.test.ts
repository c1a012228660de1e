import { describe, expect, it } from 'vitest';
import { countRows, download, post, put, query, type TestTenant, dbOf } from '../support/api';
import { created, createCustomer, createTenant, ok, setClock } from '../support/builders';
import { finalizedInvoice, line, SETTINGS } from '../documents/builders';
import { CREDITOR_ID, OTHER_IBAN, paymentSettings, sepaMethod } from './builders';

// A file of thousands of debits: the transactions go in as a few json_each inserts in the file's
// one batch (insertJsonRows, src/db/insert.ts), not thousands of statements. The payers
// are copies of one customer, mandate and invoice made through the API, cloned in SQL.

const DEBITS = 2000;

/** Copies the row `id` of `table` n times; `overrides` are SQL expressions over the row `c` and the counter `n` (1…count). */
async function cloneRows(t: TestTenant, table: string, id: string, count: number, overrides: Record<string, string>) {
  const columns = (await query<{ name: string }>(t, `SELECT name FROM pragma_table_info('${table}')`)).map((c) => c.name);
  const select = columns.map((c) => overrides[c] ?? `c."${c}"`).join(', ');
  await (await dbOf(t)).prepare(
    `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ?)
     INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) SELECT ${select} FROM "${table}" c, seq WHERE c.id = ?`,
  )
    .bind(count, id)
    .run();
}

async function seed(t: TestTenant, count: number) {
  const c = await createCustomer(t, { firstName: 'Erika', lastName: 'Mustermann' });
  const method = await sepaMethod(t, c.id, { sepaDebit: { iban: OTHER_IBAN, accountHolder: 'Erika Mustermann' } });
  const invoice = await finalizedInvoice(t, c.id, [line('100.00')]);
  const n = "printf('%06d', n)";
  await cloneRows(t, 'customers', c.id, count - 1, { id: `c.id || '-' || ${n}`, email: `${n} || c.email`, email_key: `${n} || c.email_key`, customer_number: `c.customer_number || '-' || ${n}` });
  await cloneRows(t, 'payment_methods', method.id, count - 1, { id: `c.id || '-' || ${n}`, customer_id: `c.customer_id || '-' || ${n}`, mandate_reference: `c.mandate_reference || '-' || ${n}` });
  // Amounts of 1.01 … so the control sum is a sum of different cents.
  await cloneRows(t, 'invoices', invoice.id, count - 1, {
    id: `c.id || '-' || ${n}`,
    customer_id: `c.customer_id || '-' || ${n}`,
    number: `'RE-L' || ${n}`,
    number_seq: `c.number_seq + n`,
    gross_amount: `100 + n`,
    file_id: 'NULL',
    xml_file_id: 'NULL',
  });
  // The original: 119.00. The copies: 1.01 + … + count−1 + 1.00 … (100 + n cents each).
  return 11900 + Array.from({ length: count - 1 }, (_, i) => 100 + i + 1).reduce((a, b) => a + b, 0);
}

describe('a large pain.008 file', () => {
  it(`writes ${DEBITS} debits in one file, each invoice once`, async () => {
    const t = await createTenant();
    await setClock(t, '2026-11-23T09:00:00Z');
    await ok(put(t, '/settings/documents', SETTINGS));
    await paymentSettings(t, { 'sepa.creditorId': CREDITOR_ID });
    const total = await seed(t, DEBITS);

    const started = Date.now();
    const file = await created(post(t, '/sepa-xml', {}));
    const ms = Date.now() - started;
    console.log(`sepa-large: ${DEBITS} debits written in ${ms} ms`);
    expect(file.numberOfTransactions).toBe(DEBITS);
    expect(file.controlSum).toBe((total / 100).toFixed(2));
    expect(await countRows('transactions', t, "AND type = 'payment' AND status = 'processing' AND sepa_file_id = ?", file.id)).toBe(DEBITS);
    expect(await countRows('payment_methods', t, 'AND mandate_first_used_at IS NOT NULL')).toBe(DEBITS);
    const [dupes] = await query<{ n: number }>(t, 'SELECT count(*) AS n FROM (SELECT invoice_id FROM transactions WHERE tenant_id = ? GROUP BY invoice_id HAVING count(*) > 1)', t.id);
    expect(dupes!.n).toBe(0);

    const link = await ok(put(t, `/sepa-xml/${file.id}/download-link`));
    const url = new URL(link.url);
    const xml = new TextDecoder().decode((await download(`${url.pathname}${url.search}`)).bytes);
    expect(xml.match(/<DrctDbtTxInf>/g)).toHaveLength(DEBITS);
    expect(xml).toContain(`<CtrlSum>${(total / 100).toFixed(2)}</CtrlSum>`);
  });
});
