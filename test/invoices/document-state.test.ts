import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { get, post, put, query, type TestTenant } from '../support/api';
import { createCustomer, createTenant, created, ok, setClock } from '../support/builders';
import { collectJob } from '../../src/services/payments/collection-jobs';
import { LETTERHEAD, renderedInvoice, renderNow } from '../documents/builders';
import { testingMethod } from '../payments/builders';
import { draft, line } from './builders';

// Document state (docs/decisions.md, Invoices and billing, "Document state"): STATUS_FINALIZING
// while the files render, then the status it counted as meanwhile; a transition during the render
// moves it on at once.

const START = '2027-03-01T09:00:00.000Z';
const eur = (amount: string) => ({ amount, currencyCode: 'EUR' });

/** A tenant with its letterhead (so documents get their e-invoice XML too) and a customer with an address. */
async function setup() {
  const t = await createTenant();
  await setClock(t, START);
  await ok(put(t, '/settings/documents', LETTERHEAD));
  const c = await createCustomer(t, { street: 'Kastanienallee', houseNumber: '7', zip: '10435', city: 'Berlin' });
  return { t, c };
}

/** A finalized 119.00 invoice (100.00 + 19 %) as the finalize request answers it. */
async function finalize(t: TestTenant, customerId: string) {
  const d = await draft(t, customerId, [line('100.00')]);
  const res = await post(t, `/invoices/${d.id}/finalize`);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/**
 * A finalized invoice whose files are still rendering: finalized, rendered once by its background
 * job (so no job is left to render it again), then set back to the state before the render
 * recorded them, as a render still under way (or one that keeps failing) leaves it.
 */
async function rendering(t: TestTenant, customerId: string) {
  const inv = await finalize(t, customerId);
  await renderedInvoice(t, inv.id);
  await query(t, "UPDATE invoices SET status = 'STATUS_FINALIZING', file_id = NULL, xml_file_id = NULL WHERE tenant_id = ? AND id = ?", t.id, inv.id);
  await query(t, "DELETE FROM media WHERE tenant_id = ? AND owner_id = ?", t.id, inv.id);
  expect((await get(t, `/invoices/${inv.id}`)).body).toMatchObject({ status: 'STATUS_FINALIZING', file: null, xmlFile: null });
  return inv;
}

describe('document state', () => {
  it('is STATUS_FINALIZING with no files right after finalize, and STATUS_UNPAID with both files once rendered', async () => {
    const { t, c } = await setup();
    const inv = await finalize(t, c.id);
    expect(inv).toMatchObject({ status: 'STATUS_FINALIZING', file: null, xmlFile: null, unpaidAmount: eur('119.00') });
    await renderNow(t, inv.id);
    const after = (await get(t, `/invoices/${inv.id}`)).body;
    expect(after).toMatchObject({ status: 'STATUS_UNPAID', file: { mimeType: 'application/pdf' }, xmlFile: { mimeType: 'application/xml' } });
    const [updated] = (await query<{ data: string }>(t, "SELECT data FROM events WHERE tenant_id = ? AND resource_id = ? AND type = 'invoice.updated'", t.id, inv.id)).map((e) => JSON.parse(e.data));
    expect(updated).toMatchObject({ status: 'STATUS_UNPAID', file: { mimeType: 'application/pdf' } });
  });

  it('a credit note is finalizing, then paid once rendered', async () => {
    const { t, c } = await setup();
    const inv = await finalize(t, c.id);
    const credit = await created(post(t, `/invoices/${inv.id}/credit`, {}));
    expect(credit).toMatchObject({ type: 'TYPE_CREDIT', status: 'STATUS_FINALIZING', grossAmount: eur('-119.00') });
    await renderNow(t, credit.id);
    expect((await get(t, `/invoices/${credit.id}`)).body).toMatchObject({ status: 'STATUS_PAID', file: { mimeType: 'application/pdf' } });
  });

  it('counts as unpaid while rendering: found by the status filter, paid in part stays finalizing, paid in full is paid at once and the render keeps it paid', async () => {
    const { t, c } = await setup();
    const part = await rendering(t, c.id);
    const full = await rendering(t, c.id);
    const unpaid = (await get(t, `/invoices?status=STATUS_UNPAID&customer=${c.id}`)).body.data.map((i: any) => i.id);
    expect(unpaid).toEqual(expect.arrayContaining([part.id, full.id]));
    expect((await get(t, `/invoices?status=STATUS_FINALIZING&customer=${c.id}`)).body.data.map((i: any) => i.id).sort()).toEqual([part.id, full.id].sort());
    expect((await get(t, `/invoices?status=STATUS_PAID&customer=${c.id}`)).body.data).toEqual([]);

    expect((await post(t, `/invoices/${part.id}/payments`, { amount: '19.00' })).status).toBe(201);
    expect((await get(t, `/invoices/${part.id}`)).body).toMatchObject({ status: 'STATUS_FINALIZING', unpaidAmount: eur('100.00') });
    expect((await post(t, `/invoices/${full.id}/payments`, { amount: '119.00' })).status).toBe(201);
    expect((await get(t, `/invoices/${full.id}`)).body).toMatchObject({ status: 'STATUS_PAID', unpaidAmount: eur('0.00'), file: null });

    await renderNow(t, part.id);
    await renderNow(t, full.id);
    expect((await get(t, `/invoices/${part.id}`)).body).toMatchObject({ status: 'STATUS_UNPAID', unpaidAmount: eur('100.00'), file: { mimeType: 'application/pdf' } });
    expect((await get(t, `/invoices/${full.id}`)).body).toMatchObject({ status: 'STATUS_PAID', file: { mimeType: 'application/pdf' } });
  });

  it('is collected and dunned like an unpaid invoice while rendering', async () => {
    const { t, c } = await setup();
    const dunned = await rendering(t, c.id);
    await setClock(t, '2027-03-23T09:00:00.000Z');
    const [reminder] = (await get(t, `/dunning/documents?invoice=${dunned.id}`)).body.data;
    expect(reminder).toMatchObject({ level: 1, openAmount: eur('119.00') });
    expect((await get(t, `/invoices/${dunned.id}`)).body.status).toBe('STATUS_REMINDED');

    const charged = await rendering(t, c.id);
    await testingMethod(t, c.id, 'testing_succeeds', { default: true });
    await collectJob(env, { tenantId: t.id, invoiceId: charged.id });
    const [charge] = (await get(t, `/transactions?invoice=${charged.id}`)).body.data;
    expect(charge).toMatchObject({ status: 'succeeded', amount: 119 });
    expect((await get(t, `/invoices/${charged.id}`)).body.status).toBe('STATUS_PAID');
  });

  it('can be cancelled while rendering; the render then only adds the files', async () => {
    const { t, c } = await setup();
    const inv = await rendering(t, c.id);
    expect((await post(t, `/invoices/${inv.id}/cancel`)).body.status).toBe('STATUS_CANCELLED');
    await renderNow(t, inv.id);
    expect((await get(t, `/invoices/${inv.id}`)).body).toMatchObject({ status: 'STATUS_CANCELLED', file: { mimeType: 'application/pdf' } });
  });
});
