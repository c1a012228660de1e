import type { Env } from '../../env';
import { logError } from '../../lib/log';
import { requestRendering } from '../documents/jobs';
import { requestCollection } from '../payments/collection-jobs';

/**
 * The jobs every finalized document starts: its rendering and, for an invoice with an automatic
 * payment method, its collection (the job decides; it ignores the rest). Sending is best effort:
 * a message that is lost is picked up by the render and collection sweepers.
 */
export async function afterFinalization(
  env: Env,
  tenantId: string,
  invoiceIds: readonly string[],
  options: {
    renderDelaySeconds?: number;
    /** The invoices a job may collect, when the caller knows which have a payment method (default: all). */
    collect?: readonly string[];
  } = {},
) {
  const jobs = (ids: readonly string[]) => ids.map((invoiceId) => ({ tenantId, invoiceId }));
  await Promise.all([
    requestRendering(env, jobs(invoiceIds), { delaySeconds: options.renderDelaySeconds }).catch((err) => logError({ job: 'render-request', tenantId }, err)),
    requestCollection(env, jobs(options.collect ?? invoiceIds)).catch((err) => logError({ job: 'collection-request', tenantId }, err)),
  ]);
}
