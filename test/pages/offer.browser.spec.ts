import { createHash } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfText } from '../support/oracles.node';
import { api, keepFile, launchChromium, mailsTo, must, screenshot, tenantWithSeats } from './harness';

// The hosted offer page in Chromium, as a buyer uses it: open the personal link from the
// invitation, read, ask for a code, take it from the mail outbox, type the name, sign. Afterwards
// the tenant API must show the offer signed, both PDFs stored (their text as a reader sees it, the
// audit log naming the signed file's SHA-256) and the subscription active.

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

interface OfferSetup {
  tenantId: string;
  key: string;
  offer: any;
  signerLink: string;
  readerLink: string;
}

/** A tenant selling 5 seats at 10.00 EUR a month and an onboarding fee to a customer, through an offer to a signer and a reader. */
async function offerSetup(locale: 'de' | 'en'): Promise<OfferSetup> {
  const { tenantId, key, post, family, measurement, taxGroup, product: seats, price: seatPrice } = await tenantWithSeats('Angebot Software GmbH', 'Team seats');
  const setup = await post('/catalogue/products', { name: 'Onboarding', type: 'charge', productFamilies: [family.id], measurement: measurement.id, taxGroup: taxGroup.id });
  const setupPrice = await post('/price-plans', { product: setup.id, calculationType: 'flat_fee', currencyCode: 'EUR', price: { amount: '250.00' } });
  const customer = await post('/customers', { email: `buyer-${Date.now()}@kaeufer.example`, companyName: 'Käufer GmbH', countryCode: 'DE', language: locale });
  const terms = await post('/offer-templates', { name: 'Terms', sections: ['<h2>Bedingungen</h2><ol><li>Zahlung binnen 14 Tagen</li><li>Support per E-Mail</li></ol>'] });
  const offer = await post('/offers', {
    customer: customer.id,
    name: locale === 'de' ? 'Team-Lizenz 2027' : 'Team licence 2027',
    description: locale === 'de' ? 'Ihr Angebot für das ganze Team.' : 'Your offer for the whole team.',
    sections: ['<h2>Leistungsumfang</h2><p>Alle <strong>Funktionen</strong>, <em>unbegrenzte</em> Projekte, Support.</p><ul><li>SSO</li><li>Audit-Log</li></ul>'],
    templates: [terms.id],
    locale,
    subscription: {
      items: [
        { product: seats.id, pricePlan: seatPrice.id, quantity: '5' },
        { product: setup.id, pricePlan: setupPrice.id, quantity: '1' },
      ],
      periods: { contractPeriod: '1Y', cancellationPeriod: '3M' },
    },
  });
  await post(`/offers/${offer.id}/recipients`, { email: 'signer@kaeufer.example', firstName: 'Sina', lastName: 'Signer', role: 'sign', sendEmail: true });
  await post(`/offers/${offer.id}/recipients`, { email: 'reader@kaeufer.example', firstName: 'Rolf', lastName: 'Reader', role: 'read' });
  const withLinks = await must('GET', `/offers/${offer.id}`, key);
  const link = (email: string) => withLinks.recipients.find((r: any) => r.email === email).link as string;
  return { tenantId, key, offer, signerLink: link('signer@kaeufer.example'), readerLink: link('reader@kaeufer.example') };
}

/** The code of the last signing mail to an address, from the local Worker's mail outbox. */
async function codeFor(tenantId: string, to: string): Promise<string> {
  const mails = await mailsTo(tenantId, to);
  const code = /(?:lautet|is) (\d{6})\./.exec(mails.at(-1)?.body ?? '')?.[1];
  expect(code, JSON.stringify(mails)).toBeDefined();
  return code!;
}

async function files(key: string, offerId: string) {
  const links = await must('PUT', `/offers/${offerId}/download-link`, key);
  const fetchBytes = async (url: string) => {
    const res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/pdf');
    return new Uint8Array(await res.arrayBuffer());
  };
  return { signed: await fetchBytes(links.signedDocumentUrl), audit: await fetchBytes(links.auditLogDocumentUrl) };
}

