import type { Env, EventMessage } from '../env';
import { attemptInOrder } from './delivery';
import { recordDeadLetters } from './publish';
import { logError } from '../lib/log';
import { isQueue } from '../lib/queues';
import { TenantMovingError } from '../db/directory';

/** The deliveries a message names, in order; none when it is malformed. */
export function deliveriesOf(message: unknown): string[] {
  const body = message as { deliveryIds?: unknown; deliveryId?: unknown } | null;
  if (Array.isArray(body?.deliveryIds)) return body.deliveryIds.filter((id): id is string => typeof id === 'string');
  return typeof body?.deliveryId === 'string' ? [body.deliveryId] : [];
}

/** The dead-letter queue's name (wrangler.toml): its messages are recorded, never dropped. */
export const DEAD_LETTER_QUEUE = 'edge-billing-events-dlq';

/**
 * Queue consumer for webhook deliveries. Every message is acknowledged once its attempts are recorded
 * in D1 (the retry schedule lives there); a message whose processing throws is retried by the queue
 * and, after `max_retries`, lands in the dead-letter queue, whose consumer records it.
 */
export async function consumeEvents(batch: MessageBatch<EventMessage>, env: Env): Promise<void> {
  const tenantOf = (body: EventMessage | undefined) => (typeof body?.tenantId === 'string' ? body.tenantId : null);
  if (isQueue(batch.queue, DEAD_LETTER_QUEUE)) {
    await recordDeadLetters(
      env,
      batch.messages.flatMap((m) => (tenantOf(m.body) ? [{ tenantId: m.body.tenantId, deliveryIds: deliveriesOf(m.body) }] : [])),
    );
    for (const m of batch.messages) m.ack();
    return;
  }
  // In order: one webhook's deliveries of a batch go out in the order they were published. A
  // message's deliveries are in that order already; the first one brings up any earlier ones left over.
  for (const message of batch.messages) {
    const tenantId = tenantOf(message.body);
    const ids = deliveriesOf(message.body);
    try {
      // The message names the tenant, whose shard holds the deliveries (docs/decisions.md, Tenancy and shards).
      if (tenantId) await attemptInOrder(env, tenantId, ids);
      message.ack();
    } catch (err) {
      // A tenant being moved between shards: its deliveries wait for the move, without using up retries.
      if (err instanceof TenantMovingError) {
        message.retry({ delaySeconds: 60 });
        continue;
      }
      logError({ queue: batch.queue, deliveries: ids.length, firstDeliveryId: ids[0] }, err);
      message.retry();
    }
  }
}
