import { app } from './app';
import { runScheduled } from './cron/index';
import type { DocumentJob, Env, EventMessage, MailJob, PaymentJob } from './env';
import { consumeEvents } from './events/consumer';
import { isQueue } from './lib/queues';
import { consumeDocumentJobs, DOCUMENT_JOBS_QUEUE } from './services/documents/jobs';
import { consumeMailJobs, MAIL_JOBS_QUEUE } from './services/mail/delivery';
import { consumePaymentJobs, PAYMENT_JOBS_QUEUE } from './services/payments/collection-jobs';

export { TenantObject } from './objects/tenant-object';
export { CartObject } from './objects/cart-object';

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduled(controller, env));
  },
  async queue(batch, env, _ctx) {
    if (isQueue(batch.queue, DOCUMENT_JOBS_QUEUE)) await consumeDocumentJobs(batch as MessageBatch<DocumentJob>, env);
    else if (isQueue(batch.queue, PAYMENT_JOBS_QUEUE)) await consumePaymentJobs(batch as MessageBatch<PaymentJob>, env);
    else if (isQueue(batch.queue, MAIL_JOBS_QUEUE)) await consumeMailJobs(batch as MessageBatch<MailJob>, env);
    else await consumeEvents(batch as MessageBatch<EventMessage>, env);
  },
} satisfies ExportedHandler<Env, EventMessage | DocumentJob | PaymentJob | MailJob>;
