import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, countRows, eventsOf, expectProblem, put, query, type TestTenant } from '../support/api';
import { createCustomer, createTenant, ok } from '../support/builders';
import { draftInvoice, finalizedInvoice, IBAN, invoiceSetup, SETTINGS } from './builders';

// Sending a document again (PUT or POST /invoices/{id}/resend): the mail it queues names the PDF
// and the XML as attachments (stored files, by key: never their bytes), rendering them first when
// the render job has not run yet.

const mails = (t: TestTenant) =>
  query<{ to: string; subject: string; body: string; attachments: string }>(t, 'SELECT "to", subject, body, attachments FROM outgoing_mails WHERE tenant_id = ? ORDER BY created_at, rowid', t.id);

describe('resend', () => {
  it('attaches the PDF and the XML it rendered for a document sent before its job ran', async () => {
    const t = await createTenant();
    await ok(put(t, '/settings/documents', SETTINGS));
    const c = await createCustomer(t, { invoiceEmail: 'ap@example.com' });
    const invoice = await finalizedInvoice(t, c.id);
    const sent = await ok(api(`/invoices/${invoice.id}/resend`, { token: t.key, method: 'POST' }));
    expect(sent.lastSentAt).toEqual(expect.any(String));
    // The answer and its event show the files the mail carries.
    expect(sent.file).toMatchObject({ mimeType: 'application/pdf', fileName: `${invoice.number}.pdf` });
    expect(sent.xmlFile).toMatchObject({ mimeType: 'application/xml', fileName: `${invoice.number}.xml` });
    const lastEvent = (await eventsOf(t, invoice.id)).at(-1)!;
    expect(lastEvent).toMatchObject({ type: 'invoice.updated', data: { lastSentAt: sent.lastSentAt, file: sent.file, xmlFile: sent.xmlFile } });

    const [mail] = await mails(t);
    expect(mail).toMatchObject({ to: 'ap@example.com', subject: invoice.number });
    const attachments = JSON.parse(mail!.attachments);
    expect(attachments).toEqual([
      { key: sent.file.storageFileName, fileName: `${invoice.number}.pdf`, mimeType: 'application/pdf' },
      { key: sent.xmlFile.storageFileName, fileName: `${invoice.number}.xml`, mimeType: 'application/xml' },
    ]);
    for (const a of attachments) expect(await env.DOCUMENTS.head(a.key)).not.toBeNull();
    // References only: no file content, no bank details, no secret in the queued mail.
    const raw = JSON.stringify(mail);
    expect(raw.length).toBeLessThan(2000);
    expect(raw).not.toContain('%PDF');
    expect(raw).not.toContain(IBAN);
    expect(raw).not.toContain(env.JWT_SECRET);
  });

  it('sends the same stored files each time, by PUT as Fynn does and by POST', async () => {
    const { t, c, invoice } = await invoiceSetup();
    await ok(api(`/invoices/${invoice.id}/resend`, { token: t.key, method: 'PUT' }));
    await ok(api(`/invoices/${invoice.id}/resend`, { token: t.key, method: 'POST' }));
    const [a, b] = await mails(t);
    expect(a!.to).toBe(c.email);
    expect(b!.attachments).toBe(a!.attachments);
    expect(await countRows('media', t)).toBe(2);
  });

  it('attaches the PDF alone when the document has no e-invoice', async () => {
    const t = await createTenant();
    await ok(put(t, '/settings/documents', { defaultEInvoiceType: null }));
    const invoice = await finalizedInvoice(t, (await createCustomer(t)).id);
    const sent = await ok(api(`/invoices/${invoice.id}/resend`, { token: t.key, method: 'POST' }));
    expect(sent.xmlFile).toBeNull();
    expect(JSON.parse((await mails(t))[0]!.attachments)).toEqual([{ key: sent.file.storageFileName, fileName: `${invoice.number}.pdf`, mimeType: 'application/pdf' }]);
  });

  it('sends nothing for a draft (409) or for another tenant (404)', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const d = await draftInvoice(t, c.id);
    expectProblem(await api(`/invoices/${d.id}/resend`, { token: t.key, method: 'POST' }), 409);
    const invoice = await finalizedInvoice(t, c.id);
    const other = await createTenant();
    expectProblem(await api(`/invoices/${invoice.id}/resend`, { token: other.key, method: 'PUT' }), 404);
    expect(await mails(t)).toEqual([]);
    expect(await mails(other)).toEqual([]);
  });
});
