import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { get, put } from '../support/api';
import { createCustomer, createTenant, created, ok } from '../support/builders';
import { addRecipient, createOffer, lastCode, linkOf, offerCatalogue, offerSubscription } from '../offers/builders';

// The hosted offer page's HTTP side (offer.browser.spec.ts uses it in Chromium): a page without
// script, printable, in the offer's language (or the one chosen), form posts answered 303 back to
// the page or with the problem at its field, and what it answers to what is not its form.

const BASE = 'http://billing.test';

async function page(path: string, init: { form?: Record<string, string>; headers?: Record<string, string>; body?: string } = {}) {
  const headers: Record<string, string> = { 'CF-Connecting-IP': '192.0.2.10', 'User-Agent': 'PageTest/1.0', ...init.headers };
  let body = init.body;
  if (init.form) {
    body = new URLSearchParams(init.form).toString();
    headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
  }
  const res = await exports.default.fetch(new Request(BASE + path, { method: body === undefined ? 'GET' : 'POST', headers, body, redirect: 'manual' }));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function offerPage(extra: Record<string, unknown> = {}) {
  const t = await createTenant();
  const c = await offerCatalogue(t);
  const customer = await createCustomer(t);
  const offer = await created(createOffer(t, { customer: customer.id, name: 'Team-Lizenz', sections: ['<h2>Umfang</h2><p>Alles <strong>drin</strong>.</p>'], subscription: offerSubscription(c), ...extra }));
  await addRecipient(t, offer.id, { email: 'signer@example.com', firstName: 'Sina', lastName: 'Signer', role: 'sign' });
  await addRecipient(t, offer.id, { email: 'reader@example.com', role: 'read' });
  return { t, offer, signer: await linkOf(t, offer.id, 'signer@example.com'), reader: await linkOf(t, offer.id, 'reader@example.com') };
}

describe('hosted offer page', () => {
  it('shows the offer in its language without script, never cached, never in a frame, leaking no referrer', async () => {
    const { signer } = await offerPage();
    const de = await page(`/offer/${signer}`);
    expect(de.status).toBe(200);
    expect(de.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    expect(de.headers.get('Cache-Control')).toBe('no-store');
    expect(de.headers.get('Content-Language')).toBe('de');
    expect(de.headers.get('Referrer-Policy')).toBe('no-referrer');
    expect(de.headers.get('X-Frame-Options')).toBe('DENY');
    expect(de.headers.get('Content-Security-Policy')).toBe("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'");
    expect(de.text).toMatch(/^<!doctype html><html lang="de-DE">/);
    expect(de.text).not.toContain('<script');
    expect(de.text).toContain('Angebot AN-000001: Team-Lizenz');
    expect(de.text).toContain('<h3>Umfang</h3><p>Alles <strong>drin</strong>.</p>');
    expect(de.text).toContain('<dd data-total="gross">357,00\u00a0€</dd>');
    expect(de.text).toContain('Code per E-Mail schicken');

    const en = await page(`/offer/${signer}?lang=en`);
    expect(en.headers.get('Content-Language')).toBe('en');
    expect(en.text).toContain('Offer AN-000001: Team-Lizenz');
    expect(en.text).toContain('<dd data-total="gross">€357.00</dd>');
    expect(en.text).toContain(`href="/offer/${signer}?lang=de"`);

    const css = /<link rel="stylesheet" href="(\/offer-assets\/offer\.[0-9a-f]{8}\.css)"/.exec(de.text)![1]!;
    const sheet = await page(css);
    expect(sheet.status).toBe(200);
    expect(sheet.headers.get('Content-Type')).toBe('text/css; charset=utf-8');
    expect(sheet.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable');
    expect(sheet.text).toContain('@media print');
    expect((await page('/offer-assets/other.css')).status).toBe(404);
  });

  it('signs without JavaScript: code, then name and code, each a form post back to the page', async () => {
    const { t, offer, signer } = await offerPage();
    const asked = await page(`/offer/${signer}/code?lang=en`, { form: {} });
    expect(asked.status).toBe(303);
    expect(asked.headers.get('Location')).toBe(`/offer/${signer}?lang=en#sign`);
    const withForm = await page(`/offer/${signer}?lang=en`);
    expect(withForm.text).toContain('We have sent a code to s***@example.com.');
    expect(withForm.text).toContain('id="f-code"');

    // Missing name and consent, a malformed code: the page again, each problem at its field.
    const refused = await page(`/offer/${signer}/sign?lang=en`, { form: { code: '12', fullName: '' } });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('Please enter the 6-digit code from the e-mail.');
    expect(refused.text).toContain('Please type your full name.');
    expect(refused.text).toContain('Please confirm that you accept the offer.');
    expect(refused.text).toMatch(/<input[^>]*id="f-code"[^>]*aria-invalid="true"[^>]*aria-describedby="e-code"/);
    const code = await lastCode(t, 'signer@example.com');
    const wrong = await page(`/offer/${signer}/sign?lang=en`, { form: { code: code === '000000' ? '111111' : '000000', fullName: 'Sina Signer', accept: '1' } });
    expect(wrong.status).toBe(422);
    expect(wrong.text).toContain('The code is wrong or has expired.');
    expect(wrong.text).toMatch(/<input[^>]*id="f-fullName"[^>]*value="Sina Signer"/);

    const signed = await page(`/offer/${signer}/sign?lang=en`, { form: { code, fullName: 'Sina Signer', accept: '1' } });
    expect(signed.status).toBe(303);
    expect(signed.headers.get('Location')).toBe(`/offer/${signer}?lang=en`);
    const done = await page(`/offer/${signer}?lang=en`);
    expect(done.text).toContain('Offer accepted');
    expect(done.text).toMatch(/href="http:\/\/billing\.test\/public\/documents\/[^"]+"/);
    expect(done.text).not.toContain('id="f-code"');
    const after = await ok(get(t, `/offers/${offer.id}`));
    expect(after.status).toBe('signed');
    expect(after.recipients[0].signingLog.map((e: any) => [e.action, e.ip, e.userAgent])).toContainEqual(['signed', '192.0.2.10', 'PageTest/1.0']);
    // Posting again after signing just shows where the offer stands.
    expect((await page(`/offer/${signer}/sign`, { form: { code, fullName: 'Sina Signer', accept: '1' } })).status).toBe(303);
  });

  it('a reader sees no signing form; a withdrawn offer says so; an unknown link is 404', async () => {
    const { t, offer, reader, signer } = await offerPage({ locale: 'en' });
    const read = await page(`/offer/${reader}`);
    expect(read.text).toContain('You received this offer to read.');
    expect(read.text).not.toContain('<form');
    expect((await page(`/offer/${reader}/code`, { form: {} })).status).toBe(303);

    await ok(put(t, `/offers/${offer.id}/archive`));
    const gone = await page(`/offer/${signer}`);
    expect(gone.status).toBe(200);
    expect(gone.text).toContain('Offer withdrawn');
    expect(gone.text).not.toContain('Team seats');

    const unknown = await page(`/offer/${signer.slice(0, -2)}xx`);
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('Angebot nicht gefunden');
  });

  it('takes only small urlencoded forms', async () => {
    const { signer } = await offerPage();
    expect((await page(`/offer/${signer}/code`, { body: '{}', headers: { 'Content-Type': 'application/json' } })).status).toBe(415);
    expect((await page(`/offer/${signer}/sign`, { form: { fullName: 'x'.repeat(9000) } })).status).toBe(413);
  });
});
