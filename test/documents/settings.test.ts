import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, del, expect422, expectProblem, expectStatus, get, patch, put, query, violations, type TestTenant } from '../support/api';
import { createCustomer, createTenant, keyWith, ok, refusedUnchanged } from '../support/builders';
import { pdfImages, pdfText } from '../support/oracles';
import { base64, BIC, downloadLinks, fetchLink, finalizedInvoice, IBAN, JPEG, MASKED_IBAN, png, renderedInvoice, SETTINGS, uploadLogo } from './builders';

// Tenant document settings (/settings/documents) and the letterhead logo: what is accepted, what
// is refused (one violation per broken rule), what is answered (the IBAN masked, always), and
// what ends up on the documents. Every test works in a fresh tenant of its own.

const stored = async (t: TestTenant) => (await query<{ bank_account: string | null }>(t, 'SELECT bank_account FROM document_settings WHERE tenant_id = ?', t.id))[0];

/** Every place a reply, an event or a list could carry the IBAN: none may hold it in full. */
async function expectIbanNowhere(t: TestTenant, ...replies: unknown[]) {
  const full = /DE89\s?3704\s?0044\s?0532\s?0130\s?00/i;
  for (const r of replies) expect(JSON.stringify(r)).not.toMatch(full);
  const events = await query<{ data: string }>(t, 'SELECT data FROM events WHERE tenant_id = ? AND data IS NOT NULL UNION ALL SELECT data FROM event_documents WHERE tenant_id = ?', t.id, t.id);
  for (const e of events) expect(e.data).not.toMatch(full);
  expect(JSON.stringify((await get(t, '/settings')).body)).not.toMatch(full);
  expect(JSON.stringify((await get(t, '/settings/documents')).body)).not.toMatch(full);
}

