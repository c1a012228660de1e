// What follows the positions: the totals with one line per VAT rate, the exchange rates applied,
// the legal notes, how to pay (with a GiroCode for SEPA transfers) and the closing text.
import { Dec } from '../../billing/money';
import type { DocumentModel } from '../model';
import { Canvas, COLORS, CONTENT_WIDTH, LEADING, LEFT, MM, PAGE, RIGHT } from './canvas';
import { formatDate, formatIban, formatMoney, formatNumber, formatPercent, maskIban } from './format';
import { drawQr, girocodePayload } from './girocode';
import type { Labels } from './labels';

const SIZE = 9;

interface TotalRow {
  label: string;
  value: string;
  bold?: boolean;
  ruleAbove?: boolean;
}

function totalRows(doc: DocumentModel, L: Labels): TotalRow[] {
  const money = (a: string | Dec) => formatMoney(a.toString(), doc.currency, doc.language);
  const t = doc.totals;
  const rows: TotalRow[] = [];
  if (!new Dec(t.discount).isZero()) {
    // Σ of the lines before their discounts, so the discount line visibly leads to the net.
    const beforeDiscounts = doc.lines.reduce((s, l) => s.plus(l.grossNet), new Dec(0));
    rows.push({ label: L.subtotal, value: money(beforeDiscounts) }, { label: L.discounts, value: money(new Dec(t.lineNet).minus(beforeDiscounts)) });
  }
  rows.push({ label: L.net, value: money(t.net) });
  for (const v of doc.vat) {
    const category = v.category === 'S' ? undefined : L.vatCategory[v.category];
    const label = L.vatOn(formatPercent(v.rate, doc.language), money(v.taxable));
    rows.push({ label: category ? `${label} (${category})` : label, value: money(v.tax) });
  }
  rows.push({ label: L.gross, value: money(t.gross), bold: true, ruleAbove: true });
  if (!new Dec(t.paid).isZero()) {
    rows.push({ label: L.paid, value: money(new Dec(t.paid).negated()) }, { label: L.due, value: money(t.due), bold: true, ruleAbove: true });
  }
  return rows;
}

export function drawTotals(canvas: Canvas, doc: DocumentModel, L: Labels): void {
  const labelX = LEFT + CONTENT_WIDTH * 0.38;
  const labelWidth = RIGHT - 32 * MM - labelX;
  const rows = totalRows(doc, L).map((r) => ({ ...r, lines: canvas.wrap(r.label, labelWidth, SIZE, r.bold) }));
  const gap = 1.2 * MM;
  const height = rows.reduce((h, r) => h + r.lines.length * SIZE * LEADING + gap + (r.ruleAbove ? gap : 0), 0);
  canvas.need(height);
  for (const r of rows) {
    if (r.ruleAbove) {
      canvas.rule(labelX, RIGHT, canvas.y, 0.6, COLORS.text);
      canvas.y += gap;
    }
    canvas.lines(r.lines, labelX, canvas.y, { size: SIZE, bold: r.bold });
    canvas.text(r.value, RIGHT, canvas.y, { size: SIZE, bold: r.bold, align: 'right' });
    canvas.y += r.lines.length * SIZE * LEADING + gap;
  }
  canvas.y += 4 * MM;
}

function decimalsOf(value: string): number {
  return value.split('.')[1]?.length ?? 0;
}

export function drawExchangeRates(canvas: Canvas, doc: DocumentModel, L: Labels): void {
  if (doc.exchangeRates.length === 0) return;
  const size = 8;
  canvas.need(SIZE * LEADING + doc.exchangeRates.length * size * LEADING * 2);
  canvas.text(L.exchangeRates, LEFT, canvas.y, { size: SIZE, bold: true });
  canvas.y += SIZE * LEADING;
  for (const r of doc.exchangeRates) {
    const rate = `1 ${r.from} = ${formatNumber(r.rate, doc.language, decimalsOf(r.rate))} ${r.to}`;
    const source = canvas.wrap(r.source, RIGHT - (LEFT + 90 * MM), size);
    canvas.need(source.length * size * LEADING);
    canvas.text(rate, LEFT, canvas.y, { size });
    canvas.text(`${L.rateDate} ${formatDate(r.date, doc.language)}`, LEFT + 45 * MM, canvas.y, { size });
    canvas.y += canvas.lines(source, LEFT + 90 * MM, canvas.y, { size, color: COLORS.muted });
  }
  canvas.y += 4 * MM;
}

export function drawLegalNotes(canvas: Canvas, doc: DocumentModel): void {
  if (doc.legalNotes.length === 0) return;
  for (const note of doc.legalNotes) canvas.paragraph(note, { size: 8.5 });
  canvas.y += 4 * MM;
}

/** No-break spaces keep an amount, a date or an IBAN on one line when a sentence wraps. */
function unbreakable(text: string): string {
  return text.replace(/ /g, '\u00a0');
}

