import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { purgeOldEvents } from '../../src/events/retention';
import { query, sweepOf } from '../support/api';
import { createTenant } from '../support/builders';

// The outbox is kept for EVENT_RETENTION_DAYS (default 30) and purged nightly, shard by shard
// (src/events/retention.ts): finished deliveries, published events no pending delivery needs, and
// shared documents no event points to. What is younger, or still owed to a receiver, stays.

const DAY = 86_400_000;
// The purge runs over a whole shard, which other test files share: "now" lies in 1991, so only
// rows this file writes are old enough to go.

describe('event retention', () => {
  it('purges finished deliveries, published events and unreferenced documents older than 30 days, nothing else', async () => {
    const t = await createTenant();
    const now = new Date('1991-06-01T03:00:00.000Z');
    const old = new Date(now.getTime() - 31 * DAY).toISOString();
    const young = new Date(now.getTime() - 29 * DAY).toISOString();
    const tag = `ret-${Date.now()}`;
    const event = (id: string, at: string, published: boolean, documentId: string | null = null) =>
      query(
        t,
        'INSERT INTO events (id, tenant_id, type, version, resource_id, data, document_id, created_at, published_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        `${tag}-${id}`,
        t.id,
        'invoice.finalized',
        '1.0.0',
        'r',
        documentId ? null : '{}',
        documentId ? `${tag}-${documentId}` : null,
        at,
        published ? at : null,
      );
    const document = (id: string, at: string) => query(t, 'INSERT INTO event_documents (id, tenant_id, data, created_at) VALUES (?, ?, ?, ?)', `${tag}-${id}`, t.id, '{"x":1}', at);
    const delivery = (id: string, eventId: string, status: string, at: string, webhookId = 'hook') =>
      query(
        t,
        `INSERT INTO webhook_deliveries (id, tenant_id, webhook_id, event_id, event_type, status, attempts, created_at) VALUES (?, ?, ?, ?, 'invoice.finalized', ?, 1, ?)`,
        `${tag}-${id}`,
        t.id,
        webhookId,
        `${tag}-${eventId}`,
        status,
        at,
      );
    // Old and done: purged.
    await document('doc-old', old);
    await event('old-shared-1', old, true, 'doc-old');
    await event('old-shared-2', old, true, 'doc-old');
    await event('old-delivered', old, true);
    await delivery('d-old-delivered', 'old-delivered', 'delivered', old);
    await delivery('d-old-failed', 'old-delivered', 'failed', old, 'other-hook');
    // Old, but a receiver is still owed one: the event and its delivery stay.
    await event('old-pending', old, true);
    await delivery('d-old-pending', 'old-pending', 'pending', old);
    // Old, never published: stays until the sweeper publishes it.
    await event('old-unpublished', old, false);
    // Old document still pointed to by an event kept (unpublished): stays.
    await document('doc-kept', old);
    await event('old-unpublished-shared', old, false, 'doc-kept');
    // Younger than 30 days: stays.
    await document('doc-young', young);
    await event('young', young, true, 'doc-young');
    await delivery('d-young', 'young', 'delivered', young);

    const purged = await purgeOldEvents(env, await sweepOf(t), now);
    expect(purged).toEqual({ deliveries: 2, events: 3, documents: 1 });
    const ids = async (table: string) => (await query<{ id: string }>(t, `SELECT id FROM ${table} WHERE id LIKE ? ORDER BY id`, `${tag}-%`)).map((r) => r.id.slice(tag.length + 1));
    expect(await ids('events')).toEqual(['old-pending', 'old-unpublished', 'old-unpublished-shared', 'young']);
    expect(await ids('webhook_deliveries')).toEqual(['d-old-pending', 'd-young']);
    expect(await ids('event_documents')).toEqual(['doc-kept', 'doc-young']);
    // A second night finds nothing more.
    expect(await purgeOldEvents(env, await sweepOf(t), now)).toEqual({ deliveries: 0, events: 0, documents: 0 });
  });

  it('keeps events as long as EVENT_RETENTION_DAYS says', async () => {
    const t = await createTenant();
    const now = new Date('1991-06-01T03:00:00.000Z');
    const id = `ret-days-${Date.now()}`;
    const at = new Date(now.getTime() - 40 * DAY).toISOString();
    await query(t, 'INSERT INTO events (id, tenant_id, type, version, resource_id, data, created_at, published_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', id, t.id, 'customer.updated', '1.0.0', 'r', '{}', at, at);
    await purgeOldEvents({ ...env, EVENT_RETENTION_DAYS: '60' }, await sweepOf(t), now);
    expect(await query(t, 'SELECT id FROM events WHERE id = ?', id)).toHaveLength(1);
    await purgeOldEvents(env, await sweepOf(t), now);
    expect(await query(t, 'SELECT id FROM events WHERE id = ?', id)).toHaveLength(0);
  });
});
