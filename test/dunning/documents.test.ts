import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test';
import worker from '../../src/index';
import { describe, expect, it } from 'vitest';
import { api, eventsOf, get, post, put, query, dbOf } from '../support/api';
import { createCustomer, createTenant, flatMonthlyFee, setClock } from '../support/builders';
import { paymentSettings } from '../payments/builders';
import { camt053 } from '../payments/camt';
import { day, documentsOf, hundredEuroInvoice, moveTo, pay, scenarioRules, setDunningDisabled } from './builders';

// Dunning documents: one per invoice and level whatever runs at once, consecutive numbers, the
// customer's own view, cancelling, pausing and resuming, and every way an invoice stops being dunned.

describe('dunning documents', () => {
  it('two concurrent runs make each document once, with consecutive numbers', async () => {
    const t = await createTenant();
    await moveTo(t, 0);
    const c = await createCustomer(t);
    const invoices = [];
    for (let i = 0; i < 4; i++) invoices.push(await hundredEuroInvoice(t, c.id));
    await (await dbOf(t)).prepare(`UPDATE tenants SET test_clock_now = ? WHERE id = ?`).bind(day(21), t.id).run();
    const stub = env.TENANT.getByName(t.id);
    const runs = await Promise.all([stub.runDunning(t.id, {}), stub.runDunning(t.id, {}), stub.runDunning(t.id, { invoiceId: invoices[0]!.id })]);
    expect(runs.reduce((n, r) => n + r.issued, 0)).toBe(4);
    const rows = await query<{ invoice_id: string; level: number; number: string; number_seq: number }>(t, `SELECT invoice_id, level, number, number_seq FROM dunning_documents WHERE tenant_id = ? ORDER BY number_seq`, t.id);
    expect(rows.map((r) => r.number)).toEqual(['ER-0000000001', 'ER-0000000002', 'ER-0000000003', 'ER-0000000004']);
    expect(new Set(rows.map((r) => r.invoice_id)).size).toBe(4);
    // The default set: the reminder is the only level due on day 21.
    expect(rows.every((r) => r.level === 1)).toBe(true);
    expect((await eventsOf(t)).filter((e) => e.type === 'dunning_document.created')).toHaveLength(4);
  });

  it('asks only for what credit notes left: paying the rest settles the invoice, a part left is reminded less the credit', async () => {
    const t = await createTenant();
    await moveTo(t, 0);
    const c = await createCustomer(t);
    const settled = await hundredEuroInvoice(t, c.id);
    const reminded = await hundredEuroInvoice(t, c.id);
    // 33.61 net + 19 % = 40.00 credited on each.
    for (const inv of [settled, reminded]) expect((await post(t, `/invoices/${inv.id}/credit`, { positions: [{ name: 'Goodwill', unitPrice: '33.61', taxRate: '19' }] })).status).toBe(201);
    expect((await pay(t, settled.id, '60.00')).status).toBe(201);
    expect((await get(t, `/invoices/${settled.id}`)).body.status).toBe('STATUS_PAID');
    expect((await pay(t, reminded.id, '10.00')).status).toBe(201);
    await moveTo(t, 21);
    expect(await documentsOf(t, settled.id)).toEqual([]);
    const [doc] = await documentsOf(t, reminded.id);
    expect(doc).toMatchObject({ openAmount: { amount: '50.00' }, amountDue: { amount: '50.00' } });
    expect(doc.positions).toEqual([{ type: 'invoice', name: `Rechnung ${reminded.number} vom 02.03.2026 abzüglich Gutschriften`, amount: { amount: '60.00', currencyCode: 'EUR' }, level: null }]);
    // Paying the 50.00 left settles it, and its reminder with it.
    expect((await pay(t, reminded.id, '50.00')).status).toBe(201);
    expect((await documentsOf(t, reminded.id)).map((d) => d.status)).toEqual(['paid']);
  });

  it('mails a few documents in the run and the rest through the documents queue', async () => {
    const t = await createTenant();
    await moveTo(t, 0);
    const c = await createCustomer(t);
    for (let i = 0; i < 12; i++) await hundredEuroInvoice(t, c.id);
    await moveTo(t, 21);
    const sent = async () => (await query<{ n: number }>(t, `SELECT count(*) AS n FROM dunning_documents WHERE tenant_id = ? AND sent_at IS NOT NULL`, t.id))[0]!.n;
    expect(await sent()).toBeGreaterThanOrEqual(10);
    for (let i = 0; i < 100 && (await sent()) < 12; i++) await new Promise((r) => setTimeout(r, 200));
    expect(await sent()).toBe(12);
    expect((await query<{ n: number }>(t, `SELECT count(*) AS n FROM outgoing_mails WHERE tenant_id = ?`, t.id))[0]!.n).toBe(12);
  });

  it('runs every night for each tenant at its own time', async () => {
    const t = await createTenant();
    await moveTo(t, 0);
    const c = await createCustomer(t);
    const invoice = await hundredEuroInvoice(t, c.id);
    // The clock moved without the test clock's own run: only the nightly job can remind.
    await (await dbOf(t)).prepare(`UPDATE tenants SET test_clock_now = ? WHERE id = ?`).bind(day(21), t.id).run();
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ cron: '0 3 * * *', scheduledTime: new Date() }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect((await documentsOf(t, invoice.id)).map((d) => [d.level, d.number, d.documentDate])).toEqual([[1, 'ER-0000000001', day(21)]]);
  });

  it('holds past the run queue: parallel runs outside the object and a repeated level leave one document per level and no gap', async () => {
    const t = await createTenant();
    await moveTo(t, 0);
    const c = await createCustomer(t);
    const invoices = [];
    for (let i = 0; i < 3; i++) invoices.push(await hundredEuroInvoice(t, c.id));
    const { openTenant } = await import('../../src/db/directory');
    const { createServiceContext } = await import('../../src/services/context');
    const { runDunningFor } = await import('../../src/services/dunning/run');
    // The tenant's row and database, through the one door to its shard.
    const { db, tenant } = (await openTenant(env, t.id))!;
    // Worker contexts number through the object's stub, but their runs are not queued behind each other.
    const ctx = () => createServiceContext({ env, db, tenant, now: new Date(day(21)) });
    const runs = await Promise.all([runDunningFor(ctx()), runDunningFor(ctx()), runDunningFor(ctx())]);
    expect(runs.reduce((n, r) => n + r.issued, 0)).toBe(3);
    const [invoiceRow] = await query<{ updated_at: string }>(t, `SELECT updated_at FROM invoices WHERE id = ?`, invoices[0]!.id);
    // The same level again with the invoice as it is now: refused by UNIQUE (invoice, level), no number used.
    const again = await env.TENANT.getByName(t.id).issueDunningDocument({
      tenantId: t.id,
      invoiceId: invoices[0]!.id,
      expectedUpdatedAt: invoiceRow!.updated_at,
      type: 'reminder',
      format: 'ER-{number:10}',
      timeZone: 'Europe/Berlin',
      customerNumber: c.customerNumber,
      date: day(21),
      document: {
        id: 'repeated-level', tenantId: t.id, customerId: c.id, invoiceId: invoices[0]!.id, ruleId: null, level: 1, type: 'reminder', status: 'open', language: 'de', recipient: { name: 'x' },
        title: 'Zahlungserinnerung {number}', documentDate: day(21), dueDate: day(28), currencyCode: 'EUR', openAmount: 10000, amountDue: 10000, positions: [], createdAt: day(21), updatedAt: day(21),
      },
      invoiceSet: { updatedAt: invoiceRow!.updated_at },
      events: [],
    });
    expect(again).toEqual({ ok: false, reason: 'level_exists' });
    await moveTo(t, 21);
    const late = await hundredEuroInvoice(t, c.id);
    await moveTo(t, 42);
    const [lateDoc] = await documentsOf(t, late.id);
    expect(lateDoc.number).toBe('ER-0000000004');
  });

  it('shows a customer only its own documents', async () => {
    const t = await createTenant();
    await moveTo(t, 0);
    const me = await createCustomer(t);
    const other = await createCustomer(t);
    const mine = await hundredEuroInvoice(t, me.id);
    const theirs = await hundredEuroInvoice(t, other.id);
    await moveTo(t, 21);
    const [myDoc] = await documentsOf(t, mine.id);
    const [theirDoc] = await documentsOf(t, theirs.id);
    const session = (await api(`/customers/${me.id}/authenticate`, { method: 'POST', token: t.key })).body.data.accessToken as string;
    const list = await api('/dunning/documents', { token: session });
    expect(list.status).toBe(200);
    expect(list.body.data.map((d: any) => d.id)).toEqual([myDoc.id]);
    expect((await api(`/dunning/documents/${myDoc.id}`, { token: session })).status).toBe(200);
    expect((await api(`/dunning/documents/${theirDoc.id}`, { token: session })).status).toBe(404);
    expect((await api(`/dunning/documents?customer=${other.id}`, { token: session })).body.data).toEqual([]);
    expect((await api(`/dunning/documents/${myDoc.id}/cancel`, { method: 'PUT', token: session, body: {} })).status).toBe(403);
    // Filters of the tenant's list.
    expect((await get(t, `/dunning/documents?customer=${other.id}`)).body.data.map((d: any) => d.id)).toEqual([theirDoc.id]);
    expect((await get(t, '/dunning/documents?level=2')).body.data).toEqual([]);
    expect((await get(t, '/dunning/documents?status=open&type=reminder')).body.meta.pagination.totalItems).toBe(2);
    expect((await get(t, '/dunning/documents?status=nonsense')).status).toBe(400);
  });

  it('cancels an open document: its fee is not asked for again, and a second cancel is refused', async () => {
    const t = await createTenant();
    await moveTo(t, 0);
    await scenarioRules(t);
    const c = await createCustomer(t);
    const invoice = await hundredEuroInvoice(t, c.id);
    await moveTo(t, 21);
    await moveTo(t, 35);
    const second = (await documentsOf(t, invoice.id))[1];
    const cancelled = await put(t, `/dunning/documents/${second.id}/cancel`, { reason: 'Customer called, pays this week' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', reason: 'Customer called, pays this week' });
    expect((await put(t, `/dunning/documents/${second.id}/cancel`, {})).status).toBe(409);
    expect((await eventsOf(t, second.id)).map((e) => e.type)).toEqual(['dunning_document.created', 'dunning_document.canceled']);
    await moveTo(t, 49);
    const third = (await documentsOf(t, invoice.id))[2];
    // 100.00 open + 10.00 of level 3; the cancelled 5.00 is gone.
    expect(third).toMatchObject({ level: 3, amountDue: { amount: '110.00', currencyCode: 'EUR' } });
    expect((await put(t, `/dunning/documents/01J0000000000000000000000/cancel`, {})).status).toBe(404);
  });

  it('applies the level that fell due while dunning was paused as soon as it is resumed', async () => {
    const t = await createTenant();
    await moveTo(t, 0);
    const c = await createCustomer(t);
    const invoice = await hundredEuroInvoice(t, c.id);
    expect((await setDunningDisabled(t, invoice.id, true)).status).toBe(200);
    await moveTo(t, 30);
    expect(await documentsOf(t, invoice.id)).toEqual([]);
    const resumed = await setDunningDisabled(t, invoice.id, false);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ dunningDisabled: false, dunningLevel: 1, status: 'STATUS_REMINDED', lastReminderDate: day(30) });
    expect(await documentsOf(t, invoice.id)).toHaveLength(1);
  });

  it('does nothing when the tenant switched dunning off, or while a debit is on its way', async () => {
    const t = await createTenant();
    await moveTo(t, 0);
    await paymentSettings(t, { 'dunning.enabled': false });
    const c = await createCustomer(t);
    const invoice = await hundredEuroInvoice(t, c.id);
    await moveTo(t, 30);
    expect(await documentsOf(t, invoice.id)).toEqual([]);
    await paymentSettings(t, { 'dunning.enabled': true });
    // A SEPA debit in a file (processing) holds dunning back until it fails or comes back.
    await (await dbOf(t)).prepare(
      `INSERT INTO transactions (id, tenant_id, customer_id, invoice_id, type, gateway, status, currency_code, amount, idempotency_key, created_at, updated_at) VALUES (?, ?, ?, ?, 'payment', 'sepa_debit', 'processing', 'EUR', 10000, ?, ?, ?)`,
    )
      .bind(`tx-${invoice.id}`, t.id, c.id, invoice.id, `collect:${invoice.id}:1`, day(29), day(29))
      .run();
    await moveTo(t, 31);
    expect(await documentsOf(t, invoice.id)).toEqual([]);
    await (await dbOf(t)).prepare(`UPDATE transactions SET status = 'failed' WHERE id = ?`).bind(`tx-${invoice.id}`).run();
    await moveTo(t, 32);
    expect(await documentsOf(t, invoice.id)).toHaveLength(1);
  });

  it('withdraws the open documents when the invoice is closed, and a bank transfer in full pays them', async () => {
    const t = await createTenant();
    await moveTo(t, 0);
    const c = await createCustomer(t);
    const closed = await hundredEuroInvoice(t, c.id);
    const transferred = await hundredEuroInvoice(t, c.id);
    await moveTo(t, 21);
    expect((await put(t, `/invoices/${closed.id}/close`)).status).toBe(200);
    const [withdrawn] = await documentsOf(t, closed.id);
    expect(withdrawn).toMatchObject({ status: 'cancelled', reason: 'invoice closed' });
    expect((await eventsOf(t, withdrawn.id)).map((e) => e.type)).toEqual(['dunning_document.created', 'dunning_document.canceled']);

    const xml = camt053('DE89370400440532013000', 'STMT-D1', [{ ref: 'T-1', amount: '100.00', credit: true, bookingDate: '2026-03-24', details: [{ name: 'Kunde', remittance: `Zahlung ${transferred.number}` }] }]);
    const imported = await api('/payment/bank-account-transactions/import', { token: t.key, method: 'POST', rawBody: xml, contentType: 'application/xml' });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    expect((await get(t, `/invoices/${transferred.id}`)).body.status).toBe('STATUS_PAID');
    const [paid] = await documentsOf(t, transferred.id);
    expect(paid.status).toBe('paid');
    expect((await eventsOf(t, paid.id)).map((e) => e.type)).toEqual(['dunning_document.created', 'dunning_document.paid']);
  });

  it.each([
    ['suspend_customer', 'STATUS_SUSPENDED', 'active'],
    ['pause_subscriptions', 'STATUS_ACTIVE', 'paused'],
  ])('applies the last level\'s final action %s (customer %s, subscription %s)', async (finalAction, customerStatus, subscriptionStatus) => {
    const t = await createTenant();
    await moveTo(t, 0);
    expect((await post(t, '/dunning/overdue-rules', { level: 1, type: 'dunning', daysOverdue: 3, dueInDays: 10, finalAction })).status).toBe(201);
    const c = await createCustomer(t, { language: 'en' });
    const { product, price } = await flatMonthlyFee(t, '10.00', 'Pro');
    const subscription = (await post(t, '/subscriptions', { customer: c.id, items: [{ product: product.id, pricePlan: price.id, quantity: '1' }] })).body;
    expect((await put(t, `/subscriptions/${subscription.id}/activate`, {})).status).toBe(200);
    const invoice = await hundredEuroInvoice(t, c.id);
    await setClock(t, day(17));
    const [doc] = await documentsOf(t, invoice.id);
    expect(doc).toMatchObject({ level: 1, type: 'dunning', number: expect.stringMatching(/^MA-000000000\d$/), title: expect.stringMatching(/^Dunning letter MA-000000000\d \(level 1\)$/) });
    expect(doc.positions[0].name).toMatch(new RegExp(`^Invoice ${invoice.number} of `));
    expect((await get(t, `/customers/${c.id}`)).body.status).toBe(customerStatus);
    expect((await get(t, `/subscriptions/${subscription.id}`)).body.status).toBe(subscriptionStatus);
  });
});
