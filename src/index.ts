import { app } from './app';
import { fastCartRead } from './routes/public-checkout/cart-read';
import { runScheduled } from './cron/index';
import type { DocumentJob, Env, EventMessage, PaymentJob } from './env';
import { consumeEvents } from './events/consumer';
import { consumeDocumentJobs, DOCUMENT_JOBS_QUEUE } from './services/documents/jobs';
import { consumePaymentJobs, PAYMENT_JOBS_QUEUE } from './services/payments/collection-jobs';

export { TenantObject } from './objects/tenant-object';
export { CartObject } from './objects/cart-object';

export default {
  // The public cart read goes ahead of the router when the cart's object has it (fastCartRead).
  async fetch(request, env, ctx) {
    return (await fastCartRead(request, env)) ?? app.fetch(request, env, ctx);
  },
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduled(controller, env));
  },
  async queue(batch, env, _ctx) {
    if (batch.queue === DOCUMENT_JOBS_QUEUE) await consumeDocumentJobs(batch as MessageBatch<DocumentJob>, env);
    else if (batch.queue === PAYMENT_JOBS_QUEUE) await consumePaymentJobs(batch as MessageBatch<PaymentJob>, env);
    else await consumeEvents(batch as MessageBatch<EventMessage>, env);
  },
} satisfies ExportedHandler<Env, EventMessage | DocumentJob | PaymentJob>;
