import { describe, expect, it } from 'vitest';
import { api, expect422, get, patch, put, violations } from '../support/api';
import { createCustomer, createTenant, ok, refusedUnchanged } from '../support/builders';
import { finalizedInvoice } from './builders';

// A customer's e-invoice type and Leitweg-ID: checked when written, and copied onto each document
// at its finalization, so a later change of the customer or of the tenant's default never changes
// a finished document.

const LEITWEG_ID = '04011000-12345-03';

describe("customers' e-invoice settings", () => {
  it('are written on create and update, and cleared together', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { eInvoiceType: 'xrechnung', leitwegId: LEITWEG_ID });
    expect(c).toMatchObject({ eInvoiceType: 'xrechnung', leitwegId: LEITWEG_ID });
    expect(await ok(patch(t, `/customers/${c.id}`, { eInvoiceType: 'ubl' }))).toMatchObject({ eInvoiceType: 'ubl', leitwegId: LEITWEG_ID });
    expect(await ok(put(t, `/customers/${c.id}`, { leitwegId: '991-33333test-33' }))).toMatchObject({ eInvoiceType: 'ubl', leitwegId: '991-33333test-33' });
    // The empty string is "none", as for other optional fields.
    expect(await ok(patch(t, `/customers/${c.id}`, { eInvoiceType: '', leitwegId: null }))).toMatchObject({ eInvoiceType: null, leitwegId: null });
    expect((await createCustomer(t)).eInvoiceType).toBeNull();
  });

  it.each([
    { name: 'a Leitweg-ID without an eInvoiceType', body: { leitwegId: LEITWEG_ID }, expected: ['leitwegId: requires_e_invoice_type'] },
    { name: 'a Leitweg-ID with wrong check digits', body: { eInvoiceType: 'xrechnung', leitwegId: '04011000-12345-04' }, expected: ['leitwegId: invalid_leitweg_id'] },
    { name: 'a Leitweg-ID without check digits', body: { eInvoiceType: 'xrechnung', leitwegId: '04011000-12345' }, expected: ['leitwegId: invalid_leitweg_id'] },
    { name: 'a Leitweg-ID of bad characters', body: { eInvoiceType: 'xrechnung', leitwegId: '04011000-123_45-03' }, expected: ['leitwegId: invalid_leitweg_id'] },
    { name: 'an unknown eInvoiceType', body: { eInvoiceType: 'pdf' }, expected: ['eInvoiceType: invalid_value'] },
    { name: 'both wrong', body: { eInvoiceType: 'edifact', leitwegId: 'x' }, expected: ['eInvoiceType: invalid_value', 'leitwegId: too_small'] },
  ])('refuse $name on create and update', async ({ body, expected }) => {
    const t = await createTenant();
    const created = await api('/customers', { token: t.key, body: { email: 'a@example.com', countryCode: 'DE', ...body } });
    expect(violations(created).sort()).toEqual(expected);
    const c = await createCustomer(t);
    const res = await refusedUnchanged(t, `/customers/${c.id}`, () => patch(t, `/customers/${c.id}`, body));
    expect(violations(res).sort()).toEqual(expected);
  });

  it('refuse dropping the eInvoiceType while the Leitweg-ID stays', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { eInvoiceType: 'xrechnung', leitwegId: LEITWEG_ID });
    expect422(await refusedUnchanged(t, `/customers/${c.id}`, () => patch(t, `/customers/${c.id}`, { eInvoiceType: null })), ['leitwegId']);
  });
});

describe('the e-invoice type of a document', () => {
  it("is the customer's at finalization, whatever the customer says later", async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { eInvoiceType: 'xrechnung', leitwegId: LEITWEG_ID });
    const first = await finalizedInvoice(t, c.id);
    expect(first).toMatchObject({ eInvoiceType: 'xrechnung', leitwegId: LEITWEG_ID });

    await ok(patch(t, `/customers/${c.id}`, { eInvoiceType: 'ubl', leitwegId: '992-90009-96' }));
    expect(await ok(get(t, `/invoices/${first.id}`))).toMatchObject({ eInvoiceType: 'xrechnung', leitwegId: LEITWEG_ID });
    // The Leitweg-ID goes with XRechnung only.
    expect(await finalizedInvoice(t, c.id)).toMatchObject({ eInvoiceType: 'ubl', leitwegId: null });
  });

  it("is the tenant's default for customers without one, fixed at finalization too", async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    expect((await finalizedInvoice(t, c.id)).eInvoiceType).toBe('zugferd');
    await ok(put(t, '/settings/documents', { defaultEInvoiceType: 'cii' }));
    const cii = await finalizedInvoice(t, c.id);
    expect(cii.eInvoiceType).toBe('cii');
    await ok(put(t, '/settings/documents', { defaultEInvoiceType: null }));
    expect((await finalizedInvoice(t, c.id)).eInvoiceType).toBeNull();
    expect((await ok(get(t, `/invoices/${cii.id}`))).eInvoiceType).toBe('cii');
    // A draft has none yet: it is decided when it is finalized.
    const d = await api('/invoices', { token: t.key, body: { customer: c.id, positions: [{ name: 'x', unitPrice: '1', taxRate: '19' }] } });
    expect(d.body).toMatchObject({ eInvoiceType: null, leitwegId: null });
  });
});
