import { env } from 'cloudflare:workers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, eventsOf, get, put, query, type TestTenant, dbOf } from '../support/api';
import { created, createCustomer, createTenant, ok, tick } from '../support/builders';
import { item, local, offer, subscribe, tenantAt } from '../billing/scenario';
import { pdfAttachments, pdfText } from '../support/oracles';
import type { DocumentJob, Env } from '../../src/env';
import { invoicesOf, MAX_RENDER_ATTEMPTS, sweepUnrendered } from '../../src/services/documents/jobs';
import { shardSweeps } from '../../src/db/directory';
import { storeFile } from '../../src/services/documents/media';
import {
  contextOf,
  downloadLinks,
  fetchLink,
  finalizedInvoice,
  invoiceSetup,
  line,
  png,
  renderedInvoice,
  renderNow,
  renderSettled,
  renderState,
  LETTERHEAD,
  SETTINGS,
  sha256Hex,
  storedObjects,
  uploadLogo,
} from './builders';

// Rendering a finalized document into its files: the queue job after finalization, on demand, at
// once from several sides, after a failure. What is stored is stored once and never replaced, and
// the invoice shows it as its `file` and `xmlFile`. Every test works in a fresh tenant of its own.

const LEITWEG_ID = '04011000-12345-03';

/** The jobs the sweeper of every shard would send, caught instead of queued. */
async function sweptJobs(): Promise<DocumentJob[]> {
  const sent: DocumentJob[] = [];
  // One entry per document, whether a message names one or a tenant's batch.
  const jobs = {
    sendBatch: async (messages: { body: DocumentJob }[]) =>
      void sent.push(...messages.flatMap((m) => (invoicesOf(m.body).length ? invoicesOf(m.body).map((invoiceId) => ({ tenantId: m.body.tenantId, invoiceId })) : [m.body]))),
  };
  for (const sweep of await shardSweeps(env)) await sweepUnrendered({ ...env, DOCUMENT_JOBS: jobs } as unknown as Env, sweep, 100_000);
  return sent;
}

