import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createShop, eventually, launchChromium, must, screenshot, server } from './harness';

// The hosted checkout page in Chromium, as a buyer uses it: with JavaScript (totals follow each
// change without a reload) and without (every change is a form post and a redirect). Afterwards the
// tenant API must show what the order made: the customer, the active subscription, the invoice and
// its payment.

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** The "due today" total as the page shows it. */
const dueToday = (page: Page) => page.locator('#totals [data-total=due]').innerText();

async function fillAddress(page: Page, email: string) {
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Company').fill('Käufer GmbH');
  await page.getByLabel('First name').fill('Erika');
  await page.getByLabel('Last name').fill('Mustermann');
  await page.getByLabel('Street').fill('Hauptstraße');
  await page.getByLabel('No.').fill('5');
  await page.getByLabel('Postcode').fill('10115');
  await page.getByLabel('City').fill('Berlin');
}

/** What the completed order left in the tenant: customer, active subscription, invoice, payment. */
async function expectOrder(key: string, email: string, gross: string) {
  const customers = await must('GET', `/customers?limit=100`, key);
  const customer = customers.data.find((c: any) => c.email === email);
  expect(customer, `customer ${email}`).toBeDefined();

  const subscriptions = await must('GET', `/subscriptions?customer=${customer.id}`, key);
  expect(subscriptions.data).toHaveLength(1);
  expect(subscriptions.data[0].status).toBe('active');

  const invoices = (await must('GET', `/invoices?limit=100`, key)).data.filter((i: any) => i.customer?.id === customer.id || i.customer === customer.id);
  expect(invoices).toHaveLength(1);
  const invoice = invoices[0];
  expect(invoice.number).toBeTruthy();

  // Collection runs as a queue job after the confirmation: wait for its transaction.
  const transactions = await eventually(
    async () => (await must('GET', `/transactions?invoice=${invoice.id}`, key)).data as any[],
    (list) => list.some((t) => t.status === 'succeeded'),
  );
  const payment = transactions.find((t) => t.status === 'succeeded');
  expect(payment, JSON.stringify(transactions)).toBeDefined();
  expect(payment.amount).toBe(Number(gross));
  const paid = await must('GET', `/invoices/${invoice.id}`, key);
  expect(paid.status).toBe('STATUS_PAID');
  return { customer, subscription: subscriptions.data[0], invoice: paid, payment };
}