const text = async (pdf: Uint8Array) => (await pdfText(pdf)).replace(/[ \u00a0]+/g, ' ');

async function signOnPage(page: Page, s: OfferSetup, labels: { sendCode: string; code: string; name: string; accept: string; sign: string; done: string }) {
  await page.getByRole('button', { name: labels.sendCode }).click();
  await expect.poll(() => page.getByLabel(labels.code).isVisible()).toBe(true);
  await page.getByLabel(labels.code).fill(await codeFor(s.tenantId, 'signer@kaeufer.example'));
  await page.getByLabel(labels.name).fill('Sina Signer');
  await page.getByLabel(labels.accept).check();
  await page.getByRole('button', { name: labels.sign }).click();
  await expect.poll(() => page.getByRole('heading', { name: labels.done }).isVisible()).toBe(true);
}

describe('offer page in Chromium', () => {
  it('is read and signed from the link in the invitation (German, desktop), and the tenant sees it signed with both PDFs', async () => {
    const s = await offerSetup('de');
    const context = await browser.newContext({ locale: 'de-DE', viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (e) => failures.push(e.message));
    // Every resource the page asks for loads (the favicon aside: the page names none).
    page.on('response', (r) => r.request().resourceType() !== 'document' && !r.url().endsWith('/favicon.ico') && r.status() >= 400 && failures.push(`${r.status()} ${r.url()}`));
    try {
      // The invitation carries the same link the tenant sees.
      const [invitation] = await mailsTo(s.tenantId, 'signer@kaeufer.example');
      expect(invitation!.body).toContain(s.signerLink);
      await page.goto(s.signerLink);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Angebot AN-000001: Team-Lizenz 2027');
      expect(await page.locator('[data-total=gross]').innerText()).toBe('357,00\u00a0€');
      expect(await page.getByRole('heading', { name: 'Bedingungen', exact: true }).isVisible()).toBe(true);
      expect(await page.locator('script').count()).toBe(0);
      await screenshot(page, 'offer-de-desktop');

      // Printable: the signing form is not printed.
      await page.emulateMedia({ media: 'print' });
      expect(await page.evaluate<string>("getComputedStyle(document.querySelector('#sign form')).display")).toBe('none');
      await page.emulateMedia({ media: 'screen' });

      // A wrong code is shown at its field; the right one signs.
      await page.getByRole('button', { name: 'Code per E-Mail schicken' }).click();
      await expect.poll(() => page.getByLabel('Code aus der E-Mail').isVisible()).toBe(true);
      const code = await codeFor(s.tenantId, 'signer@kaeufer.example');
      await page.getByLabel('Code aus der E-Mail').fill(code === '000000' ? '111111' : '000000');
      await page.getByLabel('Ihr vollständiger Name').fill('Sina Signer');
      await page.getByLabel('Ich nehme dieses Angebot an und unterschreibe es elektronisch.').check();
      await page.getByRole('button', { name: 'Verbindlich unterschreiben' }).click();
      await expect.poll(() => page.locator('#e-code').innerText()).toContain('Der Code ist falsch');
      expect(await page.getByLabel('Code aus der E-Mail').getAttribute('aria-invalid')).toBe('true');
      await screenshot(page, 'offer-de-desktop-wrong-code');
      await page.getByLabel('Code aus der E-Mail').fill(code);
      await page.getByLabel('Ich nehme dieses Angebot an und unterschreibe es elektronisch.').check();
      await page.getByRole('button', { name: 'Verbindlich unterschreiben' }).click();
      await expect.poll(() => page.getByRole('heading', { name: 'Angebot angenommen' }).isVisible()).toBe(true);
      expect(await page.getByRole('link', { name: 'Unterschriebenes Angebot herunterladen (PDF)' }).isVisible()).toBe(true);
      await screenshot(page, 'offer-de-desktop-signed');
      expect(failures).toEqual([]);
    } finally {
      await context.close();
    }

    // The tenant's view: signed, both files, the subscription started by itself.
    const offer = await must('GET', `/offers/${s.offer.id}`, s.key);
    expect(offer.status).toBe('signed');
    expect(offer.signedDocument).toMatchObject({ fileName: 'AN-000001-signed.pdf', mimeType: 'application/pdf' });
    expect(offer.auditLogDocument).toMatchObject({ fileName: 'AN-000001-audit-log.pdf', mimeType: 'application/pdf' });
    expect(offer.subscription.status).toBe('active');
    const signer = offer.recipients.find((r: any) => r.email === 'signer@kaeufer.example');
    expect(signer).toMatchObject({ signingStatus: 'signed', signingName: 'Sina Signer' });
    const signedEntry = signer.signingLog.find((e: any) => e.action === 'signed');
    expect(signedEntry.userAgent).toMatch(/Chrome/);
    // Each page load is a view; the page shown again after the wrong code is not a new one.
    expect(signer.signingLog.map((e: any) => e.action)).toEqual(['invited', 'viewed', 'code_sent', 'viewed', 'code_rejected', 'signed', 'viewed']);

    const { signed, audit } = await files(s.key, s.offer.id);
    keepFile('offer-signed-de.pdf', signed);
    keepFile('offer-audit-log-de.pdf', audit);
    const signedText = await text(signed);
    for (const expected of ['Angebot AN-000001: Team-Lizenz 2027', 'Leistungsumfang', 'Zahlung binnen 14 Tagen', 'Team seats', '357,00 €', 'Laufzeit 1 Jahr', 'Unterschriften', 'Sina Signer', 'Unterschrieben von Sina Signer <signer@kaeufer.example>']) {
      expect(signedText).toContain(expected);
    }
    const hash = createHash('sha256').update(signed).digest('hex');
    const auditText = await text(audit);
    expect(auditText).toContain(`SHA-256: ${hash}`);
    for (const expected of ['Prüfprotokoll', 'Einladung per E-Mail', 'Angebot geöffnet', 'Code per E-Mail', 'Falscher oder', 'Unterschrieben (Code', 'Rolf Reader <reader@kaeufer.example>']) {
      expect(auditText).toContain(expected);
    }
  });

  it('works at phone width in English, for the signer and for a reader', async () => {
    const s = await offerSetup('en');
    const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    try {
      await page.goto(s.readerLink);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Offer AN-000001: Team licence 2027');
      expect(await page.getByText('You received this offer to read.').isVisible()).toBe(true);
      expect(await page.locator('form').count()).toBe(0);
      // Nothing is wider than the phone's screen but the table, which scrolls on its own.
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await screenshot(page, 'offer-en-mobile-reader');

      await page.goto(s.signerLink);
      expect(await page.locator('[data-total=gross]').innerText()).toBe('€357.00');
      await screenshot(page, 'offer-en-mobile');
      await signOnPage(page, s, { sendCode: 'E-mail me a code', code: 'Code from the e-mail', name: 'Your full name', accept: 'I accept this offer and sign it electronically.', sign: 'Sign bindingly', done: 'Offer accepted' });
      await screenshot(page, 'offer-en-mobile-signed');

      // The language can be switched on the page.
      await page.getByRole('link', { name: 'Language: Deutsch' }).click();
      await expect.poll(() => page.getByRole('heading', { name: 'Angebot angenommen' }).isVisible()).toBe(true);
      await screenshot(page, 'offer-de-mobile-signed');
    } finally {
      await context.close();
    }
    const offer = await must('GET', `/offers/${s.offer.id}`, s.key);
    expect(offer.status).toBe('signed');
    expect(offer.subscription.status).toBe('active');
    expect((await api('GET', `/offers/${s.offer.id}`, s.key)).status).toBe(200);
  });

  it('shows a German phone the offer before signing and an English desktop the same', async () => {
    const s = await offerSetup('de');
    for (const [name, viewport, lang] of [
      ['offer-de-mobile', { width: 390, height: 844 }, ''],
      ['offer-en-desktop', { width: 1200, height: 900 }, '?lang=en'],
    ] as const) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      try {
        await page.goto(s.signerLink + lang);
        await expect.poll(() => page.getByRole('heading', { level: 1 }).isVisible()).toBe(true);
        await screenshot(page, name);
      } finally {
        await context.close();
      }
    }
  });
});
