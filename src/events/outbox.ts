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

/** The outbox insert for a change; put it in the same `db.batch` as the change itself. */
export function insertEvent(db: Db, e: OutboxEvent) {
  return db.insert(events).values({
    id: newId(),
    tenantId: e.tenantId,
    type: e.type,
    version: EVENT_VERSION,
    resourceId: e.resourceId,
    data: e.data,
    createdAt: e.now.toISOString(),
  });
}

/** Events that carry the same document: a finalized invoice is `invoice.finalized`, `invoice.unpaid`, … */
export interface EventGroup {
  /** The document, or its JSON text (an object) when the caller has it serialized already. */
  data: unknown;
  events: { id: string; type: string; version: string; resourceId: string | null; createdAt: string }[];
}

/**
 * The outbox inserts for many events in a few statements (a billing run's chunk writes thousands):
 * the rows travel as one JSON parameter per statement, and each document travels once for all the
 * events that carry it (each is stored in full in every event row). Put them in the same batch as
 * the change.
 */
export function insertEventGroups(db: Db, tenantId: string, groups: readonly EventGroup[]): BatchItem<'sqlite'>[] {
  const encoded = groups
    .filter((g) => g.events.length > 0)
    .map((g) => {
      const doc = typeof g.data === 'string' ? g.data : JSON.stringify(g.data);
      if (doc[0] !== '{' && doc[0] !== '[') throw new Error('An event document is an object or an array.');
      return `{"d":${doc},"e":${JSON.stringify(g.events.map((e) => [e.id, e.type, e.version, e.resourceId, e.createdAt]))}}`;
    });
  return jsonChunks(encoded).map(({ json }) =>
    rawStatement(
      db,
      sql`INSERT INTO events (id, tenant_id, type, version, resource_id, data, created_at)
        SELECT json_extract(e.value, '$[0]'), ${tenantId}, json_extract(e.value, '$[1]'), json_extract(e.value, '$[2]'), json_extract(e.value, '$[3]'),
          json_extract(g.value, '$.d'), json_extract(e.value, '$[4]')
        FROM json_each(${json}) AS g, json_each(g.value, '$.e') AS e`,
    ),
  );
}