describe('checkout page with JavaScript', () => {
  it('changes quantity, refuses a bad VAT id at its field, applies a coupon and completes with the testing gateway', async () => {
    const shop = await createShop();
    const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (e) => failures.push(e.message));
    try {
      await page.goto(shop.pageUrl);
      expect(new URL(page.url()).pathname).toMatch(/^\/checkout\/cart\/[A-Za-z0-9_-]+$/);
      await expect.poll(() => page.locator('h2#summary-h').innerText()).toBe('Your order');
      // Two seats at 10.00 EUR, 19 % VAT.
      expect(await dueToday(page)).toBe('€23.80');
      // Who sells, and what renews, next to the order button.
      expect(await page.locator('header .seller-name').innerText()).toBe('Browser Shop GmbH');
      expect(await page.locator('#renewal').innerText()).toBe('Renews every month at €23.80 (incl. VAT) until cancelled; cancel at any time.');

      // Keyboard: Tab walks from the language switch to the quantity, the coupon and into the
      // form in the order they are shown, and the focus is visible.
      const focused: string[] = [];
      for (let i = 0; i < 6; i++) {
        await page.keyboard.press('Tab');
        focused.push(await page.evaluate<string>("document.activeElement.id || document.activeElement.textContent"));
      }
      expect(focused).toEqual(['Sprache: Deutsch', expect.stringMatching(/^f-quantity-/), 'Update quantity', 'f-code', 'Apply coupon', 'f-email']);
      const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
      expect(outline).toBe('solid');

      // Quantity: the total follows without a reload (the marker survives only without one).
      await page.evaluate(() => ((globalThis as any).__noReload = true));
      await page.getByLabel('Quantity').fill('3');
      await page.getByLabel('Quantity').press('Tab');
      await expect.poll(() => dueToday(page)).toBe('€35.70');
      expect(await page.locator('[data-renewal-amount]').innerText()).toBe('€35.70');
      expect(await page.evaluate(() => (globalThis as any).__noReload)).toBe(true);

      // A malformed VAT id: the message sits next to the field and is linked to it.
      await fillAddress(page, `buyer-${Date.now()}@example.com`);
      await page.getByLabel('VAT ID (optional)').fill('DE12');
      await page.getByLabel('VAT ID (optional)').press('Tab');
      const vatError = page.locator('#e-vatId');
      await expect.poll(() => vatError.isVisible()).toBe(true);
      expect(await page.getByLabel('VAT ID (optional)').getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByLabel('VAT ID (optional)').getAttribute('aria-describedby')).toContain('e-vatId');
      await screenshot(page, 'checkout-js-vat-error');
      await page.getByLabel('VAT ID (optional)').fill('');
      await page.getByLabel('VAT ID (optional)').press('Tab');
      await expect.poll(() => vatError.count()).toBe(0);

      // A coupon of 20 %: 30.00 − 6.00 = 24.00 net, 4.56 VAT.
      await page.getByLabel('Coupon code').fill(shop.coupon.code);
      await page.getByRole('button', { name: 'Apply coupon' }).click();
      await expect.poll(() => dueToday(page)).toBe('€28.56');
      await expect.poll(() => page.getByText(`Coupon ${shop.coupon.code} applied`).isVisible()).toBe(true);
      // Removing and applying again swaps the forms in place, still without a reload.
      await page.getByRole('button', { name: 'Remove coupon' }).click();
      await expect.poll(() => dueToday(page)).toBe('€35.70');
      await page.getByLabel('Coupon code').fill(shop.coupon.code);
      await page.getByLabel('Coupon code').press('Enter');
      await expect.poll(() => dueToday(page)).toBe('€28.56');
      expect(await page.evaluate(() => (globalThis as any).__noReload)).toBe(true);

      const email = await page.getByLabel('E-mail address').inputValue();
      await page.getByLabel('Test payment (testing gateway)').check();
      await screenshot(page, 'checkout-js-before-confirm');
      await page.getByRole('button', { name: /Order with obligation to pay/ }).click();
      await page.waitForLoadState('load');
      await expect.poll(() => page.locator('h1').first().innerText()).toBe('Thank you for your order');
      await screenshot(page, 'checkout-js-completed');
      expect(await page.getByText('Welcome aboard!').isVisible()).toBe(true);
      expect(failures).toEqual([]);

      await expectOrder(shop.key, email, '28.56');
    } finally {
      await context.close();
    }
  });
});

