// The PDFs of a signed offer (docs/decisions.md, Offers): the signed document (the offer as its
// signers read it, and a page with their signatures) and the audit log (every step of every
// recipient and the SHA-256 of the signed document). Built on the billing documents' page canvas
// and fonts; pure functions of their models, byte-identical for the same input.
import { PDFDocument, PDFHexString } from 'pdf-lib';
import type { PdfAssets } from '../assets';
import { Canvas, COLORS, CONTENT_WIDTH, LEADING, LEFT, MM, PAGE, RIGHT } from '../pdf/canvas';
import { requestLocalFontkit } from '../pdf/fontkit';
import { formatDate, formatMoney, formatNumber } from '../pdf/format';
import { parseRichText } from '../../lib/rich-text';
import { drawBlocks } from './blocks';
import { durationText, intervalText, utcTime } from './format';
import type { AuditLogModel, OfferLanguage, OfferPdfLineItem, SignedOfferModel } from './model';
import { OFFER_LABELS, actionLabel, type OfferLabels } from './labels';

const FONT_NAMES = { regular: 'EBOFFR+DejaVuSans', bold: 'EBOFFB+DejaVuSans-Bold' };
const CREATOR = 'Edge billing';
const PRODUCER = 'Edge billing offer renderer (pdf-lib 1.17.1)';
const HEAD_TOP = 14 * MM;
const BODY_TOP = 32 * MM;
const BOTTOM = PAGE.height - 20 * MM;

async function newDocument(assets: PdfAssets) {
  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.registerFontkit(requestLocalFontkit);
  const fonts = {
    regular: await pdf.embedFont(assets.regular, { subset: true, customName: FONT_NAMES.regular }),
    bold: await pdf.embedFont(assets.bold, { subset: true, customName: FONT_NAMES.bold }),
  };
  return { pdf, fonts };
}

/** Every page: the seller on the left, the document on the right, a rule under them. */
function pageHead(left: string, right: string) {
  return (c: Canvas): number => {
    c.text(left, LEFT, HEAD_TOP, { size: 9, bold: true });
    c.text(right, RIGHT, HEAD_TOP, { size: 9, align: 'right', color: COLORS.muted });
    c.rule(LEFT, RIGHT, HEAD_TOP + 6 * MM);
    return BODY_TOP;
  };
}

function pageNumbers(c: Canvas, L: OfferLabels) {
  c.pages.forEach((page, i) => c.text(L.page(i + 1, c.pages.length), RIGHT, PAGE.height - 12 * MM, { size: 7.5, align: 'right', color: COLORS.muted }, page));
}

async function finish(pdf: PDFDocument, info: { title: string; author: string; subject: string; date: string; language: OfferLanguage }, fingerprintOf: unknown): Promise<Uint8Array> {
  const date = new Date(info.date);
  pdf.setTitle(info.title, { showInWindowTitleBar: true });
  pdf.setAuthor(info.author);
  pdf.setSubject(info.subject);
  pdf.setCreator(CREATOR);
  pdf.setProducer(PRODUCER);
  // The signing time, not the clock: the same offer renders to the same bytes.
  pdf.setCreationDate(date);
  pdf.setModificationDate(date);
  pdf.setLanguage(info.language);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify(fingerprintOf))));
  const id = PDFHexString.of([...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join(''));
  pdf.context.trailerInfo.ID = pdf.context.obj([id, id]);
  return pdf.save();
}

const money = (amount: string | null, currency: string, lang: OfferLanguage) => (amount === null ? '–' : formatMoney(amount, currency, lang));

function itemDetails(item: OfferPdfLineItem, L: OfferLabels, lang: OfferLanguage): string {
  const parts: string[] = [];
  if (item.type === 'one_time') parts.push(L.oneTime);
  else if (item.type === 'metered' || item.type === 'instant_metered') parts.push(L.byUsage);
  if (item.billingInterval) parts.push(intervalText(item.billingInterval, lang));
  if (item.type === 'recurring' && !item.payInAdvance) parts.push(L.inArrears);
  return parts.join(', ');
}