describe('rendering after finalization', () => {
  it('the queue job stores the PDF and the XML in R2 and shows them on the invoice, its updatedAt unmoved', async () => {
    const { t, invoice } = await invoiceSetup();
    expect(invoice).toMatchObject({ file: null, xmlFile: null, eInvoiceType: 'zugferd' });
    const inv = await renderedInvoice(t, invoice.id);
    const base = `${t.id}/invoices/${inv.id}/${inv.number}`;
    expect(inv.file).toEqual({
      id: expect.any(String),
      isPrivate: true,
      mimeType: 'application/pdf',
      fileExtension: 'pdf',
      fileName: `${inv.number}.pdf`,
      storageFileName: `${base}.pdf`,
      createdAt: expect.any(String),
    });
    expect(inv.xmlFile).toEqual({ ...inv.file, id: expect.any(String), mimeType: 'application/xml', fileExtension: 'xml', fileName: `${inv.number}.xml`, storageFileName: `${base}.xml` });
    // Files belong to the document, not to a change of it.
    expect(inv.updatedAt).toBe(invoice.updatedAt);

    // R2 holds exactly these two, and the records describe what is stored.
    expect((await storedObjects(t, inv.id)).map((o) => o.key).sort()).toEqual([`${base}.pdf`, `${base}.xml`]);
    for (const m of [inv.file, inv.xmlFile]) {
      const bytes = new Uint8Array(await (await env.DOCUMENTS.get(m.storageFileName))!.arrayBuffer());
      const [row] = await query<{ sha256: string; byte_size: number }>(t, 'SELECT sha256, byte_size FROM media WHERE id = ?', m.id);
      expect(row).toEqual({ sha256: await sha256Hex(bytes), byte_size: bytes.length });
    }
    // ZUGFeRD: the PDF carries the same XML.
    const pdf = new Uint8Array(await (await env.DOCUMENTS.get(inv.file.storageFileName))!.arrayBuffer());
    const xml = await (await env.DOCUMENTS.get(inv.xmlFile.storageFileName))!.text();
    expect((await pdfAttachments(pdf))['factur-x.xml']).toBe(xml);
    expect(await pdfText(pdf)).toContain(inv.number);

    const events = await eventsOf(t, inv.id);
    expect(events.map((e) => e.type)).toEqual(['invoice.created', 'invoice.finalized', 'invoice.unpaid', 'invoice.pdf.generation_requested', 'invoice.updated']);
    const updated = events.at(-1)!.data;
    expect(updated).toMatchObject({ id: inv.id, number: inv.number, file: inv.file, xmlFile: inv.xmlFile, updatedAt: invoice.updatedAt });
    // The render job finds nothing left to do the second time.
    expect(await renderNow(t, inv.id)).toBe('rendered');
    expect((await eventsOf(t, inv.id)).length).toBe(events.length);
  });

  it.each([
    { type: 'zugferd', suffix: '', root: 'rsm:CrossIndustryInvoice', embedded: true },
    { type: 'xrechnung', suffix: '-xrechnung', root: 'rsm:CrossIndustryInvoice', embedded: false },
    { type: 'cii', suffix: '', root: 'rsm:CrossIndustryInvoice', embedded: false },
    { type: 'ubl', suffix: '-ubl', root: 'Invoice', embedded: false },
  ])("renders the customer's eInvoiceType $type", async ({ type, suffix, root, embedded }) => {
    const { t, invoice } = await invoiceSetup({ eInvoiceType: type, ...(type === 'xrechnung' ? { leitwegId: LEITWEG_ID } : {}) });
    expect(await renderNow(t, invoice.id)).toBe('rendered');
    const inv = await ok(get(t, `/invoices/${invoice.id}`));
    expect(inv).toMatchObject({ eInvoiceType: type, leitwegId: type === 'xrechnung' ? LEITWEG_ID : null, xmlFile: { fileName: `${inv.number}${suffix}.xml` } });
    const links = await downloadLinks(t, inv.id);
    const xml = new TextDecoder().decode((await fetchLink(links.xmlUrl!)).bytes);
    expect(xml).toMatch(new RegExp(`<${root}[\\s>]`));
    if (type === 'xrechnung') expect(xml).toContain(`<ram:BuyerReference>${LEITWEG_ID}</ram:BuyerReference>`);
    const attachments = await pdfAttachments((await fetchLink(links.url)).bytes);
    expect(Object.keys(attachments)).toEqual(embedded ? ['factur-x.xml'] : []);
  });

  it('renders a PDF only when neither the customer nor the tenant asks for an e-invoice', async () => {
    const t = await createTenant();
    await ok(put(t, '/settings/documents', { defaultEInvoiceType: null }));
    const c = await createCustomer(t);
    const invoice = await finalizedInvoice(t, c.id);
    expect(invoice.eInvoiceType).toBeNull();
    await renderNow(t, invoice.id);
    const inv = await ok(get(t, `/invoices/${invoice.id}`));
    expect(inv.file.mimeType).toBe('application/pdf');
    expect(inv.xmlFile).toBeNull();
    expect((await downloadLinks(t, inv.id)).xmlUrl).toBeNull();
    expect((await storedObjects(t, inv.id)).map((o) => o.key)).toEqual([inv.file.storageFileName]);
  });

  it('renders what a billing run finalized: its documents are sent to the queue once the chunk is billed', async () => {
    const { t, c: cat } = await tenantAt(local('2026-03-01'));
    await ok(put(t, '/settings/documents', LETTERHEAD));
    const pro = await offer(t, cat, 'Pro', '49.00');
    const customers = await Promise.all([1, 2, 3].map(() => createCustomer(t, { street: 'Kastanienallee', houseNumber: '7', zip: '10435', city: 'Berlin' })));
    for (const customer of customers) await subscribe(t, customer.id, [item(pro)]);
    await tick(t, local('2026-04-01'));
    const billed = (await ok(get(t, '/invoices?limit=100'))).data;
    expect(billed.length).toBeGreaterThanOrEqual(3);
    for (const inv of billed) {
      const rendered = await renderedInvoice(t, inv.id);
      expect(rendered.file.fileName).toBe(`${inv.number}.pdf`);
      expect(rendered.xmlFile.fileName).toBe(`${inv.number}.xml`);
    }
  });

  it('writes no e-invoice the validators would reject: a tenant without a letterhead gets a PDF and the reason', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const invoice = await finalizedInvoice(t, c.id);
    expect(invoice.eInvoiceType).toBe('zugferd');
    await renderNow(t, invoice.id);
    const inv = await ok(get(t, `/invoices/${invoice.id}`));
    expect(inv.file.mimeType).toBe('application/pdf');
    expect(inv.xmlFile).toBeNull();
    const pdf = await fetchLink((await downloadLinks(t, inv.id)).url);
    expect(await pdfAttachments(pdf.bytes)).toEqual({});
    expect((await renderState(t, invoice.id))[0]).toMatchObject({ render_error: "No e-invoice, missing: seller's VAT id or tax number" });
    // Once the letterhead is complete, later documents are e-invoices; this one stays as it was.
    await ok(put(t, '/settings/documents', SETTINGS));
    const later = await finalizedInvoice(t, c.id);
    await renderNow(t, later.id);
    expect((await ok(get(t, `/invoices/${later.id}`))).xmlFile.mimeType).toBe('application/xml');
    expect((await ok(get(t, `/invoices/${invoice.id}`))).xmlFile).toBeNull();
  });

  it('renders credit notes and cancellations with their own numbers, each requested once', async () => {
    const { t, invoice } = await invoiceSetup();
    const credit = await created(api(`/invoices/${invoice.id}/credit`, { token: t.key, body: { positions: [line('10.00')] } }));
    const cancel = await finalizedInvoice(t, (await createCustomer(t)).id);
    const cancelled = await ok(api(`/invoices/${cancel.id}/cancel`, { token: t.key, method: 'POST' }));
    for (const id of [credit.id, cancelled.cancellationDocument.id]) {
      await renderNow(t, id);
      const doc = await ok(get(t, `/invoices/${id}`));
      expect(doc.file.fileName).toBe(`${doc.number}.pdf`);
      expect(await pdfText((await fetchLink((await downloadLinks(t, id)).url)).bytes)).toContain(doc.number);
      expect((await eventsOf(t, id)).filter((e) => e.type === 'invoice.pdf.generation_requested')).toHaveLength(1);
    }
  });

  it('renders a document whatever text its positions carry', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { companyName: 'Łódź Ünïcødé 株式会社 😀', language: 'en' });
    const names = ['😀🎉 emoji', 'עברית ‮reversed‬', `${'W'.repeat(255)}`, 'zero\u200bwidth\u00adsoft', '<script>alert(1)</script> & "quotes" \'', 'Ελληνικά Кириллица'];
    const invoice = await finalizedInvoice(t, c.id, names.map((n) => line('1.00', n)));
    expect(await renderNow(t, invoice.id)).toBe('rendered');
    const text = await pdfText((await fetchLink((await downloadLinks(t, invoice.id)).url)).bytes);
    expect(text).toContain('Ελληνικά Кириллица');
    expect(text).toContain('Łódź');
  });
});

