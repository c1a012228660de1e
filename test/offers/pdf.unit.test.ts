import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PdfAssets } from '../../src/documents/assets';
import type { AuditLogModel, SignedOfferModel } from '../../src/documents/offer/model';
import { renderAuditLog, renderSignedOffer } from '../../src/documents/offer/pdf';
import { sanitizeRichText } from '../../src/lib/rich-text';
import { pdfText } from '../support/oracles.node';

// The offer PDFs as a reader sees them (poppler's text), in both languages, and byte-identical
// when rendered twice. The fonts are read from disk (Node cannot load the data modules). With
// OFFER_PDF_DIR set, the files are written there for a person to look at.

const root = new URL('../../', import.meta.url);
const read = (path: string) => new Uint8Array(readFileSync(new URL(path, root)));
const assets: PdfAssets = {
  regular: read('node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
  bold: read('node_modules/dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'),
  srgbIcc: read('src/documents/assets/sRGB2014.icc'),
};

const text = async (pdf: Uint8Array) => (await pdfText(pdf)).replace(/[ \u00a0]+/g, ' ');

async function keep(name: string, pdf: Uint8Array) {
  const dir = process.env.OFFER_PDF_DIR;
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir || tmpdir(), name), pdf);
}

function signedModel(language: 'de' | 'en'): SignedOfferModel {
  return {
    language,
    seller: { name: 'Acme Software GmbH', lines: ['Hauptstraße 1', '10115 Berlin', 'sales@acme.example'] },
    buyer: { name: 'Käufer AG', lines: ['C-00042', 'einkauf@kaeufer.example'] },
    number: 'AN-000017',
    title: 'Team-Lizenz 2027',
    description: 'Unser Angebot für Ihr Team.',
    sections: [
      sanitizeRichText('<h2>Leistungsumfang</h2><p>Sie erhalten <strong>alle Funktionen</strong> der Plattform, <em>inklusive</em> Support. Mehr unter <a href="https://acme.example/docs">der Dokumentation</a>.</p><ul><li>Unbegrenzte Projekte</li><li>SSO<ul><li>SAML</li><li>OIDC</li></ul></li></ul><ol><li>Kick-off</li><li>Einrichtung</li></ol><blockquote>Zitat eines zufriedenen Kunden.</blockquote><hr><p>Zeile eins<br>Zeile zwei</p>'),
      sanitizeRichText('<p onclick="alert(1)">Kein <script>alert(2)</script>Skript</p>'),
    ],
    currency: 'EUR',
    lineItems: [
      { name: 'Team seats', description: 'Arbeitsplätze', quantity: '5', billingInterval: '1M', type: 'recurring', payInAdvance: true, unitPrice: '10.00', recurringAmount: '50.00', firstInvoiceAmount: '50.00', taxRate: '19' },
      { name: 'Onboarding', description: null, quantity: '1', billingInterval: null, type: 'one_time', payInAdvance: true, unitPrice: '250.00', recurringAmount: null, firstInvoiceAmount: '250.00', taxRate: '19' },
      { name: 'API calls', description: null, quantity: '1', billingInterval: '1M', type: 'metered', payInAdvance: false, unitPrice: '0.0125', recurringAmount: null, firstInvoiceAmount: null, taxRate: null },
    ],
    totals: { net: '300.00', discount: '0.00', tax: '57.00', gross: '357.00', firstBillingDate: '2027-01-01T00:00:00.000Z' },
    terms: { contractStart: null, contractPeriod: '1Y', cancellationPeriod: '3M', trialDays: 14 },
    contactPerson: 'Max Vertrieb',
    pricedAt: '2026-12-01T09:00:00.000Z',
    signedAt: '2026-12-02T10:15:30.000Z',
    signatures: [
      { name: 'Erika Mustermann', email: 'erika@kaeufer.example', signingName: 'Erika Mustermann', signedAt: '2026-12-02T10:00:00.000Z' },
      { name: 'Hans Prokura', email: 'hans@kaeufer.example', signingName: 'Hans P. Prokura', signedAt: '2026-12-02T10:15:30.000Z' },
    ],
  };
}

