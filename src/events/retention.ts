// Retention of the outbox (docs/decisions.md, Events and webhooks: retention): events, their
// deliveries and shared documents are kept for EVENT_RETENTION_DAYS (default 30), then purged by
// the nightly job, shard by shard. A billed invoice's events are most of what a tenant stores
// (about 12 of its 17 KB), so without this a tenant billing 100,000 invoices a month would fill a
// 10 GB shard on events alone within a year.
import { sql } from 'drizzle-orm';
import { settled, type ShardSweep } from '../db/directory';
import { events, eventDocuments, webhookDeliveries } from '../db/schema';
import type { Env } from '../env';

export const DEFAULT_EVENT_RETENTION_DAYS = 30;

/** Rows one purge statement deletes at most, and statements one night runs at most per table. */
const PURGE_CHUNK = 5_000;
const PURGE_STATEMENTS = 40;

export function eventRetentionDays(env: Env): number {
  const days = Number(env.EVENT_RETENTION_DAYS);
  return Number.isInteger(days) && days >= 1 ? days : DEFAULT_EVENT_RETENTION_DAYS;
}

/**
 * Deletes what is older than the retention: finished deliveries (delivered or failed; a pending one
 * is still owed to its receiver), published events no pending delivery needs, and shared documents
 * no event points to any more. A tenant being moved between shards is left alone. Bounded per
 * night; what is left goes the next night.
 */
export async function purgeOldEvents(env: Env, sweep: ShardSweep, now: Date): Promise<{ deliveries: number; events: number; documents: number }> {
  const cutoff = new Date(now.getTime() - eventRetentionDays(env) * 86_400_000).toISOString();
  const notMoving = (column: Parameters<typeof settled>[1]) => settled(sweep, column) ?? sql`1 = 1`;
  const purge = async (statement: ReturnType<typeof sql>) => {
    let total = 0;
    for (let i = 0; i < PURGE_STATEMENTS; i++) {
      const changes = (await sweep.db.run(statement)).meta.changes ?? 0;
      total += changes;
      if (changes < PURGE_CHUNK) break;
    }
    return total;
  };
  const deliveries = await purge(sql`DELETE FROM ${webhookDeliveries} WHERE rowid IN (
    SELECT rowid FROM ${webhookDeliveries} WHERE status <> 'pending' AND created_at < ${cutoff} AND ${notMoving(webhookDeliveries.tenantId)} LIMIT ${PURGE_CHUNK})`);
  const purgedEvents = await purge(sql`DELETE FROM ${events} WHERE rowid IN (
    SELECT e.rowid FROM ${events} e WHERE e.published_at IS NOT NULL AND e.created_at < ${cutoff} AND ${notMoving(events.tenantId)}
      AND NOT EXISTS (SELECT 1 FROM ${webhookDeliveries} d WHERE d.event_id = e.id AND d.status = 'pending') LIMIT ${PURGE_CHUNK})`);
  const documents = await purge(sql`DELETE FROM ${eventDocuments} WHERE rowid IN (
    SELECT c.rowid FROM ${eventDocuments} c WHERE c.created_at < ${cutoff} AND ${notMoving(eventDocuments.tenantId)}
      AND NOT EXISTS (SELECT 1 FROM ${events} e WHERE e.document_id = c.id) LIMIT ${PURGE_CHUNK})`);
  return { deliveries, events: purgedEvents, documents };
}