describe('checkout page quantity with JavaScript', () => {
  it('sends one request per change, keeps what the buyer typed, and stores the quantity typed last', async () => {
    const shop = await createShop();
    const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const failures: string[] = [];
    const sent: { quantity: number }[] = [];
    const refused: string[] = [];
    page.on('pageerror', (e) => failures.push(e.message));
    page.on('request', (r) => {
      if (r.url().includes('/change-quantity')) sent.push(JSON.parse(r.postData() ?? '{}'));
    });
    page.on('response', (r) => {
      if (r.url().includes('/public/checkout/cart/') && r.status() >= 400) refused.push(`${r.status()} ${r.url()}`);
    });
    try {
      await page.goto(shop.pageUrl);
      const cartId = new URL(page.url()).pathname.split('/').pop()!;
      await page.evaluate(() => ((globalThis as any).__noReload = true));
      // Typed, not saved yet.
      const email = `qty-${Date.now()}@example.com`;
      await fillAddress(page, email);

      // One click on the button after typing is one request, not one for the field and one for the form.
      await page.getByLabel('Quantity').fill('3');
      await page.getByRole('button', { name: 'Update quantity' }).click();
      await expect.poll(() => dueToday(page)).toBe('€35.70');
      expect(sent).toEqual([expect.objectContaining({ quantity: 3 })]);

      // A burst: typed quickly, the field left, typed again and Enter, typed once more and the button.
      for (const n of ['5', '6', '8']) await page.getByLabel('Quantity').fill(n);
      await page.getByLabel('Quantity').press('Tab');
      await page.getByLabel('Quantity').fill('9');
      await page.getByLabel('Quantity').press('Enter');
      await page.getByLabel('Quantity').fill('4');
      await page.getByRole('button', { name: 'Update quantity' }).click();
      await expect.poll(async () => (await api('GET', `/public/checkout/cart/${cartId}`, null)).body.items[0].quantity).toBe(4);
      await expect.poll(() => dueToday(page)).toBe('€47.60');
      expect(sent.at(-1)).toMatchObject({ quantity: 4 });
      // At most one request per settled value (3, then 8, 9, 4), never one per keystroke.
      expect(sent.length).toBeLessThanOrEqual(4);

      // The address saved (the company changes the tax) while the quantity changes: both are kept.
      await page.getByLabel('Company').fill('Zweite GmbH');
      await page.getByLabel('Company').press('Tab');
      await page.getByLabel('Quantity').fill('2');
      await page.getByLabel('Quantity').press('Tab');
      await expect.poll(() => dueToday(page)).toBe('€23.80');
      await expect.poll(async () => (await api('GET', `/public/checkout/cart/${cartId}`, null)).body.invoiceAddress?.companyName).toBe('Zweite GmbH');

      expect(refused).toEqual([]);
      expect(await page.evaluate(() => (globalThis as any).__noReload)).toBe(true);
      expect(await page.getByLabel('E-mail address').inputValue()).toBe(email);
      expect(await page.getByLabel('Street').inputValue()).toBe('Hauptstraße');
      expect(await page.getByLabel('Quantity').inputValue()).toBe('2');
      await screenshot(page, 'checkout-js-quantity-burst');

      await page.getByLabel('Test payment (testing gateway)').check();
      await page.getByRole('button', { name: /Order with obligation to pay/ }).click();
      await page.getByRole('heading', { name: 'Thank you for your order' }).waitFor({ timeout: 30_000 });
      expect(failures).toEqual([]);
      await expectOrder(shop.key, email, '23.80');
    } finally {
      await context.close();
    }
  });
});

/** A shop whose tenant takes cards (its own account at the fake of Stripe's API), and its page open in Chromium. */
async function cardShopPage() {
  const shop = await createShop();
  const account = (await (await fetch(`${server().cardGatewayUrl}/__fake/accounts`, { method: 'POST', body: '{}' })).json()) as { secretKey: string; publishableKey: string };
  await must('PUT', '/settings/gateways/card_provider', shop.key, { secretKey: account.secretKey, publishableKey: account.publishableKey });
  const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const failures: string[] = [];
  page.on('pageerror', (e) => failures.push(e.message));
  await page.goto(shop.pageUrl);
  return { shop, context, page, failures };
}

/** Fills the details and a card number in the client's field and orders: the script asks the card client for a payment method first, then posts the order. */
async function orderByCard(page: Page, email: string, cardNumber: string) {
  await fillAddress(page, email);
  await page.getByLabel('Credit card').check();
  await page.getByLabel('Card number').fill(cardNumber);
  await page.getByRole('button', { name: /Order with obligation to pay/ }).click();
}

