import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, query, type TestTenant } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { checkoutCatalogue, GERMAN_ADDRESS } from '../checkout/builders';

// The hosted checkout page's HTTP side (the browser tests in checkout.browser.spec.ts use it in
// Chromium): redirects, form posts without JavaScript (Post/Redirect/Get, refusals shown at their
// fields), languages, cache headers, and what it answers to what is not one of its forms.

const BASE = 'http://billing.test';

async function page(path: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string>; body?: string } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  let body = init.body;
  if (init.form) {
    body = new URLSearchParams(init.form).toString();
    headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
  }
  const res = await exports.default.fetch(new Request(BASE + path, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, redirect: 'manual' }));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Opens the link's page and follows its redirect: the cart's id and path. */
async function openPage(t: TestTenant, query = '', slug = 'team') {
  const res = await page(`/checkout/${t.id}/${slug}${query}`);
  expect(res.status, res.text).toBe(303);
  const location = res.headers.get('Location')!;
  const m = /^\/checkout\/cart\/([^/?]+)(\?.*)?$/.exec(location);
  expect(m, location).not.toBeNull();
  return { id: m![1]!, path: location, headers: res.headers };
}

/** The value of the input with this id in the page's HTML. */
const inputValue = (html: string, id: string) => new RegExp(`<input[^>]*id="${id}"[^>]*value="([^"]*)"`).exec(html)?.[1] ?? /* value before id */ new RegExp(`<input[^>]*value="([^"]*)"[^>]*id="${id}"`).exec(html)?.[1];
const due = (html: string) => /<dd data-total="due">([^<]*)<\/dd>/.exec(html)?.[1];

