import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { eventsOf, get, post, query, violations, type TestTenant } from '../support/api';
import { countedStatus, createCustomer, createTenant, setClock } from '../support/builders';
import { collectJob } from '../../src/services/payments/collection-jobs';
import { testingMethod } from '../payments/builders';
import { day, documentsOf, hundredEuroInvoice, moveTo, pay, scenarioRules } from '../dunning/builders';

// What is owed (docs/decisions.md, Invoices and billing, "What is owed"): gross − paid − what
// finalized credit notes took off, on every path; and dunning fees a payment may bring on top
// (Dunning, "Fees are receivable").

const eur = (amount: string) => ({ amount, currencyCode: 'EUR' });
/** The invoice with the status it counts as (a finalizing one as it will become: test/support/builders.ts). */
const counted = (inv: any) => ({ ...inv, status: countedStatus(inv) });
/** 16.81 net + 19 % = 20.00 gross off a 100.00 invoice. */
const credit20 = (t: TestTenant, id: string) => post(t, `/invoices/${id}/credit`, { positions: [{ name: 'Goodwill', unitPrice: '16.81', taxRate: '19' }] });

async function setup() {
  const t = await createTenant();
  await moveTo(t, 0);
  const c = await createCustomer(t);
  return { t, c };
}

describe('what is owed counts credit notes', () => {
  it('a credit note lowers unpaidAmount; more than what is left is refused as an overpayment', async () => {
    const { t, c } = await setup();
    const inv = await hundredEuroInvoice(t, c.id);
    expect(inv.unpaidAmount).toEqual(eur('100.00'));
    expect((await credit20(t, inv.id)).status).toBe(201);
    expect(counted((await get(t, `/invoices/${inv.id}`)).body)).toMatchObject({ status: 'STATUS_UNPAID', unpaidAmount: eur('80.00') });
    const over = await pay(t, inv.id, '80.01');
    expect(violations(over)).toEqual(['amount: overpayment']);
    expect(over.body.violations[0].message).toContain('80.00 EUR');
    expect((await pay(t, inv.id, '30.00')).status).toBe(201);
    expect(counted((await get(t, `/invoices/${inv.id}`)).body)).toMatchObject({ status: 'STATUS_UNPAID', unpaidAmount: eur('50.00') });
    // It shows in lists as on the document.
    const listed = (await get(t, `/invoices?customer=${c.id}`)).body.data.find((i: any) => i.id === inv.id);
    expect(listed.unpaidAmount).toEqual(eur('50.00'));
  });

  it('a credit note that leaves nothing owed after a partial payment settles the invoice as paid, with invoice.paid, and ends its dunning', async () => {
    const { t, c } = await setup();
    const inv = await hundredEuroInvoice(t, c.id);
    expect((await pay(t, inv.id, '80.00')).status).toBe(201);
    await moveTo(t, 21);
    expect((await documentsOf(t, inv.id)).map((d) => [d.status, d.openAmount.amount])).toEqual([['open', '20.00']]);
    expect((await credit20(t, inv.id)).status).toBe(201);
    const after = (await get(t, `/invoices/${inv.id}`)).body;
    expect(after).toMatchObject({ status: 'STATUS_PAID', unpaidAmount: eur('0.00'), payDate: day(21) });
    expect((await eventsOf(t, inv.id)).map((e) => e.type)).toEqual(expect.arrayContaining(['invoice.credited', 'invoice.paid']));
    expect((await documentsOf(t, inv.id)).map((d) => d.status)).toEqual(['paid']);
    // Nothing more is asked for: no payment, no further level.
    expect((await pay(t, inv.id, '0.01')).status).toBe(409);
    await moveTo(t, 50);
    expect(await documentsOf(t, inv.id)).toHaveLength(1);
  });

  it('a credit note of everything on an unpaid invoice closes it (nothing of it stands)', async () => {
    const { t, c } = await setup();
    const inv = await hundredEuroInvoice(t, c.id);
    expect((await post(t, `/invoices/${inv.id}/credit`, {})).status).toBe(201);
    expect((await get(t, `/invoices/${inv.id}`)).body).toMatchObject({ status: 'STATUS_CLOSED', unpaidAmount: eur('0.00'), payDate: null });
  });

  it('a card charge collects what is owed after the credit note, not the gross', async () => {
    const t = await createTenant();
    await setClock(t, '2027-03-01T09:00:00.000Z');
    const c = await createCustomer(t);
    // No method yet: nothing is charged at finalization.
    const inv = await hundredEuroInvoice(t, c.id);
    expect((await credit20(t, inv.id)).status).toBe(201);
    expect((await pay(t, inv.id, '30.00')).status).toBe(201);
    await testingMethod(t, c.id, 'testing_succeeds', { default: true });
    await collectJob(env, { tenantId: t.id, invoiceId: inv.id });
    const [charge] = (await get(t, `/transactions?invoice=${inv.id}`)).body.data;
    expect(charge).toMatchObject({ status: 'succeeded', amount: 50, chargedAmount: 50 });
    expect((await get(t, `/invoices/${inv.id}`)).body).toMatchObject({ status: 'STATUS_PAID', unpaidAmount: eur('0.00') });
  });
});

describe('dunning fees are receivable', () => {
  it('a payment of open amount + fees is accepted and books the fees without VAT; one cent more is an overpayment', async () => {
    const { t, c } = await setup();
    await scenarioRules(t);
    const inv = await hundredEuroInvoice(t, c.id);
    await moveTo(t, 21);
    await moveTo(t, 35);
    const docs = await documentsOf(t, inv.id);
    expect(docs.map((d) => [d.level, d.dunningFee.amount, d.amountDue.amount])).toEqual([
      [1, '0.00', '100.00'],
      [2, '5.00', '105.00'],
    ]);
    const over = await pay(t, inv.id, '105.01');
    expect(violations(over)).toEqual(['amount: overpayment']);
    expect(over.body.violations[0].message).toBe('The payment exceeds the unpaid amount of 100.00 EUR plus dunning fees of 5.00 EUR.');
    expect((await pay(t, inv.id, '105.00')).status).toBe(201);
    expect((await get(t, `/invoices/${inv.id}`)).body).toMatchObject({ status: 'STATUS_PAID', unpaidAmount: eur('0.00'), grossAmount: eur('100.00'), taxAmount: eur('15.97') });
    expect(await query(t, 'SELECT amount, dunning_fee_amount FROM invoice_payments WHERE tenant_id = ? AND invoice_id = ?', t.id, inv.id)).toEqual([{ amount: 10000, dunning_fee_amount: 500 }]);
    expect((await documentsOf(t, inv.id)).map((d) => d.status)).toEqual(['paid', 'paid']);
  });

  it('without dunning documents a payment above what is owed stays an overpayment', async () => {
    const { t, c } = await setup();
    const inv = await hundredEuroInvoice(t, c.id);
    expect(violations(await pay(t, inv.id, '100.01'))).toEqual(['amount: overpayment']);
    expect((await get(t, `/invoices/${inv.id}`)).body.unpaidAmount).toEqual(eur('100.00'));
  });
});
