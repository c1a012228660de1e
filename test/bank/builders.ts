// Builders of the bank statement tests (test/bank/*.test.ts): invoices through the API, SEPA
// collections written directly (the pain.008 part creates them in production; only their
// reference_id, the end-to-end id, matters here), and the import itself.
import { expect } from 'vitest';
import { api, query, type ApiResponse, type TestTenant, dbOf } from '../support/api';
import { createCustomer } from '../support/builders';
import { finalized, line } from '../invoices/builders';

/** The file as the JSON body the import takes: `{"file": "<base64>"}`. */
export function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export const importCamt = (t: TestTenant, xml: string): Promise<ApiResponse> => api('/payment/bank-account-transactions/import', { token: t.key, body: { file: base64(xml) } });

/** An invoice of `net` at 19 % (so 100.00 → 119.00 gross), finalized with the tenant's next number. */
export async function invoiceOf(t: TestTenant, customerId: string, net: string, extra: Record<string, unknown> = {}) {
  const inv = await finalized(t, customerId, [line(net)], extra);
  return inv as { id: string; number: string; unpaidAmount: { amount: string }; customer: { id: string } };
}

let counter = 0;

/**
 * A SEPA mandate of the customer and a collection of the invoice in a SEPA file (`processing`),
 * or already collected (`succeeded`, its payment on the invoice), as the pain.008 part leaves them.
 */
export async function sepaCollection(
  t: TestTenant,
  invoice: { id: string; number: string; customer: { id: string } },
  opts: { amount: number; endToEndId: string; mandate: string; iban?: string; status?: 'processing' | 'succeeded' },
) {
  counter += 1;
  const now = new Date().toISOString();
  const methodId = `pm-${t.id.slice(0, 8)}-${counter}`;
  const txId = `tx-${t.id.slice(0, 8)}-${counter}`;
  await (await dbOf(t)).prepare(
    `INSERT INTO payment_methods (id, tenant_id, customer_id, gateway_name, type, status, is_default, enabled, created_at, updated_at, iban, mandate_reference, mandate_signed_at)
     VALUES (?, ?, ?, 'sepa_debit', 'sepa_debit', 'active', 1, 1, ?, ?, ?, ?, '2026-01-01')`,
  )
    .bind(methodId, t.id, invoice.customer.id, now, now, opts.iban ?? null, opts.mandate)
    .run();
  await (await dbOf(t)).prepare(
    `INSERT INTO transactions (id, tenant_id, customer_id, invoice_id, payment_method_id, type, gateway, status, document_number, currency_code, amount, reference_id, idempotency_key, created_at, updated_at, paid_at, charged_amount)
     VALUES (?, ?, ?, ?, ?, 'payment', 'sepa_debit', ?, ?, 'EUR', ?, ?, ?, ?, ?, ?, ?)`,
  )
    .bind(
      txId,
      t.id,
      invoice.customer.id,
      invoice.id,
      methodId,
      opts.status ?? 'processing',
      invoice.number,
      opts.amount,
      opts.endToEndId,
      `sepa:${invoice.id}:1`,
      now,
      now,
      opts.status === 'succeeded' ? now : null,
      opts.status === 'succeeded' ? opts.amount : 0,
    )
    .run();
  return { methodId, transactionId: txId };
}

/** A payment method that tells which customer pays from an IBAN (its mandate). */
export async function knownIban(t: TestTenant, customerId: string, iban: string) {
  counter += 1;
  const now = new Date().toISOString();
  await (await dbOf(t)).prepare(
    `INSERT INTO payment_methods (id, tenant_id, customer_id, gateway_name, type, status, is_default, enabled, created_at, updated_at, iban, mandate_reference)
     VALUES (?, ?, ?, 'sepa_debit', 'sepa_debit', 'active', 0, 1, ?, ?, ?, ?)`,
  )
    .bind(`pm-${t.id.slice(0, 8)}-${counter}`, t.id, customerId, now, now, iban, `KNOWN-${counter}`)
    .run();
}

export interface Scenario {
  t: TestTenant;
  /** Invoices by number: 1 → RE-0000000001. */
  inv: Record<number, { id: string; number: string; unpaidAmount: { amount: string }; customer: { id: string } }>;
  collections: Record<number, string>;
}

/**
 * The invoices our own statement (test/fixtures/camt/own-statement-2026-03.xml) pays, numbered as
 * a fresh tenant numbers them (RE-0000000001…), with the SEPA collections its batch credit and
 * returns name and the IBAN customer 10 pays from. Gross amounts (net + 19 %):
 * 1: 119.00, 2: 59.50 (both customer A), 3: 238.00, 4: 95.20, 5: 35.70, 6: 47.60, 7: 14.28,
 * 8: 29.75, 9: 23.80, 10: 17.85, 11: 11.90 (customer A).
 */
export async function ownStatementScenario(t: TestTenant): Promise<Scenario> {
  const a = await createCustomer(t, { firstName: 'Erika', lastName: 'Mustermann' });
  const nets: [number, string, string][] = [
    [1, 'a', '100.00'],
    [2, 'a', '50.00'],
    [3, 'b', '200.00'],
    [4, 'c', '80.00'],
    [5, 'd', '30.00'],
    [6, 'e', '40.00'],
    [7, 'f', '12.00'],
    [8, 'g', '25.00'],
    [9, 'i', '20.00'],
    [10, 'h', '15.00'],
    [11, 'a', '10.00'],
  ];
  const customers: Record<string, string> = { a: a.id };
  const inv: Scenario['inv'] = {};
  for (const [n, who, net] of nets) {
    customers[who] ??= (await createCustomer(t)).id;
    inv[n] = await invoiceOf(t, customers[who]!, net);
    expect(inv[n]!.number).toBe(`RE-${String(n).padStart(10, '0')}`);
  }
  const collections: Record<number, string> = {};
  for (const [n, cents] of [
    [5, 3570],
    [6, 4760],
    [7, 1428],
    [8, 2975],
    [9, 2380],
  ] as const) {
    const { transactionId } = await sepaCollection(t, inv[n]!, { amount: cents, endToEndId: `E2E-${String(n).padStart(4, '0')}`, mandate: `MANDATE-${n}` });
    collections[n] = transactionId;
  }
  await knownIban(t, inv[10]!.customer.id, 'DE02120300000000202051');
  return { t, inv, collections };
}

export async function invoiceState(t: TestTenant, id: string) {
  const [row] = await query<{ status: string; paid_amount: number; gross_amount: number; pay_date: string | null }>(
    t,
    'SELECT status, paid_amount, gross_amount, pay_date FROM invoices WHERE tenant_id = ? AND id = ?',
    t.id,
    id,
  );
  return row!;
}

/** A bank account transaction as GET /payment/bank-account-transactions shows it (the parts the tests read). */
export interface BankLine {
  id: string;
  status: string;
  amount: { amount: string };
  assignedAmount: { amount: string };
  remainder: { amount: string };
  counterpartyIban: string | null;
  remittanceInformation: string | null;
  assignments: { id: string; invoice: { number: string }; amount: { amount: string }; fee: { amount: string }; status: string; matchedBy: string; transaction: { id: string } | null }[];
}
