import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, countRows, download, get } from '../support/api';
import { created, createCustomer, createTenant, ok } from '../support/builders';
import { pdfText } from '../support/oracles';
import { catalogue, item, offer, subscribe } from '../billing/scenario';
import { draftInvoice, finalizedInvoice, line } from './builders';

// PDFs of what is not a document yet: a draft (GET /invoices/{id}/preview) and the next invoice of
// a subscription (GET /subscriptions/{id}/estimated-invoice), on Accept: application/pdf; JSON
// otherwise. Marked as previews, without a number, never stored.

const asPdf = { Accept: 'application/pdf' };
const flat = (text: string) => text.replace(/\s+/g, ' ');

describe('invoice previews', () => {
  it('answer a PDF marked as a preview, without a number, on Accept: application/pdf', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { language: 'de' });
    const d = await draftInvoice(t, c.id, [line('100.00', 'Beratung')]);
    const events = await countRows('events', t);

    const res = await download(`/invoices/${d.id}/preview`, { token: t.key, headers: asPdf });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/pdf');
    expect(res.headers.get('Content-Disposition')).toBe(`inline; filename="preview.pdf"; filename*=UTF-8''preview.pdf`);
    expect(res.headers.get('Cache-Control')).toBe('private, no-store');
    const text = flat(await pdfText(res.bytes));
    expect(text).toContain('VORSCHAU');
    expect(text).toContain('Rechnungsentwurf');
    expect(text).toContain('Beratung');
    expect(text).toContain('119,00');
    expect(text).not.toMatch(/RE-\d+/);

    // Nothing is stored or announced for a preview.
    expect((await env.DOCUMENTS.list({ prefix: `${t.id}/` })).objects).toEqual([]);
    expect(await countRows('media', t)).toBe(0);
    expect(await countRows('events', t)).toBe(events);
  });

  it.each([
    { accept: undefined, pdf: false },
    { accept: 'application/json', pdf: false },
    { accept: '*/*', pdf: false },
    { accept: 'text/html, application/pdf;q=0.9', pdf: true },
    { accept: 'application/pdf;q=0', pdf: false },
    { accept: 'application/json, application/pdf;q=0.5', pdf: false },
    { accept: 'application/pdf, */*;q=0.8', pdf: true },
    { accept: 'Application/PDF', pdf: true },
  ])('answer JSON or PDF for Accept: $accept', async ({ accept, pdf }) => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const d = await draftInvoice(t, c.id);
    const res = await api(`/invoices/${d.id}/preview`, { token: t.key, ...(accept ? { headers: { Accept: accept } } : {}) });
    expect(res.status).toBe(200);
    if (pdf) expect(res.headers.get('Content-Type')).toBe('application/pdf');
    else expect(res.body).toMatchObject({ id: d.id, status: 'STATUS_DRAFT', number: null, grossAmount: { amount: '119.00', currencyCode: 'EUR' } });
  });

  it('show a finalized document as a preview too: without its number, in English for an English customer', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { language: 'en' });
    const inv = await finalizedInvoice(t, c.id, [line('50.00', 'Workshop')]);
    const text = flat(await pdfText((await download(`/invoices/${inv.id}/preview`, { token: t.key, headers: asPdf })).bytes));
    expect(text).toContain('PREVIEW');
    expect(text).toContain('Workshop');
    expect(text).not.toContain(inv.number);
  });

  it("are 404 for another tenant's invoice and need invoice:read", async () => {
    const t = await createTenant();
    const d = await draftInvoice(t, (await createCustomer(t)).id);
    const other = await createTenant();
    expect((await download(`/invoices/${d.id}/preview`, { token: other.key, headers: asPdf })).status).toBe(404);
    expect((await download(`/invoices/${d.id}/preview`, { headers: asPdf })).status).toBe(401);
  });
});

describe('estimated invoices', () => {
  it('answer the next invoice of a subscription as a preview PDF, and as JSON otherwise', async () => {
    const t = await createTenant();
    const cat = await catalogue(t);
    const c = await createCustomer(t, { language: 'en' });
    const sub = await subscribe(t, c.id, [item(await offer(t, cat, 'Pro plan', '49.00'), '2')]);

    const json = await ok(get(t, `/subscriptions/${sub.id}/estimated-invoice`));
    expect(json).toMatchObject({ number: null, netAmount: { amount: '98.00' }, grossAmount: { amount: '116.62' } });

    const res = await download(`/subscriptions/${sub.id}/estimated-invoice`, { token: t.key, headers: asPdf });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/pdf');
    expect(res.headers.get('Content-Disposition')).toMatch(/^inline; filename="estimated-invoice\.pdf"/);
    const text = flat(await pdfText(res.bytes));
    expect(text).toContain('PREVIEW');
    expect(text).toContain('Pro plan');
    expect(text).toContain('116.62');
    expect(await countRows('invoices', t)).toBe(0);
    expect((await env.DOCUMENTS.list({ prefix: `${t.id}/` })).objects).toEqual([]);
  });

  it('are 404 as PDF and as JSON for a subscription that will not be billed', async () => {
    const t = await createTenant();
    const cat = await catalogue(t);
    const c = await createCustomer(t);
    const draft = await created(api('/subscriptions', { token: t.key, body: { customer: c.id, items: [item(await offer(t, cat, 'Basic', '9.00'))] } }));
    expect((await download(`/subscriptions/${draft.id}/estimated-invoice`, { token: t.key, headers: asPdf })).status).toBe(404);
    expect((await get(t, `/subscriptions/${draft.id}/estimated-invoice`)).status).toBe(404);
  });
});
