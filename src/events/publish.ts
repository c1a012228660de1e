// Publishing: outbox events become webhook deliveries and queue messages (right after a write, in
// a billing run chunk by chunk, and from the cron sweeper). Attempting them is delivery.ts.
import { and, asc, eq, isNull, lte, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { inJson, runBatch, tenantRowsById, type Db } from '../db/client';
import { settled, tenantDb, TenantMovingError, type ShardSweep } from '../db/directory';
import { insertJsonRows } from '../db/insert';
import { events, webhookDeliveries, webhooks } from '../db/schema';
import type { Env, EventMessage } from '../env';
import { systemNow } from '../lib/clock';
import { newId } from '../lib/ids';

/** Events one publish moves to deliveries (their ids and types only: the documents stay in D1). */
export const PUBLISH_BATCH = 1000;

type WebhookRow = typeof webhooks.$inferSelect;

function subscribed(webhook: WebhookRow, type: string): boolean {
  return webhook.enabled && (webhook.events.includes('*') || webhook.events.includes(type));
}

/**
 * Moves a tenant's outbox events to webhook deliveries, right after a write and in a billing run
 * chunk by chunk. A tenant without webhooks has nothing to deliver; its events are marked published
 * by the sweeper, in bulk, instead of costing every write another batch.
 */
export async function publishOutbox(env: Env, tenantId: string): Promise<number> {
  const db = await tenantDb(env, tenantId);
  if (!db) return 0;
  const any = await db.select({ id: webhooks.id }).from(webhooks).where(and(eq(webhooks.tenantId, tenantId), eq(webhooks.enabled, true))).limit(1).get();
  if (!any) return 0;
  return publish(env, db, eq(events.tenantId, tenantId));
}

/** The sweeper's part of publishing: a batch of a shard's outbox, of every tenant not being moved. */
export function publishShardOutbox(env: Env, sweep: ShardSweep): Promise<number> {
  return publish(env, sweep.db, settled(sweep, events.tenantId));
}

/**
 * One delivery per event and enabled webhook that wants it (UNIQUE per webhook and event, so
 * publishing twice is harmless), the events marked published in the same batch, then the queue
 * messages: one per webhook and up to 50 of its deliveries.
 */
async function publish(env: Env, db: Db, which: SQL | undefined): Promise<number> {
  const now = systemNow().toISOString();
  const pending = await db
    .select({ id: events.id, tenantId: events.tenantId, type: events.type })
    .from(events)
    .where(and(isNull(events.publishedAt), which))
    .orderBy(asc(events.createdAt), asc(events.id))
    .limit(PUBLISH_BATCH);
  if (pending.length === 0) return 0;
  const tenantIds = [...new Set(pending.map((e) => e.tenantId))];
  const hooks = await db
    .select()
    .from(webhooks)
    .where(and(inJson(webhooks.tenantId, tenantIds), eq(webhooks.enabled, true)));
  const deliveries = pending.flatMap((e) =>
    hooks
      .filter((w) => w.tenantId === e.tenantId && subscribed(w, e.type))
      .map((w) => ({
        id: newId(),
        tenantId: e.tenantId,
        webhookId: w.id,
        eventId: e.id,
        eventType: e.type,
        status: 'pending' as const,
        attempts: 0,
        lastResponseCode: null,
        lastError: null,
        nextAttemptAt: now,
        lastAttemptAt: null,
        deadLetteredAt: null,
        createdAt: now,
      })),
  );
  const statements: BatchItem<'sqlite'>[] = [
    ...insertJsonRows(db, webhookDeliveries, deliveries, { ignoreConflicts: true }),
    db.update(events).set({ publishedAt: now }).where(inJson(events.id, pending.map((e) => e.id))),
  ];
  await runBatch(db, statements);
  await enqueue(env, deliveryMessages(deliveries));
  return pending.length;
}

/** Deliveries a message names at most: a billing run publishes thousands of events at a time. */
const DELIVERIES_PER_MESSAGE = 50;

/** One message per webhook and up to 100 of its deliveries, in the order they were published. */
function deliveryMessages(deliveries: readonly { id: string; tenantId: string; webhookId: string }[]): EventMessage[] {
  const byWebhook = new Map<string, { tenantId: string; ids: string[] }>();
  for (const d of deliveries) {
    const group = byWebhook.get(d.webhookId) ?? { tenantId: d.tenantId, ids: [] };
    group.ids.push(d.id);
    byWebhook.set(d.webhookId, group);
  }
  const messages: EventMessage[] = [];
  for (const { tenantId, ids } of byWebhook.values()) {
    for (let i = 0; i < ids.length; i += DELIVERIES_PER_MESSAGE) messages.push({ tenantId, deliveryIds: ids.slice(i, i + DELIVERIES_PER_MESSAGE) });
  }
  return messages;
}

/** Sends messages to the events queue, 100 per send (the Queues limit), all with the same delay. */
export async function enqueue(env: Env, messages: EventMessage[], delaySeconds = 0) {
  for (let i = 0; i < messages.length; i += 100) {
    await env.EVENTS.sendBatch(messages.slice(i, i + 100).map((body) => ({ body, delaySeconds })));
  }
}


/**
 * The cron sweeper of a shard: publishes events a request did not get to, and re-enqueues
 * deliveries whose next attempt is due (those waiting longer than a queue delay, and those whose
 * message was lost).
 */
export async function sweepDeliveries(env: Env, sweep: ShardSweep): Promise<{ published: number; requeued: number }> {
  let published = 0;
  for (let n = await publishShardOutbox(env, sweep); n > 0; n = await publishShardOutbox(env, sweep)) published += n;
  const due = await sweep.db
    .select({ id: webhookDeliveries.id, tenantId: webhookDeliveries.tenantId, webhookId: webhookDeliveries.webhookId })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, systemNow().toISOString()), settled(sweep, webhookDeliveries.tenantId)))
    .orderBy(asc(webhookDeliveries.id))
    .limit(1000);
  await enqueue(env, deliveryMessages(due));
  return { published, requeued: due.length };
}

/** Messages that exhausted the queue's own retries: recorded on the deliveries and left for the sweeper, never dropped. */
export async function recordDeadLetters(env: Env, messages: { tenantId: string; deliveryIds: string[] }[]) {
  const byTenant = new Map<string, string[]>();
  for (const m of messages) byTenant.set(m.tenantId, [...(byTenant.get(m.tenantId) ?? []), ...m.deliveryIds]);
  const now = systemNow().toISOString();
  for (const [tenantId, deliveryIds] of byTenant) {
    if (deliveryIds.length === 0) continue;
    // A tenant being moved: its pending deliveries are sent again by the sweeper after the move.
    const db = await tenantDb(env, tenantId).catch((err) => {
      if (err instanceof TenantMovingError) return undefined;
      throw err;
    });
    if (!db) continue;
    await db
      .update(webhookDeliveries)
      .set({ deadLetteredAt: now, nextAttemptAt: now })
      .where(and(tenantRowsById(webhookDeliveries, tenantId, deliveryIds), eq(webhookDeliveries.status, 'pending')));
  }
}
