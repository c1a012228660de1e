import { describe, expect, it } from 'vitest';
import { api, download, get, post, put, query, violations, type TestTenant } from '../support/api';
import { countedStatus, created, ok, setClock } from '../support/builders';
import { validateSepa } from '../support/oracles';
import { finalized, line } from '../invoices/builders';
import { OTHER_IBAN, sepaFileTransactions, sepaTenant } from '../payments/builders';
import { camt053, type CamtEntry } from '../payments/camt';
import { documentsOf, pay, scenarioRules } from './builders';

// A credit note, a partial payment and a dunning fee on one invoice, every figure written out by
// hand (docs/decisions.md, Invoices and billing, "What is owed"; Dunning, "Fees are receivable"):
//   invoice 100.00 EUR (84.03 net + 15.97 VAT) on 2027-03-01, due 2027-03-15, paid by SEPA mandate
//   credit note 20.00 (16.81 + 3.19)        → owed 80.00
//   partial payment 30.00                   → owed 50.00
//   reminder on 2027-03-22                  → open 50.00, asks 50.00 (invoice line 80.00)
//   dunning letter on 2027-04-05, fee 5.00  → open 50.00, asks 55.00
//   SEPA debit                              → 50.00 (never the fee), returned by the payer's bank
//   transfer of 55.00 naming the invoice    → 50.00 to the invoice, 5.00 fee, STATUS_PAID

const ACCOUNT = 'DE89370400440532013000';
const eur = (amount: string) => ({ amount, currencyCode: 'EUR' });
/** The invoice with the status it counts as (a finalizing one as it will become: test/support/builders.ts). */
const counted = (inv: any) => ({ ...inv, status: countedStatus(inv) });
const at = (date: string) => `${date}T09:00:00.000Z`;

