import type { Env, EventMessage } from '../env';
import { attemptInOrder } from './delivery';
import { recordDeadLetters } from './publish';
import { logError } from '../lib/log';

/** The deliveries a message names, in order; none when it is malformed. */
export function deliveriesOf(message: unknown): string[] {
  const body = message as { deliveryIds?: unknown; deliveryId?: unknown } | null;
  if (Array.isArray(body?.deliveryIds)) return body.deliveryIds.filter((id): id is string => typeof id === 'string');
  return typeof body?.deliveryId === 'string' ? [body.deliveryId] : [];
}

/** The dead-letter queue's name (wrangler.toml): its messages are recorded, never dropped. */
export const DEAD_LETTER_QUEUE = 'edge-billing-events-dlq';

/**
 * Queue consumer for webhook deliveries. Every message is acknowledged once its attempt is recorded
 * in D1 (the retry schedule lives there); a message whose processing throws is retried by the queue
 * and, after `max_retries`, lands in the dead-letter queue, whose consumer records it.
 */
export async function consumeEvents(batch: MessageBatch<EventMessage>, env: Env): Promise<void> {
  if (batch.queue === DEAD_LETTER_QUEUE) {
    await recordDeadLetters(env, batch.messages.flatMap((m) => deliveriesOf(m.body)));
    for (const m of batch.messages) m.ack();
    return;
  }
  // In order: one webhook's deliveries of a batch go out in the order they were published. A
  // message's deliveries are in that order already; the first one brings up any earlier ones left over.
  for (const message of batch.messages) {
    const ids = deliveriesOf(message.body);
    try {
      await attemptInOrder(env, ids);
      message.ack();
    } catch (err) {
      logError({ queue: batch.queue, deliveries: ids.length, firstDeliveryId: ids[0] }, err);
      message.retry();
    }
  }
}