/** The line items as a table: what, how many, at what price, per interval and on the first invoice. */
function drawLineItems(c: Canvas, doc: SignedOfferModel, L: OfferLabels) {
  const lang = doc.language;
  const currency = doc.currency ?? 'EUR';
  const cols = { qty: LEFT + 84 * MM, unit: LEFT + 108 * MM, interval: LEFT + 135 * MM, first: RIGHT };
  const descWidth = 68 * MM;
  const head = () => {
    c.box(LEFT, c.y, CONTENT_WIDTH, 6 * MM, COLORS.band);
    const y = c.y + 1.6 * MM;
    c.text(L.item, LEFT + 1.5 * MM, y, { size: 8, bold: true });
    c.text(L.quantity, cols.qty, y, { size: 8, bold: true, align: 'right' });
    c.text(L.unitPrice, cols.unit, y, { size: 8, bold: true, align: 'right' });
    c.text(L.perInterval, cols.interval, y, { size: 8, bold: true, align: 'right' });
    c.text(L.firstInvoice, cols.first - 1.5 * MM, y, { size: 8, bold: true, align: 'right' });
    c.y += 8 * MM;
  };
  c.need(20 * MM);
  head();
  c.onBreak = head;
  for (const item of doc.lineItems) {
    const name = c.wrap(item.name, descWidth, 9, true);
    const details = [item.description, itemDetails(item, L, lang)].filter((x): x is string => !!x).flatMap((t) => c.wrap(t, descWidth, 8));
    const height = name.length * 9 * LEADING + details.length * 8 * LEADING + 2 * MM;
    c.need(height);
    const top = c.y;
    c.lines(name, LEFT + 1.5 * MM, top, { size: 9, bold: true });
    c.lines(details, LEFT + 1.5 * MM, top + name.length * 9 * LEADING, { size: 8, color: COLORS.muted });
    c.text(formatNumber(item.quantity, lang), cols.qty, top, { size: 9, align: 'right' });
    c.text(item.unitPrice === null ? '–' : formatMoney(item.unitPrice, currency, lang), cols.unit, top, { size: 9, align: 'right' });
    c.text(money(item.recurringAmount, currency, lang), cols.interval, top, { size: 9, align: 'right' });
    c.text(money(item.firstInvoiceAmount, currency, lang), cols.first - 1.5 * MM, top, { size: 9, align: 'right' });
    c.y = top + height;
    c.rule(LEFT, RIGHT, c.y - 1 * MM, 0.3);
  }
  c.onBreak = null;
  if (doc.totals) {
    const t = doc.totals;
    const rows: [string, string, boolean][] = [[L.net, formatMoney(t.net, currency, lang), false]];
    if (t.discount !== '0' && !/^0[.,]?0*$/.test(t.discount)) rows.unshift([L.discount, formatMoney(t.discount, currency, lang), false]);
    rows.push([L.tax, formatMoney(t.tax, currency, lang), false], [L.gross, formatMoney(t.gross, currency, lang), true]);
    c.need(rows.length * 5 * MM + 8 * MM);
    c.y += 2 * MM;
    for (const [label, value, strong] of rows) {
      c.text(label, cols.interval, c.y, { size: 9, bold: strong, align: 'right' });
      c.text(value, cols.first - 1.5 * MM, c.y, { size: 9, bold: strong, align: 'right' });
      c.y += 5 * MM;
    }
    c.paragraph(t.firstBillingDate ? L.firstInvoiceNote(formatDate(t.firstBillingDate, lang)) : L.nothingDueNote, { size: 8, color: COLORS.muted });
    c.y += 3 * MM;
  }
}

function drawTerms(c: Canvas, doc: SignedOfferModel, L: OfferLabels) {
  const lang = doc.language;
  const t = doc.terms;
  if (!t) return;
  const rows: [string, string][] = [];
  rows.push([L.contractStart, t.contractStart ? formatDate(t.contractStart, lang) : L.onSigning]);
  rows.push([L.contractPeriod, t.contractPeriod ? durationText(t.contractPeriod, lang) : L.openEnded]);
  if (t.cancellationPeriod) rows.push([L.cancellationPeriod, durationText(t.cancellationPeriod, lang)]);
  if (t.trialDays > 0) rows.push([L.trial, L.days(t.trialDays)]);
  c.need(rows.length * 5 * MM + 10 * MM);
  c.paragraph(L.terms, { size: 10.5, bold: true });
  c.y += 1 * MM;
  for (const [label, value] of rows) {
    c.need(5 * MM);
    c.text(label, LEFT, c.y, { size: 9, color: COLORS.muted });
    c.text(value, LEFT + 45 * MM, c.y, { size: 9 });
    c.y += 5 * MM;
  }
  c.y += 3 * MM;
}

