import type { ServiceContext } from '../context';
import type { InvoiceAggregate } from '../invoices/render';
import { documentModel } from './model';
import { contentDisposition } from './media';
import { renderDocument } from './render';

// PDFs of what is not a document yet (a draft, an estimate) or as a document would look now:
// rendered on request, never stored, marked as a preview, without a number and without e-invoice.

export async function previewPdf(ctx: ServiceContext, agg: InvoiceAggregate): Promise<Uint8Array> {
  return (await renderDocument(await documentModel(ctx, agg, { preview: true }), null)).pdf;
}

/** Whether a request asks for the PDF rather than JSON (`Accept: application/pdf`). */
export function wantsPdf(accept: string | undefined): boolean {
  return /\bapplication\/pdf\b/i.test(accept ?? '');
}

export function pdfResponse(pdf: Uint8Array, fileName: string): Response {
  return new Response(pdf, {
    headers: { 'Content-Type': 'application/pdf', 'Content-Disposition': contentDisposition('inline', fileName), 'Cache-Control': 'private, no-store' },
  });
}