describe('rendering once', () => {
  it('stores one set of files when the job and two downloads render at once', async () => {
    const { t, invoice } = await invoiceSetup();
    const [a, b, job] = await Promise.all([downloadLinks(t, invoice.id), downloadLinks(t, invoice.id), renderNow(t, invoice.id)]);
    expect(job).toBe('rendered');
    const inv = await ok(get(t, `/invoices/${invoice.id}`));
    for (const links of [a, b]) {
      expect(new URL(links.url).pathname).toBe(`/public/documents/${inv.file.id}`);
      expect(new URL(links.xmlUrl!).pathname).toBe(`/public/documents/${inv.xmlFile.id}`);
    }
    expect(await query(t, 'SELECT purpose FROM media WHERE owner_id = ? ORDER BY purpose', inv.id)).toEqual([{ purpose: 'pdf' }, { purpose: 'xml' }]);
    expect(await storedObjects(t, inv.id)).toHaveLength(2);
    const updates = (await eventsOf(t, inv.id)).filter((e) => e.type === 'invoice.updated');
    expect(updates.map((e) => e.data.file?.id)).toEqual([inv.file.id]);
    // Same bytes through either link.
    expect((await fetchLink(a.url)).bytes).toEqual((await fetchLink(b.url)).bytes);
    // The background job, when it comes, finds the files stored.
    await renderedInvoice(t, inv.id);
    expect((await eventsOf(t, inv.id)).filter((e) => e.type === 'invoice.updated')).toHaveLength(1);
  });

  it('never replaces a stored file: a render that finds one records it as it is', async () => {
    const { t, invoice } = await invoiceSetup();
    await ok(put(t, '/settings/documents', { seller: { name: 'First Name GmbH' } }));
    await renderNow(t, invoice.id);
    const first = await ok(get(t, `/invoices/${invoice.id}`));
    const objects = await storedObjects(t, invoice.id);
    const pdf = (await fetchLink((await downloadLinks(t, invoice.id)).url)).bytes;
    expect(await pdfText(pdf)).toContain('First Name GmbH');

    // A render that stored its files but never recorded them (the D1 write failed after the R2
    // write), and settings that changed since: the next render records what is stored.
    await (await dbOf(t)).batch([
      (await dbOf(t)).prepare('UPDATE invoices SET file_id = NULL, xml_file_id = NULL WHERE id = ?').bind(invoice.id),
      (await dbOf(t)).prepare('DELETE FROM media WHERE owner_id = ?').bind(invoice.id),
    ]);
    await ok(put(t, '/settings/documents', { seller: { name: 'Second Name GmbH' } }));
    expect(await renderNow(t, invoice.id)).toBe('rendered');
    const again = await ok(get(t, `/invoices/${invoice.id}`));
    expect(again.file.id).not.toBe(first.file.id);
    expect(await storedObjects(t, invoice.id)).toEqual(objects);
    const served = (await fetchLink((await downloadLinks(t, invoice.id)).url)).bytes;
    expect(served).toEqual(pdf);
    const [row] = await query<{ sha256: string }>(t, 'SELECT sha256 FROM media WHERE id = ?', again.file.id);
    expect(row!.sha256).toBe(await sha256Hex(pdf));
  });

  it('keeps the first of two files written under one key at the same moment, and both records say so', async () => {
    const t = await createTenant();
    const ctx = await contextOf(t);
    const key = `${t.id}/invoices/race/RE-1.pdf`;
    const file = (text: string) => ({ ownerType: 'invoice' as const, ownerId: 'race', purpose: 'pdf' as const, key, bytes: new TextEncoder().encode(text), mimeType: 'application/pdf', fileExtension: 'pdf', fileName: 'RE-1.pdf' });
    const [a, b] = await Promise.all([storeFile(ctx, file('first render')), storeFile(ctx, file('second render, other bytes'))]);
    const stored = new Uint8Array(await (await env.DOCUMENTS.get(key))!.arrayBuffer());
    expect(a.sha256).toBe(await sha256Hex(stored));
    expect(b.sha256).toBe(a.sha256);
    expect(b.byteSize).toBe(stored.length);
  });
});

