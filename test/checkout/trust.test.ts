import { describe, expect, it } from 'vitest';
import { api, expect422, expectStatus, get, patch, put, query, type TestTenant } from '../support/api';
import { createTenant, ok } from '../support/builders';
import { png, uploadLogo } from '../documents/builders';
import { cartGet, cartPut, checkoutCatalogue, GERMAN_ADDRESS, openCart } from './builders';

// What a buyer is told about whom they buy from and what they agree to: the plan, the seller (the
// tenant's letterhead and logo), the tenant's terms, privacy, withdrawal and imprint pages, what
// renews, and after the order the invoice, the amount and where the confirmation went.

const testingCard = { type: 'fake_provider', token: 'testing_succeeds' };
const LEGAL = {
  'checkout.termsUrl': 'https://shop.example/agb',
  'checkout.privacyUrl': 'https://shop.example/datenschutz',
  'checkout.withdrawalUrl': 'https://shop.example/widerruf',
  'checkout.imprintUrl': 'https://shop.example/impressum',
};

async function sellerWithTerms(t: TestTenant) {
  await ok(put(t, '/settings/documents', { seller: { name: 'Seat Shop GmbH', street: 'Hauptstraße 1', zip: '10115', city: 'Berlin' } }));
  await uploadLogo(t, await png(40, 20));
  expectStatus(await patch(t, '/settings', { settings: Object.entries(LEGAL).map(([key, value]) => ({ key, value })) }), 200);
}

