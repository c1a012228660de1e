import { and, eq, isNull, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { isGuardFailure, requirePreviousChange, runBatch, type Db } from '../../db/client';
import { invoices, media } from '../../db/schema';
import { pdfAssets } from '../../documents/assets';
import { ciiXml } from '../../documents/cii';
import { eInvoiceGaps } from '../../documents/e-invoice-gaps';
import type { DocumentModel, EInvoiceType } from '../../documents/model';
import { renderPdf } from '../../documents/pdf/render';
import { ublXml } from '../../documents/ubl';
import { insertEvent } from '../../events/outbox';
import { ApiError } from '../../http/errors';
import { logError, safeErrorMessage } from '../../lib/log';
import type { ServiceContext } from '../context';
import { loadInvoice, renderLoaded } from '../invoices/read';
import type { InvoiceAggregate } from '../invoices/render';
import { safeFileName, storeFile, type MediaRow } from './media';
import { documentModel } from './model';

// Rendering a finalized document into its files: the PDF a person reads and the EN16931 XML a
// machine reads, stored once in R2 and never replaced (docs/decisions.md, Documents).

export interface RenderedDocument {
  pdf: Uint8Array;
  xml: { text: string; fileSuffix: string } | null;
  /** Why the document has no e-invoice although one was asked for (docs/decisions.md, Documents). */
  eInvoiceGaps: string[];
}

/** Document kinds that are invoices in the EN16931 sense and get an e-invoice. */
const E_INVOICE_KINDS = new Set(['invoice', 'credit_note', 'cancellation', 'refund']);

/** The files of a document model: which XML, and whether the PDF carries it (ZUGFeRD). */
export async function renderDocument(model: DocumentModel, eInvoiceType: EInvoiceType | null): Promise<RenderedDocument> {
  const pdfOnly = async (eInvoiceGaps: string[] = []) => ({ pdf: await renderPdf(model, pdfAssets), xml: null, eInvoiceGaps });
  if (model.preview || !eInvoiceType || !E_INVOICE_KINDS.has(model.kind)) return pdfOnly();
  const gaps = eInvoiceGaps(model, eInvoiceType === 'xrechnung' ? 'xrechnung' : 'en16931');
  if (gaps.length) return pdfOnly(gaps);
  switch (eInvoiceType) {
    case 'zugferd': {
      const text = ciiXml(model, 'en16931');
      return { pdf: await renderPdf(model, pdfAssets, { facturX: { xml: text } }), xml: { text, fileSuffix: '' }, eInvoiceGaps: [] };
    }
    case 'xrechnung':
      return { pdf: await renderPdf(model, pdfAssets), xml: { text: ciiXml(model, 'xrechnung'), fileSuffix: '-xrechnung' }, eInvoiceGaps: [] };
    case 'cii':
      return { pdf: await renderPdf(model, pdfAssets), xml: { text: ciiXml(model, 'en16931'), fileSuffix: '' }, eInvoiceGaps: [] };
    case 'ubl':
      return { pdf: await renderPdf(model, pdfAssets), xml: { text: ublXml(model, 'en16931'), fileSuffix: '-ubl' }, eInvoiceGaps: [] };
  }
}

export interface DocumentFiles {
  file: MediaRow;
  xml: MediaRow | null;
}

async function storedFiles(ctx: ServiceContext, agg: InvoiceAggregate): Promise<DocumentFiles | null> {
  if (!agg.row.fileId) return null;
  const rows = await ctx.db.select().from(media).where(and(eq(media.tenantId, ctx.tenant.id), eq(media.ownerType, 'invoice'), eq(media.ownerId, agg.row.id)));
  const file = rows.find((m) => m.id === agg.row.fileId);
  if (!file) throw new Error(`The file ${agg.row.fileId} of invoice ${agg.row.id} is missing.`);
  return { file, xml: rows.find((m) => m.id === agg.row.xmlFileId) ?? null };
}

/**
 * The document's files, rendering and storing them first if that has not happened yet. Safe to
 * run twice at once: the files land under the same keys, and only the first record of them counts.
 */
export async function ensureRendered(ctx: ServiceContext, invoiceId: string, known?: InvoiceAggregate): Promise<DocumentFiles> {
  const agg = known ?? (await loadInvoice(ctx, invoiceId));
  if (agg.row.status === 'STATUS_DRAFT' || !agg.row.number) throw ApiError.conflict('Drafts have no document yet; use GET /invoices/{id}/preview.', 'invalid-transition');
  const stored = await storedFiles(ctx, agg);
  if (stored) return stored;
  try {
    return await renderAndStore(ctx, agg);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // Recorded on the document for the sweeper, whoever asked (the job or a download).
    await recordRenderFailure(ctx.db, ctx.tenant.id, agg.row.id, err);
    throw new ApiError(503, RENDER_FAILED, 'The document could not be rendered yet; it is tried again in the background.', undefined, { 'Retry-After': '900' });
  }
}

/** Counts a failed render on the document (the sweeper stops after MAX_RENDER_ATTEMPTS). */
export async function recordRenderFailure(db: Db, tenantId: string, invoiceId: string, err: unknown): Promise<void> {
  logError({ job: 'render', tenantId, invoiceId }, err);
  await db
    .update(invoices)
    .set({ renderAttempts: sql`${invoices.renderAttempts} + 1`, renderError: safeErrorMessage(err).slice(0, 500) })
    .where(and(eq(invoices.tenantId, tenantId), eq(invoices.id, invoiceId)));
}

/** The problem type of a render that failed (and was recorded on the document). */
export const RENDER_FAILED = 'document-unavailable';

async function renderAndStore(ctx: ServiceContext, agg: InvoiceAggregate): Promise<DocumentFiles> {
  const model = await documentModel(ctx, agg, { preview: false });
  const rendered = await renderDocument(model, agg.row.eInvoiceType);
  const base = `${ctx.tenant.id}/invoices/${agg.row.id}/${agg.row.number}`;
  const file = await storeFile(ctx, { ownerType: 'invoice', ownerId: agg.row.id, purpose: 'pdf', key: `${base}.pdf`, bytes: rendered.pdf, mimeType: 'application/pdf', fileExtension: 'pdf', fileName: safeFileName(`${agg.row.number}.pdf`) });
  const xml = rendered.xml
    ? await storeFile(ctx, {
        ownerType: 'invoice',
        ownerId: agg.row.id,
        purpose: 'xml',
        key: `${base}${rendered.xml.fileSuffix}.xml`,
        bytes: new TextEncoder().encode(rendered.xml.text),
        mimeType: 'application/xml',
        fileExtension: 'xml',
        fileName: safeFileName(`${agg.row.number}${rendered.xml.fileSuffix}.xml`),
      })
    : null;
  // A document asked to be an e-invoice that cannot be one keeps the reason where a failure would
  // be (the tenant sees the letterhead's part in GET /settings/documents, eInvoiceReadiness).
  const renderError = rendered.eInvoiceGaps.length ? `No e-invoice, missing: ${rendered.eInvoiceGaps.join('; ')}`.slice(0, 500) : null;
  const after = renderLoaded({ ...agg, row: { ...agg.row, fileId: file.id, xmlFileId: xml?.id ?? null, renderError }, media: [file, ...(xml ? [xml] : [])] });
  // Files belong to the document, not to a change of it: updatedAt stays, so a client's next
  // guarded write is not refused because a render finished in between.
  const statements: BatchItem<'sqlite'>[] = [
    ctx.db
      .update(invoices)
      .set({ fileId: file.id, xmlFileId: xml?.id ?? null, renderError })
      .where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.id, agg.row.id), isNull(invoices.fileId))),
    requirePreviousChange(ctx.db),
    ctx.db.insert(media).values(file),
    ...(xml ? [ctx.db.insert(media).values(xml)] : []),
    insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'invoice.updated', resourceId: agg.row.id, data: after, now: ctx.now }),
  ];
  try {
    await runBatch(ctx.db, statements);
  } catch (err) {
    // Another render stored the files first: its records are the document's.
    if (!isGuardFailure(err)) throw err;
    const again = await storedFiles(ctx, await loadInvoice(ctx, agg.row.id));
    if (!again) throw err;
    return again;
  }
  return { file, xml };
}