function auditModel(language: 'de' | 'en'): AuditLogModel {
  return {
    language,
    seller: 'Acme Software GmbH',
    number: 'AN-000017',
    title: 'Team-Lizenz 2027',
    signedAt: '2026-12-02T10:15:30.000Z',
    signedDocument: { fileName: 'AN-000017-signed.pdf', sha256: 'a'.repeat(64), byteSize: 12345 },
    recipients: [
      { name: 'Erika Mustermann', email: 'erika@kaeufer.example', role: 'sign', signingStatus: 'signed', signingName: 'Erika Mustermann', signedAt: '2026-12-02T10:00:00.000Z' },
      { name: 'Leser', email: 'cc@kaeufer.example', role: 'read', signingStatus: 'started', signingName: null, signedAt: null },
    ],
    entries: [
      { at: '2026-12-01T09:00:00.000Z', recipient: 'Erika Mustermann <erika@kaeufer.example>', action: 'invited', ip: null, userAgent: null },
      { at: '2026-12-02T09:58:00.000Z', recipient: 'Erika Mustermann <erika@kaeufer.example>', action: 'viewed', ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36' },
      { at: '2026-12-02T09:59:00.000Z', recipient: 'Erika Mustermann <erika@kaeufer.example>', action: 'code_sent', ip: '203.0.113.7', userAgent: 'Mozilla/5.0' },
      { at: '2026-12-02T10:00:00.000Z', recipient: 'Erika Mustermann <erika@kaeufer.example>', action: 'signed', ip: '203.0.113.7', userAgent: 'Mozilla/5.0' },
    ],
  };
}

describe('signed offer PDF', () => {
  it('shows the offer, its sections without markup or script, the line items, the terms and every signature (de)', async () => {
    const pdf = await renderSignedOffer(signedModel('de'), assets);
    await keep('signed-de.pdf', pdf);
    const t = await text(pdf);
    for (const expected of [
      'Angebot AN-000017: Team-Lizenz 2027',
      'Acme Software GmbH',
      'Käufer AG',
      'Leistungsumfang',
      'alle Funktionen',
      '<https://acme.example/docs>',
      'SAML',
      '1. Kick-off',
      'Kein Skript',
      'Team seats',
      '50,00 €',
      '250,00 €',
      '0,0125 €',
      'nach Verbrauch',
      'Erste Rechnung brutto 357,00 €',
      'Laufzeit 1 Jahr',
      'Kündigungsfrist 3 Monate',
      'Testzeitraum 14 Tage',
      'Unterschriften',
      'einfache elektronische Signatur',
      'Hans P. Prokura',
      'Unterschrieben von Hans Prokura <hans@kaeufer.example>',
      '2026-12-02 10:15:30 UTC',
    ]) {
      expect(t).toContain(expected);
    }
    expect(t).not.toMatch(/alert|<script|onclick|<strong>/);
  });

  it('speaks English when the offer does, and renders the same bytes twice', async () => {
    const first = await renderSignedOffer(signedModel('en'), assets);
    const second = await renderSignedOffer(signedModel('en'), assets);
    await keep('signed-en.pdf', first);
    expect(Buffer.from(first).equals(Buffer.from(second))).toBe(true);
    const t = await text(first);
    expect(t).toContain('Offer AN-000017: Team-Lizenz 2027');
    expect(t).toContain('€357.00');
    expect(t).toContain('Term 1 year');
    expect(t).toContain('simple electronic signature');
  });

  it('breaks long offers over pages and numbers them', async () => {
    const model = signedModel('de');
    model.sections = Array.from({ length: 40 }, (_, i) => sanitizeRichText(`<h3>Abschnitt ${i + 1}</h3><p>${'Lorem ipsum dolor sit amet. '.repeat(20)}</p>`));
    const t = await text(await renderSignedOffer(model, assets));
    const pages = Number(/Seite 1 von (\d+)/.exec(t)?.[1]);
    expect(pages).toBeGreaterThan(5);
    expect(t).toContain(`Seite ${pages} von ${pages}`);
    expect(t).toContain('Abschnitt 40');
  });
});

describe('audit log PDF', () => {
  it('lists every entry with time, IP and user agent, and the hash of the signed document', async () => {
    for (const lang of ['de', 'en'] as const) {
      const pdf = await renderAuditLog(auditModel(lang), assets);
      await keep(`audit-${lang}.pdf`, pdf);
      const t = await text(pdf);
      expect(t).toContain(`SHA-256: ${'a'.repeat(64)}`);
      expect(t).toContain('AN-000017-signed.pdf');
      expect(t).toContain('IP 203.0.113.7');
      expect(t).toContain('Chrome/131.0.0.0');
      expect(t).toContain('2026-12-02 09:58:00 UTC');
      expect(t).toContain(lang === 'de' ? 'Unterschrieben (Code' : 'Signed (code');
      expect(t).toContain(lang === 'de' ? 'durch den Anbieter' : 'by the seller');
    }
  });
});
