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

/**
 * Whether a request asks for the PDF rather than JSON: it names application/pdf with a quality
 * above zero and at least that of JSON (application/json, application/* or *\/*, which alone
 * keep the JSON default).
 */
export function wantsPdf(accept: string | undefined): boolean {
  let pdf = 0;
  let json = 0;
  for (const range of (accept ?? '').split(',')) {
    const [type = '', ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    if (type === 'application/pdf') pdf = Math.max(pdf, q);
    else if (type === 'application/json' || type === 'application/*' || type === '*/*') json = Math.max(json, q);
  }
  return pdf > 0 && pdf >= json;
}

export function pdfResponse(pdf: Uint8Array, fileName: string): Response {
  return new Response(pdf, {
    headers: { 'Content-Type': 'application/pdf', 'Content-Disposition': contentDisposition('inline', fileName), 'Cache-Control': 'private, no-store' },
  });
}
