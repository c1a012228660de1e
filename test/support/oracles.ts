import { env } from 'cloudflare:workers';
import type { EinvoiceToCheck, EinvoiceVerdict, SepaFileToCheck, SepaVerdict } from './oracle-types';

// The Node-side judges (test/support/oracles.node.ts) as workerd tests call them.

async function ask<T>(path: string, body: BodyInit, contentType: string): Promise<T> {
  const res = await env.ORACLES.fetch(`http://oracles${path}`, { method: 'POST', body, headers: { 'Content-Type': contentType } });
  if (!res.ok) throw new Error(`oracle ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Official EN16931 (and XRechnung) verdicts, one batch for all documents. */
export const validateEinvoices = (documents: EinvoiceToCheck[]) => ask<Record<string, EinvoiceVerdict>>('/einvoice', JSON.stringify({ documents }), 'application/json');
/** The text of a PDF as pdftotext reads it (layout kept). */
export const pdfText = async (pdf: Uint8Array) => (await ask<{ text: string }>('/pdf/text', pdf, 'application/pdf')).text;
/** pdfinfo's fields, with the XMP metadata under `metadata`. */
export const pdfInfo = (pdf: Uint8Array) => ask<Record<string, string>>('/pdf/info', pdf, 'application/pdf');
/** Embedded files by name, as pdfdetach saves them. */
export const pdfAttachments = (pdf: Uint8Array) => ask<Record<string, string>>('/pdf/attachments', pdf, 'application/pdf');
/** The images a PDF places, as pdfimages -list shows them. */
export const pdfImages = (pdf: Uint8Array) => ask<{ page: number; type: string; width: number; height: number; color: string; enc: string }[]>('/pdf/images', pdf, 'application/pdf');
/** The ISO 20022 (and with `strict` the German banks') schema verdicts of SEPA files, plus NbOfTxs/CtrlSum arithmetic. */
export const validateSepa = (files: SepaFileToCheck[]) => ask<Record<string, SepaVerdict>>('/sepa', JSON.stringify({ files }), 'application/json');
