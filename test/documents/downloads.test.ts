import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, download, expectProblem, patch, violations } from '../support/api';
import { createCustomer, createTenant, keyWith, ok } from '../support/builders';
import { pdfText } from '../support/oracles';
import { signDocument } from '../../src/services/documents/links';
import { customerSession, downloadLinks, draftInvoice, fetchLink, finalizedInvoice, invoiceSetup } from './builders';

// Signed, expiring links to a document's files and what they serve: the PDF and the XML with
// their types and names; 403 for any link not made by us or no longer valid; the links only for
// whoever may read the invoice. Every test works in a fresh tenant of its own.

const linkPath = (url: string) => {
  const u = new URL(url);
  return { id: u.pathname.split('/').pop()!, tenant: u.searchParams.get('tenant')!, expires: u.searchParams.get('expires')!, signature: u.searchParams.get('signature')! };
};
const now = () => Math.floor(Date.now() / 1000);

// The refusals below only read: they share one document (made on first use) to stay quick.
let sharedSetup: ReturnType<typeof invoiceSetup> | undefined;
const shared = () => (sharedSetup ??= invoiceSetup());

describe('download links', () => {
  it('serve the PDF and the XML with their types, names and no caching', async () => {
    const { t, invoice } = await invoiceSetup();
    const before = Date.now();
    const links = await downloadLinks(t, invoice.id, 120);
    expect(Date.parse(links.expiresAt)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 120_000);
    expect(Date.parse(links.expiresAt)).toBeLessThanOrEqual(Date.now() + 120_000);
    const inv = await ok(api(`/invoices/${invoice.id}`, { token: t.key }));

    const pdf = await fetchLink(links.url);
    expect(pdf.status).toBe(200);
    expect(Object.fromEntries(['content-type', 'content-disposition', 'cache-control', 'content-length', 'x-content-type-options'].map((h) => [h, pdf.headers.get(h)]))).toEqual({
      'content-type': 'application/pdf',
      'content-disposition': `attachment; filename="${inv.number}.pdf"; filename*=UTF-8''${inv.number}.pdf`,
      'cache-control': 'private, no-store',
      'content-length': String(pdf.bytes.length),
      'x-content-type-options': 'nosniff',
    });
    expect(new TextDecoder().decode(pdf.bytes.subarray(0, 5))).toBe('%PDF-');
    expect(await pdfText(pdf.bytes)).toContain(inv.number);

    const xml = await fetchLink(links.xmlUrl!);
    expect(xml.status).toBe(200);
    expect(xml.headers.get('Content-Type')).toBe('application/xml');
    expect(xml.headers.get('Content-Disposition')).toBe(`attachment; filename="${inv.number}.xml"; filename*=UTF-8''${inv.number}.xml`);
    expect(new TextDecoder().decode(xml.bytes)).toContain(`<ram:ID>${inv.number}</ram:ID>`);
    expect(linkPath(links.url).id).toBe(inv.file.id);
    expect(linkPath(links.xmlUrl!).id).toBe(inv.xmlFile.id);
  });

  it('name the file safely whatever the document number holds', async () => {
    const t = await createTenant();
    expect((await patch(t, '/settings', { settings: [{ key: 'invoice.numberFormat', value: 'RE/{customerNumber}/{number}' }] })).status).toBe(200);
    const c = await createCustomer(t, { customerNumber: 'Łódź "Süd"\\x' });
    const inv = await finalizedInvoice(t, c.id);
    expect(inv.number).toBe('RE/Łódź "Süd"\\x/1');
    const pdf = await fetchLink((await downloadLinks(t, inv.id)).url);
    expect(pdf.status).toBe(200);
    // An ASCII name for old clients, the exact one (RFC 5987) for the others; no path separators.
    expect(pdf.headers.get('Content-Disposition')).toBe(`attachment; filename="RE___d___S_d__x_1.pdf"; filename*=UTF-8''RE_%C5%81%C3%B3d%C5%BA%20%22S%C3%BCd%22_x_1.pdf`);
    expect(await pdfText(pdf.bytes)).toContain('Łódź "Süd"');
    expect((await ok(api(`/invoices/${inv.id}`, { token: t.key }))).file.fileName).toBe('RE_Łódź "Süd"_x_1.pdf');
    const preview = await download(`/invoices/${inv.id}/preview`, { token: t.key, headers: { Accept: 'application/pdf' } });
    expect(preview.status).toBe(200);
    expect(preview.headers.get('Content-Disposition')).toMatch(/^inline; filename="RE___d___S_d__x_1\.pdf"; filename\*=UTF-8''/);
  });

  it.each([
    { name: 'no signature', change: (l: ReturnType<typeof linkPath>) => `/public/documents/${l.id}?tenant=${l.tenant}&expires=${l.expires}` },
    { name: 'no expiry', change: (l: ReturnType<typeof linkPath>) => `/public/documents/${l.id}?tenant=${l.tenant}&signature=${l.signature}` },
    { name: 'nothing', change: (l: ReturnType<typeof linkPath>) => `/public/documents/${l.id}` },
    { name: 'a changed signature', change: (l: ReturnType<typeof linkPath>) => `/public/documents/${l.id}?tenant=${l.tenant}&expires=${l.expires}&signature=${flip(l.signature)}` },
    { name: 'a later expiry', change: (l: ReturnType<typeof linkPath>) => `/public/documents/${l.id}?tenant=${l.tenant}&expires=${Number(l.expires) + 3600}&signature=${l.signature}` },
    { name: 'an expiry that is not a number', change: (l: ReturnType<typeof linkPath>) => `/public/documents/${l.id}?tenant=${l.tenant}&expires=soon&signature=${l.signature}` },
    { name: 'the signature in upper case', change: (l: ReturnType<typeof linkPath>) => `/public/documents/${l.id}?tenant=${l.tenant}&expires=${l.expires}&signature=${l.signature.toUpperCase()}` },
    { name: 'an over-long signature', change: (l: ReturnType<typeof linkPath>) => `/public/documents/${l.id}?tenant=${l.tenant}&expires=${l.expires}&signature=${l.signature.repeat(4)}` },
    { name: 'an over-long expiry', change: (l: ReturnType<typeof linkPath>) => `/public/documents/${l.id}?tenant=${l.tenant}&expires=${'9'.repeat(40)}&signature=${l.signature}` },
    { name: 'another tenant named', change: (l: ReturnType<typeof linkPath>) => `/public/documents/${l.id}?tenant=${encodeURIComponent(crypto.randomUUID())}&expires=${l.expires}&signature=${l.signature}` },
    { name: 'no tenant named', change: (l: ReturnType<typeof linkPath>) => `/public/documents/${l.id}?expires=${l.expires}&signature=${l.signature}` },
    { name: "another file's id", change: (l: ReturnType<typeof linkPath>, xml: ReturnType<typeof linkPath>) => `/public/documents/${xml.id}?tenant=${l.tenant}&expires=${l.expires}&signature=${l.signature}` },
  ])('refuse a link with $name (403)', async ({ change }) => {
    const { t, invoice } = await shared();
    const links = await downloadLinks(t, invoice.id);
    const res = await download(change(linkPath(links.url), linkPath(links.xmlUrl!)));
    expect(res.status).toBe(403);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
    expect(new TextDecoder().decode(res.bytes)).not.toContain('%PDF');
  });

  it('refuse a link signed by us that has expired, and answer 404 for one to a file that is gone', async () => {
    const { t, invoice } = await invoiceSetup();
    const { id } = linkPath((await downloadLinks(t, invoice.id)).url);
    const past = now() - 1;
    expect((await download(`/public/documents/${id}?tenant=${t.id}&expires=${past}&signature=${await signDocument(env.JWT_SECRET, t.id, id, past)}`)).status).toBe(403);
    const future = now() + 60;
    expect((await download(`/public/documents/${id}?tenant=${t.id}&expires=${future}&signature=${await signDocument(env.JWT_SECRET, t.id, id, future)}`)).status).toBe(200);
    expect((await download(`/public/documents/no-such-file?tenant=${t.id}&expires=${future}&signature=${await signDocument(env.JWT_SECRET, t.id, 'no-such-file', future)}`)).status).toBe(404);
  });

  it('are 404 for another tenant, 409 for a draft', async () => {
    const { t, c, invoice } = await invoiceSetup();
    const other = await createTenant();
    expectProblem(await api(`/invoices/${invoice.id}/download-link`, { method: 'PUT', token: other.key }), 404);
    expectProblem(await api('/invoices/no-such-invoice/download-link', { method: 'PUT', token: t.key }), 404);
    const d = await draftInvoice(t, c.id);
    expectProblem(await api(`/invoices/${d.id}/download-link`, { method: 'PUT', token: t.key }), 409);
    // Nothing was rendered or stored for the draft.
    expect(await env.DOCUMENTS.list({ prefix: `${t.id}/invoices/${d.id}/` })).toMatchObject({ objects: [] });
  });

  // A query parameter out of bounds is 400 with its violation (docs/decisions.md: query problems are 400).
  it.each([
    ['9', 400],
    ['604801', 400],
    ['0', 400],
    ['-60', 400],
    ['1.5', 400],
    ['1e3', 400],
    ['sixty', 400],
    ['', 400],
    ['10', 200],
    ['604800', 200],
  ])('take secondsValid=%s → %i', async (secondsValid, status) => {
    const { t, invoice } = await shared();
    const res = await api(`/invoices/${invoice.id}/download-link?secondsValid=${secondsValid}`, { method: 'PUT', token: t.key });
    if (status === 400) {
      expectProblem(res, 400);
      expect(violations(res).map((v) => v.split(':')[0])).toEqual(['secondsValid']);
    } else expect(Date.parse(res.body.expiresAt) - Date.now()).toBeGreaterThan(Number(secondsValid) * 1000 - 5000);
  });

  it('default to one hour', async () => {
    const { t, invoice } = await invoiceSetup();
    const res = await ok(api(`/invoices/${invoice.id}/download-link`, { method: 'PUT', token: t.key }));
    expect(Math.round((Date.parse(res.expiresAt) - Date.now()) / 1000)).toBeGreaterThanOrEqual(3598);
    expect(Math.round((Date.parse(res.expiresAt) - Date.now()) / 1000)).toBeLessThanOrEqual(3600);
  });

  it("give a customer session links to its own finalized documents only", async () => {
    const { t, c, invoice } = await invoiceSetup();
    const other = await createCustomer(t);
    const theirs = await finalizedInvoice(t, other.id);
    const myDraft = await draftInvoice(t, c.id);
    const session = await customerSession(t, c.id);
    const mine = await downloadLinks(session, invoice.id);
    expect((await fetchLink(mine.url)).status).toBe(200);
    expectProblem(await api(`/invoices/${theirs.id}/download-link`, { method: 'PUT', token: session }), 404);
    // A draft is not the customer's to see, as on GET /invoices/{id}.
    expectProblem(await api(`/invoices/${myDraft.id}/download-link`, { method: 'PUT', token: session }), 404);
  });

  it('need invoice:read', async () => {
    const { t, invoice } = await invoiceSetup();
    expectProblem(await api(`/invoices/${invoice.id}/download-link`, { method: 'PUT', token: await keyWith(t, ['customer:read']) }), 403);
    expectProblem(await api(`/invoices/${invoice.id}/download-link`, { method: 'PUT' }), 401);
    await downloadLinks(await keyWith(t, ['invoice:read']), invoice.id);
  });
});

/** The signature with its first hex digit changed. */
function flip(signature: string): string {
  return (signature[0] === '0' ? '1' : '0') + signature.slice(1);
}
