import { and, asc, eq, isNotNull, isNull, lt } from 'drizzle-orm';
import { createDb } from '../../db/client';
import { invoices, tenants } from '../../db/schema';
import type { DocumentJob, Env, InvoiceRenderJob } from '../../env';
import { logError } from '../../lib/log';
import { forEachLimited } from '../../lib/pool';
import { deliveryJob } from '../dunning/delivery';
import { createServiceContext } from '../context';
import { renderInvoices, type RenderOutcome } from './render-batch';

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
export async function renderJob(env: Env, job: InvoiceRenderJob): Promise<RenderOutcome | 'gone'> {
  return (await renderTenantJobs(env, job.tenantId, [job.invoiceId])).get(job.invoiceId) ?? 'gone';
}

/** Renders documents of one tenant together (src/services/documents/render-batch.ts); nothing for a tenant that is gone. */
async function renderTenantJobs(env: Env, tenantId: string, invoiceIds: string[]): Promise<Map<string, RenderOutcome>> {
  const db = createDb(env.DB);
  const tenant = await db.select().from(tenants).where(eq(tenants.id, tenantId)).get();
  if (!tenant) return new Map();
  try {
    return await renderInvoices(createServiceContext({ env, db, tenant }), invoiceIds);
  } catch (err) {
    // Not even the failure could be recorded (D1 unreachable): the sweeper finds the documents unrendered.
    logError({ job: 'render', tenantId, invoices: invoiceIds.length }, err);
    return new Map(invoiceIds.map((id) => [id, 'failed']));
  }
}

/** Tenants whose documents a consumer invocation renders at once (each renders a few documents at a time). */
const TENANTS_AT_ONCE = 2;

/**
 * The documents queue's consumer: the render jobs of a batch are grouped by tenant and rendered
 * together; every message is acknowledged, failures wait for the sweeper.
 */
export async function consumeDocumentJobs(batch: MessageBatch<DocumentJob>, env: Env): Promise<void> {
  const renders = new Map<string, string[]>();
  const deliveries: { tenantId: string; dunningDocumentId: string }[] = [];
  for (const message of batch.messages) {
    const job = message.body;
    if (typeof job?.tenantId !== 'string') continue;
    if ('invoiceId' in job && typeof job.invoiceId === 'string') renders.set(job.tenantId, [...(renders.get(job.tenantId) ?? []), job.invoiceId]);
    else if ('dunningDocumentId' in job && typeof job.dunningDocumentId === 'string') deliveries.push(job);
  }
  await forEachLimited([...renders], TENANTS_AT_ONCE, async ([tenantId, ids]) => void (await renderTenantJobs(env, tenantId, ids)));
  for (const job of deliveries) await deliveryJob(env, job);
  batch.ackAll();
}

/**
 * Sends jobs again for finalized documents that still have no file. One whose job is merely still
 * queued is rendered twice at worst, which stores nothing twice.
 */
export async function sweepUnrendered(env: Env, limit = 200): Promise<number> {
  if (!rendersInBackground(env)) return 0;
  const db = createDb(env.DB);
  const due = await db
    .select({ tenantId: invoices.tenantId, invoiceId: invoices.id })
    .from(invoices)
    .where(and(isNull(invoices.fileId), isNotNull(invoices.finalizationDate), lt(invoices.renderAttempts, MAX_RENDER_ATTEMPTS)))
    .orderBy(asc(invoices.finalizationDate))
    .limit(limit);
  await requestRendering(env, due);
  return due.length;
}