describe('document settings', () => {
  it('start from the defaults: no letterhead, no bank account, no texts, ZUGFeRD', async () => {
    const t = await createTenant();
    const s = await ok(get(t, '/settings/documents'));
    expect(s).toMatchObject({ bankAccount: null, defaultEInvoiceType: 'zugferd', logo: null, updatedAt: null });
    expect(Object.values(s.seller).every((v) => v === null)).toBe(true);
    expect(s.texts).toEqual({
      de: { invoice: null, credit_note: null, cancellation: null, refund: null },
      en: { invoice: null, credit_note: null, cancellation: null, refund: null },
    });
  });

  it('say what the letterhead lacks for e-invoices, until it is complete', async () => {
    const t = await createTenant();
    expect((await ok(get(t, '/settings/documents'))).eInvoiceReadiness).toEqual({
      missing: ["seller's VAT id or tax number"],
      missingForXRechnung: ["seller's city", "seller's postcode", "seller's contact name", "seller's contact phone", "seller's contact e-mail"],
    });
    // A tax number is enough for EN 16931; XRechnung still wants a contact person and phone.
    const partial = await ok(put(t, '/settings/documents', { seller: { taxNumber: '143/123/45678', city: 'Berlin', zip: '10115', email: 'billing@example.com' } }));
    expect(partial.eInvoiceReadiness).toEqual({ missing: [], missingForXRechnung: ["seller's contact name", "seller's contact phone"] });
    const complete = await ok(patch(t, '/settings/documents', { seller: { contactName: 'Buchhaltung', phone: '+49 30 1234567' } }));
    expect(complete.eInvoiceReadiness).toEqual({ missing: [], missingForXRechnung: [] });
    // Read-only: a client cannot write it.
    expect((await put(t, '/settings/documents', { eInvoiceReadiness: { missing: [], missingForXRechnung: [] } })).status).toBe(422);
  });

  it('are replaced by PUT, for this tenant only, with the IBAN stored in full and answered masked', async () => {
    const t = await createTenant();
    const other = await createTenant();
    // Written as people write it: grouped and in lower case.
    const written = await ok(put(t, '/settings/documents', { ...SETTINGS, bankAccount: { ...SETTINGS.bankAccount, iban: 'de89 3704 0044 0532 0130 00', bic: 'cobadeffxxx' } }));
    expect(written).toMatchObject({
      seller: { ...SETTINGS.seller, tradingName: null, website: null },
      bankAccount: { iban: MASKED_IBAN, bic: BIC, accountName: 'Letterhead GmbH', bankName: 'Commerzbank' },
      texts: { de: { invoice: SETTINGS.texts.de.invoice, credit_note: null }, en: { invoice: null, credit_note: { title: 'Credit {number}', introduction: null, closing: null } } },
      defaultEInvoiceType: 'cii',
      updatedAt: expect.any(String),
    });
    expect(await ok(get(t, '/settings/documents'))).toEqual(written);
    // The document needs it in full (it is printed, and in the GiroCode), in its electronic format.
    expect(JSON.parse((await stored(t))!.bank_account!).iban).toBe(IBAN);
    expect((await ok(get(other, '/settings/documents'))).bankAccount).toBeNull();
    await expectIbanNowhere(t, written);
  });

  it('reset what PUT leaves out to its default', async () => {
    const t = await createTenant();
    await ok(put(t, '/settings/documents', SETTINGS));
    const s = await ok(put(t, '/settings/documents', { seller: { name: 'Only a name' } }));
    expect(s).toMatchObject({ seller: { name: 'Only a name', city: null }, bankAccount: null, defaultEInvoiceType: 'zugferd', texts: { de: { invoice: null } } });
    // null for the e-invoice type: PDF only.
    expect((await ok(put(t, '/settings/documents', { defaultEInvoiceType: null }))).defaultEInvoiceType).toBeNull();
  });

  it('merge a PATCH into what is stored, the IBAN kept in full though the client only saw it masked', async () => {
    const t = await createTenant();
    await ok(put(t, '/settings/documents', SETTINGS));
    const a = await ok(patch(t, '/settings/documents', { seller: { city: 'Hamburg', vatId: null }, texts: { de: { credit_note: { title: 'Gutschrift {number}' } } } }));
    expect(a.seller).toMatchObject({ name: 'Letterhead GmbH', street: 'Hauptstraße 1', city: 'Hamburg', vatId: null });
    expect(a.texts.de).toMatchObject({ invoice: SETTINGS.texts.de.invoice, credit_note: { title: 'Gutschrift {number}', introduction: null, closing: null } });
    expect(a.bankAccount).toEqual({ iban: MASKED_IBAN, bic: BIC, accountName: 'Letterhead GmbH', bankName: 'Commerzbank' });
    expect(a.defaultEInvoiceType).toBe('cii');
    expect(JSON.parse((await stored(t))!.bank_account!).iban).toBe(IBAN);

    const b = await ok(patch(t, '/settings/documents', { bankAccount: { bic: null }, texts: { de: { invoice: null } }, defaultEInvoiceType: 'ubl' }));
    expect(b.bankAccount).toEqual({ iban: MASKED_IBAN, bic: null, accountName: 'Letterhead GmbH', bankName: 'Commerzbank' });
    expect(b.texts.de.invoice).toBeNull();
    expect(b.texts.de.credit_note.title).toBe('Gutschrift {number}');
    expect(b.defaultEInvoiceType).toBe('ubl');

    // Sending back what GET shows is not an IBAN: refused, and the stored one stays.
    const masked = await refusedUnchanged(t, '/settings/documents', () => patch(t, '/settings/documents', { bankAccount: { iban: MASKED_IBAN } }));
    expect(violations(masked)).toEqual(['bankAccount.iban: invalid_iban']);
    expect(JSON.parse((await stored(t))!.bank_account!).iban).toBe(IBAN);

    expect((await ok(patch(t, '/settings/documents', { bankAccount: null }))).bankAccount).toBeNull();
    expect((await stored(t))!.bank_account).toBeNull();
    await expectIbanNowhere(t, a, b);
  });

  const long = (n: number) => 'x'.repeat(n);
  it.each([
    { name: 'an IBAN with a wrong check digit', body: { bankAccount: { iban: 'DE89370400440532013001' } }, paths: ['bankAccount.iban'] },
    { name: 'an IBAN of an unknown country', body: { bankAccount: { iban: 'XX89370400440532013000' } }, paths: ['bankAccount.iban'] },
    // (A PATCH of the BIC alone keeps the stored IBAN.)
    { name: 'no IBAN in a bank account', body: { bankAccount: { bic: BIC } }, paths: ['bankAccount.iban'], putOnly: true },
    { name: 'an IBAN that is not a string', body: { bankAccount: { iban: 12345 } }, paths: ['bankAccount.iban'] },
    { name: 'a malformed BIC', body: { bankAccount: { iban: IBAN, bic: 'COBA-DEFF' } }, paths: ['bankAccount.bic'] },
    { name: 'a BIC with a bad country', body: { bankAccount: { iban: IBAN, bic: 'COBA99FFXXX' } }, paths: ['bankAccount.bic'] },
    { name: 'a bad IBAN and a bad BIC', body: { bankAccount: { iban: 'DE00', bic: 'NOPE' } }, paths: ['bankAccount.bic', 'bankAccount.iban'] },
    { name: 'an over-long account holder', body: { bankAccount: { iban: IBAN, accountName: long(71) } }, paths: ['bankAccount.accountName'] },
    { name: 'an unknown eInvoiceType', body: { defaultEInvoiceType: 'pdf' }, paths: ['defaultEInvoiceType'] },
    { name: 'an over-long title', body: { texts: { de: { invoice: { title: long(256) } } } }, paths: ['texts.de.invoice.title'] },
    { name: 'an over-long introduction', body: { texts: { en: { refund: { introduction: long(2001) } } } }, paths: ['texts.en.refund.introduction'] },
    { name: 'an over-long closing', body: { texts: { de: { cancellation: { closing: long(2001) } } } }, paths: ['texts.de.cancellation.closing'] },
    { name: 'an unknown language', body: { texts: { fr: { invoice: { title: 'Facture' } } } }, paths: ['texts.fr'] },
    { name: 'an unknown document type', body: { texts: { de: { reminder: { title: 'Mahnung' } } } }, paths: ['texts.de.reminder'] },
    { name: 'an unknown text field', body: { texts: { de: { invoice: { footer: 'x' } } } }, paths: ['texts.de.invoice.footer'] },
    { name: 'a VAT id without its country', body: { seller: { vatId: '123456789' } }, paths: ['seller.vatId'] },
    { name: 'a website that is not http(s)', body: { seller: { website: 'javascript:alert(1)' } }, paths: ['seller.website'] },
    { name: 'a malformed e-mail address', body: { seller: { email: 'billing at example' } }, paths: ['seller.email'] },
    { name: 'an over-long seller name', body: { seller: { name: long(256) } }, paths: ['seller.name'] },
    { name: 'an unknown seller field', body: { seller: { iban: IBAN } }, paths: ['seller.iban'] },
    { name: 'an unknown top-level field', body: { logo: 'x' }, paths: ['logo'] },
  ] as { name: string; body: unknown; paths: string[]; putOnly?: boolean }[])('refuse $name with one violation each, by PUT and PATCH, changing nothing', async ({ body, paths, putOnly }) => {
    const t = await createTenant();
    await ok(put(t, '/settings/documents', SETTINGS));
    expect422(await refusedUnchanged(t, '/settings/documents', () => put(t, '/settings/documents', body)), paths);
    if (!putOnly) expect422(await refusedUnchanged(t, '/settings/documents', () => patch(t, '/settings/documents', body)), paths);
    expect(JSON.parse((await stored(t))!.bank_account!).iban).toBe(IBAN);
  });

  it('are read with settings:read and written with settings:write only', async () => {
    const t = await createTenant();
    const reader = await keyWith(t, ['settings:read']);
    expectStatus(await api('/settings/documents', { token: reader }), 200);
    expectProblem(await api('/settings/documents', { token: reader, method: 'PUT', body: SETTINGS }), 403);
    expectProblem(await api('/settings/documents/logo', { token: reader, method: 'DELETE' }), 403);
    expectProblem(await api('/settings/documents', { token: await keyWith(t, ['invoice:read']) }), 403);
    const c = await createCustomer(t);
    const session = (await api(`/customers/${c.id}/authenticate`, { method: 'POST', token: t.key })).body.data.accessToken;
    expectProblem(await api('/settings/documents', { token: session }), 403);
    expectProblem(await api('/settings/documents'), 401);
  });

  it('show on the documents rendered after them: letterhead, full IBAN and BIC, texts', async () => {
    const t = await createTenant();
    await ok(put(t, '/settings/documents', { ...SETTINGS, defaultEInvoiceType: null }));
    const c = await createCustomer(t, { language: 'de' });
    const inv = await finalizedInvoice(t, c.id);
    const text = (await pdfText((await fetchLink((await downloadLinks(t, inv.id)).url)).bytes)).replace(/\s+/g, ' ');
    expect(text).toContain('Letterhead GmbH');
    expect(text).toContain(`Rechnung ${inv.number}`);
    expect(text).toContain('Vielen Dank.');
    expect(text.replace(/ /g, '')).toContain(IBAN);
    expect(text).toContain(BIC);
  });
});

