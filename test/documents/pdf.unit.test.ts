import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { PdfAssets } from '../../src/documents/assets';
import type { DocumentModel } from '../../src/documents/model';
import fontkit from '@pdf-lib/fontkit';
import { renderPdf } from '../../src/documents/pdf';
import { requestLocalFontkit } from '../../src/documents/pdf/fontkit';
import { pdfAttachments, pdfInfo, pdfText } from '../support/oracles.node';
import { cases, germanBuyer, invoiceModel } from './models';

// The PDF as a reader sees it: poppler extracts the text and we look for what the document must
// say, in its language's format. src/documents/assets.ts imports the fonts as Cloudflare data
// modules, which Node cannot load; the same files are read from disk here.

const root = new URL('../../', import.meta.url);
const read = (path: string) => new Uint8Array(readFileSync(new URL(path, root)));
const assets: PdfAssets = {
  regular: read('node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
  bold: read('node_modules/dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'),
  srgbIcc: read('src/documents/assets/sRGB2014.icc'),
};

/** pdftotext's layout with runs of spaces collapsed, so a label and its value read "Label value". */
async function textOf(pdf: Uint8Array): Promise<string> {
  return (await pdfText(pdf)).replace(/[ \u00a0]+/g, ' ');
}

const run = promisify(execFile);

/** Runs a poppler tool on the PDF and answers its standard output. */
async function poppler(tool: string, args: string[], pdf: Uint8Array): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pdf-test-'));
  try {
    await writeFile(join(dir, 'd.pdf'), pdf);
    return (await run(tool, [...args, join(dir, 'd.pdf'), ...(tool === 'pdftotext' ? ['-'] : [])], { maxBuffer: 16 * 1024 * 1024 })).stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** pdfinfo's fields (the shared `pdfInfo` runs `pdfinfo -meta`, which prints only the XMP packet). */
async function infoFields(pdf: Uint8Array): Promise<Record<string, string>> {
  const stdout = await poppler('pdfinfo', [], pdf);
  return Object.fromEntries(
    stdout.split('\n').flatMap((line) => {
      const m = /^([A-Za-z ]+):\s+(.*)$/.exec(line);
      return m ? [[m[1]!, m[2]!]] : [];
    }),
  );
}

interface Word {
  page: number;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  text: string;
}

/** Every word with its box (poppler's -bbox), to check that nothing leaves the margins or overlaps. */
async function words(pdf: Uint8Array): Promise<Word[]> {
  const out: Word[] = [];
  let page = 0;
  for (const line of (await poppler('pdftotext', ['-bbox'], pdf)).split('\n')) {
    if (line.includes('<page ')) page++;
    const m = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*)<\/word>/.exec(line);
    if (m) out.push({ page, x1: +m[1]!, y1: +m[2]!, x2: +m[3]!, y2: +m[4]!, text: m[5]! });
  }
  return out;
}

const MM = 72 / 25.4;

/** No word crosses the DIN 5008 margins (25 mm left, 20 mm right) or covers another. */
async function expectTidy(pdf: Uint8Array): Promise<void> {
  const all = await words(pdf);
  for (const w of all) {
    expect(w.x1, w.text).toBeGreaterThanOrEqual(25 * MM - 0.5);
    expect(w.x2, w.text).toBeLessThanOrEqual(595.28 - 20 * MM + 0.5);
  }
  for (const [i, a] of all.entries())
    for (const b of all.slice(i + 1)) {
      const overlap = a.page === b.page && a.x1 < b.x2 - 0.5 && b.x1 < a.x2 - 0.5 && a.y1 < b.y2 - 0.5 && b.y1 < a.y2 - 0.5;
      expect(overlap, `${a.text} overlaps ${b.text}`).toBe(false);
    }
}

const expectations: Record<string, string[]> = {
  plainDe19: [
    'Rechnung RE-0000000001',
    'Rechnungsnummer RE-0000000001',
    'Rechnungsdatum 02.11.2026',
    'Fällig am 16.11.2026',
    'Leistungszeitraum 01.11.2026 – 30.11.2026',
    'Kundennummer C-00042',
    'Ihre Bestellung PO-2026-117',
    'Vertrag S-00000007',
    '1 Pro-Tarif (monatlich) 1 103,99 € 103,99 €',
    'Zeitraum: 01.11.2026 – 30.11.2026',
    'Nettobetrag 103,99 €',
    '19 % USt auf 103,99 € 19,76 €',
    'Gesamtbetrag 123,75 €',
    'Bitte überweisen Sie 123,75 € bis zum 16.11.2026 auf folgendes Konto:',
    'IBAN DE02 1203 0000 0000 2020 51',
    'BIC BYLADEM1001',
    'Verwendungszweck RE-0000000001',
    'Zahlbar innerhalb von 14 Tagen ohne Abzug bis zum 16.11.2026.',
    'Mit Ihrer Banking-App',
    'Mit freundlichen Grüßen',
    'Seite 1 von 1',
    'USt-IdNr. DE123456789',
    'Steuernummer 143/123/45678',
    'Amtsgericht München HRB 123456',
    'Łukasiewicz',
  ],
  mixedRates: ['19 % USt auf 100,00 € 19,00 €', '7 % USt auf 50,00 € 3,50 €', 'Nettobetrag 150,00 €', 'Gesamtbetrag 172,50 €', 'Fachbuch „Abrechnung“'],
  reverseChargeAt: [
    'Invoice RE-0000000002',
    'Invoice number RE-0000000002',
    'Invoice date 2 November 2026',
    'Due date 16 November 2026',
    'AUSTRIA',
    'Your VAT ID ATU12345678',
    '1 Consulting day 2 day €250.00 €500.00',
    'VAT 0% on €500.00 (reverse charge) €0.00',
    'Total €500.00',
    'Reverse charge: the recipient is liable for VAT (Art. 196 VAT Directive).',
    'Please transfer €500.00 by 16 November 2026 to the following account:',
    'Page 1 of 1',
  ],
  exemptCustomer: ['0 % USt auf 80,00 € (steuerbefreit) 0,00 €', 'Gesamtbetrag 80,00 €', 'Steuerfreie Leistung gemäß § 4 UStG.'],
  nonEuCustomer: ['SWITZERLAND', 'Total €1,200.00', 'Not taxable in Germany: service to a recipient outside the EU.', '1 November 2026 –'],
  usdConverted: [
    '1 Enterprise plan (monthly) 1 $1,302.00 $1,302.00',
    'Total $1,302.00',
    'Exchange rates',
    '1 EUR = 1.0850 USD Rate date 30 October 2026 European Central Bank reference rate',
    'UNITED STATES',
  ],
  consolidated: [
    'Team-Abo (S-00000007)',
    'Abrechnungszeitraum 01.11.2026 – 30.11.2026',
    '2 Zusätzlicher Nutzer 2 Nutzer 19,90 € 39,80 €',
    'Speicher-Abo (S-00000008)',
    '19 % USt auf 187,80 € 35,68 €',
    'Gesamtbetrag 223,48 €',
  ],
  discounts: [
    '1 API-Kontingent 10 Paket 12,50 € -12,50 € 112,50 €',
    '(10 %)',
    '2 Einrichtung 1 200,00 € -25,00 € 175,00 €',
    'Summe der Positionen 325,00 €',
    'Rabatte -37,50 €',
    'Nettobetrag 287,50 €',
    '19 % USt auf 287,50 € 54,63 €',
    'Gesamtbetrag 342,13 €',
    'Bereits bezahlt -40,00 €',
    'Offener Betrag 302,13 €',
    'Bitte überweisen Sie 302,13 €',
  ],
  creditNote: ['Gutschrift GS-0000000001 zu RE-0000000001', 'Gutschriftsnummer GS-0000000001', 'Zur Rechnung RE-0000000001 vom', '19 % USt auf 12,99 € 2,47 €', 'Gesamtbetrag 15,46 €'],
  cancellation: [
    'Stornonummer ST-0000000001',
    'Zur Rechnung RE-0000000001 vom',
    '1 Storno: Pro-Tarif (monatlich) -1 103,99 € -103,99 €',
    '19 % USt auf -103,99 € -19,76 €',
    'Gesamtbetrag -123,75 €',
  ],
  xrechnung: ['Ihre Referenz 04011000-12345-03', 'Gesamtbetrag 123,75 €'],
};

describe('renderPdf', () => {
  it.each(Object.keys(cases))('%s: shows what the document says, in its language', async (name) => {
    const text = await textOf(await renderPdf(cases[name]!, assets));
    for (const expected of expectations[name] ?? []) expect(text, `${name} lacks ${JSON.stringify(expected)}`).toContain(expected);
    expect(text).not.toContain(cases[name]!.language === 'de' ? 'PREVIEW' : 'VORSCHAU');
  });

  it.each(Object.keys(cases))('%s: keeps every word inside the margins and apart from the others', async (name) => {
    await expectTidy(await renderPdf(cases[name]!, assets));
  });

  it('says what is due when nothing is due: a credit note or cancellation has no due date and no transfer', async () => {
    for (const name of ['creditNote', 'cancellation']) {
      const text = await textOf(await renderPdf(cases[name]!, assets));
      expect(text).not.toContain('Fällig am');
      expect(text).not.toContain('Bitte überweisen');
      expect(text).not.toContain('Banking-App');
    }
  });

  it.each<[string, DocumentModel['payment'], string[], string[]]>([
    [
      'direct debit',
      {
        meansCode: '59',
        meansText: 'SEPA-Lastschrift',
        remittance: 'RE-0000000001',
        creditTransfer: null,
        directDebit: { mandateReference: 'MD-0042', creditorId: 'DE98ZZZ09999999999', debitedIban: 'DE89370400440532013000' },
        terms: 'Der Betrag wird fristgerecht eingezogen.',
      },
      ['Der Betrag von 123,75 € wird zum 16.11.2026 per SEPA-Lastschrift', 'DE89 XXXX XXXX XXXX XX30 00', 'eingezogen.', 'Mandatsreferenz MD-0042', 'Gläubiger-ID DE98ZZZ09999999999', 'Der Betrag wird fristgerecht eingezogen.'],
      ['DE89370400440532013000', 'DE89 3704', 'Bitte überweisen', 'Banking-App'],
    ],
    [
      'credit card',
      { meansCode: '54', meansText: 'Kreditkarte', remittance: null, creditTransfer: null, directDebit: null, terms: null },
      ['Der Betrag von 123,75 € wird über Kreditkarte beglichen.'],
      ['Bitte überweisen', 'Banking-App'],
    ],
  ])('tells how the amount is paid by %s', async (_, payment, present, absent) => {
    const text = await textOf(await renderPdf({ ...cases.plainDe19!, payment }, assets));
    for (const s of present) expect(text).toContain(s);
    for (const s of absent) expect(text).not.toContain(s);
  });

  it('renders umlauts, ß, é, ł, German quotes and the euro sign', async () => {
    const doc = invoiceModel({
      buyer: { ...germanBuyer, name: 'Café Zoë Łódź' },
      specs: [{ name: 'Größe „Übermaß“ für Öfen', quantity: '1', unitPrice: '10.00' }],
    });
    const text = await textOf(await renderPdf(doc, assets));
    for (const s of ['Café Zoë Łódź', 'Größe „Übermaß“ für Öfen', 'Jörg Weiß', 'Leopoldstraße', 'Łukasiewicz', '11,90 €']) expect(text).toContain(s);
  });

  it.each([
    ['de', 'VORSCHAU', 'Rechnungsnummer'],
    ['en', 'PREVIEW', 'Invoice number'],
  ] as const)('marks a preview (%s) and prints no number', async (language, mark, numberLabel) => {
    const base = cases.plainDe19!;
    const doc: DocumentModel = { ...base, language, preview: true, number: null, title: language === 'de' ? 'Rechnung' : 'Invoice', payment: { ...base.payment!, remittance: null } };
    const text = await textOf(await renderPdf(doc, assets));
    expect(text).toContain(mark);
    expect(text).not.toContain('RE-0000000001');
    expect(text).not.toContain(numberLabel);
    // A preview is not payable: no code a banking app would act on.
    expect(text).not.toMatch(/Banking-App|banking app/);
  });

  it('breaks a long document into pages, repeating the table header and numbering "Seite n von N"', async () => {
    const specs = Array.from({ length: 60 }, (_, i) => ({
      name: i === 0 ? 'Ein sehr langer Positionsname, der nicht in eine Zeile der Bezeichnungsspalte passt und darum umbrochen wird' : `Position ${i + 1}`,
      quantity: '1',
      unitPrice: '10.00',
    }));
    const pdf = await renderPdf(invoiceModel({ specs }), assets);
    const pages = Number((await infoFields(pdf)).Pages);
    expect(pages).toBeGreaterThanOrEqual(2);
    const text = await textOf(pdf);
    const pageTexts = text.split('\f').filter((p) => p.trim() !== '');
    expect(pageTexts).toHaveLength(pages);
    pageTexts.forEach((page, i) => {
      expect(page).toContain(`Seite ${i + 1} von ${pages}`);
      expect(page).toMatch(/Pos\. Bezeichnung Menge Einzelpreis Betrag/);
    });
    expect(text).toContain('Seite 2 von');
    expect(text).toContain('60 Position 60 1 10,00 € 10,00 €');
    // 600.00 net + 114.00 VAT: every row made it, none twice.
    expect(text).toContain('Gesamtbetrag 714,00 €');
    expect(text.match(/^ ?\d+ Position \d+ /gm)).toHaveLength(59);
    // The long name wrapped: its start and its end are on different lines.
    const first = text.split('\n').find((l) => l.includes('Ein sehr langer'))!;
    expect(first).not.toContain('umbrochen wird');
    expect(text).toContain('umbrochen wird');
    await expectTidy(pdf);
  });

  it('keeps a short closing on one page: the greeting never stays behind without its signature', async () => {
    // Around eleven lines the closing reaches the foot of the first page (checked against the
    // renderer without the rule: there the greeting stayed alone on page 1).
    const closing = 'Mit freundlichen Grüßen\nIhr Team von\nBeispiel Software GmbH';
    for (let n = 8; n <= 14; n++) {
      const specs = Array.from({ length: n }, (_, i) => ({ name: `Position ${i + 1}`, quantity: '1', unitPrice: '10.00' }));
      const pages = (await pdfText(await renderPdf(invoiceModel({ specs, closing }), assets))).split('\f');
      const page = pages.find((p) => p.includes('Mit freundlichen Grüßen'));
      expect(page, `${n} lines`).toMatch(/Mit freundlichen Grüßen\s*\n\s*Ihr Team von\s*\n\s*Beispiel Software GmbH/);
    }
  });

  it('moves the values of the information block right when a label needs the room', async () => {
    // "Cancellation number" is the widest label (29.4 mm of the 30 mm the column gives).
    const doc: DocumentModel = { ...cases.cancellation!, language: 'en', title: 'Cancellation ST-0000000001' };
    const all = await words(await renderPdf(doc, assets));
    const label = all.find((w) => w.text === 'number' && w.page === 1)!;
    const value = all.find((w) => w.text === 'ST-0000000001' && Math.abs(w.y1 - label.y1) < 1)!;
    expect(value.x1 - label.x2).toBeGreaterThanOrEqual(2 * MM);
    // The other values line up with it.
    const date = all.find((w) => w.text === '2' && w.page === 1 && w.x1 > 140 * MM)!;
    expect(date.x1).toBeCloseTo(value.x1, 1);
  });

  it('renders the same bytes for the same model and options', async () => {
    for (const doc of [cases.plainDe19!, cases.consolidated!]) {
      expect(Buffer.from(await renderPdf(doc, assets)).equals(Buffer.from(await renderPdf(doc, assets)))).toBe(true);
    }
    const xml = '<x>ä</x>';
    const a = await renderPdf(cases.plainDe19!, assets, { facturX: { xml } });
    const b = await renderPdf(cases.plainDe19!, assets, { facturX: { xml } });
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    expect(Buffer.from(a).equals(Buffer.from(await renderPdf(cases.plainDe19!, assets)))).toBe(false);
  });

  it('dates the file by the issue date and names a fixed producer', async () => {
    const info = await infoFields(await renderPdf(cases.plainDe19!, assets));
    expect(info.Title).toBe('Rechnung RE-0000000001');
    expect(info.Author).toBe('Beispiel Software GmbH');
    expect(info.CreationDate).toContain('Nov  2 00:00:00 2026');
    expect(info.ModDate).toContain('Nov  2 00:00:00 2026');
    expect(info['Page size']).toContain('(A4)');
    expect(info['Metadata Stream']).toBe('no');
  });

  it('draws the logo when the tenant has one', async () => {
    // A 1×1 PNG.
    const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));
    const plain = await renderPdf(cases.plainDe19!, assets);
    const withLogo = await renderPdf({ ...cases.plainDe19!, logo: { bytes: png, mimeType: 'image/png' } }, assets);
    expect(Buffer.from(withLogo).includes('/Subtype /Image')).toBe(true);
    expect(Buffer.from(plain).includes('/Subtype /Image')).toBe(false);
  });
});

