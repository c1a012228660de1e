import type { Env, EventMessage } from '../env';
import { attemptInOrder, recordDeadLetters } from './delivery';
import { logError } from '../lib/log';
import { isQueue } from '../lib/queues';
import { TenantMovingError } from '../db/directory';

/** The dead-letter queue's name (wrangler.toml): its messages are recorded, never dropped. */
export const DEAD_LETTER_QUEUE = 'edge-billing-events-dlq';

/**
 * Queue consumer for webhook deliveries. Every message is acknowledged once its attempt is recorded
 * in D1 (the retry schedule lives there); a message whose processing throws is retried by the queue
 * and, after `max_retries`, lands in the dead-letter queue, whose consumer records it.
 */
export async function consumeEvents(batch: MessageBatch<EventMessage>, env: Env): Promise<void> {
  const valid = (body: EventMessage | undefined): body is EventMessage => typeof body?.deliveryId === 'string' && typeof body.tenantId === 'string';
  if (isQueue(batch.queue, DEAD_LETTER_QUEUE)) {
    await recordDeadLetters(env, batch.messages.map((m) => m.body).filter(valid));
    for (const m of batch.messages) m.ack();
    return;
  }
  // In order: one webhook's deliveries of a batch go out in the order they were published.
  for (const message of batch.messages) {
    try {
      // The message names the tenant, whose shard holds the delivery (docs/decisions.md, Tenancy and shards).
      if (valid(message.body)) await attemptInOrder(env, message.body.tenantId, message.body.deliveryId);
      message.ack();
    } catch (err) {
      // A tenant being moved between shards: its deliveries wait for the move, without using up retries.
      if (err instanceof TenantMovingError) {
        message.retry({ delaySeconds: 60 });
        continue;
      }
      logError({ queue: batch.queue, deliveryId: message.body?.deliveryId }, err);
      message.retry();
    }
  }
}
