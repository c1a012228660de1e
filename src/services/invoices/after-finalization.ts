import type { Env } from '../../env';
import { logError } from '../../lib/log';
import { requestRendering } from '../documents/jobs';
import { requestCollection } from '../payments/collection-jobs';

/**
 * The jobs every finalized document starts: its rendering and, for an invoice with an automatic
 * payment method, its collection (the job decides; it ignores the rest). Sending is best effort:
 * a message that is lost is picked up by the render and collection sweepers.
 */
export async function afterFinalization(env: Env, tenantId: string, invoiceIds: readonly string[], options: { renderDelaySeconds?: number } = {}) {
  const jobs = invoiceIds.map((invoiceId) => ({ tenantId, invoiceId }));
  await Promise.all([
    requestRendering(env, jobs, { delaySeconds: options.renderDelaySeconds }).catch((err) => logError({ job: 'render-request', tenantId }, err)),
    requestCollection(env, jobs).catch((err) => logError({ job: 'collection-request', tenantId }, err)),
  ]);
}