describe('checkout trust items', () => {
  it('shows the plan, the seller from the letterhead, its pages and the renewal in the public cart', async () => {
    const t = await createTenant();
    const { plan } = await checkoutCatalogue(t);
    expectStatus(await api(`/plans/${plan.id}`, { token: t.key, method: 'PATCH', body: { description: 'For teams of any size' } }), 200);
    await sellerWithTerms(t);
    const cart = (await openCart(t)).body;
    expect(cart.seller).toEqual({
      name: 'Seat Shop GmbH',
      address: ['Hauptstraße 1', '10115 Berlin'],
      countryCode: 'DE',
      logoUrl: `/checkout/cart/${cart.id}/logo`,
      termsUrl: LEGAL['checkout.termsUrl'],
      privacyUrl: LEGAL['checkout.privacyUrl'],
      withdrawalUrl: LEGAL['checkout.withdrawalUrl'],
      imprintUrl: LEGAL['checkout.imprintUrl'],
    });
    expect(cart.plan).toEqual({ name: 'Team', description: 'For teams of any size' });
    // Two seats at 10.00 a month, 19 % VAT, notice period as the link's plan has none: at any time.
    expect(cart.renewal).toEqual({ interval: 'month', intervalCount: 1, amount: '23.80', netAmount: '20.00', currencyCode: 'EUR', contractPeriod: null, cancellationPeriod: null });
    expect(cart.termsAcceptance).toBeNull();
    expect(cart.completion).toBeNull();
    // The renewal follows the quantity.
    expect((await cartPut(cart.id, 'change-quantity', { cartItemId: 'item-1', quantity: 3 })).body.renewal.amount).toBe('35.70');

    // The logo the documents print, from the page's own origin.
    const logo = await fetchLogo(cart.id);
    expect(logo.status).toBe(200);
    expect(logo.type).toBe('image/png');
    expect(logo.bytes.slice(0, 4)).toEqual(new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  });

  it('names the notice period and minimum term of the link in the renewal', async () => {
    const t = await createTenant();
    const { product, price, plan } = await checkoutCatalogue(t);
    expectStatus(
      await put(t, `/checkout-links/${(await get(t, '/checkout-links')).body.data[0].id}`, {
        slug: 'team',
        afterCheckout: { action: 'none' },
        options: { trialDays: 0, allowCoupons: false, quantityEditable: false, forceCompany: false },
        items: [{ product: product.id, pricePlan: price.id, plan: plan.id, quantity: 1, periods: { contractPeriod: '1Y', cancellationPeriod: '3M' } }],
      }),
      200,
    );
    const cart = (await openCart(t)).body;
    expect(cart.renewal).toMatchObject({ amount: '11.90', contractPeriod: '1Y', cancellationPeriod: '3M' });
    // No logo on the letterhead: none on the page either.
    expect(cart.seller.logoUrl).toBeNull();
    expect((await fetchLogo(cart.id)).status).toBe(404);
  });

  it('takes only https URLs for the tenant\'s pages', async () => {
    const t = await createTenant();
    for (const value of ['http://shop.example/agb', 'javascript:alert(1)', 'https://user:pw@shop.example/agb', '/agb', 'https://shop.example/a b', 42]) {
      expect422(await patch(t, '/settings', { settings: [{ key: 'checkout.termsUrl', value }] }), ['settings[0].value']);
    }
    const cleared = await patch(t, '/settings', { settings: [{ key: 'checkout.imprintUrl', value: null }] });
    expect(cleared.body.settings).toContainEqual({ key: 'checkout.imprintUrl', value: null });
  });

  it('refuses an order without accepting the terms, and records the acceptance with the order', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    await sellerWithTerms(t);
    const cart = (await openCart(t)).body;
    const order = { email: 'terms@example.com', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: testingCard };
    expect422(await cartPut(cart.id, 'confirm', order), ['acceptTerms']);
    expect422(await cartPut(cart.id, 'confirm', { ...order, acceptTerms: false }), ['acceptTerms']);
    expect((await query(t, 'SELECT id FROM customers WHERE tenant_id = ?', t.id)).length).toBe(0);

    expectStatus(await cartPut(cart.id, 'confirm', { ...order, acceptTerms: true }), 200);
    const done = (await cartGet(cart.id)).body;
    expect(done.termsAcceptance).toEqual({ acceptedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), termsUrl: LEGAL['checkout.termsUrl'] });
    const invoice = (await get(t, `/invoices/${done.invoice}`)).body;
    expect(done.completion).toEqual({ invoiceNumber: invoice.number, amount: '23.80', currencyCode: 'EUR', paid: true, email: 'terms@example.com' });
    expect(invoice.number).toMatch(/^RE-/);
    // The tenant sees the acceptance in its list of carts.
    const listed = (await get(t, '/checkout/carts')).body.data.find((c: { id: string }) => c.id === cart.id);
    expect(listed.termsAcceptance).toEqual(done.termsAcceptance);
    // The confirmation the completion page names went to that address.
    const mails = await query<{ subject: string; body: string }>(t, 'SELECT subject, body FROM outgoing_mails WHERE tenant_id = ? AND "to" = ?', t.id, 'terms@example.com');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain(invoice.number);
    expect(mails[0]!.body).toContain('Seat Shop GmbH');
    expect(mails[0]!.body).toContain('23.80 €');
  });

  it('puts them on the hosted page: seller, pages, the terms checkbox, the renewal; and the invoice on the completion page', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    await sellerWithTerms(t);
    const opened = await page(`/checkout/${t.id}/team?lang=en`);
    const cartPath = opened.headers.get('Location')!;
    const html = (await page(cartPath)).text;
    expect(html).toContain('<span class="seller-name">Seat Shop GmbH</span>');
    expect(html).toMatch(/<img class="logo" src="\/checkout\/cart\/[^"]+\/logo" alt="Seat Shop GmbH logo"/);
    expect(html).toContain('<h3 class="plan-name">Team</h3>');
    for (const url of Object.values(LEGAL)) expect(html).toContain(`href="${url}"`);
    expect(html).toMatch(/<input type="checkbox" id="f-acceptTerms" name="acceptTerms" value="yes" required/);
    expect(html.replace(/<[^>]+>/g, '')).toContain('Renews every month at €23.80 (incl. VAT) until cancelled; cancel at any time.');
    const de = (await page(cartPath.replace('lang=en', 'lang=de'))).text.replace(/<[^>]+>/g, '');
    expect(de).toContain('Verlängert sich monatlich um 23,80\u00a0€ (inkl. USt.), bis Sie kündigen; jederzeit kündbar.');

    // Without the checkbox the order comes back with the message at the box, the typed values kept.
    const cartId = /\/checkout\/cart\/([^/?]+)/.exec(cartPath)![1]!;
    const form = { email: 'page@example.com', ...GERMAN_ADDRESS, paymentType: 'fake_provider' };
    const refused = await page(`/checkout/cart/${cartId}/confirm?lang=en`, { form });
    expect(refused.status).toBe(422);
    expect(refused.text).toMatch(/id="f-acceptTerms"[^>]*aria-invalid="true"/);
    expect(refused.text).toContain('id="e-acceptTerms"');
    expect(refused.text).toMatch(/id="f-email"[^>]*value="page@example.com"/);

    const done = await page(`/checkout/cart/${cartId}/confirm?lang=en`, { form: { ...form, acceptTerms: 'yes' } });
    expect(done.status).toBe(200);
    const cart = (await cartGet(cartId)).body;
    expect(done.text).toMatch(new RegExp(`<dd data-invoice-number="true">${cart.completion.invoiceNumber}</dd>`));
    expect(done.text).toMatch(/<dd data-amount="true">€23.80<\/dd>/);
    expect(done.text).toContain('We have e-mailed a confirmation to page@example.com.');
    expect(done.text.replace(/<[^>]+>/g, '')).toContain('Amount paid€23.80');
  });

  it('orders without a checkbox when the tenant has no terms', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    expectStatus(await cartPut(cart.id, 'confirm', { email: 'noterms@example.com', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: testingCard }), 200);
    expect((await cartGet(cart.id)).body.termsAcceptance).toBeNull();
  });
});

async function fetchLogo(cartId: string) {
  const { exports } = await import('cloudflare:workers');
  const res = await exports.default.fetch(new Request(`http://billing.test/checkout/cart/${cartId}/logo`));
  return { status: res.status, type: res.headers.get('Content-Type'), bytes: new Uint8Array(await res.arrayBuffer()) };
}

async function page(path: string, init: { form?: Record<string, string> } = {}) {
  const { exports } = await import('cloudflare:workers');
  const body = init.form ? new URLSearchParams(init.form).toString() : undefined;
  const res = await exports.default.fetch(
    new Request(`http://billing.test${path}`, { method: body ? 'POST' : 'GET', body, redirect: 'manual', headers: body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {} }),
  );
  return { status: res.status, headers: res.headers, text: await res.text() };
}