describe('renderPdf with Factur-X', () => {
  const xml = readFileSync(new URL('test/oracles/einvoice/samples/cii-valid.xml', root), 'utf8');

  it('embeds the XML as factur-x.xml, byte for byte', async () => {
    const files = await pdfAttachments(await renderPdf(cases.plainDe19!, assets, { facturX: { xml } }));
    expect(Object.keys(files)).toEqual(['factur-x.xml']);
    expect(files['factur-x.xml']).toBe(xml);
  });

  it('declares PDF/A-3B and the Factur-X EN 16931 profile in XMP metadata matching the Info dictionary', async () => {
    const pdf = await renderPdf(cases.plainDe19!, assets, { facturX: { xml } });
    const info = await infoFields(pdf);
    const xmp = (await pdfInfo(pdf)).metadata!;
    expect(info['Metadata Stream']).toBe('yes');
    expect(xmp).toContain('<pdfaid:part>3</pdfaid:part>');
    expect(xmp).toContain('<pdfaid:conformance>B</pdfaid:conformance>');
    expect(xmp).toContain('<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>');
    expect(xmp).toContain('xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"');
    for (const p of ['DocumentFileName', 'DocumentType', 'Version', 'ConformanceLevel']) expect(xmp).toContain(`<pdfaProperty:name>${p}</pdfaProperty:name>`);
    expect(xmp).toContain('<fx:DocumentType>INVOICE</fx:DocumentType>');
    expect(xmp).toContain('<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>');
    expect(xmp).toContain('<fx:Version>1.0</fx:Version>');
    expect(xmp).toContain('<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>');
    expect(xmp).toContain(`<rdf:li xml:lang="x-default">${info.Title}</rdf:li>`);
    expect(xmp).toContain(`<rdf:li>${info.Author}</rdf:li>`);
    expect(xmp).toContain(`<pdf:Producer>${info.Producer}</pdf:Producer>`);
    expect(xmp).toContain(`<xmp:CreatorTool>${info.Creator}</xmp:CreatorTool>`);
    expect(xmp).toContain('<xmp:CreateDate>2026-11-02T00:00:00Z</xmp:CreateDate>');
    expect(xmp).toContain(`<rdf:li xml:lang="x-default">${info.Subject!.replace(/&/g, '&amp;')}</rdf:li>`);
  });

  it('carries the sRGB output intent, the associated file relationship and a file identifier', async () => {
    const raw = Buffer.from(await renderPdf(cases.plainDe19!, assets, { facturX: { xml } }));
    // pdf-lib writes object streams compressed; the structural keys are checked in the inflated objects.
    const objects = inflateAll(raw);
    expect(objects).toMatch(/\/Type \/OutputIntent\s*\/S \/GTS_PDFA1/);
    expect(objects).toMatch(/\/DestOutputProfile \d+ 0 R/);
    expect(objects).toMatch(/\/AF \[ \d+ 0 R \]/);
    expect(objects).toMatch(/\/Type \/Filespec\s*\/F \(factur-x\.xml\)[\s\S]*?\/AFRelationship \/Alternative/);
    expect(objects).toMatch(/\/Type \/EmbeddedFile\s*\/Subtype \/text#2Fxml/);
    expect(raw.toString('latin1')).toMatch(/\/ID \[ <[0-9a-f]{32}> <[0-9a-f]{32}> \]/);
    // PDF/A wants a binary comment right after the header.
    expect(raw.subarray(0, 14).toString('latin1')).toMatch(/^%PDF-1\.7\n%[\x80-\xff]{4}/);
  });

  it('still shows the same text', async () => {
    const text = await textOf(await renderPdf(cases.plainDe19!, assets, { facturX: { xml } }));
    for (const s of expectations.plainDe19!) expect(text).toContain(s);
  });
});

/** The PDF's objects with every Flate stream inflated, as latin1 text. */
function inflateAll(pdf: Buffer): string {
  const text = pdf.toString('latin1');
  const parts = [text];
  for (const m of text.matchAll(/stream\r?\n/g)) {
    const start = m.index! + m[0].length;
    const end = text.indexOf('endstream', start);
    try {
      parts.push(inflateSync(pdf.subarray(start, end)).toString('latin1'));
    } catch {
      // not a Flate stream (the XMP packet, the ICC profile's header…)
    }
  }
  return parts.join('\n');
}

describe('font subsets', () => {
  // The renderer writes subsets itself (src/documents/pdf/subset.ts), synchronously
  // (src/documents/pdf/fontkit.ts); the bytes must be fontkit's.
  async function fontkitStreamBytes(subset: ReturnType<ReturnType<typeof fontkit.create>['createSubset']>): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    await new Promise((resolve) => subset.encodeStream().on('data', (b) => parts.push(b)).on('end', resolve));
    return new Uint8Array(Buffer.concat(parts));
  }

  const fonts = [
    ['regular', assets.regular],
    ['bold', assets.bold],
  ] as const;

  async function expectSameSubset(bytes: Uint8Array, glyphsOf: (font: ReturnType<typeof fontkit.create>) => number[]) {
    const subsetOf = (kit: typeof fontkit) => {
      const font = kit.create(bytes);
      const subset = font.createSubset();
      for (const glyph of glyphsOf(font)) subset.includeGlyph(glyph);
      return subset;
    };
    const ours = subsetOf(requestLocalFontkit);
    const theirs = subsetOf(fontkit);
    const mine = await new Promise<Uint8Array>((resolve) => ours.encodeStream().on('data', resolve));
    expect(mine.length).toBeGreaterThan(1000);
    expect(Buffer.from(mine).equals(Buffer.from(await fontkitStreamBytes(theirs)))).toBe(true);
  }

  it.each(fonts)('writes the same %s subset as fontkit does', async (_name, bytes) => {
    const text = 'Rechnung Müller & Söhne – Grüße, Łukasiewicz: 1.234,56 € ½ Ωμέγα Жж';
    await expectSameSubset(bytes, (font) => font.layout(text).glyphs.map((g) => g.id));
  });

  it.each(fonts)('writes the same %s subset as fontkit does for every glyph of the font (composites, long offsets)', async (_name, bytes) => {
    await expectSameSubset(bytes, (font) => Array.from({ length: font.numGlyphs }, (_, i) => font.numGlyphs - 1 - i));
  });
});
