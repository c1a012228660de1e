import { and, asc, isNotNull, isNull, lt } from 'drizzle-orm';
import { settled, TenantMovingError, type ShardSweep } from '../../db/directory';
import { invoices } from '../../db/schema';
import type { DocumentJob, Env, InvoiceRenderJob } from '../../env';
import { deliveryJob } from '../dunning/delivery';
import { openTenantContext } from '../context';
import { ApiError } from '../../http/errors';
import { ensureRendered, recordRenderFailure, RENDER_FAILED } from './render';

// Render jobs: after finalization a message per document on the documents queue; the consumer
// renders and stores the files. A message lost between the finalization and the send, or a render
// that failed, is picked up by the sweeper (cron), a few times at most (docs/decisions.md, Documents).

/** The documents queue's name (wrangler.toml). */
export const DOCUMENT_JOBS_QUEUE = 'edge-billing-documents';

/** Renders tried per document before the sweeper leaves it to an on-demand render (a download). */
export const MAX_RENDER_ATTEMPTS = 5;

/** Whether finalized documents are rendered in the background (Env.DOCUMENT_RENDERING). */
export const rendersInBackground = (env: Env) => env.DOCUMENT_RENDERING !== 'on_demand';

/**
 * Seconds the renders of a billing run wait (Env.BILLING_RENDER_DELAY_SECONDS, default 60): a run
 * finalizes thousands of documents in a burst, and their renders should not compete with it.
 */
export function billingRenderDelay(env: Env): number {
  const seconds = Number(env.BILLING_RENDER_DELAY_SECONDS ?? 60);
  return Number.isInteger(seconds) && seconds >= 0 ? Math.min(seconds, 3600) : 60;
}

export async function requestRendering(env: Env, jobs: readonly DocumentJob[], options: { delaySeconds?: number } = {}): Promise<void> {
  if (!rendersInBackground(env) || jobs.length === 0) return;
  const delay = options.delaySeconds ? { delaySeconds: options.delaySeconds } : {};
  for (let i = 0; i < jobs.length; i += 100) await env.DOCUMENT_JOBS.sendBatch(jobs.slice(i, i + 100).map((body) => ({ body })), delay);
}

/** Renders one document for its tenant; a failure is recorded on the document, not thrown. */
export async function renderJob(env: Env, job: InvoiceRenderJob): Promise<'rendered' | 'failed' | 'gone'> {
  const ctx = await openTenantContext(env, job.tenantId);
  if (!ctx) return 'gone';
  try {
    await ensureRendered(ctx, job.invoiceId);
    return 'rendered';
  } catch (err) {
    // A failed render is recorded on the document by ensureRendered; anything else (the document
    // could not even be read) is counted here, so the sweeper gives up on it too.
    if (err instanceof ApiError && err.type === RENDER_FAILED) return 'failed';
    await recordRenderFailure(ctx.db, job.tenantId, job.invoiceId, err);
    return 'failed';
  }
}

/**
 * The documents queue's consumer: every message is acknowledged; failures wait for the sweeper, and
 * so do the jobs of a tenant being moved between shards (the sweepers send them again after the move).
 */
export async function consumeDocumentJobs(batch: MessageBatch<DocumentJob>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const job = message.body;
    try {
      if (typeof job?.tenantId === 'string' && 'invoiceId' in job && typeof job.invoiceId === 'string') await renderJob(env, job);
      else if (typeof job?.tenantId === 'string' && 'dunningDocumentId' in job && typeof job.dunningDocumentId === 'string') await deliveryJob(env, job);
    } catch (err) {
      if (!(err instanceof TenantMovingError)) throw err;
    }
    message.ack();
  }
}

/**
 * Sends jobs again for finalized documents of a shard that still have no file. One whose job is
 * merely still queued is rendered twice at worst, which stores nothing twice.
 */
export async function sweepUnrendered(env: Env, sweep: ShardSweep, limit = 200): Promise<number> {
  if (!rendersInBackground(env)) return 0;
  const due = await sweep.db
    .select({ tenantId: invoices.tenantId, invoiceId: invoices.id })
    .from(invoices)
    .where(and(isNull(invoices.fileId), isNotNull(invoices.finalizationDate), lt(invoices.renderAttempts, MAX_RENDER_ATTEMPTS), settled(sweep, invoices.tenantId)))
    .orderBy(asc(invoices.finalizationDate))
    .limit(limit);
  await requestRendering(env, due);
  return due.length;
}
