import type { Env, EventMessage } from '../env';

/**
 * Queue consumer for the EVENTS queue and its dead-letter queue. Webhook delivery (signing,
 * retries, attempt log) is the webhooks issue; until then nothing is published to the queue, and
 * anything that arrives is acknowledged and logged so a batch is never redelivered forever.
 */
export async function consumeEvents(batch: MessageBatch<EventMessage>, _env: Env): Promise<void> {
  for (const message of batch.messages) {
    console.log(JSON.stringify({ level: 'warn', queue: batch.queue, eventId: message.body?.eventId, note: 'no webhook delivery yet' }));
    message.ack();
  }
}
