import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, countRows, get, post, query, type TestTenant, dbOf } from '../support/api';
import { countedStatus, createCustomer, createTenant, eventTypes, setClock } from '../support/builders';
import { contextOf, customerSession, finalizedInvoice, line } from '../documents/builders';
import { collectJob } from '../../src/services/payments/collection-jobs';
import { applyGatewayEvent } from '../../src/services/payments/collection';
import { bankTransferMethod, paymentSettings, sepaMethod, testingMethod } from './builders';

// Automatic collection: a finalized invoice whose payment method is charged by a gateway is
// collected by a job on the payments queue, once, with retries on the tenant's schedule. The
// testing gateway's magic tokens (src/services/ports/gateways/testing.ts) choose the outcomes.

const START = '2027-03-01T09:00:00.000Z';

async function setup(token = 'testing_succeeds') {
  const t = await createTenant();
  await setClock(t, START);
  const c = await createCustomer(t);
  const method = await testingMethod(t, c.id, token, { default: true });
  return { t, c, method };
}

/** The invoice once its collection job has run (the queue consumer works in the background). */
async function settled(t: TestTenant, invoiceId: string, until: (tx: any[]) => boolean = (tx) => tx.length > 0 && tx.every((x) => x.status !== 'pending')) {
  for (let i = 0; i < 100; i++) {
    const tx = (await get(t, `/transactions?invoice=${invoiceId}`)).body.data;
    if (until(tx)) return { invoice: (await get(t, `/invoices/${invoiceId}`)).body, transactions: tx };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`collection of ${invoiceId} did not settle`);
}

const job = (t: TestTenant, invoiceId: string) => collectJob(env, { tenantId: t.id, invoiceId });

