import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { inJson, isGuardFailure, rawStatement, runBatch, type Db } from '../../db/client';
import { guardedBulkUpdate } from '../../db/commit';
import { insertJsonRows } from '../../db/insert';
import { events, invoices, media } from '../../db/schema';
import { pdfAssets } from '../../documents/assets';
import { ciiXml } from '../../documents/cii';
import { eInvoiceGaps } from '../../documents/e-invoice-gaps';
import type { DocumentModel, EInvoiceType } from '../../documents/model';
import { renderPdf } from '../../documents/pdf/render';
import { ublXml } from '../../documents/ubl';
import { eventRow } from '../../events/outbox';
import { ApiError } from '../../http/errors';
import { logError, safeErrorMessage } from '../../lib/log';
import type { ServiceContext } from '../context';
import { loadInvoice, renderLoaded } from '../invoices/read';
import type { InvoiceAggregate } from '../invoices/render';
import { effectiveStatus, effectiveStatusSql } from '../invoices/status';
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

/** A document whose files are in R2, and what records them. */
export interface StoredDocument {
  agg: InvoiceAggregate;
  files: DocumentFiles;
  /** Why a document asked to be an e-invoice has none (kept where a failure would be). */
  renderError: string | null;
}

/** Renders the document's files and stores them in R2 (each written once: see storeFile). */
export async function renderAndStoreFiles(ctx: ServiceContext, agg: InvoiceAggregate, model: DocumentModel): Promise<StoredDocument> {
  const rendered = await renderDocument(model, agg.row.eInvoiceType);
  const base = `${ctx.tenant.id}/invoices/${agg.row.id}/${agg.row.number}`;
  const own = { ownerType: 'invoice' as const, ownerId: agg.row.id };
  const [file, xml] = await Promise.all([
    storeFile(ctx, { ...own, purpose: 'pdf', key: `${base}.pdf`, bytes: rendered.pdf, mimeType: 'application/pdf', fileExtension: 'pdf', fileName: safeFileName(`${agg.row.number}.pdf`) }),
    rendered.xml
      ? storeFile(ctx, {
          ...own,
          purpose: 'xml',
          key: `${base}${rendered.xml.fileSuffix}.xml`,
          bytes: new TextEncoder().encode(rendered.xml.text),
          mimeType: 'application/xml',
          fileExtension: 'xml',
          fileName: safeFileName(`${agg.row.number}${rendered.xml.fileSuffix}.xml`),
        })
      : null,
  ]);
  // A document asked to be an e-invoice that cannot be one keeps the reason where a failure would
  // be (the tenant sees the letterhead's part in GET /settings/documents, eInvoiceReadiness).
  const renderError = rendered.eInvoiceGaps.length ? `No e-invoice, missing: ${rendered.eInvoiceGaps.join('; ')}`.slice(0, 500) : null;
  return { agg, files: { file, xml }, renderError };
}

/** The invoice as `invoice.updated` shows it once its files are recorded. */
function withFiles(s: StoredDocument) {
  const { agg, files, renderError } = s;
  const row = { ...agg.row, status: effectiveStatus(agg.row), fileId: files.file.id, xmlFileId: files.xml?.id ?? null, renderError };
  return renderLoaded({ ...agg, row, media: [files.file, ...(files.xml ? [files.xml] : [])] });
}

/**
 * The records of stored documents, in bulk: each invoice takes its file ids only while it has
 * none (the batch fails as a whole otherwise, see guardedBulkUpdate), its Media rows and its
 * `invoice.updated`. Files belong to the document, not to a change of it: updatedAt stays, so a
 * client's next guarded write is not refused because a render finished in between.
 */
export function recordStatements(ctx: ServiceContext, stored: readonly StoredDocument[]): BatchItem<'sqlite'>[] {
  const updates = stored.map((s) => ({ id: s.agg.row.id, expected: null, set: { fileId: s.files.file.id, xmlFileId: s.files.xml?.id ?? null, renderError: s.renderError } }));
  const rows = stored.flatMap((s) => [s.files.file, ...(s.files.xml ? [s.files.xml] : [])]);
  const ids = stored.map((s) => s.agg.row.id);
  return [
    ...guardedBulkUpdate(ctx.db, invoices, ctx.tenant.id, 'fileId', updates),
    // With its files the document is done finalizing: it takes the status it counted as meanwhile
    // (a payment, a credit note or a cancellation during the render already moved it on).
    rawStatement(
      ctx.db,
      sql`UPDATE invoices SET status = ${effectiveStatusSql('invoices')} WHERE tenant_id = ${ctx.tenant.id} AND ${inJson(invoices.id, ids)} AND status = 'STATUS_FINALIZING' AND file_id IS NOT NULL`,
    ),
    ...insertJsonRows(ctx.db, media, rows),
    ...insertJsonRows(
      ctx.db,
      events,
      stored.map((s) => eventRow({ tenantId: ctx.tenant.id, type: 'invoice.updated', resourceId: s.agg.row.id, data: withFiles(s), now: ctx.now })),
    ),
  ];
}

/** Records one stored document; when another render recorded its files first, those are the document's. */
export async function recordStored(ctx: ServiceContext, s: StoredDocument): Promise<DocumentFiles> {
  try {
    await runBatch(ctx.db, recordStatements(ctx, [s]));
  } catch (err) {
    if (!isGuardFailure(err)) throw err;
    const again = await storedFiles(ctx, await loadInvoice(ctx, s.agg.row.id));
    if (!again) throw err;
    return again;
  }
  return s.files;
}

async function renderAndStore(ctx: ServiceContext, agg: InvoiceAggregate): Promise<DocumentFiles> {
  return recordStored(ctx, await renderAndStoreFiles(ctx, agg, await documentModel(ctx, agg, { preview: false })));
}
