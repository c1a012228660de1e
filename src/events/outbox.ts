import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
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

/**
 * The outbox insert for a guarded change: placed right after the guarded statement in a batch, it
 * writes the event only when that statement changed a row (SQLite's changes()), so a refused
 * transition leaves no event behind.
 */
export function insertEventIfChanged(db: Db, e: OutboxEvent) {
  return db.run(sql`INSERT INTO events (id, tenant_id, type, version, resource_id, data, created_at)
    SELECT ${newId()}, ${e.tenantId}, ${e.type}, ${EVENT_VERSION}, ${e.resourceId}, ${JSON.stringify(e.data)}, ${e.now.toISOString()}
    WHERE changes() > 0`);
}
