// The GiroCode: the EPC069-12 "SEPA credit transfer" QR code a banking app reads to prefill the
// transfer (beneficiary, IBAN, amount, remittance), so the payer types nothing.
import { fill, popGraphicsState, pushGraphicsState, rectangle, rgb, setFillingRgbColor, type PDFOperator, type PDFPage } from 'pdf-lib';
import { Dec } from '../../billing/money';
import type { DocumentModel } from '../model';
import { qrCode } from './qr';

/** EPC069-12 field limits (characters) and the amount range a code may carry. */
const MAX_NAME = 70;
const MAX_REMITTANCE = 140;
const MAX_AMOUNT = new Dec('999999999.99');
const MIN_AMOUNT = new Dec('0.01');

/**
 * The EPC069-12 payload, or null when a code would be wrong: only for a SEPA credit transfer ('58')
 * to our account, in euros, for a positive amount due, on a real document (a preview is not payable).
 * Fields, one per line: service tag BCD, version 002, character set 1 (UTF-8), identification SCT,
 * BIC (optional in version 002), beneficiary name, IBAN, amount "EUR123.45", purpose code,
 * structured reference, unstructured remittance; trailing empty fields are left out, as the
 * standard asks.
 */
export function girocodePayload(doc: DocumentModel): string | null {
  const payment = doc.payment;
  const account = payment?.creditTransfer;
  if (!payment || !account || payment.meansCode !== '58' || doc.currency !== 'EUR' || doc.preview) return null;
  const due = new Dec(doc.totals.due);
  if (due.lt(MIN_AMOUNT) || due.gt(MAX_AMOUNT)) return null;
  const fields = [
    'BCD',
    '002',
    '1',
    'SCT',
    clean(account.bic ?? '').replace(/\s+/g, ''),
    truncate(clean(account.accountName ?? doc.seller.name), MAX_NAME),
    account.iban.replace(/\s+/g, '').toUpperCase(),
    `EUR${due.toFixed(2)}`,
    '',
    '',
    truncate(clean(payment.remittance ?? doc.number ?? ''), MAX_REMITTANCE),
  ];
  while (fields[fields.length - 1] === '') fields.pop();
  return fields.join('\n');
}

/** A field must not break the line structure. */
function clean(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').trim();
}

function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, max).join('');
}

/** The QR matrix (true = dark) of a payload at error correction level M, as EPC069-12 requires: its UTF-8 bytes, the character set the payload's line 3 promises. */
export function qrMatrix(payload: string): boolean[][] {
  return qrCode(new TextEncoder().encode(payload));
}

/**
 * Draws the code with its top-left corner at (x, top) in PDF user space, `size` points wide
 * including the four-module quiet zone. Dark modules of a row are merged into one rectangle, and
 * all of them are one path filled once: fewer operators, and no hairline seams between neighbours
 * in viewers that anti-alias.
 */
export function drawQr(page: PDFPage, payload: string, x: number, top: number, size: number): void {
  const matrix = qrMatrix(payload);
  const quiet = 4;
  const module = size / (matrix.length + 2 * quiet);
  page.drawRectangle({ x, y: top - size, width: size, height: size, color: rgb(1, 1, 1) });
  const path: PDFOperator[] = [];
  matrix.forEach((row, r) => {
    let c = 0;
    while (c < row.length) {
      if (!row[c]) {
        c++;
        continue;
      }
      const start = c;
      while (c < row.length && row[c]) c++;
      path.push(rectangle(x + (quiet + start) * module, top - (quiet + r + 1) * module, (c - start) * module, module));
    }
  });
  page.pushOperators(pushGraphicsState(), setFillingRgbColor(0, 0, 0), ...path, fill(), popGraphicsState());
}