describe('checkout page with a card through the gateway\'s client', () => {
  it('takes a card in the client\'s field, shows a decline at the payment choice, and completes with another card', async () => {
    const { shop, context, page, failures } = await cardShopPage();
    try {
      const email = `card-${Date.now()}@example.com`;
      await orderByCard(page, email, '4000 0000 0000 0002');
      // Declined by the gateway: the page says so at the payment choice, nothing is completed.
      await page.locator('#e-paymentType').waitFor({ timeout: 30_000 });
      expect(await page.locator('#e-paymentType').innerText()).toContain('declined');
      await screenshot(page, 'checkout-card-declined');

      await page.getByLabel('Credit card').check();
      await page.getByLabel('Card number').fill('4242 4242 4242 4242');
      await page.getByRole('button', { name: /Order with obligation to pay/ }).click();
      await page.getByRole('heading', { name: 'Thank you for your order' }).waitFor({ timeout: 30_000 });
      expect(failures).toEqual([]);

      const { payment } = await expectOrder(shop.key, email, '23.80');
      expect(payment.gateway).toBe('card_provider');
      const attempts = (await must('GET', `/transactions?invoice=${payment.invoice.id}`, shop.key)).data.map((t: any) => [t.attempt, t.gateway, t.status]);
      expect(attempts).toEqual([
        [2, 'card_provider', 'succeeded'],
        [1, 'card_provider', 'failed'],
      ]);
    } finally {
      await context.close();
    }
  });
});

describe('checkout page with a card that wants 3-D Secure', () => {
  it('runs the bank\'s challenge through the card client and completes once the gateway says the charge succeeded', async () => {
    const { shop, context, page, failures } = await cardShopPage();
    try {
      // A failed challenge first: the cart is open again and says so at the payment choice.
      const email = `sca-${Date.now()}@example.com`;
      await orderByCard(page, email, '4000 0027 6000 3184');
      const challenge = page.getByRole('dialog', { name: '3D Secure 2 Test Page' });
      await challenge.waitFor({ timeout: 30_000 });
      expect(await page.getByRole('heading', { name: 'Confirm your payment' }).isVisible()).toBe(true);
      await screenshot(page, 'checkout-card-3ds-challenge');
      await challenge.getByRole('button', { name: 'Fail authentication' }).click();
      await page.locator('#e-paymentType').waitFor({ timeout: 30_000 });
      expect(await page.locator('#e-paymentType').innerText()).toContain('not confirmed');

      // Again, and this time the buyer completes the challenge.
      await page.getByLabel('Credit card').check();
      await page.getByLabel('Card number').fill('4000 0027 6000 3184');
      await page.getByRole('button', { name: /Order with obligation to pay/ }).click();
      await page.getByRole('dialog', { name: '3D Secure 2 Test Page' }).getByRole('button', { name: 'Complete authentication' }).click({ timeout: 30_000 });
      await page.getByRole('heading', { name: 'Thank you for your order' }).waitFor({ timeout: 30_000 });
      await screenshot(page, 'checkout-card-3ds-completed');
      expect(failures).toEqual([]);

      const { payment } = await expectOrder(shop.key, email, '23.80');
      expect(payment.gateway).toBe('card_provider');
      const attempts = (await must('GET', `/transactions?invoice=${payment.invoice.id}`, shop.key)).data.map((t: any) => [t.attempt, t.status]);
      expect(attempts).toEqual([
        [2, 'succeeded'],
        [1, 'failed'],
      ]);
    } finally {
      await context.close();
    }
  });
});