describe('automatic collection', () => {
  it('charges a finalized invoice once: transaction succeeded, invoice paid, events', async () => {
    const { t, c, method } = await setup();
    const inv = await finalizedInvoice(t, c.id, [line('100.00')]);
    const { invoice, transactions } = await settled(t, inv.id);
    expect(invoice).toMatchObject({ status: 'STATUS_PAID', payDate: START, unpaidAmount: { amount: '0.00', currencyCode: 'EUR' } });
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toMatchObject({
      type: 'payment',
      status: 'succeeded',
      gateway: 'testing',
      amount: 119,
      chargedAmount: 119,
      refundedAmount: 0,
      currencyCode: 'EUR',
      documentNumber: inv.number,
      invoice: { id: inv.id, number: inv.number },
      customer: { id: c.id },
      paymentMethod: { id: method.id },
      captured: true,
      refundable: true,
      paidAt: START,
      attempt: 1,
    });
    expect(await eventTypes(t, inv.id)).toEqual(expect.arrayContaining(['invoice.finalized', 'invoice.paid']));
    expect(await eventTypes(t, transactions[0].id)).toEqual(['transaction.succeeded']);
    const payments = await query<{ amount: number; transaction_id: string }>(t, 'SELECT amount, transaction_id FROM invoice_payments WHERE invoice_id = ?', inv.id);
    expect(payments).toEqual([{ amount: 11900, transaction_id: transactions[0].id }]);
  });

  it('a job that runs again, or twice at once, never charges twice', async () => {
    const { t, c } = await setup();
    const inv = await finalizedInvoice(t, c.id, [line('10.00')]);
    await Promise.all([job(t, inv.id), job(t, inv.id), job(t, inv.id)]);
    await settled(t, inv.id);
    await job(t, inv.id);
    expect(await countRows('transactions', t, 'AND invoice_id = ?', inv.id)).toBe(1);
    expect(await countRows('invoice_payments', t, 'AND invoice_id = ?', inv.id)).toBe(1);
    expect((await get(t, `/invoices/${inv.id}`)).body.status).toBe('STATUS_PAID');
  });

  it('a pending transaction left by a crash is continued with its idempotency key, not doubled', async () => {
    const { t, c } = await setup();
    const inv = await finalizedInvoice(t, c.id, [line('20.00')]);
    const [{ transactions }] = [await settled(t, inv.id)];
    // Put the transaction back to the state a crash between insert and gateway call leaves.
    await (await dbOf(t)).prepare("UPDATE transactions SET status = 'pending', paid_at = NULL WHERE id = ?").bind(transactions[0].id).run();
    await (await dbOf(t)).prepare("UPDATE invoices SET status = 'STATUS_UNPAID', paid_amount = 0, pay_date = NULL WHERE id = ?").bind(inv.id).run();
    await (await dbOf(t)).prepare('DELETE FROM invoice_payments WHERE invoice_id = ?').bind(inv.id).run();
    const result = await job(t, inv.id);
    expect(result).toMatchObject({ outcome: 'succeeded', transaction: { id: transactions[0].id, idempotencyKey: `collect:${inv.id}:1` } });
    expect(await countRows('transactions', t, 'AND invoice_id = ?', inv.id)).toBe(1);
    expect((await get(t, `/invoices/${inv.id}`)).body.status).toBe('STATUS_PAID');
  });

  it('a declined charge fails with its reason and is retried on the schedule, then left to dunning', async () => {
    const { t, c } = await setup('testing_declined');
    await paymentSettings(t, { 'payments.retryDays': [3, 5] });
    const inv = await finalizedInvoice(t, c.id, [line('50.00')]);
    const first = await settled(t, inv.id);
    expect({ ...first.invoice, status: countedStatus(first.invoice) }).toMatchObject({ status: 'STATUS_UNPAID', unpaidAmount: { amount: '59.50' } });
    expect(first.transactions[0]).toMatchObject({ status: 'failed', failReason: 'card_declined', attempt: 1, nextRetryAt: '2027-03-04T09:00:00.000Z', amount: 59.5, captured: false });
    expect(await eventTypes(t, inv.id)).toContain('invoice.unpaid');
    expect(await eventTypes(t, first.transactions[0].id)).toEqual(['transaction.failed']);

    // Not due yet: nothing happens.
    await setClock(t, '2027-03-03T09:00:00.000Z');
    expect(await countRows('transactions', t, 'AND invoice_id = ?', inv.id)).toBe(1);
    // Day 3: the second attempt, scheduled 5 days on.
    await setClock(t, '2027-03-04T10:00:00.000Z');
    const second = (await get(t, `/transactions?invoice=${inv.id}`)).body.data;
    expect(second.map((x: any) => [x.attempt, x.status, x.nextRetryAt])).toEqual([
      [2, 'failed', '2027-03-09T10:00:00.000Z'],
      [1, 'failed', null],
    ]);
    // Day 8: the third and last attempt; no retry follows.
    await setClock(t, '2027-03-09T10:00:00.000Z');
    const third = (await get(t, `/transactions?invoice=${inv.id}`)).body.data;
    expect(third.map((x: any) => [x.attempt, x.nextRetryAt])).toEqual([
      [3, null],
      [2, null],
      [1, null],
    ]);
    await setClock(t, '2027-04-09T10:00:00.000Z');
    expect(await countRows('transactions', t, 'AND invoice_id = ?', inv.id)).toBe(3);
    // No more charges: dunning has it now (its first level, a reminder, in the one run of this move).
    expect((await get(t, `/invoices/${inv.id}`)).body).toMatchObject({ status: 'STATUS_REMINDED', dunningLevel: 1, dunningStatus: 'reminder' });
  });

  it('a retry charges the payment method the invoice has by then', async () => {
    const { t, c } = await setup('testing_insufficient_funds');
    const inv = await finalizedInvoice(t, c.id, [line('10.00')]);
    const first = await settled(t, inv.id);
    expect(first.transactions[0]).toMatchObject({ status: 'failed', failReason: 'insufficient_funds' });
    const good = await testingMethod(t, c.id, 'testing_succeeds');
    expect((await api(`/invoices/${inv.id}/payment-method`, { token: t.key, body: { paymentMethodId: good.id } })).status).toBe(201);
    await setClock(t, '2027-03-04T09:00:00.000Z');
    const after = (await get(t, `/transactions?invoice=${inv.id}`)).body.data;
    expect(after.map((x: any) => [x.attempt, x.status, x.paymentMethod.id])).toEqual([
      [2, 'succeeded', good.id],
      [1, 'failed', first.transactions[0].paymentMethod.id],
    ]);
    expect((await get(t, `/invoices/${inv.id}`)).body).toMatchObject({ status: 'STATUS_PAID', payDate: '2027-03-04T09:00:00.000Z' });
  });

  it.each([
    ['testing_fails_later', 'failed', 'STATUS_UNPAID'],
    ['testing_succeeds_later', 'succeeded', 'STATUS_PAID'],
  ])('%s: processing at first, settled when the sweeper asks the gateway an hour later', async (token, status, invoiceStatus) => {
    const { t, c } = await setup(token);
    const inv = await finalizedInvoice(t, c.id, [line('10.00')]);
    const first = await settled(t, inv.id);
    expect(first.transactions[0]).toMatchObject({ status: 'processing', processing: true });
    expect(countedStatus(first.invoice)).toBe('STATUS_UNPAID');
    await setClock(t, '2027-03-01T10:30:00.000Z');
    const after = (await get(t, `/transactions?invoice=${inv.id}`)).body.data;
    expect(after[0].status).toBe(status);
    expect(countedStatus((await get(t, `/invoices/${inv.id}`)).body)).toBe(invoiceStatus);
  });

  it('a charge that needs the payer stays action_required and the invoice unpaid', async () => {
    const { t, c } = await setup('testing_requires_action');
    const inv = await finalizedInvoice(t, c.id, [line('10.00')]);
    const { invoice, transactions } = await settled(t, inv.id);
    expect(transactions[0]).toMatchObject({ status: 'action_required', failReason: 'authentication_required' });
    expect(countedStatus(invoice)).toBe('STATUS_UNPAID');
  });

  it('gateway events settle a processing charge once, however often they come', async () => {
    const { t, c } = await setup('testing_succeeds_later');
    const inv = await finalizedInvoice(t, c.id, [line('10.00')]);
    const { transactions } = await settled(t, inv.id);
    const ctx = await contextOf(t);
    const event = { id: 'evt_1', kind: 'charge.succeeded' as const, referenceId: transactions[0].referenceId };
    expect(await applyGatewayEvent(ctx, 'testing', event)).toEqual({ applied: true });
    expect(await applyGatewayEvent(ctx, 'testing', event)).toEqual({ applied: false });
    expect(await applyGatewayEvent(ctx, 'testing', { id: 'evt_2', kind: 'charge.failed', referenceId: transactions[0].referenceId, reason: 'late', retryable: true })).toEqual({ applied: false });
    expect(await applyGatewayEvent(ctx, 'testing', { ...event, referenceId: 'unknown' })).toEqual({ applied: false });
    expect((await get(t, `/invoices/${inv.id}`)).body.status).toBe('STATUS_PAID');
    expect(await countRows('invoice_payments', t, 'AND invoice_id = ?', inv.id)).toBe(1);
  });

  it('SEPA, transfer and method-less invoices are not charged by the job', async () => {
    const t = await createTenant();
    const cases = [
      async (id: string) => sepaMethod(t, id, { default: true }),
      async (id: string) => bankTransferMethod(t, id, { default: true }),
      async () => null,
    ];
    for (const make of cases) {
      const c = await createCustomer(t);
      await make(c.id);
      const inv = await finalizedInvoice(t, c.id, [line('10.00')]);
      expect(await job(t, inv.id)).toMatchObject({ outcome: 'skipped' });
      expect(await countRows('transactions', t, 'AND invoice_id = ?', inv.id)).toBe(0);
    }
  });

  it('a customer principal sees no transactions; another tenant sees none of them', async () => {
    const { t, c } = await setup();
    const inv = await finalizedInvoice(t, c.id, [line('10.00')]);
    const { transactions } = await settled(t, inv.id);
    const session = await customerSession(t, c.id);
    expect((await api('/transactions', { token: session })).status).toBe(403);
    expect((await api(`/transactions/${transactions[0].id}`, { token: session })).status).toBe(403);
    const other = await createTenant();
    expect((await get(other, `/transactions/${transactions[0].id}`)).status).toBe(404);
    expect((await get(other, '/transactions')).body.data).toEqual([]);
    expect((await post(other, `/transactions/${transactions[0].id}/refund`, {})).status).toBe(404);
  });
});

describe('GET /transactions filters', () => {
  it('filters by customer, invoice, status, gateway and type; refuses unknown values', async () => {
    const { t, c } = await setup();
    const bad = await createCustomer(t);
    await testingMethod(t, bad.id, 'testing_declined', { default: true });
    const a = await finalizedInvoice(t, c.id, [line('10.00')]);
    const b = await finalizedInvoice(t, bad.id, [line('20.00')]);
    await settled(t, a.id);
    await settled(t, b.id);
    const ids = async (q: string) => (await get(t, `/transactions?${q}`)).body.data.map((x: any) => x.invoice.id).sort();
    expect(await ids(`customer=${c.id}`)).toEqual([a.id]);
    expect(await ids('status=failed')).toEqual([b.id]);
    expect(await ids('status=failed&status=succeeded')).toEqual([a.id, b.id].sort());
    expect(await ids('gateway=testing&type=payment')).toEqual([a.id, b.id].sort());
    expect(await ids('status[]=failed&status[]=succeeded')).toEqual([a.id, b.id].sort());
    expect(await ids('type=refund')).toEqual([]);
    // Query problems are 400, as on every route.
    expect((await get(t, '/transactions?status=lost')).status).toBe(400);
  });
});
