// The letter around the content: letterhead, sender line and recipient address in the envelope
// window, the information block, the footer with the seller's legal and bank details, the running
// header of continuation pages, page numbers and the preview mark. Positions follow DIN 5008
// form B (address field 45 mm from the top, information block beside it, fold marks).
import { degrees, type PDFImage, type PDFPage } from 'pdf-lib';
import type { DocumentModel, PostalAddress } from '../model';
import { Canvas, COLORS, CONTENT_WIDTH, LEADING, LEFT, MM, PAGE, RIGHT } from './canvas';
import { formatDate, formatIban, formatPeriod } from './format';
import type { Labels } from './labels';

const FOOTER_SIZE = 6.5;
const FOOTER_BOTTOM = PAGE.height - 10 * MM;

function countryName(code: string, lang: string): string {
  try {
    return new Intl.DisplayNames([lang], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** Address lines as printed; the country only when it is not the sender's (DIN 5008: in capitals, last line). */
export function addressLines(address: PostalAddress, homeCountry: string, lang: string): string[] {
  const city = [address.postcode, address.city].filter(Boolean).join(' ');
  const lines = [address.line1, address.line2, city].filter((l): l is string => !!l);
  if (address.countryCode !== homeCountry) lines.push(countryName(address.countryCode, lang).toUpperCase());
  return lines;
}

/** The footer's columns: who, how to reach, tax and register, bank. Empty columns are dropped. */
function footerColumns(doc: DocumentModel, L: Labels): string[][] {
  const s = doc.seller;
  const bank = doc.payment?.creditTransfer ?? null;
  const columns = [
    [s.name, ...(s.tradingName ? [s.tradingName] : []), ...addressLines(s.address, doc.buyer.address.countryCode, doc.language)],
    [
      s.contact.name,
      s.contact.phone && `${L.phone} ${s.contact.phone}`,
      s.contact.email,
      s.website?.replace(/^https?:\/\//, '') ?? null,
    ],
    [s.vatId && `${L.vatId} ${s.vatId}`, s.taxNumber && `${L.taxNumber} ${s.taxNumber}`, s.registration, s.legalInfo],
    bank ? [bank.bankName, `IBAN ${formatIban(bank.iban)}`, bank.bic && `BIC ${bank.bic}`] : [],
  ];
  return columns.map((c) => c.filter((l): l is string => !!l)).filter((c) => c.length > 0);
}

export interface Footer {
  /** The lowest point the body may reach. */
  bodyBottom: number;
  /** Where the page number goes, between the body and the footer's rule. */
  pageNumberTop: number;
  draw: (page: PDFPage) => void;
}

/** Lays out the footer once (it is the same on every page) and answers where it leaves room and a painter. */
export function footer(canvas: Canvas, doc: DocumentModel, L: Labels): Footer {
  const columns = footerColumns(doc, L);
  // Each column as wide as its longest line, the rest spread between them; a line wraps only
  // when the columns cannot all fit, so an IBAN stays whole.
  const minGap = 4 * MM;
  const natural = columns.map((c) => Math.max(...c.map((line) => canvas.width(line, FOOTER_SIZE))));
  const room = CONTENT_WIDTH - minGap * (columns.length - 1);
  const sum = natural.reduce((a, b) => a + b, 0);
  const widths = sum <= room ? natural : natural.map((w) => (w * room) / sum);
  const gap = columns.length > 1 ? (CONTENT_WIDTH - widths.reduce((a, b) => a + b, 0)) / (columns.length - 1) : 0;
  const wrapped = columns.map((c, i) => c.flatMap((line) => canvas.wrap(line, widths[i]! + 0.01, FOOTER_SIZE)));
  const xs = widths.map((_, i) => LEFT + widths.slice(0, i).reduce((a, b) => a + b + gap, 0));
  const height = Math.max(...wrapped.map((c) => c.length)) * FOOTER_SIZE * LEADING;
  const top = FOOTER_BOTTOM - height;
  const ruleTop = top - 2 * MM;
  return {
    bodyBottom: ruleTop - 7 * MM,
    pageNumberTop: ruleTop - 4 * MM,
    draw: (page) => {
      canvas.rule(LEFT, RIGHT, ruleTop, 0.5, COLORS.rule, page);
      wrapped.forEach((lines, i) => canvas.lines(lines, xs[i]!, top, { size: FOOTER_SIZE, color: COLORS.muted }, page));
    },
  };
}

/** A large diagonal mark behind the content, so a preview can never pass for the real document. */
export function drawPreviewMark(canvas: Canvas, page: PDFPage, L: Labels): void {
  const size = 96;
  const font = canvas.fonts.bold;
  const width = font.widthOfTextAtSize(L.preview, size);
  const angle = Math.atan2(PAGE.height, PAGE.width);
  // Centre the baseline's midpoint on the page centre, along the diagonal.
  const x = PAGE.width / 2 - (Math.cos(angle) * width) / 2 + (Math.sin(angle) * size * 0.35);
  const y = PAGE.height / 2 - (Math.sin(angle) * width) / 2 - (Math.cos(angle) * size * 0.35);
  page.drawText(L.preview, { x, y, size, font, color: COLORS.watermark, rotate: degrees((angle * 180) / Math.PI) });
}

/** Fold marks at 105 and 210 mm and the punch mark at 148.5 mm, as on DIN 5008 paper. */
function drawFoldMarks(canvas: Canvas): void {
  for (const [top, length] of [[105, 4], [148.5, 6], [210, 4]] as const) {
    canvas.page.drawLine({
      start: { x: 4 * MM, y: PAGE.height - top * MM },
      end: { x: (4 + length) * MM, y: PAGE.height - top * MM },
      thickness: 0.4,
      color: COLORS.rule,
    });
  }
}

/** The first page's head: letterhead, window address and information block; answers where the body starts. */
export function drawFirstPageHead(canvas: Canvas, doc: DocumentModel, L: Labels, logo: PDFImage | null): number {
  const s = doc.seller;
  drawFoldMarks(canvas);
  let headBottom = 15 * MM;
  if (logo) {
    const scale = Math.min((60 * MM) / logo.width, (22 * MM) / logo.height);
    const w = logo.width * scale;
    const h = logo.height * scale;
    canvas.page.drawImage(logo, { x: RIGHT - w, y: PAGE.height - 12 * MM - h, width: w, height: h });
    headBottom = Math.max(headBottom, 12 * MM + h);
  }
  const nameWidth = logo ? CONTENT_WIDTH - 65 * MM : CONTENT_WIDTH;
  const nameLines = canvas.wrap(s.tradingName ?? s.name, nameWidth, 15, true);
  let y = 15 * MM + canvas.lines(nameLines, LEFT, 15 * MM, { size: 15, bold: true });
  const sub = [s.tradingName ? s.name : null, [s.address.line1, [s.address.postcode, s.address.city].filter(Boolean).join(' ')].filter(Boolean).join(' · ')];
  y += canvas.lines(sub.filter((l): l is string => !!l), LEFT, y + 1, { size: 8, color: COLORS.muted });

  // Sender line: small and underlined, the last line of the window's return-address zone.
  const senderTop = Math.max(52 * MM, y + 4 * MM, headBottom + 4 * MM);
  const sender = [s.name, s.address.line1, [s.address.postcode, s.address.city].filter(Boolean).join(' ')].filter(Boolean).join(' · ');
  const senderLine = canvas.wrap(sender, 85 * MM - 5 * MM, 6.5)[0] ?? '';
  canvas.text(senderLine, LEFT, senderTop, { size: 6.5, color: COLORS.muted });
  canvas.rule(LEFT, LEFT + canvas.width(senderLine, 6.5), senderTop + 6.5 * 1.15, 0.3, COLORS.muted);

  const b = doc.buyer;
  const recipient = [
    b.name,
    ...(b.contactName ? [`${L.attention} ${b.contactName}`] : []),
    ...addressLines(b.address, s.address.countryCode, doc.language),
  ].flatMap((l) => canvas.wrap(l, 80 * MM, 10));
  const addressTop = senderTop + 5 * MM;
  const addressBottom = addressTop + canvas.lines(recipient, LEFT, addressTop, { size: 10 });

  // Information block beside the window.
  const labelX = 115 * MM;
  const date = (d: string) => formatDate(d, doc.language);
  // A date wraps as a whole ("RE-1 of" / "1 January 2025"), never inside.
  const unbrokenDate = (d: string) => date(d).replace(/ /g, '\u00a0');
  const rows: [string, string | null][] = [
    [L.numberOf[doc.kind], doc.number],
    [L.dateOf[doc.kind], date(doc.issueDate)],
    [L.dueDate, doc.dueDate && date(doc.dueDate)],
    [L.servicePeriod, doc.servicePeriod && formatPeriod(doc.servicePeriod, doc.language)],
    [L.originalInvoice, doc.precedingInvoice && (doc.precedingInvoice.issueDate ? L.numberOfDate(doc.precedingInvoice.number, unbrokenDate(doc.precedingInvoice.issueDate)) : doc.precedingInvoice.number)],
    [L.customerNumber, b.customerNumber],
    [L.buyerReference, doc.buyerReference && doc.buyerReference !== b.customerNumber && doc.buyerReference !== doc.orderReference ? doc.buyerReference : null],
    [L.orderReference, doc.orderReference],
    [L.contractReference, doc.contractReference],
    [L.buyerVatId, b.vatId],
    [L.contact, s.contact.name],
    [L.phone, s.contact.phone],
    [L.email, s.contact.email],
  ];
  // The values start 145 mm from the left edge, or further right when a label needs the room.
  const shown = rows.filter((r): r is [string, string] => !!r[1]);
  const valueX = Math.max(145 * MM, labelX + Math.max(...shown.map(([label]) => canvas.width(label, 8))) + 2.5 * MM);
  const valueWidth = RIGHT - valueX;
  let infoY = 50 * MM;
  for (const [label, value] of shown) {
    // A period too long for one line breaks after its dash rather than inside a date.
    const values = canvas.width(value, 8) > valueWidth && value.includes(' – ') ? value.split(' – ').map((v, i) => (i === 0 ? `${v} –` : v)) : canvas.wrap(value, valueWidth, 8);
    canvas.text(label, labelX, infoY, { size: 8, color: COLORS.muted });
    infoY += canvas.lines(values, valueX, infoY, { size: 8 });
  }
  return Math.max(98.5 * MM, addressBottom + 8 * MM, infoY + 8 * MM);
}

/** Continuation pages carry the seller and the document's title, so a loose page can be placed. */
export function drawRunningHead(canvas: Canvas, doc: DocumentModel): void {
  canvas.text(doc.seller.tradingName ?? doc.seller.name, LEFT, 12 * MM, { size: 8, bold: true, color: COLORS.muted });
  canvas.text(doc.title, RIGHT, 12 * MM, { size: 8, color: COLORS.muted, align: 'right' });
  canvas.rule(LEFT, RIGHT, 17 * MM);
}

/** "Seite 1 von 2" on every page, once the number of pages is known. */
export function drawPageNumbers(canvas: Canvas, top: number, L: Labels): void {
  const total = canvas.pages.length;
  canvas.pages.forEach((page, i) => canvas.text(L.page(i + 1, total), RIGHT, top, { size: 7.5, color: COLORS.muted, align: 'right' }, page));
}
