import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { app } from '../../src/app';
import type { Env } from '../../src/env';
import { api, download, put, query } from '../support/api';
import { createCustomer, createTenant, ok } from '../support/builders';
import { finalizedInvoice, SETTINGS } from '../documents/builders';
import { backgroundSettled } from '../../src/lib/background';

// The local mail outbox page (docs/decisions.md, Mail): on in development (wrangler.toml's
// top-level ENVIRONMENT, which the tests run with), 404 in every other environment.

const page = async (path: string) => {
  const res = await download(path);
  return { status: res.status, headers: res.headers, text: new TextDecoder().decode(res.bytes), bytes: res.bytes };
};

describe('/dev/mail in development', () => {
  it('lists a tenant’s mails and shows one with its body and its attachments', async () => {
    const t = await createTenant();
    await ok(put(t, '/settings/documents', SETTINGS));
    const c = await createCustomer(t, { invoiceEmail: 'ap@example.com' });
    const invoice = await finalizedInvoice(t, c.id);
    await ok(api(`/invoices/${invoice.id}/resend`, { token: t.key, method: 'POST' }));
    const [mail] = await query<{ id: string }>(t, 'SELECT id FROM outgoing_mails WHERE tenant_id = ?', t.id);

    const list = await page(`/dev/mail?tenant=${t.id}`);
    expect(list.status).toBe(200);
    expect(list.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    expect(list.text).toContain('ap@example.com');
    expect(list.text).toContain(`href="/dev/mail/${mail!.id}"`);
    expect(list.text).toContain(`${invoice.number}.pdf, ${invoice.number}.xml`);
    // No script and nothing from elsewhere: the only asset is the page's own stylesheet.
    expect(list.text).not.toMatch(/<script|https?:\/\//);
    expect(list.headers.get('Content-Security-Policy')).toContain("default-src 'none'");

    const one = await page(`/dev/mail/${mail!.id}`);
    expect(one.status).toBe(200);
    expect(one.text).toContain(`Your document ${invoice.number} is attached.`);
    expect(one.text).toContain(`${invoice.number}.pdf</a> (application/pdf)`);
    expect(one.text).toContain(`${invoice.number}.xml</a> (application/xml)`);
    const pdf = await page(`/dev/mail/${mail!.id}/attachments/0`);
    expect(pdf.headers.get('Content-Type')).toBe('application/pdf');
    expect(new TextDecoder().decode(pdf.bytes.subarray(0, 5))).toBe('%PDF-');

    expect((await page('/dev/mail/00000000-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await page(`/dev/mail/${mail!.id}/attachments/2`)).status).toBe(404);
    expect((await page('/dev/mail.css')).headers.get('Content-Type')).toBe('text/css; charset=utf-8');
  });

  it('escapes what a mail holds', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'x@example.com', firstName: '<b>Eve</b>', language: 'en' });
    await api('/public/customer/request-otp', { token: t.key, body: { email: 'x@example.com' } });
    await backgroundSettled();
    const [mail] = await query<{ id: string }>(t, 'SELECT id FROM outgoing_mails WHERE tenant_id = ?', t.id);
    const one = await page(`/dev/mail/${mail!.id}`);
    expect(one.text).toContain('Hello &lt;b&gt;Eve&lt;/b&gt;,');
    expect(one.text).not.toContain('<b>Eve</b>');
  });
});

describe('/dev/mail elsewhere', () => {
  it.each([{ ENVIRONMENT: 'production' }, { ENVIRONMENT: 'staging' }, { ENVIRONMENT: undefined }])('404 with ENVIRONMENT=$ENVIRONMENT, as any unknown path', async (vars) => {
    const off = { ...(env as unknown as Env), ...vars };
    for (const path of ['/dev/mail', '/dev/mail.css', '/dev/mail/00000000-0000-7000-8000-000000000000', '/dev/mail/00000000-0000-7000-8000-000000000000/attachments/0']) {
      const res = await app.request(path, {}, off);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('Content-Type')).toBe('application/problem+json');
      expect(await res.json()).toMatchObject({ status: 404, type: expect.stringContaining('not-found') });
    }
  });
});