async function importStatement(t: TestTenant, id: string, entries: CamtEntry[], patch: (xml: string) => string = (x) => x) {
  const xml = patch(camt053(ACCOUNT, id, entries));
  expect((await validateSepa([{ name: id, xml }]))[id]).toEqual({ valid: true, errors: [] });
  const res = await api('/payment/bank-account-transactions/import', { token: t.key, method: 'POST', rawBody: xml, contentType: 'application/xml' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('a credit note, a partial payment and a dunning fee on one invoice', () => {
  it('asks for, collects and matches exactly what is owed, and books the fee', async () => {
    const { t, c } = await sepaTenant();
    await scenarioRules(t);
    const invoice = await finalized(t, c.id, [line('84.03')]);
    expect(invoice).toMatchObject({ grossAmount: eur('100.00'), unpaidAmount: eur('100.00'), dueDate: at('2027-03-15') });

    // The credit note takes 20.00 off what is owed.
    const credit = await created(post(t, `/invoices/${invoice.id}/credit`, { positions: [{ name: 'Goodwill', unitPrice: '16.81', taxRate: '19' }] }));
    expect(credit).toMatchObject({ type: 'TYPE_CREDIT', grossAmount: eur('-20.00'), taxAmount: eur('-3.19') });
    expect(counted((await get(t, `/invoices/${invoice.id}`)).body)).toMatchObject({ status: 'STATUS_UNPAID', unpaidAmount: eur('80.00') });

    // A partial payment by hand.
    expect((await pay(t, invoice.id, '30.00')).status).toBe(201);
    expect(counted((await get(t, `/invoices/${invoice.id}`)).body)).toMatchObject({ status: 'STATUS_UNPAID', unpaidAmount: eur('50.00') });
    expect(violations(await pay(t, invoice.id, '50.01'))).toEqual(['amount: overpayment']);

    // The reminder asks for what is owed.
    await setClock(t, at('2027-03-22'));
    const [reminder] = await documentsOf(t, invoice.id);
    expect(reminder).toMatchObject({ level: 1, openAmount: eur('50.00'), amountDue: eur('50.00'), dunningFee: eur('0.00') });
    expect(reminder.positions).toEqual([{ type: 'invoice', name: `Rechnung ${invoice.number} vom 01.03.2027 abzüglich Gutschriften`, amount: eur('80.00'), level: null }]);

    // The dunning letter adds its fee of 5.00.
    await setClock(t, at('2027-04-05'));
    const letter = (await documentsOf(t, invoice.id))[1];
    expect(letter).toMatchObject({ level: 2, openAmount: eur('50.00'), dunningFee: eur('5.00'), dunningFeeCents: 500, amountDue: eur('55.00') });
    expect(letter.positions).toEqual([
      { type: 'invoice', name: `Rechnung ${invoice.number} vom 01.03.2027 abzüglich Gutschriften`, amount: eur('80.00'), level: null },
      { type: 'dunning_fee', name: 'Mahngebühr (Stufe 2)', amount: eur('5.00'), level: 2 },
    ]);
    // unpaidAmount is the invoice's own debt; the fee is asked for on the letter.
    expect((await get(t, `/invoices/${invoice.id}`)).body).toMatchObject({ status: 'STATUS_REMINDED', unpaidAmount: eur('50.00') });

    // The direct debit collects what is owed, never the fee: 50.00 in the transaction and in the pain.008.
    const [debit] = await sepaFileTransactions(t, 'direct_debit');
    expect(debit).toMatchObject({ invoice: { id: invoice.id }, amount: '50.00' });
    const [file] = (await get(t, '/sepa-xml')).body.data;
    const url = new URL((await ok(put(t, `/sepa-xml/${file.id}/download-link`))).url);
    const xml = new TextDecoder().decode((await download(`${url.pathname}${url.search}`)).bytes);
    expect(xml).toContain('<InstdAmt Ccy="EUR">50.00</InstdAmt>');
    expect(xml).toContain('<CtrlSum>50.00</CtrlSum>');

    // The payer's bank sends the debit back (MD06): the invoice still owes 50.00.
    await importStatement(t, 'STMT-R', [{ ref: 'R-1', amount: '50.00', credit: false, bookingDate: '2027-04-08', details: [{ endToEndId: debit!.endToEndId }] }], (x) =>
      x.replace('</TxDtls>', '<RtrInf><Rsn><Cd>MD06</Cd></Rsn></RtrInf></TxDtls>'),
    );
    expect((await get(t, `/transactions/${debit!.id}`)).body).toMatchObject({ status: 'returned', failReason: 'MD06' });
    expect((await get(t, `/invoices/${invoice.id}`)).body).toMatchObject({ status: 'STATUS_REMINDED', unpaidAmount: eur('50.00') });

    // The customer transfers what the letter asks for, naming the invoice: matched in full.
    const imported = await importStatement(t, 'STMT-T', [
      { ref: 'T-1', amount: '55.00', credit: true, bookingDate: '2027-04-09', details: [{ name: 'Erika Mustermann', iban: OTHER_IBAN, remittance: `Mahnung ${letter.number} Rechnung ${invoice.number}` }] },
    ]);
    expect(imported).toMatchObject({ booked: 1, manualMatchingRequired: 0 });
    const lines = await query<{ status: string; amount: number; assigned_amount: number }>(t, "SELECT status, amount, assigned_amount FROM bank_account_transactions WHERE tenant_id = ? AND amount > 0", t.id);
    expect(lines).toEqual([{ status: 'STATUS_BOOKED', amount: 5500, assigned_amount: 5500 }]);
    const assignments = await query<{ invoice_id: string; amount: number; status: string }>(t, "SELECT invoice_id, amount, status FROM bank_account_transaction_assignments WHERE tenant_id = ? AND status = 'accepted' AND amount > 0", t.id);
    expect(assignments).toEqual([{ invoice_id: invoice.id, amount: 5500, status: 'accepted' }]);

    // 50.00 paid the invoice, 5.00 the fee (no VAT: damages); the letters are paid.
    expect((await get(t, `/invoices/${invoice.id}`)).body).toMatchObject({ status: 'STATUS_PAID', unpaidAmount: eur('0.00'), grossAmount: eur('100.00'), payDate: at('2027-04-09').replace('09:00', '00:00') });
    const payments = await query<{ amount: number; dunning_fee_amount: number }>(t, 'SELECT amount, dunning_fee_amount FROM invoice_payments WHERE tenant_id = ? AND invoice_id = ? ORDER BY payment_date', t.id, invoice.id);
    expect(payments).toEqual([
      { amount: 3000, dunning_fee_amount: 0 },
      { amount: 5000, dunning_fee_amount: 500 },
    ]);
    expect((await query<{ paid_amount: number }>(t, 'SELECT paid_amount FROM invoices WHERE id = ?', invoice.id))[0]!.paid_amount).toBe(8000);
    expect((await documentsOf(t, invoice.id)).map((d) => d.status)).toEqual(['paid', 'paid']);

    // Nothing more is asked, collected or dunned.
    await setClock(t, at('2027-05-10'));
    expect(await documentsOf(t, invoice.id)).toHaveLength(2);
    expect((await post(t, '/sepa-xml', { type: 'direct_debit' })).status).toBe(409);

    // Taking the transfer back off the invoice takes back its 50.00, not the fee as well.
    const [assignment] = await query<{ id: string }>(t, "SELECT id FROM bank_account_transaction_assignments WHERE tenant_id = ? AND status = 'accepted' AND amount = 5500", t.id);
    expect((await api(`/payment/bank-account-transaction-assignments/${assignment!.id}`, { token: t.key, method: 'DELETE' })).status).toBe(204);
    expect((await get(t, `/invoices/${invoice.id}`)).body).toMatchObject({ status: 'STATUS_UNPAID', unpaidAmount: eur('50.00') });
    expect((await query<{ paid_amount: number }>(t, 'SELECT paid_amount FROM invoices WHERE id = ?', invoice.id))[0]!.paid_amount).toBe(3000);
  });

  it('a credit note while a debit is in flight: the bank collected the gross, so the debit pays it and the credit note is paid back', async () => {
    const { t, c } = await sepaTenant();
    const invoice = await finalized(t, c.id, [line('84.03')]);
    const [debit] = await sepaFileTransactions(t, 'direct_debit');
    expect(debit).toMatchObject({ invoice: { id: invoice.id }, amount: '100.00' });
    await created(post(t, `/invoices/${invoice.id}/credit`, { positions: [{ name: 'Goodwill', unitPrice: '16.81', taxRate: '19' }] }));
    expect((await get(t, `/invoices/${invoice.id}`)).body.unpaidAmount).toEqual(eur('80.00'));
    // The bank credits the whole debit: it is confirmed and pays the invoice (100.00 received).
    await importStatement(t, 'STMT-C', [{ ref: 'C-1', amount: '100.00', credit: true, bookingDate: '2027-03-03', details: [{ endToEndId: debit!.endToEndId, amount: '100.00' }] }]);
    expect((await get(t, `/transactions/${debit!.id}`)).body.status).toBe('succeeded');
    expect((await get(t, `/invoices/${invoice.id}`)).body).toMatchObject({ status: 'STATUS_PAID', unpaidAmount: eur('0.00') });
    expect((await query<{ paid_amount: number }>(t, 'SELECT paid_amount FROM invoices WHERE id = ?', invoice.id))[0]!.paid_amount).toBe(10000);
    // The 20.00 the credit note took off goes back by credit transfer.
    const [payout] = await sepaFileTransactions(t, 'credit_transfer');
    expect(payout).toMatchObject({ amount: '20.00' });
  });
});
