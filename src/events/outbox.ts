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

/** The outbox row of an event (for writers of many: `insertJsonRows(db, events, rows)`). */
export function eventRow(e: OutboxEvent): typeof events.$inferInsert {
  return { id: newId(), tenantId: e.tenantId, type: e.type, version: EVENT_VERSION, resourceId: e.resourceId, data: e.data, createdAt: e.now.toISOString() };
}

/** The outbox insert for a change; put it in the same `db.batch` as the change itself. */
export function insertEvent(db: Db, e: OutboxEvent) {
  return db.insert(events).values(eventRow(e));
}
