import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, countRows, get, post, query, type TestTenant, dbOf } from '../support/api';
import { createCustomer, createTenant, setClock } from '../support/builders';
import { finalizedInvoice, line } from '../documents/builders';
import { collectJob } from '../../src/services/payments/collection-jobs';
import { testingMethod } from './builders';

// What collection does when things went wrong in between: a charge whose answer was lost while the
// invoice moved on, a payment recorded by hand while money is on its way, a job message that never
// came, refunds beyond what the documents may still correct.

const START = '2027-03-01T09:00:00.000Z';

async function tenantAt() {
  const t = await createTenant();
  await setClock(t, START);
  return t;
}

async function transactionsOf(t: TestTenant, invoiceId: string, until: (tx: any[]) => boolean = (tx) => tx.length > 0 && tx.every((x) => x.status !== 'pending')) {
  for (let i = 0; i < 100; i++) {
    const tx = (await get(t, `/transactions?invoice=${invoiceId}`)).body.data;
    if (until(tx)) return tx;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no settled transaction for ${invoiceId}`);
}

/** Puts a collected invoice back to the moment a crash left it: the charge pending, nothing paid. */
async function crashedCharge(t: TestTenant, invoiceId: string, transactionId: string) {
  await (await dbOf(t)).prepare("UPDATE transactions SET status = 'pending', paid_at = NULL, charged_amount = 0 WHERE id = ?").bind(transactionId).run();
  await (await dbOf(t)).prepare("UPDATE invoices SET status = 'STATUS_UNPAID', paid_amount = 0, pay_date = NULL WHERE id = ?").bind(invoiceId).run();
  await (await dbOf(t)).prepare('DELETE FROM invoice_payments WHERE invoice_id = ?').bind(invoiceId).run();
}

describe('collection after something went wrong', () => {
  it('a charge left pending is resolved even when the invoice was closed meanwhile: recorded, not applied, marked to refund', async () => {
    const t = await tenantAt();
    const c = await createCustomer(t);
    await testingMethod(t, c.id, 'testing_succeeds', { default: true });
    const inv = await finalizedInvoice(t, c.id, [line('10.00')]);
    const [tx] = await transactionsOf(t, inv.id);
    await crashedCharge(t, inv.id, tx.id);
    await (await dbOf(t)).prepare("UPDATE invoices SET status = 'STATUS_CLOSED' WHERE id = ?").bind(inv.id).run();
    // The sweeper takes pending charges older than ten minutes.
    await setClock(t, '2027-03-01T09:11:00.000Z');
    const after = (await get(t, `/transactions/${tx.id}`)).body;
    expect(after, JSON.stringify(after)).toMatchObject({ status: 'succeeded', refundable: true, description: expect.stringContaining('refund it') });
    expect((await get(t, `/invoices/${inv.id}`)).body).toMatchObject({ status: 'STATUS_CLOSED' });
    expect(await countRows('invoice_payments', t, 'AND invoice_id = ?', inv.id)).toBe(0);
  });

  it('a charge that lands on an invoice paid in part meanwhile pays what is open; the rest is shown to refund', async () => {
    const t = await tenantAt();
    const c = await createCustomer(t);
    await testingMethod(t, c.id, 'testing_succeeds', { default: true });
    const inv = await finalizedInvoice(t, c.id, [line('100.00')]);
    const [tx] = await transactionsOf(t, inv.id);
    await crashedCharge(t, inv.id, tx.id);
    await (await dbOf(t)).prepare('UPDATE invoices SET paid_amount = 3000 WHERE id = ?').bind(inv.id).run();
    const result = await collectJob(env, { tenantId: t.id, invoiceId: inv.id });
    expect(result).toMatchObject({ outcome: 'succeeded' });
    expect((await get(t, `/invoices/${inv.id}`)).body).toMatchObject({ status: 'STATUS_PAID', unpaidAmount: { amount: '0.00' } });
    expect(await query(t, 'SELECT amount FROM invoice_payments WHERE invoice_id = ?', inv.id)).toEqual([{ amount: 8900 }]);
    expect((await get(t, `/transactions/${tx.id}`)).body.description).toContain('30.00 EUR more than was open');
  });

  it('a payment by hand is refused while a charge is on its way (409), and accepted once it failed', async () => {
    const t = await tenantAt();
    const c = await createCustomer(t);
    await testingMethod(t, c.id, 'testing_fails_later', { default: true });
    const inv = await finalizedInvoice(t, c.id, [line('10.00')]);
    await transactionsOf(t, inv.id);
    const refused = await post(t, `/invoices/${inv.id}/payments`, { amount: '11.90' });
    expect(refused.status).toBe(409);
    expect(refused.body.type).toBe('/problems/collection-in-progress');
    await setClock(t, '2027-03-01T10:30:00.000Z');
    expect((await post(t, `/invoices/${inv.id}/payments`, { amount: '11.90' })).status).toBe(201);
  });

  it('an invoice whose job never ran is collected by the sweeper', async () => {
    const t = await tenantAt();
    const c = await createCustomer(t);
    // No method yet: the job finds nothing to charge and writes nothing.
    const inv = await finalizedInvoice(t, c.id, [line('10.00')]);
    expect(await collectJob(env, { tenantId: t.id, invoiceId: inv.id })).toMatchObject({ outcome: 'skipped', reason: 'no_payment_method' });
    await testingMethod(t, c.id, 'testing_succeeds', { default: true });
    await setClock(t, '2027-03-01T09:11:00.000Z');
    expect((await get(t, `/invoices/${inv.id}`)).body.status).toBe('STATUS_PAID');
    expect(await countRows('transactions', t, 'AND invoice_id = ?', inv.id)).toBe(1);
  });

  it('a refund beyond what credit notes leave to correct is refused before any money moves', async () => {
    const t = await tenantAt();
    const c = await createCustomer(t);
    await testingMethod(t, c.id, 'testing_succeeds', { default: true });
    const inv = await finalizedInvoice(t, c.id, [line('100.00')]);
    const [payment] = await transactionsOf(t, inv.id);
    // A credit note of 50.00 + 19 % leaves 59.50 for refund documents.
    expect((await post(t, `/invoices/${inv.id}/credit`, { positions: [{ name: 'Goodwill', unitPrice: '50.00', taxRate: '19' }] })).status).toBe(201);
    const refused = await api(`/transactions/${payment.id}/refund`, { token: t.key, method: 'POST', body: { amount: '100.00' } });
    expect(refused.status).toBe(422);
    expect(refused.body.violations).toEqual([expect.objectContaining({ propertyPath: 'amount', code: 'exceeds_creditable' })]);
    expect(await countRows('transactions', t, "AND type = 'refund'")).toBe(0);
    expect((await get(t, `/transactions/${payment.id}`)).body.refundedAmount).toBe(0);
    // Without a document, the money can go back (an overpayment, a goodwill gesture).
    const plain = await api(`/transactions/${payment.id}/refund`, { token: t.key, method: 'POST', body: { amount: '100.00', createDocument: false } });
    expect(plain.status).toBe(201);
    expect(await countRows('invoices', t, "AND type = 'TYPE_REFUND'")).toBe(0);
  });
});