describe('checkout page in German with JavaScript', () => {
  it('shows a refused VAT id in German and reverse charge live once a registered foreign one is entered', async () => {
    const shop = await createShop();
    const context = await browser.newContext({ locale: 'de-DE', viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(shop.pageUrl);
      expect(await dueToday(page)).toBe('23,80\u00a0€');
      await page.getByLabel('Firma (optional)').fill('Acheteur SARL');
      await page.getByLabel('USt-IdNr. (optional)').fill('FR12');
      await page.getByLabel('USt-IdNr. (optional)').press('Tab');
      await expect.poll(() => page.locator('#e-vatId').textContent()).toBe('Diese USt-IdNr. ist für ihren Mitgliedstaat nicht gültig.');
      // A French business with a registered VAT id buys without German VAT: reverse charge.
      await page.getByLabel('Land').selectOption('FR');
      await page.getByLabel('USt-IdNr. (optional)').fill('FR40303265045');
      await page.getByLabel('USt-IdNr. (optional)').press('Tab');
      await expect.poll(() => dueToday(page)).toBe('20,00\u00a0€');
      expect(await page.locator('#e-vatId').count()).toBe(0);
      expect(await page.locator('#totals .note').textContent()).toBe('Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge)');
      await screenshot(page, 'checkout-js-de-reverse-charge');
    } finally {
      await context.close();
    }
  });
});

describe('checkout page without JavaScript', () => {
  it('works with plain form posts: quantity, a refused VAT id shown at its field, confirmation', async () => {
    const shop = await createShop({ forceCompany: true });
    const context = await browser.newContext({ locale: 'de-DE', javaScriptEnabled: false, viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(`${shop.pageUrl}?lang=en`);
      const cartPath = new URL(page.url()).pathname;
      expect(cartPath).toMatch(/^\/checkout\/cart\//);
      expect(await page.locator('html').getAttribute('lang')).toBe('en-GB');
      // A phone's width: one column, nothing cut off.
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, 'checkout-nojs-phone');
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await page.setViewportSize({ width: 1000, height: 900 });

      await page.getByLabel('Quantity').fill('4');
      await page.getByRole('button', { name: 'Update quantity' }).click();
      await page.waitForLoadState('load');
      // 4 seats: 40.00 + 7.60 VAT, after a redirect back to the cart (Post/Redirect/Get).
      expect(new URL(page.url()).pathname).toBe(cartPath);
      expect(await dueToday(page)).toBe('€47.60');

      // forceCompany: company and VAT id are required; a malformed VAT id comes back at its field.
      const email = `nojs-${Date.now()}@example.com`;
      await fillAddress(page, email);
      await page.getByLabel('VAT ID').fill('DE12');
      await page.getByLabel('Test payment (testing gateway)').check();
      await page.getByRole('button', { name: /Order with obligation to pay/ }).click();
      await page.waitForLoadState('load');
      expect(await page.locator('#e-vatId').isVisible()).toBe(true);
      expect(await page.getByLabel('VAT ID').getAttribute('aria-describedby')).toContain('e-vatId');
      // What was typed is still there.
      expect(await page.getByLabel('City').inputValue()).toBe('Berlin');
      await screenshot(page, 'checkout-nojs-vat-error');

      // A French company with a registered VAT id: reverse charge, 40.00 without VAT.
      await page.getByLabel('Country').selectOption('FR');
      await page.getByLabel('VAT ID').fill('FR40303265045');
      await page.getByLabel('Test payment (testing gateway)').check();
      await page.getByRole('button', { name: /Order with obligation to pay/ }).click();
      await page.waitForLoadState('load');
      await screenshot(page, 'checkout-nojs-completed');
      expect(await page.locator('h1').first().innerText()).toBe('Thank you for your order');
      expect(await page.getByText('€40.00').isVisible()).toBe(true);

      await expectOrder(shop.key, email, '40.00');
    } finally {
      await context.close();
    }
  });

  it('answers an unknown link and an unknown cart with a 404 page in the buyer\'s language', async () => {
    const context = await browser.newContext({ locale: 'de-DE', javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      const res = await page.goto(`${server().url}/checkout/no-such-tenant/no-such-link`);
      expect(res?.status()).toBe(404);
      expect(await page.locator('h1').innerText()).toBe('Bestellung nicht gefunden');
      const cart = await page.goto(`${server().url}/checkout/cart/cart_doesnotexist0000`);
      expect(cart?.status()).toBe(404);
      expect(cart?.headers()['cache-control']).toBe('no-store');
    } finally {
      await context.close();
    }
    // The API's own 404 for the same cart stays problem+json.
    const r = await api('GET', '/public/checkout/cart/cart_doesnotexist0000', null);
    expect(r.status).toBe(404);
  });
});
