import { and, asc, isNotNull, isNull, lt } from 'drizzle-orm';
import { settled, TenantMovingError, type ShardSweep } from '../../db/directory';
import { invoices } from '../../db/schema';
import type { DocumentJob, Env, InvoiceRenderJob } from '../../env';
import { logError } from '../../lib/log';
import { forEachLimited } from '../../lib/pool';
import { deliveryJob } from '../dunning/delivery';
import { openTenantContext } from '../context';
import { renderInvoices, type RenderOutcome } from './render-batch';

// Render jobs: after finalization the documents to render go on the documents queue (a message
// names up to 25 documents of one tenant); the consumer renders and stores the files. A message
// lost between the finalization and the send, or a render that failed, is picked up by the sweeper
// (cron), a few times at most (docs/decisions.md, Documents).

/** The documents queue's name (wrangler.toml). */
export const DOCUMENT_JOBS_QUEUE = 'edge-billing-documents';

/** Renders tried per document before the sweeper leaves it to an on-demand render (a download). */
export const MAX_RENDER_ATTEMPTS = 5;

/**
 * Documents one render message names at most: a billing run's chunk sends ten; the consumer takes
 * four messages a batch (wrangler.toml), so an invocation renders at most 100.
 */
const DOCUMENTS_PER_MESSAGE = 25;

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

/** The invoices a job names (one, or a tenant's batch); none when it is malformed or not an invoice's. */
export function invoicesOf(job: unknown): string[] {
  const body = job as { invoiceIds?: unknown; invoiceId?: unknown } | null;
  if (Array.isArray(body?.invoiceIds)) return body.invoiceIds.filter((id): id is string => typeof id === 'string');
  return typeof body?.invoiceId === 'string' ? [body.invoiceId] : [];
}

/**
 * Queues jobs: invoices' renders go as one message per tenant and up to 25 documents (a send per
 * document cost a billing run more than its own writes), dunning deliveries one each.
 */
export async function requestRendering(env: Env, jobs: readonly DocumentJob[], options: { delaySeconds?: number } = {}): Promise<void> {
  if (!rendersInBackground(env) || jobs.length === 0) return;
  const byTenant = new Map<string, string[]>();
  const messages: DocumentJob[] = [];
  for (const job of jobs) {
    const ids = invoicesOf(job);
    if (ids.length) byTenant.set(job.tenantId, [...(byTenant.get(job.tenantId) ?? []), ...ids]);
    else messages.push(job);
  }
  for (const [tenantId, ids] of byTenant) {
    for (let i = 0; i < ids.length; i += DOCUMENTS_PER_MESSAGE) messages.push({ tenantId, invoiceIds: ids.slice(i, i + DOCUMENTS_PER_MESSAGE) });
  }
  const delay = options.delaySeconds ? { delaySeconds: options.delaySeconds } : {};
  for (let i = 0; i < messages.length; i += 100) await env.DOCUMENT_JOBS.sendBatch(messages.slice(i, i + 100).map((body) => ({ body })), delay);
}

/** Renders one document for its tenant; a failure is recorded on the document, not thrown. */
export async function renderJob(env: Env, job: InvoiceRenderJob): Promise<RenderOutcome | 'gone'> {
  return (await renderTenantJobs(env, job.tenantId, [job.invoiceId])).get(job.invoiceId) ?? 'gone';
}

/** Renders documents of one tenant together (src/services/documents/render-batch.ts); nothing for a tenant that is gone. */
async function renderTenantJobs(env: Env, tenantId: string, invoiceIds: string[]): Promise<Map<string, RenderOutcome>> {
  const ctx = await openTenantContext(env, tenantId);
  if (!ctx) return new Map();
  try {
    return await renderInvoices(ctx, invoiceIds);
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
 * together; every message is acknowledged, failures wait for the sweeper, and so do the jobs of a
 * tenant being moved between shards (the sweepers send them again after the move).
 */
export async function consumeDocumentJobs(batch: MessageBatch<DocumentJob>, env: Env): Promise<void> {
  const renders = new Map<string, string[]>();
  const deliveries: { tenantId: string; dunningDocumentId: string }[] = [];
  for (const message of batch.messages) {
    const job = message.body;
    if (typeof job?.tenantId !== 'string') continue;
    const ids = invoicesOf(job);
    if (ids.length) renders.set(job.tenantId, [...(renders.get(job.tenantId) ?? []), ...ids]);
    else if ('dunningDocumentId' in job && typeof job.dunningDocumentId === 'string') deliveries.push(job);
  }
  const unlessMoving = (err: unknown) => {
    if (!(err instanceof TenantMovingError)) throw err;
  };
  await forEachLimited([...renders], TENANTS_AT_ONCE, async ([tenantId, ids]) => void (await renderTenantJobs(env, tenantId, ids).catch(unlessMoving)));
  for (const job of deliveries) await deliveryJob(env, job).catch(unlessMoving);
  batch.ackAll();
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
