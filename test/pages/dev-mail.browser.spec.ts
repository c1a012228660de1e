import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, eventually, launchChromium, mailsTo, must, screenshot, server } from './harness';

// The local mail outbox page (/dev/mail) in Chromium, on the local Worker (development): an
// invoice sent with its PDF and XML, and a one-time code, each readable as a developer would.

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

it('lists the mails and shows one with its body and its attachments', async () => {
  const created = await must('POST', '/admin/tenants', server().adminToken, { name: 'Outbox Demo GmbH', countryCode: 'DE', defaultCurrency: 'EUR', timeZone: 'Europe/Berlin', mode: 'test' });
  const key: string = created.apiKey.key;
  const tenantId: string = created.tenant.id;
  await must('PUT', '/settings/documents', key, {
    seller: { name: 'Outbox Demo GmbH', street: 'Hauptstraße 1', zip: '10115', city: 'Berlin', vatId: 'DE123456789', email: 'billing@outbox.example' },
    bankAccount: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', accountName: 'Outbox Demo GmbH', bankName: 'Commerzbank' },
  });
  const email = `ada-${Date.now()}@kunde.example`;
  const customer = await must('POST', '/customers', key, { email, firstName: 'Ada', lastName: 'Lovelace', countryCode: 'DE', language: 'en' });
  const draft = await must('POST', '/invoices', key, { customer: customer.id, positions: [{ name: 'Consulting', unitPrice: '100.00', quantity: '1', taxRate: '19' }] });
  const invoice = await must('POST', `/invoices/${draft.id}/finalize`, key, {});
  await must('POST', `/invoices/${invoice.id}/resend`, key, {});
  expect((await api('POST', '/public/customer/request-otp', key, { email })).status).toBe(200);
  // The code is mailed after the answer.
  const mails = await eventually(() => mailsTo(tenantId, email), (m) => m.length === 2);
  const code = /\b(\d{6})\b/.exec(mails.find((m) => m.subject === 'Your login code')!.body)![1]!;

  const page = await browser.newPage();
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${server().url}/dev/mail?tenant=${tenantId}`);
  const rows = page.locator('tbody tr');
  await expect.poll(() => rows.count()).toBe(2);
  expect(await page.locator('tbody').innerText()).toContain(`${invoice.number}.pdf, ${invoice.number}.xml`);
  await screenshot(page, 'dev-mail-list');

  await page.getByRole('link', { name: invoice.number, exact: true }).click();
  expect(await page.locator('pre').innerText()).toBe(`Your document ${invoice.number} is attached.`);
  expect(await page.getByRole('link', { name: `${invoice.number}.pdf` }).count()).toBe(1);
  await screenshot(page, 'dev-mail-invoice');

  await page.goBack();
  await page.getByRole('link', { name: 'Your login code' }).click();
  expect(await page.locator('pre').innerText()).toContain(`Your login code is ${code}.`);
  await screenshot(page, 'dev-mail-code');
  // Nothing but the local Worker was asked for anything.
  expect(requests.filter((u) => !u.startsWith(server().url))).toEqual([]);
  await page.close();
});