describe('hosted checkout page', () => {
  it('opens a cart from the link with the prefill, in the browser\'s language, never cached', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const opened = await openPage(t, '?email=erika%40example.com&companyName=K%C3%A4ufer%20GmbH');
    expect(opened.headers.get('Cache-Control')).toBe('no-store');

    const de = await page(opened.path, { headers: { 'Accept-Language': 'de-DE,de;q=0.9,en;q=0.5' } });
    expect(de.status).toBe(200);
    expect(de.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    expect(de.headers.get('Cache-Control')).toBe('no-store');
    expect(de.headers.get('Content-Language')).toBe('de');
    expect(de.headers.get('Content-Security-Policy')).toContain("script-src 'self'");
    expect(de.text).toMatch(/^<!doctype html><html lang="de-DE">/);
    expect(de.text).toContain('Ihre Bestellung');
    expect(inputValue(de.text, 'f-email')).toBe('erika@example.com');
    expect(inputValue(de.text, 'f-companyName')).toBe('Käufer GmbH');
    // 2 seats at 10.00 EUR with 19 % VAT.
    expect(due(de.text)).toBe('23,80\u00a0€');

    const en = await page(opened.path, { headers: { 'Accept-Language': 'en-US' } });
    expect(en.text).toContain('Your order');
    expect(due(en.text)).toBe('€23.80');
    const forced = await page(`${opened.path}?lang=de`, { headers: { 'Accept-Language': 'en-US' } });
    expect(forced.text).toContain('Ihre Bestellung');
    // An explicit language stays with every form of the page.
    expect(forced.text).toContain(`action="/checkout/cart/${opened.id}/quantity?lang=de"`);
  });

  it('shows the cart as it is on every load: the same page again while it stays, the change at once after a change', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const opened = await openPage(t);
    const first = await page(opened.path, { headers: { 'Accept-Language': 'en' } });
    const again = await page(opened.path, { headers: { 'Accept-Language': 'en' } });
    expect(again.text).toBe(first.text);
    expect(again.headers.get('Content-Security-Policy')).toBe(first.headers.get('Content-Security-Policy'));
    expect(due(again.text)).toBe('€23.80');
    // The same cart in German is its own page.
    expect(due((await page(opened.path, { headers: { 'Accept-Language': 'de' } })).text)).toBe('23,80\u00a0€');
    // Changed through the JSON API (another tab, say): the next load shows 3 seats.
    const cart = (await api(`/public/checkout/cart/${opened.id}`)).body;
    expect((await api(`/public/checkout/cart/${opened.id}/change-quantity`, { method: 'PUT', body: { cartItemId: cart.items[0].id, quantity: 3 } })).status).toBe(200);
    const changed = await page(opened.path, { headers: { 'Accept-Language': 'en' } });
    expect(due(changed.text)).toBe('€35.70');
  });

  it('takes form posts without JavaScript and redirects back to the cart', async () => {
    const t = await createTenant();
    const { coupon } = await checkoutCatalogue(t);
    const { id, path } = await openPage(t, '?lang=en');
    const cart = (await api(`/public/checkout/cart/${id}`)).body;

    const changed = await page(`/checkout/cart/${id}/quantity?lang=en`, { form: { cartItemId: cart.items[0].id, quantity: '3' } });
    expect(changed.status).toBe(303);
    expect(changed.headers.get('Location')).toBe(path);
    expect((await api(`/public/checkout/cart/${id}`)).body.items[0].quantity).toBe(3);

    const applied = await page(`/checkout/cart/${id}/coupon`, { form: { code: coupon.code } });
    expect(applied.status).toBe(303);
    expect(due((await page(`/checkout/cart/${id}?lang=en`)).text)).toBe('€32.13'); // 30.00 − 10 % = 27.00 + 5.13 VAT

    const removed = await page(`/checkout/cart/${id}/coupon/remove`, { form: {} });
    expect(removed.status).toBe(303);
    expect((await api(`/public/checkout/cart/${id}`)).body.couponCode).toBeNull();

    const saved = await page(`/checkout/cart/${id}/details`, { form: { email: 'saved@example.com', ...GERMAN_ADDRESS } });
    expect(saved.status).toBe(303);
    const after = await page(`/checkout/cart/${id}?lang=en`);
    expect(inputValue(after.text, 'f-email')).toBe('saved@example.com');
    expect(inputValue(after.text, 'f-city')).toBe('Berlin');
  });

  it.each([
    ['quantity', 'quantity', { quantity: '11' }, 'f-quantity-'],
    ['quantity', 'quantity', { quantity: 'two' }, 'f-quantity-'],
    ['coupon', 'code', { code: 'NO-SUCH-CODE' }, 'f-code'],
    ['details', 'vatId', { email: 'x@example.com', ...GERMAN_ADDRESS, vatId: 'DE12' }, 'f-vatId'],
    ['details', 'email', { email: 'not-an-email', ...GERMAN_ADDRESS }, 'f-email'],
    ['confirm', 'paymentType', { email: 'y@example.com', ...GERMAN_ADDRESS }, null],
    ['confirm', 'iban', { email: 'z@example.com', ...GERMAN_ADDRESS, paymentType: 'sepa_debit', iban: 'DE00 1234', accountHolder: 'Erika Mustermann' }, 'f-iban'],
    ['confirm', 'companyName', { email: 'c@example.com', ...GERMAN_ADDRESS, paymentType: 'bank_transfer' }, 'f-companyName', { options: { trialDays: 0, allowCoupons: true, quantityEditable: true, forceCompany: true } }],
  ])('a refused %s post shows the page again with the message at %s, linked to its input', async (action, field, form, inputId, link?: Record<string, unknown>) => {
    const t = await createTenant();
    await checkoutCatalogue(t, link);
    const { id } = await openPage(t, '?lang=en');
    const cart = (await api(`/public/checkout/cart/${id}`)).body;
    const res = await page(`/checkout/cart/${id}/${action}?lang=en`, { form: { cartItemId: cart.items[0].id, ...form } });
    expect(res.status, res.text.slice(0, 500)).toBe(422);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(res.text).toMatch(new RegExp(`<p class="error" id="e-${field}">[^<]+</p>`));
    expect(res.text).toContain('role="alert"');
    if (inputId) {
      const input = new RegExp(`<input[^>]*id="${inputId}[^"]*"[^>]*>`).exec(res.text)?.[0] ?? '';
      expect(input).toContain('aria-invalid="true"');
      expect(input).toContain(`aria-describedby="e-${field}"`);
    }
    // Nothing of the refused post was stored.
    const unchanged = (await api(`/public/checkout/cart/${id}`)).body;
    expect(unchanged.items[0].quantity).toBe(2);
    expect(unchanged.couponCode).toBeNull();
    expect(unchanged.status).toBe('open');
  });

  it('shows refusals in German on a German page', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const { id } = await openPage(t);
    const res = await page(`/checkout/cart/${id}/confirm`, {
      form: { email: 'kein-at', ...GERMAN_ADDRESS, vatId: 'DE12', paymentType: 'fake_provider' },
      headers: { 'Accept-Language': 'de-DE,de;q=0.9' },
    });
    expect(res.status).toBe(422);
    expect(res.text).toContain('<p class="error" id="e-email">Bitte geben Sie eine gültige E-Mail-Adresse an.</p>');
    expect(res.text).toContain('<p class="error" id="e-vatId">Diese USt-IdNr. ist für ihren Mitgliedstaat nicht gültig.</p>');
    expect(res.text).toContain('Bitte korrigieren Sie die markierten Felder.');
    // Its language switch leads to the cart page, not to the post's path.
    expect(res.text).toContain(`<a class="lang" href="/checkout/cart/${id}?lang=en"`);
  });

  it('shows the price per interval and the trial; what is due today is the cart\'s', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t, { options: { trialDays: 14, allowCoupons: false, quantityEditable: false, forceCompany: false } });
    const { id, path } = await openPage(t, '?lang=en');
    const cart = (await api(`/public/checkout/cart/${id}`)).body;
    const html = (await page(path)).text;
    expect(html).toContain('14 days free trial');
    expect(html).toContain('<span data-item-amount="' + cart.items[0].id + '">€20.00</span><span class="per"> per month</span>');
    expect(due(html)).toBe(`€${cart.price.amountDue}`);
    // Neither a quantity field nor a coupon field when the link allows neither.
    expect(html).not.toContain('name="quantity"');
    expect(html).not.toContain('id="f-code"');
  });

  it('completes once: a second confirm post shows the completed cart', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const { id } = await openPage(t, '?lang=en');
    const form = { email: `once-${id.slice(0, 8)}@example.com`, ...GERMAN_ADDRESS, paymentType: 'fake_provider' };
    const first = await page(`/checkout/cart/${id}/confirm?lang=en`, { form });
    expect(first.status, first.text.slice(0, 500)).toBe(200);
    expect(first.text).toContain('Thank you for your order');
    expect(first.text).toContain('Thank you!'); // the link's confirmation message
    const second = await page(`/checkout/cart/${id}/confirm?lang=en`, { form });
    expect(second.status).toBe(303);
    const shown = await page(second.headers.get('Location')!);
    expect(shown.text).toContain('Thank you for your order');
    const subs = await api(`/subscriptions?limit=100`, { token: t.key });
    expect(subs.body.data).toHaveLength(1);
    // A completed cart takes no more changes: the page says so instead of failing.
    const late = await page(`/checkout/cart/${id}/quantity`, { form: { cartItemId: 'x', quantity: '3' } });
    expect(late.status).toBe(303);
  });

  it('asks for the one-time code when the e-mail is an existing customer\'s, and completes for that customer', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const existing = await createCustomer(t, { email: 'known-buyer@example.com' });
    const { id } = await openPage(t, '?lang=en');
    const asked = await page(`/checkout/cart/${id}/confirm?lang=en`, { form: { email: 'known-buyer@example.com', ...GERMAN_ADDRESS, paymentType: 'fake_provider' } });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Confirm your e-mail address');
    expect(asked.text).toContain(`action="/checkout/cart/${id}/otp?lang=en"`);
    const [mail] = await query<{ body: string }>(t, 'SELECT body FROM outgoing_mails WHERE tenant_id = ? AND "to" = ?', t.id, 'known-buyer@example.com');
    const code = /\b(\d{6})\b/.exec(mail!.body)![1]!;

    const wrong = await page(`/checkout/cart/${id}/otp?lang=en`, { form: { email: 'known-buyer@example.com', otp: String((Number(code) + 1) % 1_000_000).padStart(6, '0') } });
    expect(wrong.status).toBe(422);
    expect(wrong.text).toMatch(/<p class="error" id="e-otp">This code is wrong or has expired.<\/p>/);

    const right = await page(`/checkout/cart/${id}/otp?lang=en`, { form: { email: 'known-buyer@example.com', otp: code } });
    expect(right.status).toBe(303);
    expect((await page(right.headers.get('Location')!)).text).toContain('Thank you for your order');
    expect((await api(`/public/checkout/cart/${id}`)).body.customer).toBe(existing.id);
  });

  it('redirects to the link\'s URL after checkout when it says so', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t, { afterCheckout: { action: 'redirect', url: 'https://shop.example/thanks' } });
    const { id } = await openPage(t);
    const res = await page(`/checkout/cart/${id}/confirm`, { form: { email: 'r@example.com', ...GERMAN_ADDRESS, paymentType: 'bank_transfer' } });
    expect(res.status, res.text.slice(0, 500)).toBe(303);
    expect(res.headers.get('Location')).toBe('https://shop.example/thanks');
  });

  it('answers unknown and disabled links and unknown carts with a 404 page', async () => {
    const t = await createTenant();
    const { link } = await checkoutCatalogue(t);
    expect((await api(`/checkout-links/${link.id}/disable`, { token: t.key, method: 'PUT' })).status).toBe(200);
    for (const path of [`/checkout/${t.id}/team`, `/checkout/${t.id}/nope`, '/checkout/cart/cart_00000000000000000000', '/checkout/cart/x']) {
      const res = await page(path, { headers: { 'Accept-Language': 'en' } });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('Checkout not found');
    }
  });

  it('refuses what is not one of its forms with a page, not a problem document', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const { id } = await openPage(t);
    const json = await page(`/checkout/cart/${id}/quantity`, { body: '{"quantity":3}', headers: { 'Content-Type': 'application/json' } });
    expect(json.status).toBe(415);
    expect(json.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    const big = await page(`/checkout/cart/${id}/coupon`, { form: { code: 'x'.repeat(20_000) } });
    expect(big.status).toBe(413);
  });

  it('serves its stylesheet and script under a versioned path, cached for a year', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const { path } = await openPage(t);
    const html = (await page(path)).text;
    for (const [kind, type] of [['css', 'text/css; charset=utf-8'], ['js', 'text/javascript; charset=utf-8']]) {
      const asset = new RegExp(`/checkout/assets/checkout\\.[0-9a-f]{8}\\.${kind}`).exec(html)?.[0];
      expect(asset, kind).toBeDefined();
      const res = await page(asset!);
      expect(res.status).toBe(200);
      expect(res.headers.get('Content-Type')).toBe(type);
      expect(res.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable');
    }
    // A page from before a deployment still gets a stylesheet, kept only briefly.
    expect((await page('/checkout/assets/checkout.00000000.css')).headers.get('Cache-Control')).toBe('public, max-age=60');
    expect((await page('/checkout/assets/other.css')).status).toBe(404);
  });
});
