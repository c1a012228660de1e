// Delivery: attempts of webhook deliveries, one resource's in the order they were published, with
// the retry schedule kept in D1 (docs/decisions.md, Events and webhooks). A queue message names up
// to 50 deliveries; they are read, claimed and recorded in a few statements, and sent in lanes: one
// resource's one after the other, different resources' side by side.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { runBatch, tenantRowsById, type Db } from '../db/client';
import { tenantDb } from '../db/directory';
import { eventDocuments, events, tenants, webhookDeliveries, webhooks } from '../db/schema';
import type { Env, EventMessage } from '../env';
import { systemNow } from '../lib/clock';
import { outboundUrlRefusals } from '../lib/outbound-url';
import { payloadVersion } from './catalogue';
import { enqueue } from './publish';
import { MAX_ATTEMPTS, retryDelaySeconds } from './retry';
import { signatureHeaders } from './signing';
import { forEachLimited } from '../lib/pool';

/** A queue message may be delayed by at most 12 hours; longer waits are left to the cron sweeper. */
const MAX_QUEUE_DELAY_SECONDS = 12 * 3600;
export const DELIVERY_TIMEOUT_MS = 10_000;

type EventRow = typeof events.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type WebhookRow = typeof webhooks.$inferSelect;

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

/** A tenant's events with their documents (their own, or the one they share with other events), by id. */
async function loadEvents(db: Db, tenantId: string, ids: string[]): Promise<Map<string, EventRow>> {
  const rows = ids.length
    ? await db
        .select({ event: events, shared: eventDocuments.data })
        .from(events)
        .leftJoin(eventDocuments, eq(eventDocuments.id, events.documentId))
        .where(tenantRowsById(events, tenantId, ids))
    : [];
  return new Map(rows.map((r) => [r.event.id, { ...r.event, data: r.event.data ?? r.shared }]));
}

/**
 * Claims deliveries for an attempt: a guarded update on each one's attempt count, so a duplicate
 * queue message (or a second consumer) claims nothing already claimed. Returns the ids claimed.
 * (`+status`: by primary key, not by walking every pending delivery once per JSON row.)
 */
async function claim(db: Db, due: DeliveryRow[], now: Date): Promise<Set<string>> {
  if (due.length === 0) return new Set();
  const rows = await db.all<{ id: string }>(
    sql`UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = ${now.toISOString()}
      FROM json_each(${JSON.stringify(due.map((d) => [d.id, d.attempts]))}) AS j
      WHERE webhook_deliveries.id = json_extract(j.value, '$[0]') AND webhook_deliveries.attempts = json_extract(j.value, '$[1]')
        AND +webhook_deliveries.status = 'pending'
      RETURNING webhook_deliveries.id AS id`,
  );
  return new Set(rows.map((r) => r.id));
}

/** Answers up to this size are read to their end; of a longer one, this much is read and the rest dropped. */
const MAX_DRAINED_ANSWER = 16_384;

/**
 * Reads a receiver's answer to its end (bounded), which frees its connection at once. A cancelled
 * body let its connection go only when the garbage collector came by: once a billing run's burst
 * was over and little garbage was made, a consumer sending hundreds of deliveries waited for free
 * connections (a Worker has six open at a time), and deliveries went out at about one a second.
 */
async function drainAnswer(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (!body) return;
  const reader = body.getReader();
  for (let seen = 0; ; ) {
    const { done, value } = await reader.read();
    if (done) return;
    seen += value.byteLength;
    if (seen > MAX_DRAINED_ANSWER) return reader.cancel();
  }
}

/** One delivery's outcome, as statements to record it and a queue message for its next attempt. */
interface Recorded {
  outcome: DeliveryOutcome;
  statements: BatchItem<'sqlite'>[];
  retryAt?: Date;
}