/** The sentence and account details telling the buyer how the amount due gets paid. */
function paymentText(doc: DocumentModel, L: Labels): { sentence: string | null; details: [string, string][] } {
  const p = doc.payment!;
  const lang = doc.language;
  const due = new Dec(doc.totals.due);
  const amount = unbreakable(formatMoney(due.abs().toString(), doc.currency, lang));
  const dueDate = doc.dueDate && unbreakable(formatDate(doc.dueDate, lang));
  if (due.isZero()) return { sentence: new Dec(doc.totals.paid).isZero() ? null : L.settled, details: [] };
  if (due.isNegative()) return { sentence: L.refund(amount), details: [] };
  const account = p.creditTransfer;
  if ((p.meansCode === '58' || p.meansCode === '30') && account) {
    const details: [string, string | null][] = [
      [L.accountHolder, account.accountName ?? doc.seller.name],
      ['IBAN', formatIban(account.iban)],
      ['BIC', account.bic],
      [L.bank, account.bankName],
      [L.remittance, p.remittance],
    ];
    return { sentence: L.transfer(amount, dueDate), details: details.filter((d): d is [string, string] => !!d[1]) };
  }
  if (p.meansCode === '59' && p.directDebit) {
    const dd = p.directDebit;
    return {
      sentence: L.directDebit(amount, dueDate, dd.debitedIban && unbreakable(maskIban(dd.debitedIban))),
      details: [
        [L.mandateReference, dd.mandateReference],
        [L.creditorId, dd.creditorId],
      ],
    };
  }
  if (p.meansCode === '1') return { sentence: null, details: [[L.paymentMethod, p.meansText]] };
  return { sentence: L.otherMeans(amount, p.meansText), details: [] };
}

export function drawPayment(canvas: Canvas, doc: DocumentModel, L: Labels): void {
  if (!doc.payment) return;
  const qr = girocodePayload(doc);
  const qrSize = 27 * MM;
  const textWidth = qr ? CONTENT_WIDTH - qrSize - 8 * MM : CONTENT_WIDTH;
  const { sentence, details } = paymentText(doc, L);
  const labelWidth = Math.max(0, ...details.map(([label]) => canvas.width(label, SIZE))) + 4 * MM;
  const lines = [
    ...(sentence ? canvas.wrap(sentence, textWidth, SIZE).map((text) => ({ text, label: null as string | null })) : []),
    ...details.flatMap(([label, value]) => canvas.wrap(value, textWidth - labelWidth, SIZE).map((text, i) => ({ text, label: i === 0 ? label : '' }))),
  ];
  const terms = doc.payment.terms ? canvas.wrap(doc.payment.terms, textWidth, SIZE) : [];
  const textHeight = (1 + lines.length + terms.length) * SIZE * LEADING + (terms.length ? 2 * MM : 0);
  canvas.need(Math.max(textHeight, qr ? qrSize + 6 * MM : 0));
  const top = canvas.y;
  canvas.text(L.payment, LEFT, canvas.y, { size: SIZE, bold: true });
  canvas.y += SIZE * LEADING;
  for (const l of lines) {
    if (l.label === null) {
      canvas.text(l.text, LEFT, canvas.y, { size: SIZE });
    } else {
      canvas.text(l.label, LEFT, canvas.y, { size: SIZE, color: COLORS.muted });
      canvas.text(l.text, LEFT + labelWidth, canvas.y, { size: SIZE });
    }
    canvas.y += SIZE * LEADING;
  }
  if (terms.length) {
    canvas.y += 2 * MM;
    canvas.y += canvas.lines(terms, LEFT, canvas.y, { size: SIZE });
  }
  if (qr) {
    drawQr(canvas.page, qr, RIGHT - qrSize, PAGE.height - top, qrSize);
    const caption = canvas.wrap(L.girocode, qrSize, 6.5);
    caption.forEach((c, i) => canvas.text(c, RIGHT - qrSize / 2 + canvas.width(c, 6.5) / 2, top + qrSize + 1 * MM + i * 6.5 * LEADING, { size: 6.5, color: COLORS.muted, align: 'right' }));
    canvas.y = Math.max(canvas.y, top + qrSize + 1 * MM + caption.length * 6.5 * LEADING);
  }
  canvas.y += 4 * MM;
}

export function drawClosing(canvas: Canvas, doc: DocumentModel): void {
  if (!doc.closing) return;
  canvas.y += 2 * MM;
  // A greeting and its signature belong together: a short closing moves to the next page whole.
  const lines = canvas.wrap(doc.closing, CONTENT_WIDTH, SIZE);
  if (lines.length <= 6) canvas.need(lines.length * SIZE * LEADING);
  canvas.paragraph(doc.closing, { size: SIZE });
}
