import { describe, expect, it } from 'vitest';
import { api, countRows, del, eventsOf, expectProblem, expectStatus, get, post, put, query, type TestTenant, dbOf } from '../support/api';
import { countedStatus, created, createCustomer, createTenant } from '../support/builders';
import { finalizedInvoice, line } from '../documents/builders';
import { OTHER_IBAN, sepaFileTransactions, sepaTenant } from '../payments/builders';
import { camt053, type CamtEntry } from '../payments/camt';
import { invoiceOf, sepaCollection, type BankLine } from './builders';

// Bank matching where money moved twice or back: a collection credited twice, a debit returned after
// its invoice was paid by other money or after part of it was refunded, an assignment made again
// after it was removed, and invoice numbers naming an invoice whose debit is still in the bank's
// hands. Amounts are checked to the cent.

const ACCOUNT = 'DE89370400440532013000';

type Line = BankLine;

async function importXml(t: TestTenant, xml: string) {
  const res = await api('/payment/bank-account-transactions/import', { token: t.key, method: 'POST', rawBody: xml, contentType: 'application/xml' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const lines = await get(t, `/payment/bank-account-transactions?import=${res.body.import.id}&limit=100`);
  return { result: res.body, lines: lines.body.data as Line[] };
}

const statement = (t: TestTenant, id: string, entries: CamtEntry[]) => importXml(t, camt053(ACCOUNT, id, entries));

/** The payer's bank sends the debit back: the debit of the collection plus the bank's charge, with the reason. */
function returnXml(id: string, e2e: string, gross: string, fee: string, reason = 'MD06') {
  return camt053(ACCOUNT, id, [{ ref: `${id}-R`, amount: gross, credit: false, bookingDate: '2027-03-08', details: [{ endToEndId: e2e }] }])
    .replace('</TxDtls>', `<RtrInf><Rsn><Cd>${reason}</Cd></Rsn></RtrInf></TxDtls>`)
    .replace('<NtryDtls>', `<Chrgs><Amt Ccy="EUR">${fee}</Amt></Chrgs><NtryDtls>`);
}

const owed = async (t: TestTenant, id: string) => {
  const inv = (await get(t, `/invoices/${id}`)).body;
  return `${countedStatus(inv)} ${inv.unpaidAmount.amount}`;
};

const tx = async (t: TestTenant, id: string) => (await get(t, `/transactions/${id}`)).body;

const summary = (l: Line) => [l.status, l.amount.amount, l.assignedAmount.amount, l.remainder.amount, l.assignments.map((a) => `${a.status} ${a.matchedBy} ${a.amount.amount} fee ${a.fee.amount}`)];

/** An invoice of 119.00 collected by a debit the bank credited: paid, the debit succeeded. */
async function collected(t: TestTenant, customerId: string) {
  const invoice = await finalizedInvoice(t, customerId, [line('100.00')]);
  const [debit] = await sepaFileTransactions(t, 'direct_debit');
  await statement(t, 'STMT-C', [{ ref: 'C-1', amount: '119.00', credit: true, bookingDate: '2027-03-03', details: [{ endToEndId: debit!.endToEndId, amount: '119.00' }] }]);
  expect(await owed(t, invoice.id)).toBe('STATUS_PAID 0.00');
  return { invoice, debit: debit! };
}

describe('a collection credited twice', () => {
  it('the second credit (the file sent twice, collected twice) is left to a person: no second confirmation, nothing paid twice', async () => {
    const t = await createTenant();
    const invoice = await invoiceOf(t, (await createCustomer(t)).id, '100.00');
    const { transactionId } = await sepaCollection(t, invoice, { amount: 11900, endToEndId: 'E2E-TWICE', mandate: 'MANDATE-TWICE' });
    const first = await statement(t, 'STMT-1', [{ ref: 'T-1', amount: '119.00', credit: true, bookingDate: '2027-03-03', details: [{ endToEndId: 'E2E-TWICE', amount: '119.00' }] }]);
    expect(summary(first.lines[0]!)).toEqual(['STATUS_BOOKED', '119.00', '119.00', '0.00', ['accepted end_to_end 119.00 fee 0.00']]);
    expect(await owed(t, invoice.id)).toBe('STATUS_PAID 0.00');

    const second = await statement(t, 'STMT-2', [{ ref: 'T-2', amount: '119.00', credit: true, bookingDate: '2027-03-04', details: [{ endToEndId: 'E2E-TWICE', amount: '119.00', iban: OTHER_IBAN }] }]);
    expect(second.result).toMatchObject({ added: 1, booked: 0, manualMatchingRequired: 1, suggestions: 0 });
    expect(summary(second.lines[0]!)).toEqual(['STATUS_MANUAL_MATCHING_REQUIRED', '119.00', '0.00', '119.00', []]);
    expect(await owed(t, invoice.id)).toBe('STATUS_PAID 0.00');
    expect(await countRows('invoice_payments', t)).toBe(1);
    expect(await countRows('bank_account_transaction_assignments', t, 'AND transaction_id = ?', transactionId)).toBe(1);
  });
});

describe('a debit returned after its invoice was paid by other money', () => {
  it('the batch credit assigned by hand paid the invoice, the debit stayed in the file: its return is recorded, the invoice and the line wait for a person', async () => {
    const t = await createTenant();
    const invoice = await invoiceOf(t, (await createCustomer(t)).id, '100.00');
    const { transactionId } = await sepaCollection(t, invoice, { amount: 11900, endToEndId: 'E2E-BATCH', mandate: 'MANDATE-BATCH' });
    // The bank books the batch as one sum without its collections: nothing to match it by.
    const batch = await statement(t, 'STMT-1', [{ ref: 'B-1', amount: '119.00', credit: true, bookingDate: '2027-03-03', details: [{ remittance: 'SEPA Sammler 2027-03' }] }]);
    expect(batch.lines[0]!.status).toBe('STATUS_MANUAL_MATCHING_REQUIRED');
    expectStatus(await put(t, `/payment/bank-account-transactions/${batch.lines[0]!.id}/assign-invoices`, { invoiceIds: [invoice.id] }), 200);
    expect(await owed(t, invoice.id)).toBe('STATUS_PAID 0.00');
    expect((await tx(t, transactionId)).status).toBe('processing');

    const eventsBefore = (await eventsOf(t)).length;
    const back = await importXml(t, returnXml('STMT-2', 'E2E-BATCH', '122.00', '3.00'));
    expect(back.result).toMatchObject({ booked: 0, manualMatchingRequired: 1 });
    expect(summary(back.lines[0]!)).toEqual(['STATUS_MANUAL_MATCHING_REQUIRED', '-122.00', '0.00', '-122.00', []]);
    // The bank's movement is recorded: the debit came back, with its fee.
    expect(await tx(t, transactionId)).toMatchObject({ status: 'returned', failReason: 'MD06' });
    const [ret] = (await get(t, `/transactions?type=return&invoice=${invoice.id}`)).body.data;
    expect(ret).toMatchObject({ amount: 119, feeAmount: 3, parentTransaction: { id: transactionId } });
    // Whether the money assigned by hand was this debit's only a person can tell: the invoice stays as it is.
    expect(await owed(t, invoice.id)).toBe('STATUS_PAID 0.00');
    expect((await eventsOf(t)).slice(eventsBefore).map((e) => e.type)).toEqual(['transaction.returned']);
    // Once they know, they take the payment back and set the return line aside.
    const assigned = (await get(t, `/payment/bank-account-transactions/${batch.lines[0]!.id}`)).body as Line;
    expectStatus(await del(t, `/payment/bank-account-transaction-assignments/${assigned.assignments[0]!.id}`), 204);
    expect(await owed(t, invoice.id)).toBe('STATUS_UNPAID 119.00');
    expect((await put(t, `/payment/bank-account-transactions/${back.lines[0]!.id}/ignore`)).body.status).toBe('STATUS_IGNORED');
  });

  it('a debit whose invoice still owes all of it is returned as before: booked, the invoice untouched', async () => {
    const t = await createTenant();
    const invoice = await invoiceOf(t, (await createCustomer(t)).id, '100.00');
    const { transactionId } = await sepaCollection(t, invoice, { amount: 11900, endToEndId: 'E2E-OPEN', mandate: 'MANDATE-OPEN' });
    const back = await importXml(t, returnXml('STMT-1', 'E2E-OPEN', '122.00', '3.00', 'AM04'));
    expect(summary(back.lines[0]!)).toEqual(['STATUS_BOOKED', '-122.00', '-122.00', '0.00', ['accepted end_to_end -119.00 fee 3.00']]);
    expect((await tx(t, transactionId)).status).toBe('returned');
    expect(await owed(t, invoice.id)).toBe('STATUS_UNPAID 119.00');
  });
});

describe('a debit returned after a refund of it', () => {
  it('a refund still waiting for its credit transfer fails (payment_returned), its reservation is released, the invoice is owed in full again', async () => {
    const { t, c } = await sepaTenant();
    const { invoice, debit } = await collected(t, c.id);
    const refund = await created(post(t, `/transactions/${debit.id}/refund`, { amount: '19.00', reason: 'Goodwill' }));
    expect(refund).toMatchObject({ status: 'pending', amount: 19 });
    expect((await tx(t, debit.id)).refundedAmount).toBe(19);

    const eventsBefore = (await eventsOf(t)).length;
    const back = await importXml(t, returnXml('STMT-R', debit.endToEndId, '122.00', '3.00'));
    expect(summary(back.lines[0]!)).toEqual(['STATUS_BOOKED', '-122.00', '-122.00', '0.00', ['accepted end_to_end -119.00 fee 3.00']]);
    expect(await tx(t, refund.id)).toMatchObject({ status: 'failed', failReason: 'payment_returned' });
    expect(await tx(t, debit.id)).toMatchObject({ status: 'returned', failReason: 'MD06', refundedAmount: 0 });
    expect(await owed(t, invoice.id)).toBe('STATUS_UNPAID 119.00');
    const events = (await eventsOf(t)).slice(eventsBefore);
    expect(events.filter((e) => e.type === 'transaction.failed').map((e) => [e.resourceId, e.data.failReason])).toEqual([[refund.id, 'payment_returned']]);
    expect(events.map((e) => e.type)).toContain('invoice.unpaid');
    // The failed refund is not paid out by the next credit-transfer file.
    expectProblem(await post(t, '/sepa-xml', { type: 'credit_transfer' }), 409, '/problems/nothing-to-collect');
  });

  it('a refund already paid out: the return is recorded, the invoice is not reopened for the whole debit, the line waits for a person', async () => {
    const { t, c } = await sepaTenant();
    const { invoice, debit } = await collected(t, c.id);
    const refund = await created(post(t, `/transactions/${debit.id}/refund`, { amount: '19.00', reason: 'Goodwill' }));
    const [payout] = await sepaFileTransactions(t, 'credit_transfer');
    await statement(t, 'STMT-P', [{ ref: 'P-1', amount: '19.00', credit: false, bookingDate: '2027-03-05', details: [{ endToEndId: payout!.endToEndId, name: 'Erika Mustermann', iban: OTHER_IBAN }] }]);
    expect((await tx(t, refund.id)).status).toBe('succeeded');
    const before = await owed(t, invoice.id);

    const eventsBefore = (await eventsOf(t)).length;
    const back = await importXml(t, returnXml('STMT-R', debit.endToEndId, '122.00', '3.00'));
    expect(summary(back.lines[0]!)).toEqual(['STATUS_MANUAL_MATCHING_REQUIRED', '-122.00', '0.00', '-122.00', []]);
    expect(await tx(t, debit.id)).toMatchObject({ status: 'returned', refundedAmount: 19 });
    expect((await tx(t, refund.id)).status).toBe('succeeded');
    expect(await owed(t, invoice.id)).toBe(before);
    expect((await eventsOf(t)).slice(eventsBefore).map((e) => e.type)).toEqual(['transaction.returned']);
  });

  it('a bank-transfer payment with a refund on its way cannot be unassigned (409)', async () => {
    const t = await createTenant();
    const invoice = await invoiceOf(t, (await createCustomer(t)).id, '100.00');
    const { lines } = await statement(t, 'STMT-1', [{ ref: 'G-1', amount: '119.00', credit: true, bookingDate: '2027-03-03', details: [{ remittance: 'Zahlung' }] }]);
    const res = await put(t, `/payment/bank-account-transactions/${lines[0]!.id}/assign-invoices`, { invoiceIds: [invoice.id] });
    const assignment = (res.body as Line).assignments[0]!;
    const refund = await created(post(t, `/transactions/${assignment.transaction!.id}/refund`, { amount: '5.00', createDocument: false }));
    expect(refund.status).toBe('pending');
    expectProblem(await del(t, `/payment/bank-account-transaction-assignments/${assignment.id}`), 409, '/problems/not-removable');
    expect(await owed(t, invoice.id)).toBe('STATUS_PAID 0.00');
    expect((await tx(t, assignment.transaction!.id)).status).toBe('succeeded');
    expect(await countRows('invoice_payments', t)).toBe(1);
  });
});

describe('assigning again after an assignment was removed', () => {
  it('the same line pays the same invoice again, each time as a new attempt; a repeated request pays it once', async () => {
    const t = await createTenant();
    const invoice = await invoiceOf(t, (await createCustomer(t)).id, '100.00');
    const { lines } = await statement(t, 'STMT-1', [{ ref: 'A-1', amount: '119.00', credit: true, bookingDate: '2027-03-03', details: [{ remittance: 'Zahlung' }] }]);
    const lineId = lines[0]!.id;
    const assignments = async () => ((await get(t, `/payment/bank-account-transactions/${lineId}`)).body as Line).assignments;

    expectStatus(await put(t, `/payment/bank-account-transactions/${lineId}/assign-invoices`, { invoiceIds: [invoice.id] }), 200);
    expectStatus(await del(t, `/payment/bank-account-transaction-assignments/${(await assignments())[0]!.id}`), 204);
    const again = await put(t, `/payment/bank-account-transactions/${lineId}/assign-invoices`, { invoiceIds: [invoice.id] });
    expectStatus(again, 200);
    expect(summary(again.body)).toEqual(['STATUS_BOOKED', '119.00', '119.00', '0.00', ['accepted manual 119.00 fee 0.00']]);
    expect(await owed(t, invoice.id)).toBe('STATUS_PAID 0.00');
    expectStatus(await del(t, `/payment/bank-account-transaction-assignments/${(await assignments())[0]!.id}`), 204);

    // Two requests at once: one pays, the other is refused.
    const racing = await Promise.all([0, 1].map(() => post(t, '/payment/bank-account-transaction-assignments', { bankAccountTransaction: lineId, invoice: invoice.id, amount: '119.00' })));
    expect(racing.map((r) => r.status).sort()).toEqual([201, expect.any(Number)]);
    expect([409, 422]).toContain(racing.map((r) => r.status).sort()[1]);
    expect(await owed(t, invoice.id)).toBe('STATUS_PAID 0.00');

    const payments = await query<{ idempotency_key: string; status: string; amount: number }>(
      t,
      "SELECT idempotency_key, status, amount FROM transactions WHERE tenant_id = ? AND gateway = 'bank_transfer' ORDER BY created_at, idempotency_key",
      t.id,
    );
    expect(payments).toEqual([
      { idempotency_key: `bank:${lineId}:${invoice.id}`, status: 'failed', amount: 11900 },
      { idempotency_key: `bank:${lineId}:${invoice.id}:2`, status: 'failed', amount: 11900 },
      { idempotency_key: `bank:${lineId}:${invoice.id}:3`, status: 'succeeded', amount: 11900 },
    ]);
    expect(await query(t, 'SELECT amount FROM invoice_payments WHERE tenant_id = ?', t.id)).toEqual([{ amount: 11900 }]);
  });
});

describe('invoice numbers naming an invoice whose payment is on its way', () => {
  it('a transfer naming an invoice with a debit in a file or a charge waiting for its answer is only suggested', async () => {
    const t = await createTenant();
    const customer = await createCustomer(t);
    const debited = await invoiceOf(t, customer.id, '100.00');
    const charged = await invoiceOf(t, customer.id, '50.00');
    const { transactionId } = await sepaCollection(t, debited, { amount: 11900, endToEndId: 'E2E-LIVE', mandate: 'MANDATE-LIVE' });
    const now = new Date().toISOString();
    await (await dbOf(t)).prepare(
      `INSERT INTO transactions (id, tenant_id, customer_id, invoice_id, type, gateway, status, currency_code, amount, idempotency_key, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'payment', 'testing', 'pending', 'EUR', 5950, ?, ?, ?)`,
    )
      .bind(`tx-card-${t.id.slice(0, 8)}`, t.id, customer.id, charged.id, `charge:${charged.id}:1`, now, now)
      .run();

    const { result, lines } = await statement(t, 'STMT-1', [
      { ref: 'L-1', amount: '119.00', credit: true, bookingDate: '2027-03-03', details: [{ remittance: `Rechnung ${debited.number}` }] },
      { ref: 'L-2', amount: '59.50', credit: true, bookingDate: '2027-03-03', details: [{ remittance: `Rechnung ${charged.number}` }] },
    ]);
    expect(result).toMatchObject({ booked: 0, manualMatchingRequired: 2, suggestions: 2 });
    expect(lines.map(summary).sort()).toEqual([
      ['STATUS_MANUAL_MATCHING_REQUIRED', '119.00', '0.00', '119.00', ['suggested reference 119.00 fee 0.00']],
      ['STATUS_MANUAL_MATCHING_REQUIRED', '59.50', '0.00', '59.50', ['suggested reference 59.50 fee 0.00']],
    ]);
    expect(await owed(t, debited.id)).toBe('STATUS_UNPAID 119.00');
    expect(await owed(t, charged.id)).toBe('STATUS_UNPAID 59.50');

    // The debit's own credit settles it as before.
    const credit = await statement(t, 'STMT-2', [{ ref: 'L-3', amount: '119.00', credit: true, bookingDate: '2027-03-04', details: [{ endToEndId: 'E2E-LIVE', amount: '119.00' }] }]);
    expect(summary(credit.lines[0]!)).toEqual(['STATUS_BOOKED', '119.00', '119.00', '0.00', ['accepted end_to_end 119.00 fee 0.00']]);
    expect((await tx(t, transactionId)).status).toBe('succeeded');
    expect(await owed(t, debited.id)).toBe('STATUS_PAID 0.00');
  });
});
