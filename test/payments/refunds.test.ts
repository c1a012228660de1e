import { describe, expect, it } from 'vitest';
import { api, countRows, expect422, get, post, query, type TestTenant } from '../support/api';
import { countedStatus, createCustomer, createTenant, eventTypes, setClock } from '../support/builders';
import { finalizedInvoice, line } from '../documents/builders';
import { testingMethod } from './builders';

// Refunds of collected payments: through the gateway, reserved on the payment so that refunds
// never give back more than was paid, documented by a refund document (TYPE_REFUND) that corrects
// the invoice, announced by invoice.refunded.

async function paidInvoice(positions: unknown[] = [line('100.00')], token = 'testing_succeeds') {
  const t = await createTenant();
  await setClock(t, '2027-05-03T08:00:00.000Z');
  const c = await createCustomer(t);
  await testingMethod(t, c.id, token, { default: true });
  const inv = await finalizedInvoice(t, c.id, positions);
  for (let i = 0; i < 100; i++) {
    const tx = (await get(t, `/transactions?invoice=${inv.id}&status=succeeded`)).body.data;
    if (tx.length) return { t, c, inv, payment: tx[0] };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('not collected');
}

const refund = (t: TestTenant, id: string, body: unknown = {}) => api(`/transactions/${id}/refund`, { token: t.key, method: 'POST', body });

async function refundDocuments(t: TestTenant, invoiceId: string) {
  return query<{ number: string; gross_amount: number; net_amount: number; tax_amount: number; status: string; paid_amount: number }>(
    t,
    "SELECT number, gross_amount, net_amount, tax_amount, status, paid_amount FROM invoices WHERE tenant_id = ? AND referenced_invoice_id = ? AND type = 'TYPE_REFUND' ORDER BY number_seq",
    t.id,
    invoiceId,
  ).then((rows) => rows.map(({ paid_amount, ...r }) => ({ ...r, status: countedStatus({ status: r.status, grossAmount: r.gross_amount, paidAmount: paid_amount }) })));
}

describe('POST /transactions/{id}/refund', () => {
  it('refunds everything: refund transaction, refund document RF-…, invoice STATUS_REFUNDED, invoice.refunded', async () => {
    const { t, inv, payment } = await paidInvoice();
    const res = await refund(t, payment.id);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ type: 'refund', status: 'succeeded', amount: 119, chargedAmount: 119, parentTransaction: { id: payment.id }, invoice: { id: inv.id }, gateway: 'testing' });
    expect((await get(t, `/transactions/${payment.id}`)).body).toMatchObject({ refundedAmount: 119, refundable: false });
    expect(await refundDocuments(t, inv.id)).toEqual([{ number: 'RF-0000000001', gross_amount: -11900, net_amount: -10000, tax_amount: -1900, status: 'STATUS_PAID' }]);
    expect((await get(t, `/invoices/${inv.id}`)).body.status).toBe('STATUS_REFUNDED');
    expect(await eventTypes(t, inv.id)).toEqual(expect.arrayContaining(['invoice.paid', 'invoice.refunded']));
    expect(await eventTypes(t, res.body.id)).toEqual(['transaction.succeeded']);
    // Nothing is left to refund.
    expect((await refund(t, payment.id)).status).toBe(409);
  });

  it('refunds in parts, split over the tax rates to the cent; never more than was paid', async () => {
    // 100.00 at 19 % and 50.00 at 7 %: gross 119.00 + 53.50 = 172.50.
    const { t, inv, payment } = await paidInvoice([line('100.00'), line('50.00', 'Books', '7')]);
    expect(payment.amount).toBe(172.5);
    const first = await refund(t, payment.id, { amount: '34.50', reason: 'Goodwill' });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    // 34.50 × 119/172.50 = 23.80 at 19 % (net 20.00, tax 3.80); 10.70 at 7 % (net 10.00, tax 0.70).
    expect(await refundDocuments(t, inv.id)).toEqual([{ number: 'RF-0000000001', gross_amount: -3450, net_amount: -3000, tax_amount: -450, status: 'STATUS_PAID' }]);
    expect((await get(t, `/invoices/${inv.id}`)).body.status).toBe('STATUS_PAID');
    expect422(await refund(t, payment.id, { amount: '138.01' }), ['amount']);
    expect422(await refund(t, payment.id, { amount: 1.005 }), ['amount']);
    expect422(await refund(t, payment.id, { amount: '-1.00' }), ['amount']);
    expect422(await refund(t, payment.id, { amount: '0' }), ['amount']);
    const rest = await refund(t, payment.id, { amount: 138 });
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    expect((await get(t, `/transactions/${payment.id}`)).body.refundedAmount).toBe(172.5);
    const docs = await refundDocuments(t, inv.id);
    expect(docs.map((d) => d.gross_amount)).toEqual([-3450, -13800]);
    expect((await get(t, `/invoices/${inv.id}`)).body.status).toBe('STATUS_REFUNDED');
  });

  it('concurrent refunds of the same payment never give back more than it paid', async () => {
    const { t, payment } = await paidInvoice([line('10.00')]);
    const answers = await Promise.all([refund(t, payment.id, { amount: '8.00' }), refund(t, payment.id, { amount: '8.00' }), refund(t, payment.id, { amount: '8.00' })]);
    const ok = answers.filter((a) => a.status === 201);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(answers.every((a) => a.status === 201 || a.status === 409 || a.status === 422)).toBe(true);
    const stored = await query<{ refunded_amount: number }>(t, 'SELECT refunded_amount FROM transactions WHERE id = ?', payment.id);
    expect(stored[0]!.refunded_amount).toBe(ok.length * 800);
    expect(stored[0]!.refunded_amount).toBeLessThanOrEqual(1190);
  });

  it('a refund the gateway declines fails and frees the amount again', async () => {
    const { t, inv, payment } = await paidInvoice([line('10.00')], 'testing_refund_fails');
    const res = await refund(t, payment.id);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'failed', failReason: 'refund_declined' });
    expect((await get(t, `/transactions/${payment.id}`)).body).toMatchObject({ refundedAmount: 0, refundable: true });
    expect(await refundDocuments(t, inv.id)).toEqual([]);
    expect((await get(t, `/invoices/${inv.id}`)).body.status).toBe('STATUS_PAID');
  });

  it('without a document when asked; only succeeded payments are refundable', async () => {
    const { t, inv, payment } = await paidInvoice([line('10.00')]);
    expect((await refund(t, payment.id, { amount: '1.00', createDocument: false })).status).toBe(201);
    expect(await refundDocuments(t, inv.id)).toEqual([]);
    expect(await eventTypes(t, inv.id)).toContain('invoice.refunded');
    const declined = await paidInvoice([line('10.00')]);
    const c2 = await createCustomer(declined.t);
    await testingMethod(declined.t, c2.id, 'testing_declined', { default: true });
    const failedInv = await finalizedInvoice(declined.t, c2.id, [line('10.00')]);
    let failed: any[] = [];
    for (let i = 0; i < 100 && !failed.length; i++) {
      failed = (await get(declined.t, `/transactions?invoice=${failedInv.id}&status=failed`)).body.data;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await refund(declined.t, failed[0].id)).status).toBe(409);
    const refundTx = (await get(t, `/transactions?type=refund`)).body.data[0];
    expect((await refund(t, refundTx.id)).status).toBe(409);
    expect(await countRows('transactions', t, "AND type = 'refund'")).toBe(1);
    expect((await post(t, `/transactions/${payment.id}/refund`, { amount: '1.00', unknown: true })).status).toBe(422);
  });
});
