import { app } from './app';
import { runScheduled } from './cron/index';
import type { DocumentJob, Env, EventMessage, PaymentJob } from './env';
import { consumeEvents } from './events/consumer';
import { consumeDocumentJobs, DOCUMENT_JOBS_QUEUE } from './services/documents/jobs';
import { consumePaymentJobs, PAYMENT_JOBS_QUEUE } from './services/payments/collection-jobs';

export { TenantObject } from './objects/tenant-object';
export { CartObject } from './objects/cart-object';

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduled(controller, env));
  },
  async queue(batch, env, _ctx) {
    if (batch.queue === DOCUMENT_JOBS_QUEUE) await consumeDocumentJobs(batch as MessageBatch<DocumentJob>, env);
    else if (batch.queue === PAYMENT_JOBS_QUEUE) await consumePaymentJobs(batch as MessageBatch<PaymentJob>, env);
    else await consumeEvents(batch as MessageBatch<EventMessage>, env);
  },
} satisfies ExportedHandler<Env, EventMessage | DocumentJob | PaymentJob>;