/** Sends one claimed delivery and decides what to record; the webhook is disabled in `webhook` too, for the deliveries after it. */
async function send(db: Db, d: DeliveryRow, webhook: WebhookRow | undefined, event: EventRow | undefined, mode: 'live' | 'test', now: Date, random: () => number): Promise<Recorded> {
  const finish = (status: 'delivered' | 'failed', code: number | null, error: string | null) =>
    db.update(webhookDeliveries).set({ status, lastResponseCode: code, lastError: error, nextAttemptAt: null }).where(eq(webhookDeliveries.id, d.id));
  // Fails the delivery and disables its webhook, saying why (a condition retrying cannot change).
  const disable = (code: number | null, reason: string): Recorded => {
    webhook!.enabled = false;
    return {
      outcome: 'failed',
      statements: [finish('failed', code, reason), db.update(webhooks).set({ enabled: false, disabledReason: reason, updatedAt: now.toISOString() }).where(eq(webhooks.id, webhook!.id))],
    };
  };
  if (!webhook || !event || !webhook.enabled) return { outcome: 'failed', statements: [finish('failed', null, webhook ? 'webhook disabled' : 'webhook deleted')] };
  // Checked again before sending (a URL stored before the policy, or by another path); never sent.
  const refusals = outboundUrlRefusals(webhook.url, mode);
  if (refusals.length > 0) return disable(null, `url refused: ${refusals.map((r) => r.message).join(' ')}`);
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
    await drainAnswer(res.body);
  } catch (err) {
    error = (err as Error).name === 'TimeoutError' ? `timeout after ${DELIVERY_TIMEOUT_MS / 1000} s` : String((err as Error).message ?? err).slice(0, 300);
  }
  if (status !== null && status >= 200 && status < 300) return { outcome: 'delivered', statements: [finish('delivered', status, null)] };
  if (status === 410) return disable(410, 'receiver answered 410 Gone');
  const attempt = d.attempts + 1;
  const delay = retryDelaySeconds(attempt, random());
  if (delay === null || attempt >= MAX_ATTEMPTS) {
    return {
      outcome: 'failed',
      statements: [
        db.update(webhookDeliveries).set({ status: 'failed', lastResponseCode: status, lastError: error, nextAttemptAt: null }).where(eq(webhookDeliveries.id, d.id)),
        db.update(webhooks).set({ failureCount: sql`${webhooks.failureCount} + 1` }).where(eq(webhooks.id, webhook.id)),
      ],
    };
  }
  const next = new Date(now.getTime() + delay * 1000);
  return { outcome: 'retry', retryAt: next, statements: [db.update(webhookDeliveries).set({ lastResponseCode: status, lastError: error, nextAttemptAt: next.toISOString() }).where(eq(webhookDeliveries.id, d.id))] };
}

/**
 * Lanes a message's deliveries are sent in: one per webhook and resource the event is about (an
 * invoice, a subscription, a customer), in the order given. A lane goes out one after the other, so
 * a receiver sees one resource's events in the order they happened; lanes go out side by side.
 * Sent strictly one by one, a message of 50 deliveries to a receiver answering in 100 ms took 5 s,
 * and a billing run's 100,000 deliveries hours (docs/decisions.md, Events and webhooks: Order).
 */
export function sendingLanes(deliveries: readonly DeliveryRow[], eventsById: ReadonlyMap<string, Pick<EventRow, 'resourceId'>>): DeliveryRow[][] {
  const lanes = new Map<string, DeliveryRow[]>();
  for (const d of deliveries) {
    const key = `${d.webhookId} ${eventsById.get(d.eventId)?.resourceId ?? d.eventId}`;
    const lane = lanes.get(key);
    if (lane) lane.push(d);
    else lanes.set(key, [d]);
  }
  return [...lanes.values()];
}

/** Lanes sent at once: a Worker invocation keeps six connections open at a time. */
export const SENDING_LANES = 6;

/**
 * Attempts deliveries, each resource's in the order given (sendingLanes): each is claimed (so a
 * duplicate message does nothing),
 * its URL checked again, the signed payload POSTed with a 10 s timeout, and the result recorded:
 * 2xx delivered; 410 or a URL the policy refuses disables the webhook; anything else is retried
 * with backoff until the last attempt, after which the delivery fails and the webhook's failure
 * count rises. Reads, the claim and the records are a few statements for all of them.
 */
