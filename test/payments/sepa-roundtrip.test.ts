import { describe, expect, it } from 'vitest';
import { api, get, post, query, type TestTenant } from '../support/api';
import { countedStatus, created, eventTypes, ok } from '../support/builders';
import { validateSepa } from '../support/oracles';
import { finalizedInvoice, line } from '../documents/builders';
import { OTHER_IBAN, sepaFileTransactions, sepaTenant } from './builders';
import { camt053, type CamtEntry } from './camt';

// The whole SEPA round trip through the API: a direct-debit file collects the invoice, the bank
// statement's batch credit settles it, a refund leaves in a credit-transfer file and the statement's
// debit of it settles the refund; a returned debit reopens the invoice with the bank's fee. Every
// statement is judged by the camt schema first, so the test's bank speaks real camt.

const ACCOUNT = 'DE89370400440532013000';

async function importStatement(t: TestTenant, id: string, entries: CamtEntry[]) {
  const xml = camt053(ACCOUNT, id, entries);
  expect((await validateSepa([{ name: id, xml }]))[id]).toEqual({ valid: true, errors: [] });
  const res = await api('/payment/bank-account-transactions/import', { token: t.key, method: 'POST', rawBody: xml, contentType: 'application/xml' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('SEPA round trip', () => {
  it('debit file → statement credit pays the invoice → refund by credit transfer → statement debit settles it', async () => {
    const { t, c } = await sepaTenant();
    const invoice = await finalizedInvoice(t, c.id, [line('100.00')]);
    const [debit] = await sepaFileTransactions(t, 'direct_debit');
    expect(debit).toMatchObject({ amount: '119.00', invoice: { id: invoice.id } });
    expect(countedStatus((await get(t, `/invoices/${invoice.id}`)).body)).toBe('STATUS_UNPAID');

    // The bank credits the batch two days later.
    await importStatement(t, 'STMT-1', [{ ref: 'B-1', amount: '119.00', credit: true, bookingDate: '2027-03-03', details: [{ endToEndId: debit!.endToEndId, amount: '119.00', name: 'Erika Mustermann', iban: OTHER_IBAN }] }]);
    expect((await get(t, `/invoices/${invoice.id}`)).body).toMatchObject({ status: 'STATUS_PAID', unpaidAmount: { amount: '0.00' } });
    expect((await get(t, `/transactions/${debit!.id}`)).body).toMatchObject({ status: 'succeeded', paidAt: expect.stringMatching(/^2027-03-03/) });

    // A refund of 19.00 cannot go back through the debit: it waits for a credit transfer.
    const refund = await created(post(t, `/transactions/${debit!.id}/refund`, { amount: '19.00', reason: 'Goodwill' }));
    expect(refund).toMatchObject({ status: 'pending', gateway: 'sepa_debit', amount: 19 });
    const [payout] = await sepaFileTransactions(t, 'credit_transfer');
    expect(payout).toMatchObject({ id: refund.id, amount: '19.00' });
    expect((await get(t, `/transactions/${refund.id}`)).body.status).toBe('processing');

    // The statement shows the transfer leaving the account: the refund is done.
    await importStatement(t, 'STMT-2', [{ ref: 'B-2', amount: '19.00', credit: false, bookingDate: '2027-03-05', details: [{ endToEndId: payout!.endToEndId, name: 'Erika Mustermann', iban: OTHER_IBAN, remittance: 'Erstattung' }] }]);
    expect((await get(t, `/transactions/${refund.id}`)).body.status).toBe('succeeded');
    expect((await get(t, `/transactions/${debit!.id}`)).body.refundedAmount).toBe(19);
    const docs = await query<{ number: string; gross_amount: number }>(t, "SELECT number, gross_amount FROM invoices WHERE tenant_id = ? AND type = 'TYPE_REFUND'", t.id);
    expect(docs).toEqual([{ number: 'RF-0000000001', gross_amount: -1900 }]);
    expect(await eventTypes(t, invoice.id)).toEqual(expect.arrayContaining(['invoice.paid', 'invoice.refunded']));
    const lines = await query<{ status: string; amount: number }>(t, 'SELECT status, amount FROM bank_account_transactions WHERE tenant_id = ? ORDER BY booking_date', t.id);
    expect(lines).toEqual([
      { status: 'STATUS_BOOKED', amount: 11900 },
      { status: 'STATUS_BOOKED', amount: -1900 },
    ]);
  });

  it('a returned debit reopens the invoice, records the fee, and the next file collects it again', async () => {
    const { t, c } = await sepaTenant();
    const invoice = await finalizedInvoice(t, c.id, [line('50.00')]);
    const [debit] = await sepaFileTransactions(t, 'direct_debit');
    await importStatement(t, 'STMT-3', [{ ref: 'B-3', amount: '59.50', credit: true, bookingDate: '2027-03-03', details: [{ endToEndId: debit!.endToEndId, amount: '59.50' }] }]);
    expect((await get(t, `/invoices/${invoice.id}`)).body.status).toBe('STATUS_PAID');

    // The payer's bank sends it back (MD06, 3.00 EUR charge): the debit of 62.50 on the statement.
    const xml = camt053(ACCOUNT, 'STMT-4', [{ ref: 'B-4', amount: '62.50', credit: false, bookingDate: '2027-03-08', details: [{ endToEndId: debit!.endToEndId }] }]).replace(
      '</TxDtls>',
      '<RtrInf><Rsn><Cd>MD06</Cd></Rsn></RtrInf></TxDtls>',
    ).replace('<NtryDtls>', '<Chrgs><Amt Ccy="EUR">3.00</Amt></Chrgs><NtryDtls>');
    expect((await validateSepa([{ name: 'stmt-4', xml }]))['stmt-4']).toEqual({ valid: true, errors: [] });
    expect((await api('/payment/bank-account-transactions/import', { token: t.key, method: 'POST', rawBody: xml, contentType: 'application/xml' })).status).toBe(201);
    expect((await get(t, `/invoices/${invoice.id}`)).body).toMatchObject({ status: 'STATUS_UNPAID', unpaidAmount: { amount: '59.50' } });
    expect((await get(t, `/transactions/${debit!.id}`)).body).toMatchObject({ status: 'returned', failReason: 'MD06' });
    const [ret] = (await get(t, `/transactions?type=return&invoice=${invoice.id}`)).body.data;
    expect(ret).toMatchObject({ amount: 59.5, feeAmount: 3, parentTransaction: { id: debit!.id } });
    expect(await eventTypes(t, debit!.id)).toContain('transaction.returned');

    // The next file collects it again, as a new attempt with its own end-to-end id.
    const [again] = await sepaFileTransactions(t, 'direct_debit');
    expect(again).toMatchObject({ invoice: { id: invoice.id }, amount: '59.50' });
    expect(again!.endToEndId).not.toBe(debit!.endToEndId);
  });

  it('a return pulled through open banking reopens the invoice like one on a statement', async () => {
    const { t, c } = await sepaTenant();
    const invoice = await finalizedInvoice(t, c.id, [line('10.00')]);
    const [debit] = await sepaFileTransactions(t, 'direct_debit');
    const account = await created(post(t, '/open-banking-accounts', { iban: ACCOUNT }));
    const bankLine = (amount: string, extra: Record<string, unknown>) => ({ bookingDate: '2027-03-03', amount, currency: 'EUR', counterpartyName: null, counterpartyIban: null, remittanceInformation: null, ...extra });
    expect((await post(t, `/open-banking-accounts/${account.id}/fake-transactions`, { transactions: [bankLine('11.90', { endToEndId: debit!.endToEndId })] })).status).toBe(201);
    await ok(post(t, `/open-banking-accounts/${account.id}/sync`, {}));
    expect((await get(t, `/invoices/${invoice.id}`)).body.status).toBe('STATUS_PAID');
    await post(t, `/open-banking-accounts/${account.id}/fake-transactions`, { transactions: [bankLine('-14.90', { endToEndId: debit!.endToEndId, returnReason: 'AM04', charges: '3.00' })] });
    await ok(post(t, `/open-banking-accounts/${account.id}/sync`, {}));
    expect((await get(t, `/invoices/${invoice.id}`)).body).toMatchObject({ status: 'STATUS_UNPAID', unpaidAmount: { amount: '11.90' } });
    expect((await get(t, `/transactions/${debit!.id}`)).body).toMatchObject({ status: 'returned', failReason: 'AM04' });
    const [ret] = (await get(t, `/transactions?type=return&invoice=${invoice.id}`)).body.data;
    expect(ret).toMatchObject({ amount: 11.9, feeAmount: 3 });
  });
});
