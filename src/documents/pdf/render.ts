// The PDF of a billing document: a pure function of the document model (and the fonts and colour
// profile it embeds), byte-identical for the same input, so a stored document can be re-rendered
// and compared, and tests can pin it.
import { requestLocalFontkit } from './fontkit';
import { PDFDocument, PDFHexString } from 'pdf-lib';
import type { PdfAssets } from '../assets';
import type { DocumentModel } from '../model';
import { Canvas, CONTINUATION_TOP, MM, PAGE } from './canvas';
import { compressContentStreams, useNativeDeflate } from './deflate';
import { makeFacturX, type DocumentInfo } from './facturx';
import { labelsFor } from './labels';
import { drawFirstPageHead, drawPageNumbers, drawPreviewMark, drawRunningHead, footer } from './letter';
import { drawClosing, drawExchangeRates, drawLegalNotes, drawPayment, drawTotals } from './summary';
import { drawPositions } from './table';

export interface RenderPdfOptions {
  /** Embed this CII XML and make the file a Factur-X (EN 16931) PDF/A-3B. */
  facturX?: { xml: string };
}

const CREATOR = 'Edge billing';
const PRODUCER = 'Edge billing PDF renderer (pdf-lib 1.17.1)';

/**
 * pdf-lib names an embedded font with a random subset tag unless given a name; a fixed one keeps
 * the output deterministic. Six capitals and a plus mark a subset (ISO 32000-1, 9.6.4).
 */
const FONT_NAMES = { regular: 'EBDOCR+DejaVuSans', bold: 'EBDOCB+DejaVuSans-Bold' };

export async function renderPdf(doc: DocumentModel, assets: PdfAssets, options: RenderPdfOptions = {}): Promise<Uint8Array> {
  const pdf = await PDFDocument.create({ updateMetadata: false });
  useNativeDeflate(pdf);
  pdf.registerFontkit(requestLocalFontkit);
  const fonts = {
    regular: await pdf.embedFont(assets.regular, { subset: true, customName: FONT_NAMES.regular }),
    bold: await pdf.embedFont(assets.bold, { subset: true, customName: FONT_NAMES.bold }),
  };
  const logo = doc.logo ? await (doc.logo.mimeType === 'image/png' ? pdf.embedPng(doc.logo.bytes) : pdf.embedJpg(doc.logo.bytes)) : null;
  const L = labelsFor(doc.language);

  const canvas: Canvas = new Canvas(pdf, fonts, PAGE.height, (c) => {
    // The preview mark goes first so that everything else is drawn over it.
    if (doc.preview) drawPreviewMark(c, c.page, L);
    foot.draw(c.page);
    if (c.pages.length === 1) return drawFirstPageHead(c, doc, L, logo);
    drawRunningHead(c, doc);
    return CONTINUATION_TOP;
  });
  const foot = footer(canvas, doc, L);
  canvas.bottom = foot.bodyBottom;
  canvas.addPage();

  canvas.paragraph(doc.title, { size: 13, bold: true });
  if (doc.preview) canvas.paragraph(L.previewNote, { size: 8.5 });
  canvas.y += 3 * MM;
  if (doc.introduction) {
    canvas.paragraph(doc.introduction, { size: 9 });
    canvas.y += 3 * MM;
  }
  drawPositions(canvas, doc, L);
  drawTotals(canvas, doc, L);
  drawExchangeRates(canvas, doc, L);
  drawLegalNotes(canvas, doc);
  drawPayment(canvas, doc, L);
  drawClosing(canvas, doc);
  drawPageNumbers(canvas, foot.pageNumberTop, L);

  const info: DocumentInfo = {
    title: doc.title,
    author: doc.seller.name,
    subject: `${doc.title} – ${doc.buyer.name}`,
    creator: CREATOR,
    producer: PRODUCER,
    // The issue date, not the clock: the same document renders to the same bytes.
    date: new Date(`${doc.issueDate}T00:00:00Z`),
  };
  pdf.setTitle(info.title, { showInWindowTitleBar: true });
  pdf.setAuthor(info.author);
  pdf.setSubject(info.subject);
  pdf.setCreator(info.creator);
  pdf.setProducer(info.producer);
  pdf.setCreationDate(info.date);
  pdf.setModificationDate(info.date);
  pdf.setLanguage(doc.language);
  if (options.facturX) await makeFacturX(pdf, info, options.facturX.xml, assets.srgbIcc);

  // The file identifier (required by PDF/A) is derived from the input, not random.
  const id = PDFHexString.of(await fingerprint(doc, options.facturX?.xml ?? null));
  pdf.context.trailerInfo.ID = pdf.context.obj([id, id]);
  compressContentStreams(pdf);
  // pdf-lib waits for a timer every `objectsPerTick` objects while writing; a document is small.
  return pdf.save({ objectsPerTick: Infinity });
}

/** SHA-256 over the model (the logo as its bytes) and the embedded XML, as 32 hex digits. */
async function fingerprint(doc: DocumentModel, xml: string | null): Promise<string> {
  const { logo, ...rest } = doc;
  const text = new TextEncoder().encode(JSON.stringify([rest, logo?.mimeType ?? null, xml]));
  const bytes = new Uint8Array(text.length + (logo?.bytes.length ?? 0));
  bytes.set(text);
  if (logo) bytes.set(logo.bytes, text.length);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return [...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
