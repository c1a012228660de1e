// The webhook tests' fake world: a receiver that every delivery to http://localhost:9… lands in
// instead of the network, a queue recorded instead of consumed in the background (each test drives
// the consumer itself), and helpers to register webhooks and read deliveries.
import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import worker from '../../src/index';
import type { EventMessage } from '../../src/env';
import { deliveriesOf } from '../../src/events/consumer';
import { api, type TestTenant, dbOf } from '../support/api';

export interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface Queued {
  deliveryId: string;
  tenantId: string;
  delaySeconds: number;
}

/** What a test sees: the requests received, what was queued, and the status the receiver answers. */
export const fake = {
  received: [] as Received[],
  queued: [] as Queued[],
  answer: (() => 200) as (r: Received) => number | Promise<number>,
  /** Every URL fetch was called with, received or not (a refused URL must never show up here). */
  fetched: [] as string[],
};

/** Installs the fake receiver and queue around every test of the calling file. */
export function useFakeReceiver() {
  beforeEach(() => {
    fake.received = [];
    fake.queued = [];
    fake.fetched = [];
    fake.answer = () => 200;
    const guard = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      fake.fetched.push(url);
      if (!url.startsWith('http://localhost:9')) return guard(input, init);
      // The raw bytes on the wire, as a receiver reads them.
      const body = init?.body instanceof Uint8Array ? new TextDecoder().decode(init.body) : String(init?.body);
      const r = { url, headers: Object.fromEntries(new Headers(init?.headers).entries()), body };
      fake.received.push(r);
      const status = await fake.answer(r);
      return new Response([204, 205, 304].includes(status) ? null : 'ok', { status });
    });
    // One entry per delivery, whether a message names one or many.
    const record = (body: EventMessage, delaySeconds = 0) => {
      for (const deliveryId of deliveriesOf(body)) fake.queued.push({ deliveryId, tenantId: body.tenantId, delaySeconds });
    };
    vi.spyOn(env.EVENTS, 'sendBatch').mockImplementation(async (messages) => {
      for (const m of messages) record(m.body, m.delaySeconds);
      return { metadata: {} } as never;
    });
    vi.spyOn(env.EVENTS, 'send').mockImplementation(async (body) => {
      record(body);
      return { metadata: {} } as never;
    });
  });
  afterEach(() => vi.restoreAllMocks());
}

/** Registers a webhook to the fake receiver (every event unless told otherwise). */
export async function hook(t: TestTenant, body: Record<string, unknown> = {}) {
  const res = await api('/webhooks', { token: t.key, body: { url: 'http://localhost:9/hook', events: ['*'], ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; secret: string };
}

/** Runs the queue consumer over what is queued, like the Queues runtime would. */
export async function consume(messages = fake.queued.splice(0)) {
  const batch = createMessageBatch(
    'edge-billing-events',
    messages.map((m, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body: { deliveryId: m.deliveryId, tenantId: m.tenantId } })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  return getQueueResult(batch, ctx);
}

/** A webhook's delivery rows, oldest first, from its tenant's shard. */
export const deliveries = async (t: TestTenant, webhookId: string) =>
  (await (await dbOf(t)).prepare('SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY created_at, id').bind(webhookId).all<Record<string, any>>()).results;

/** The Standard Webhooks headers of a received delivery, as the library takes them. */
export const standardHeaders = (r: Received) => ({
  'webhook-id': r.headers['webhook-id']!,
  'webhook-timestamp': r.headers['webhook-timestamp']!,
  'webhook-signature': r.headers['webhook-signature']!,
});