describe('the letterhead logo', () => {
  it('is uploaded as PNG, replaced by a JPEG and removed, one Media record at a time', async () => {
    const t = await createTenant();
    const logoPng = await png(40, 20);
    const a = await uploadLogo(t, logoPng);
    expect(a.logo).toEqual({
      id: expect.any(String),
      isPrivate: true,
      mimeType: 'image/png',
      fileExtension: 'png',
      fileName: 'logo.png',
      storageFileName: expect.stringMatching(new RegExp(`^${t.id}/logos/[0-9a-f]{64}\\.png$`)),
      createdAt: expect.any(String),
    });
    expect(new Uint8Array(await (await env.DOCUMENTS.get(a.logo.storageFileName))!.arrayBuffer())).toEqual(logoPng);
    expect((await ok(get(t, '/settings/documents'))).logo).toEqual(a.logo);

    const b = await uploadLogo(t, JPEG, 'image/jpeg');
    expect(b.logo).toMatchObject({ mimeType: 'image/jpeg', fileExtension: 'jpg', fileName: 'logo.jpg' });
    expect(b.logo.id).not.toBe(a.logo.id);
    const logos = () => query(t, "SELECT id FROM media WHERE tenant_id = ? AND purpose = 'logo'", t.id);
    expect(await logos()).toEqual([{ id: b.logo.id }]);
    // The replaced logo leaves R2 (documents carry their own copy); the new one is there.
    expect(await env.DOCUMENTS.head(a.logo.storageFileName)).toBeNull();
    expect(await env.DOCUMENTS.head(b.logo.storageFileName)).not.toBeNull();
    // Other tenants see none of it.
    expect((await ok(get(await createTenant(), '/settings/documents'))).logo).toBeNull();

    expect((await ok(del(t, '/settings/documents/logo'))).logo).toBeNull();
    expect(await logos()).toEqual([]);
    expect(await env.DOCUMENTS.head(b.logo.storageFileName)).toBeNull();
    expect((await ok(del(t, '/settings/documents/logo'))).logo).toBeNull();
  });

  const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  it.each([
    { name: 'a JPEG declared as PNG', body: async () => ({ mimeType: 'image/png', content: base64(JPEG) }), paths: ['content'] },
    { name: 'a PNG declared as JPEG', body: async () => ({ mimeType: 'image/jpeg', content: base64(await png(2, 2)) }), paths: ['content'] },
    { name: 'a GIF', body: async () => ({ mimeType: 'image/gif', content: btoa('GIF89a\x01\x00\x01\x00') }), paths: ['mimeType'] },
    { name: 'an SVG', body: async () => ({ mimeType: 'image/svg+xml', content: btoa('<svg xmlns="http://www.w3.org/2000/svg"/>') }), paths: ['mimeType'] },
    { name: 'text that is not base64', body: async () => ({ mimeType: 'image/png', content: 'not base64!' }), paths: ['content'] },
    { name: 'no content', body: async () => ({ mimeType: 'image/png' }), paths: ['content'] },
    // The signature alone does not make an image: every document would fail to embed it.
    { name: 'a PNG signature followed by garbage', body: async () => ({ mimeType: 'image/png', content: base64(new Uint8Array([...PNG_SIGNATURE, ...new Array<number>(64).fill(7)])) }), paths: ['content'] },
    { name: 'a JPEG signature followed by garbage', body: async () => ({ mimeType: 'image/jpeg', content: base64(new Uint8Array([0xff, 0xd8, 0xff, ...new Array<number>(64).fill(7)])) }), paths: ['content'] },
    { name: 'an image one byte over 512 KiB', body: async () => ({ mimeType: 'image/png', content: base64(padded(await png(4, 4), 512 * 1024 + 1)) }), paths: ['content'] },
    { name: 'a PNG of 4001 pixels a side', body: async () => ({ mimeType: 'image/png', content: base64(await png(4001, 1)) }), paths: ['content'] },
    // A few bytes that declare a 100,000 × 100,000 image: refused before anything decodes it.
    { name: 'a PNG declaring ten gigapixels', body: async () => ({ mimeType: 'image/png', content: base64(withSize(await png(1, 1), 100_000, 100_000)) }), paths: ['content'] },
    { name: 'an image far over 512 KiB', body: async () => ({ mimeType: 'image/png', content: base64(padded(await png(4, 4), 700 * 1024)) }), paths: ['content'] },
  ])('refuses $name and keeps the logo it had', async ({ body, paths }) => {
    const t = await createTenant();
    await uploadLogo(t, await png(8, 8));
    const res = await refusedUnchanged(t, [async () => (await get(t, '/settings/documents')).body, () => query(t, 'SELECT * FROM media WHERE tenant_id = ?', t.id)], async () =>
      put(t, '/settings/documents/logo', await body()),
    );
    expect422(res, paths);
  });

  it('accepts an image of exactly 512 KiB', async () => {
    const t = await createTenant();
    const s = await uploadLogo(t, padded(await png(4, 4), 512 * 1024));
    expect(s.logo.mimeType).toBe('image/png');
  });

  it('is printed on the documents rendered after it, not on those rendered before', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const before = await finalizedInvoice(t, c.id);
    await renderedInvoice(t, before.id);
    const pdfOf = async (id: string) => (await fetchLink((await downloadLinks(t, id)).url)).bytes;
    const plain = await pdfOf(before.id);
    expect(await pdfImages(plain)).toEqual([]);

    await uploadLogo(t, await png(120, 40));
    const withPng = await pdfOf((await finalizedInvoice(t, c.id)).id);
    expect(await pdfImages(withPng)).toEqual([expect.objectContaining({ page: 1, type: 'image', width: 120, height: 40, color: 'rgb' })]);
    expect(withPng.length).toBeGreaterThan(plain.length);

    await uploadLogo(t, JPEG, 'image/jpeg');
    const withJpeg = await pdfOf((await finalizedInvoice(t, c.id)).id);
    expect(await pdfImages(withJpeg)).toEqual([expect.objectContaining({ page: 1, width: 8, height: 8, color: 'gray', enc: 'jpeg' })]);

    // The document rendered before any logo stays as it was.
    expect(await pdfOf(before.id)).toEqual(plain);
  });
});

/** A PNG whose header declares another size (its CRC no longer matches either). */
function withSize(image: Uint8Array, width: number, height: number): Uint8Array {
  const out = image.slice();
  const view = new DataView(out.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  return out;
}

/** A PNG followed by zero bytes up to `size` (decoders ignore what follows IEND). */
function padded(image: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size);
  out.set(image);
  return out;
}
