import { and, asc, eq, isNull, lte, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { createDb, inJson, type Db, runBatch } from '../db/client';
import { insertJsonRows } from '../db/insert';
import { eventDocuments, events, tenants, webhookDeliveries, webhooks } from '../db/schema';
import type { Env, EventMessage } from '../env';
import { systemNow } from '../lib/clock';
import { newId } from '../lib/ids';
import { outboundUrlRefusals } from '../lib/outbound-url';
import { payloadVersion } from './catalogue';
import { MAX_ATTEMPTS, retryDelaySeconds } from './retry';
import { signatureHeaders } from './signing';

/** A queue message may be delayed by at most 12 hours; longer waits are left to the cron sweeper. */
const MAX_QUEUE_DELAY_SECONDS = 12 * 3600;
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Events one publish moves to deliveries (their ids and types only: the documents stay in D1). */
export const PUBLISH_BATCH = 1000;

type EventRow = typeof events.$inferSelect;
type WebhookRow = typeof webhooks.$inferSelect;

function subscribed(webhook: WebhookRow, type: string): boolean {
  return webhook.enabled && (webhook.events.includes('*') || webhook.events.includes(type));
}

/**
 * Moves outbox events to webhook deliveries: one delivery per event and enabled webhook that wants
 * it (UNIQUE per webhook and event, so publishing twice is harmless), events marked published in the
 * same batch, then a queue message per delivery. Runs right after a write and from the cron sweeper.
 */
export async function publishOutbox(env: Env, tenantId?: string): Promise<number> {
  const db = createDb(env.DB);
  const now = systemNow().toISOString();
  // After a request: a tenant without webhooks has nothing to deliver; its events are marked
  // published by the sweeper, in bulk, instead of costing every write another batch.
  if (tenantId) {
    const any = await db.select({ id: webhooks.id }).from(webhooks).where(and(eq(webhooks.tenantId, tenantId), eq(webhooks.enabled, true))).limit(1).get();
    if (!any) return 0;
  }
  const pending = await db
    .select({ id: events.id, tenantId: events.tenantId, type: events.type })
    .from(events)
    .where(and(isNull(events.publishedAt), tenantId ? eq(events.tenantId, tenantId) : undefined))
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
const DELIVERIES_PER_MESSAGE = 100;

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

async function enqueue(env: Env, messages: EventMessage[], delaySeconds = 0) {
  for (let i = 0; i < messages.length; i += 100) {
    await env.EVENTS.sendBatch(messages.slice(i, i + 100).map((body) => ({ body, delaySeconds })));
  }
}

/** An event with its document (its own, or the one it shares with other events). */
async function loadEvent(db: Db, id: string): Promise<EventRow | undefined> {
  const row = await db
    .select({ event: events, shared: eventDocuments.data })
    .from(events)
    .leftJoin(eventDocuments, eq(eventDocuments.id, events.documentId))
    .where(eq(events.id, id))
    .get();
  return row && { ...row.event, data: row.event.data ?? row.shared };
}

/**
 * The body a webhook receives: compact JSON, signed byte for byte. It is always `JSON.stringify` of
 * parsed values (never stored JSON text spliced in), so it equals `JSON.stringify(JSON.parse(body))`:
 * a verifier that re-serialises the parsed body before hashing (the n8n trigger) gets the same bytes.
 */
export function deliveryPayload(event: EventRow) {
  return JSON.stringify({
    event: { type: event.type, id: event.id, version: payloadVersion(event.version) ?? event.version, created: event.createdAt },
    tenantId: event.tenantId,
    data: event.data,
  });
}

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed' | 'skipped';

/**
 * One attempt of a delivery: claims it (a guarded update on its attempt count, so a duplicate queue
 * message does nothing), checks the URL again, POSTs the signed payload with a 10 s timeout, and
 * records the result: 2xx delivered; 410 or a URL the policy refuses disables the webhook; anything
 * else is retried with backoff until the last attempt, after which the delivery fails and the
 * webhook's failure count rises.
 */
export async function attemptDelivery(env: Env, deliveryId: string, random = Math.random): Promise<DeliveryOutcome> {
  const db = createDb(env.DB);
  const now = systemNow();
  const delivery = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).get();
  if (!delivery || delivery.status !== 'pending') return 'skipped';
  if (delivery.nextAttemptAt && delivery.nextAttemptAt > now.toISOString()) {
    await scheduleNext(env, delivery.id, delivery.tenantId, new Date(delivery.nextAttemptAt));
    return 'skipped';
  }
  const [webhook, event, tenant] = await Promise.all([
    db.select().from(webhooks).where(eq(webhooks.id, delivery.webhookId)).get(),
    loadEvent(db, delivery.eventId),
    db.select({ mode: tenants.mode }).from(tenants).where(eq(tenants.id, delivery.tenantId)).get(),
  ]);
  const claimed = await db
    .update(webhookDeliveries)
    .set({ attempts: delivery.attempts + 1, lastAttemptAt: now.toISOString() })
    .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, 'pending'), eq(webhookDeliveries.attempts, delivery.attempts)))
    .returning({ id: webhookDeliveries.id })
    .get();
  if (!claimed) return 'skipped';
  const attempt = delivery.attempts + 1;
  if (!webhook || !event || !webhook.enabled) {
    await finish(db, delivery.id, 'failed', null, webhook ? 'webhook disabled' : 'webhook deleted');
    return 'failed';
  }
  // Checked again before sending (a URL stored before the policy, or by another path); never sent.
  const refusals = outboundUrlRefusals(webhook.url, tenant?.mode ?? 'live');
  if (refusals.length > 0) {
    await disable(db, delivery.id, webhook.id, null, `url refused: ${refusals.map((r) => r.message).join(' ')}`, now);
    return 'failed';
  }
  const body = deliveryPayload(event);
  const secrets: [string, ...string[]] = [webhook.secret];
  if (webhook.previousSecret && webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt > now.toISOString()) secrets.push(webhook.previousSecret);
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': 'edge-billing-webhooks/1',
    ...(await signatureHeaders(secrets, event.id, Math.floor(now.getTime() / 1000), body)),
  };
  let status: number | null = null;
  let error: string | null = null;
  try {
    const res = await fetch(webhook.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS) });
    status = res.status;
    await res.body?.cancel();
  } catch (err) {
    error = (err as Error).name === 'TimeoutError' ? `timeout after ${DELIVERY_TIMEOUT_MS / 1000} s` : String((err as Error).message ?? err).slice(0, 300);
  }
  if (status !== null && status >= 200 && status < 300) {
    await finish(db, delivery.id, 'delivered', status, null);
    return 'delivered';
  }
  if (status === 410) {
    await disable(db, delivery.id, webhook.id, 410, 'receiver answered 410 Gone', now);
    return 'failed';
  }
  const delay = retryDelaySeconds(attempt, random());
  if (delay === null || attempt >= MAX_ATTEMPTS) {
    await db.batch([
      db.update(webhookDeliveries).set({ status: 'failed', lastResponseCode: status, lastError: error, nextAttemptAt: null }).where(eq(webhookDeliveries.id, delivery.id)),
      db.update(webhooks).set({ failureCount: sql`${webhooks.failureCount} + 1` }).where(eq(webhooks.id, webhook.id)),
    ]);
    return 'failed';
  }
  const next = new Date(now.getTime() + delay * 1000);
  await db.update(webhookDeliveries).set({ lastResponseCode: status, lastError: error, nextAttemptAt: next.toISOString() }).where(eq(webhookDeliveries.id, delivery.id));
  await scheduleNext(env, delivery.id, delivery.tenantId, next);
  return 'retry';
}