export async function renderSignedOffer(doc: SignedOfferModel, assets: PdfAssets): Promise<Uint8Array> {
  const { pdf, fonts } = await newDocument(assets);
  const L = OFFER_LABELS[doc.language];
  const c = new Canvas(pdf, fonts, BOTTOM, pageHead(doc.seller.name, `${L.offer} ${doc.number}`));
  c.addPage();

  // Who offers to whom.
  const partyTop = c.y;
  c.text(L.from, LEFT, partyTop, { size: 7.5, color: COLORS.muted });
  c.text(doc.seller.name, LEFT, partyTop + 4 * MM, { size: 9.5, bold: true });
  c.lines(doc.seller.lines, LEFT, partyTop + 8.5 * MM, { size: 8.5 });
  let bottom = partyTop + 8.5 * MM + doc.seller.lines.length * 8.5 * LEADING;
  if (doc.buyer) {
    const x = LEFT + CONTENT_WIDTH / 2;
    c.text(L.to, x, partyTop, { size: 7.5, color: COLORS.muted });
    c.text(doc.buyer.name, x, partyTop + 4 * MM, { size: 9.5, bold: true });
    c.lines(doc.buyer.lines, x, partyTop + 8.5 * MM, { size: 8.5 });
    bottom = Math.max(bottom, partyTop + 8.5 * MM + doc.buyer.lines.length * 8.5 * LEADING);
  }
  c.y = bottom + 6 * MM;

  c.paragraph(doc.title ? `${L.offer} ${doc.number}: ${doc.title}` : `${L.offer} ${doc.number}`, { size: 15, bold: true });
  c.paragraph(L.meta(formatDate(doc.pricedAt, doc.language), doc.contactPerson), { size: 8.5, color: COLORS.muted });
  c.y += 4 * MM;
  if (doc.description) {
    c.paragraph(doc.description, { size: 9.5 });
    c.y += 3 * MM;
  }
  for (const section of doc.sections) drawBlocks(c, parseRichText(section));
  if (doc.lineItems.length) {
    c.y += 2 * MM;
    c.need(12 * MM);
    c.paragraph(L.lineItems, { size: 10.5, bold: true });
    c.y += 1 * MM;
    drawLineItems(c, doc, L);
  }
  drawTerms(c, doc, L);

  // The signatures, on a page of their own.
  c.addPage();
  c.paragraph(L.signatures, { size: 15, bold: true });
  c.y += 2 * MM;
  c.paragraph(L.signatureStatement, { size: 9 });
  c.y += 6 * MM;
  for (const s of doc.signatures) {
    c.need(30 * MM);
    const top = c.y;
    // A long name gets smaller rather than running over the line it stands on.
    const size = Math.max(8, Math.min(16, (16 * 100 * MM) / Math.max(1, c.width(s.signingName, 16, true))));
    c.text(s.signingName, LEFT + 4 * MM, top + (16 - size) * 0.6, { size, bold: true });
    c.rule(LEFT, LEFT + 110 * MM, top + 9 * MM, 0.8, COLORS.text);
    c.text(L.signedBy(s.name, s.email), LEFT, top + 11 * MM, { size: 8.5 });
    c.text(`${L.signedAt}: ${utcTime(s.signedAt)}`, LEFT, top + 15.5 * MM, { size: 8.5, color: COLORS.muted });
    c.y = top + 26 * MM;
  }
  c.paragraph(L.signedOn(utcTime(doc.signedAt)), { size: 9, bold: true });
  c.y += 2 * MM;
  c.paragraph(L.auditNote, { size: 8, color: COLORS.muted });
  pageNumbers(c, L);

  return finish(pdf, { title: `${L.offer} ${doc.number}`, author: doc.seller.name, subject: doc.title ?? `${L.offer} ${doc.number}`, date: doc.signedAt, language: doc.language }, doc);
}