describe('failed renders', () => {
  // The failures here are meant: their error log lines would only hide real ones.
  beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}));
  afterEach(() => vi.restoreAllMocks());

  /** A logo whose stored object no longer decodes: every render of the tenant fails on it. */
  async function corruptLogo(t: TestTenant) {
    const s = await uploadLogo(t, await png(16, 16));
    await env.DOCUMENTS.put(s.logo.storageFileName, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]));
  }

  it('record their attempts and error; the sweeper sends them again below the limit only', async () => {
    const t = await createTenant();
    await ok(put(t, '/settings/documents', LETTERHEAD));
    await corruptLogo(t);
    const c = await createCustomer(t);
    const invoice = await finalizedInvoice(t, c.id);
    // The queue job ran and failed.
    const failed = await renderSettled(t, invoice.id);
    expect(failed).toMatchObject({ file_id: null, render_attempts: 1, render_error: expect.any(String) });
    expect(failed.updated_at).toBe(invoice.updatedAt);
    expect((await ok(get(t, `/invoices/${invoice.id}`))).file).toBeNull();
    expect(await renderNow(t, invoice.id)).toBe('failed');
    expect((await renderState(t, invoice.id))[0]!.render_attempts).toBe(2);
    // A download that renders on demand fails as a temporary problem, and counts as an attempt.
    const link = await api(`/invoices/${invoice.id}/download-link`, { token: t.key, method: 'PUT' });
    expect(link.status).toBe(503);
    expect(link.body.type).toContain('document-unavailable');
    expect(link.headers.get('Retry-After')).toBe('900');
    expect((await renderState(t, invoice.id))[0]!.render_attempts).toBe(3);

    const job = { tenantId: t.id, invoiceId: invoice.id };
    expect(await sweptJobs()).toContainEqual(job);
    await query(t, 'UPDATE invoices SET render_attempts = ? WHERE id = ?', MAX_RENDER_ATTEMPTS - 1, invoice.id);
    expect(await sweptJobs()).toContainEqual(job);
    await query(t, 'UPDATE invoices SET render_attempts = ? WHERE id = ?', MAX_RENDER_ATTEMPTS, invoice.id);
    expect(await sweptJobs()).not.toContainEqual(job);

    // Once the cause is gone, a render succeeds and clears the error; the sweeper leaves it be.
    await ok(api('/settings/documents/logo', { token: t.key, method: 'DELETE' }));
    expect(await renderNow(t, invoice.id)).toBe('rendered');
    expect((await renderState(t, invoice.id))[0]).toMatchObject({ file_id: expect.any(String), render_error: null });
    expect(await sweptJobs()).not.toContainEqual(job);
    expect((await eventsOf(t, invoice.id)).filter((e) => e.type === 'invoice.pdf.generation_requested')).toHaveLength(1);
  });

  it('leave drafts and rendered documents to themselves', async () => {
    const { t, invoice } = await invoiceSetup();
    const d = await api('/invoices', { token: t.key, body: { customer: invoice.customer.id, positions: [line('1.00')] } });
    await renderNow(t, invoice.id);
    const swept = await sweptJobs();
    expect(swept).not.toContainEqual({ tenantId: t.id, invoiceId: invoice.id });
    expect(swept).not.toContainEqual({ tenantId: t.id, invoiceId: d.body.id });
    expect(await renderNow(t, d.body.id)).toBe('failed');
  });
});
