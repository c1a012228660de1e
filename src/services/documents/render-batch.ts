import { and, eq } from 'drizzle-orm';
import { inJson, isGuardFailure, runBatch, tenantRowsById } from '../../db/client';
import { invoices } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { forEachLimited } from '../../lib/pool';
import { yieldToRequests } from '../../lib/yield';
import type { ServiceContext } from '../context';
import { aggregatesOf } from '../invoices/read';
import type { InvoiceAggregate } from '../invoices/render';
import { loadInvoiceDocumentInputs, loadTenantDocumentInputs } from './inputs';
import { documentModel } from './model';
import { recordRenderFailure, recordStatements, recordStored, renderAndStoreFiles, type StoredDocument } from './render';

// The documents of many invoices of one tenant at once, for the render queue's consumer
// (docs/decisions.md, Documents): what they read is read in a few queries for all of them (the
// invoices, their positions and customers, the settings and the logo once), they are rendered a
// few at a time so one document's R2 writes overlap the next one's render, and their records are
// written in one D1 batch per chunk. Each document is still rendered and recorded at most once,
// and a failure is recorded on its own document only.

/** Documents read and recorded together: one D1 batch of records each. */
export const RENDER_CHUNK = 25;
/** Documents of a chunk rendered at once (their R2 writes wait while the next renders). */
export const RENDER_CONCURRENCY = 4;

export type RenderOutcome = 'rendered' | 'failed';

/**
 * Renders and records the documents of these invoices (ids of `ctx.tenant`) that have no files
 * yet. Never throws for a document: its failure is recorded on it (attempts and error) for the
 * sweeper, as a failed on-demand render is.
 */
export async function renderInvoices(ctx: ServiceContext, invoiceIds: readonly string[]): Promise<Map<string, RenderOutcome>> {
  const outcomes = new Map<string, RenderOutcome>();
  const ids = [...new Set(invoiceIds)];
  const fail = async (id: string, err: unknown) => {
    outcomes.set(id, 'failed');
    await recordRenderFailure(ctx.db, ctx.tenant.id, id, err);
  };
  let tenantInputs: ReturnType<typeof loadTenantDocumentInputs> | null = null;
  let pendingWrite: Promise<void> = Promise.resolve();
  for (let i = 0; i < ids.length; i += RENDER_CHUNK) {
    const chunk = ids.slice(i, i + RENDER_CHUNK);
    let aggs: InvoiceAggregate[];
    let inputs: Awaited<ReturnType<typeof loadInvoiceDocumentInputs>>;
    let shared: Awaited<ReturnType<typeof loadTenantDocumentInputs>>;
    try {
      aggs = await unrendered(ctx, chunk, outcomes, fail);
      tenantInputs ??= loadTenantDocumentInputs(ctx);
      [inputs, shared] = await Promise.all([loadInvoiceDocumentInputs(ctx, aggs), tenantInputs]);
    } catch (err) {
      // Nothing of the chunk could be read (the settings, the logo): every document of it failed.
      tenantInputs = null;
      for (const id of chunk) if (!outcomes.has(id)) await fail(id, err);
      continue;
    }
    const stored: StoredDocument[] = [];
    await forEachLimited(aggs, RENDER_CONCURRENCY, async (agg) => {
      try {
        const model = await documentModel(ctx, agg, { preview: false }, { tenant: shared, invoice: inputs.get(agg)! });
        stored.push(await renderAndStoreFiles(ctx, agg, model));
      } catch (err) {
        await fail(agg.row.id, err);
      }
      // A pause after each document lets the isolate take other work in: locally the renders'
      // back-to-back R2 and D1 calls kept it busy, and webhook answers, which wait for the loop
      // to poll the network, went out at a few a second while a run's documents rendered.
      await yieldToRequests();
    });
    // The chunk's records are written while the next chunk renders; one write at a time.
    await pendingWrite;
    pendingWrite = record(ctx, stored, outcomes, fail);
  }
  await pendingWrite;
  return outcomes;
}

/**
 * The chunk's invoices that still need their files, as aggregates. Rendered ones are done already;
 * a draft or an unknown id is a failed render, as it is on demand.
 */
async function unrendered(ctx: ServiceContext, ids: string[], outcomes: Map<string, RenderOutcome>, fail: (id: string, err: unknown) => Promise<void>): Promise<InvoiceAggregate[]> {
  const rows = await ctx.db.select().from(invoices).where(tenantRowsById(invoices, ctx.tenant.id, ids));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const todo: InvoiceAggregate['row'][] = [];
  for (const id of ids) {
    const row = byId.get(id);
    if (row?.fileId) outcomes.set(id, 'rendered');
    else if (!row) await fail(id, ApiError.notFound('Invoice'));
    else if (row.status === 'STATUS_DRAFT' || !row.number) await fail(id, ApiError.conflict('Drafts have no document yet.', 'invalid-transition'));
    else todo.push(row);
  }
  if (todo.length === 0) return [];
  const [aggregates, cancellations] = await Promise.all([
    aggregatesOf(ctx, todo),
    // What the `invoice.updated` of each shows as its cancellation document.
    ctx.db
      .select({ id: invoices.id, number: invoices.number, of: invoices.referencedInvoiceId })
      .from(invoices)
      .where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.type, 'TYPE_CANCEL'), inJson(invoices.referencedInvoiceId, todo.map((r) => r.id)))),
  ]);
  return todo.map((row) => {
    const agg = aggregates.get(row.id)!;
    const cancellation = cancellations.find((c) => c.of === row.id);
    return cancellation ? Object.assign(agg, { cancellation: { id: cancellation.id, number: cancellation.number } }) : agg;
  });
}

/** Writes the chunk's records at once; when one of them was recorded by another render meanwhile, each on its own. */
async function record(ctx: ServiceContext, stored: StoredDocument[], outcomes: Map<string, RenderOutcome>, fail: (id: string, err: unknown) => Promise<void>): Promise<void> {
  if (stored.length === 0) return;
  try {
    await runBatch(ctx.db, recordStatements(ctx, stored));
    for (const s of stored) outcomes.set(s.agg.row.id, 'rendered');
    return;
  } catch (err) {
    if (!isGuardFailure(err)) {
      for (const s of stored) await fail(s.agg.row.id, err);
      return;
    }
  }
  for (const s of stored) {
    try {
      await recordStored(ctx, s);
      outcomes.set(s.agg.row.id, 'rendered');
    } catch (err) {
      await fail(s.agg.row.id, err);
    }
  }
}
