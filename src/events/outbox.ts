import { sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { rawStatement, type Db } from '../db/client';
import { jsonChunks } from '../db/insert';
import { events } from '../db/schema';
import { newId } from '../lib/ids';
import { EVENT_VERSION, type EventType } from './catalogue';

export interface OutboxEvent {
  tenantId: string;
  type: EventType;
  resourceId: string;
  data: unknown;
  now: Date;
}

/** The outbox row of an event (for writers of many: `insertJsonRows(db, events, rows)`). */
export function eventRow(e: OutboxEvent): typeof events.$inferInsert {
  return { id: newId(), tenantId: e.tenantId, type: e.type, version: EVENT_VERSION, resourceId: e.resourceId, data: e.data, createdAt: e.now.toISOString() };
}

/** The outbox insert for a change; put it in the same `db.batch` as the change itself. */
export function insertEvent(db: Db, e: OutboxEvent) {
  return db.insert(events).values(eventRow(e));
}

/** Events that carry the same document: a finalized invoice is `invoice.finalized`, `invoice.unpaid`, … */
export interface EventGroup {
  /** The document, or its JSON text (an object) when the caller has it serialized already. */
  data: unknown;
  events: { id: string; type: string; version: string; resourceId: string | null; createdAt: string }[];
}

/**
 * The outbox inserts for many events in a few statements (a billing run's chunk writes thousands),
 * for the same batch as the change. The rows travel as one JSON parameter per statement; a document
 * that several events carry is stored once, in `event_documents`, and travels once.
 */
export function insertEventGroups(db: Db, tenantId: string, groups: readonly EventGroup[]): BatchItem<'sqlite'>[] {
  const documents: string[] = [];
  const rows: string[] = [];
  for (const g of groups) {
    if (g.events.length === 0) continue;
    const doc = typeof g.data === 'string' ? g.data : JSON.stringify(g.data);
    if (doc[0] !== '{' && doc[0] !== '[') throw new Error('An event document is an object or an array.');
    const shared = g.events.length > 1 ? newId() : null;
    if (shared) documents.push(`[${JSON.stringify(shared)},${doc},${JSON.stringify(g.events[0]!.createdAt)}]`);
    for (const e of g.events) rows.push(`[${JSON.stringify([e.id, e.type, e.version, e.resourceId, e.createdAt, shared]).slice(1, -1)},${shared ? 'null' : doc}]`);
  }
  // A JSON element that is an object or array comes out of json_extract as its JSON text, which is
  // what the JSON column stores.
  return [
    ...jsonChunks(documents).map(({ json }) =>
      rawStatement(
        db,
        sql`INSERT INTO event_documents (id, tenant_id, data, created_at)
          SELECT json_extract(value, '$[0]'), ${tenantId}, json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(${json})`,
      ),
    ),
    ...jsonChunks(rows).map(({ json }) =>
      rawStatement(
        db,
        sql`INSERT INTO events (id, tenant_id, type, version, resource_id, created_at, document_id, data)
          SELECT json_extract(value, '$[0]'), ${tenantId}, json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'),
            json_extract(value, '$[4]'), json_extract(value, '$[5]'), json_extract(value, '$[6]')
          FROM json_each(${json})`,
      ),
    ),
  ];
}