export async function renderAuditLog(doc: AuditLogModel, assets: PdfAssets): Promise<Uint8Array> {
  const { pdf, fonts } = await newDocument(assets);
  const L = OFFER_LABELS[doc.language];
  const c = new Canvas(pdf, fonts, BOTTOM, pageHead(doc.seller, `${L.auditLog} ${doc.number}`));
  c.addPage();
  c.paragraph(`${L.auditLog}: ${L.offer} ${doc.number}${doc.title ? ` – ${doc.title}` : ''}`, { size: 14, bold: true });
  c.y += 2 * MM;
  c.paragraph(L.signedOn(utcTime(doc.signedAt)), { size: 9 });
  c.y += 3 * MM;
  c.paragraph(L.signedDocument, { size: 10.5, bold: true });
  c.paragraph(`${L.file}: ${doc.signedDocument.fileName} (${doc.signedDocument.byteSize} Bytes)`, { size: 8.5 });
  c.paragraph(`SHA-256: ${doc.signedDocument.sha256}`, { size: 8.5 });
  c.y += 4 * MM;

  c.paragraph(L.recipients, { size: 10.5, bold: true });
  c.y += 1 * MM;
  for (const r of doc.recipients) {
    c.need(10 * MM);
    c.paragraph(`${r.name} <${r.email}> · ${L.roleLabel}: ${L.role(r.role)} · ${L.statusLabel}: ${L.status(r.signingStatus)}`, { size: 8.5, bold: true });
    if (r.signingName && r.signedAt) c.paragraph(`${L.typedName}: „${r.signingName}“, ${utcTime(r.signedAt)}`, { size: 8.5, x: LEFT + 4 * MM });
    c.y += 1 * MM;
  }
  c.y += 3 * MM;

  c.paragraph(L.entries, { size: 10.5, bold: true });
  c.y += 1 * MM;
  const cols = { who: LEFT + 37 * MM, action: LEFT + 85 * MM, where: LEFT + 118 * MM };
  const head = () => {
    c.box(LEFT, c.y, CONTENT_WIDTH, 5.5 * MM, COLORS.band);
    const y = c.y + 1.4 * MM;
    c.text(L.time, LEFT + 1 * MM, y, { size: 7.5, bold: true });
    c.text(L.recipient, cols.who, y, { size: 7.5, bold: true });
    c.text(L.action, cols.action, y, { size: 7.5, bold: true });
    c.text(L.origin, cols.where, y, { size: 7.5, bold: true });
    c.y += 7 * MM;
  };
  head();
  c.onBreak = head;
  for (const e of doc.entries) {
    const who = c.wrap(e.recipient, cols.action - cols.who - 2 * MM, 7.5);
    const what = c.wrap(actionLabel(e.action, doc.language), cols.where - cols.action - 2 * MM, 7.5);
    const where = [e.ip ? `IP ${e.ip}` : L.byTenant, ...(e.userAgent ? c.wrap(e.userAgent, RIGHT - cols.where, 6.5) : [])];
    const height = Math.max(who.length * 7.5, what.length * 7.5, 7.5 + (where.length - 1) * 6.5) * LEADING + 2 * MM;
    c.need(height);
    const top = c.y;
    c.text(utcTime(e.at), LEFT + 1 * MM, top, { size: 7.5 });
    c.lines(who, cols.who, top, { size: 7.5 });
    c.lines(what, cols.action, top, { size: 7.5 });
    c.text(where[0]!, cols.where, top, { size: 7.5 });
    c.lines(where.slice(1), cols.where, top + 7.5 * LEADING, { size: 6.5, color: COLORS.muted });
    c.y = top + height;
    c.rule(LEFT, RIGHT, c.y - 1 * MM, 0.3);
  }
  c.onBreak = null;
  c.y += 3 * MM;
  c.paragraph(L.auditFooter, { size: 8, color: COLORS.muted });
  pageNumbers(c, L);
  return finish(pdf, { title: `${L.auditLog} ${doc.number}`, author: doc.seller, subject: `${L.auditLog} ${doc.number}`, date: doc.signedAt, language: doc.language }, doc);
}