/**
 * Keeps a webhook's deliveries in order when queue messages arrive out of order (two publishes
 * racing): older deliveries of the same webhook that were never attempted go first. Deliveries
 * already retrying do not hold the others back.
 */
export async function attemptInOrder(env: Env, deliveryId: string): Promise<DeliveryOutcome> {
  const db = createDb(env.DB);
  const delivery = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).get();
  if (!delivery) return 'skipped';
  const earlier = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, delivery.webhookId),
        eq(webhookDeliveries.status, 'pending'),
        eq(webhookDeliveries.attempts, 0),
        sql`${webhookDeliveries.id} < ${delivery.id}`,
      ),
    )
    .orderBy(asc(webhookDeliveries.id))
    .limit(50);
  for (const e of earlier) await attemptDelivery(env, e.id);
  return attemptDelivery(env, deliveryId);
}

/** Fails the delivery and disables its webhook, saying why (a condition retrying cannot change). */
async function disable(db: Db, deliveryId: string, webhookId: string, code: number | null, reason: string, now: Date) {
  await db.batch([
    db.update(webhookDeliveries).set({ status: 'failed', lastResponseCode: code, lastError: reason, nextAttemptAt: null }).where(eq(webhookDeliveries.id, deliveryId)),
    db.update(webhooks).set({ enabled: false, disabledReason: reason, updatedAt: now.toISOString() }).where(eq(webhooks.id, webhookId)),
  ]);
}

async function finish(db: Db, id: string, status: 'delivered' | 'failed', code: number | null, error: string | null) {
  await db.update(webhookDeliveries).set({ status, lastResponseCode: code, lastError: error, nextAttemptAt: null }).where(eq(webhookDeliveries.id, id));
}

/** Re-enqueues a delivery for its next attempt; waits beyond the queue's 12 h are left to the sweeper. */
async function scheduleNext(env: Env, deliveryId: string, tenantId: string, at: Date) {
  const seconds = Math.max(0, Math.ceil((at.getTime() - systemNow().getTime()) / 1000));
  if (seconds <= MAX_QUEUE_DELAY_SECONDS) await enqueue(env, [{ deliveryIds: [deliveryId], tenantId }], seconds);
}

/**
 * The cron sweeper: publishes events a request did not get to, and re-enqueues deliveries whose
 * next attempt is due (those waiting longer than a queue delay, and those whose message was lost).
 */
export async function sweepDeliveries(env: Env): Promise<{ published: number; requeued: number }> {
  let published = 0;
  for (let n = await publishOutbox(env); n > 0; n = await publishOutbox(env)) published += n;
  const db = createDb(env.DB);
  const due = await db
    .select({ id: webhookDeliveries.id, tenantId: webhookDeliveries.tenantId })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, systemNow().toISOString())))
    .limit(1000);
  await enqueue(env, due.map((d) => ({ deliveryIds: [d.id], tenantId: d.tenantId })));
  return { published, requeued: due.length };
}

/** Messages that exhausted the queue's own retries: recorded on the delivery and left for the sweeper, never dropped. */
export async function recordDeadLetters(env: Env, deliveryIds: string[]) {
  if (deliveryIds.length === 0) return;
  const db = createDb(env.DB);
  const now = systemNow().toISOString();
  await db
    .update(webhookDeliveries)
    .set({ deadLetteredAt: now, nextAttemptAt: now })
    .where(and(inJson(webhookDeliveries.id, deliveryIds), eq(webhookDeliveries.status, 'pending')));
}