export async function attemptDeliveries(env: Env, tenantId: string, deliveryIds: readonly string[], random = Math.random): Promise<DeliveryOutcome[]> {
  if (deliveryIds.length === 0) return [];
  // The message names the tenant, whose shard holds its deliveries (docs/decisions.md, Tenancy and shards).
  const db = await tenantDb(env, tenantId);
  if (!db) return deliveryIds.map(() => 'skipped');
  const now = systemNow();
  const rows = new Map((await db.select().from(webhookDeliveries).where(tenantRowsById(webhookDeliveries, tenantId, [...deliveryIds]))).map((d) => [d.id, d]));
  const pending = deliveryIds.map((id) => rows.get(id)).filter((d): d is DeliveryRow => d?.status === 'pending');
  // One whose next attempt is not due yet goes back to the queue for then.
  const early = pending.filter((d) => d.nextAttemptAt && d.nextAttemptAt > now.toISOString());
  const due = pending.filter((d) => !early.includes(d));
  const [hooks, eventRows, tenantRows, claimed] = await Promise.all([
    due.length ? db.select().from(webhooks).where(tenantRowsById(webhooks, tenantId, [...new Set(due.map((d) => d.webhookId))])) : [],
    loadEvents(db, tenantId, due.map((d) => d.eventId)),
    due.length ? db.select({ id: tenants.id, mode: tenants.mode }).from(tenants).where(eq(tenants.id, tenantId)) : [],
    claim(db, due, now),
  ]);
  const webhookById = new Map(hooks.map((w) => [w.id, w]));
  const modeOf = new Map(tenantRows.map((t) => [t.id, t.mode]));
  const outcomes = new Map<string, DeliveryOutcome>();
  const statements: BatchItem<'sqlite'>[] = [];
  const retries: { d: DeliveryRow; at: Date }[] = early.map((d) => ({ d, at: new Date(d.nextAttemptAt!) }));
  const sent = new Map<string, Recorded>();
  await forEachLimited(sendingLanes(due.filter((d) => claimed.has(d.id)), eventRows), SENDING_LANES, async (lane) => {
    for (const d of lane) sent.set(d.id, await send(db, d, webhookById.get(d.webhookId), eventRows.get(d.eventId), modeOf.get(d.tenantId) ?? 'live', now, random));
  });
  for (const d of due) {
    const recorded = sent.get(d.id);
    if (!recorded) continue;
    outcomes.set(d.id, recorded.outcome);
    statements.push(...recorded.statements);
    if (recorded.retryAt) retries.push({ d, at: recorded.retryAt });
  }
  // A consumer that dies before this leaves claimed deliveries pending and due: the sweeper sends them again.
  await runBatch(db, statements);
  await scheduleRetries(env, retries, now);
  return deliveryIds.map((id) => outcomes.get(id) ?? 'skipped');
}

/** One attempt of one delivery (a retry that came due, a test). */
export async function attemptDelivery(env: Env, tenantId: string, deliveryId: string, random = Math.random): Promise<DeliveryOutcome> {
  return (await attemptDeliveries(env, tenantId, [deliveryId], random))[0]!;
}

/**
 * Keeps a webhook's deliveries in order when queue messages arrive out of order (two publishes
 * racing): older deliveries of the same webhook that were never attempted go first. Deliveries
 * already retrying do not hold the others back.
 */
export async function attemptInOrder(env: Env, tenantId: string, deliveryIds: readonly string[]): Promise<DeliveryOutcome[]> {
  if (deliveryIds.length === 0) return [];
  const db = await tenantDb(env, tenantId);
  if (!db) return deliveryIds.map(() => 'skipped');
  const first = await db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.id, deliveryIds[0]!))).get();
  if (!first) return attemptDeliveries(env, tenantId, deliveryIds);
  // The untried deliveries' own index (webhook_deliveries_untried_idx): only those rows are read.
  const earlier = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        // `+tenant_id`: the untried index, not the tenant's index of every delivery.
        sql`+${webhookDeliveries.tenantId} = ${tenantId}`,
        eq(webhookDeliveries.webhookId, first.webhookId),
        sql`${webhookDeliveries.status} = 'pending' AND ${webhookDeliveries.attempts} = 0`,
        sql`${webhookDeliveries.id} < ${first.id}`,
      ),
    )
    .orderBy(asc(webhookDeliveries.id))
    .limit(50);
  const before = earlier.map((e) => e.id).filter((id) => !deliveryIds.includes(id));
  return (await attemptDeliveries(env, tenantId, [...before, ...deliveryIds])).slice(before.length);
}

/** Re-enqueues deliveries for their next attempt; waits beyond the queue's 12 h are left to the sweeper. */
async function scheduleRetries(env: Env, retries: { d: DeliveryRow; at: Date }[], now: Date) {
  for (const { d, at } of retries) {
    const seconds = Math.max(0, Math.ceil((at.getTime() - now.getTime()) / 1000));
    if (seconds <= MAX_QUEUE_DELAY_SECONDS) await enqueue(env, [{ deliveryIds: [d.id], tenantId: d.tenantId } satisfies EventMessage], seconds);
  }
}

