import { and, eq, getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn, SQLiteTable, SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core';
import type { EventType } from '../events/catalogue';
import { insertEvent } from '../events/outbox';
import { ApiError } from '../http/errors';
import { type Db, isGuardFailure, rawStatement, requirePreviousChange } from './client';
import { driverValue, jsonChunks } from './insert';

/**
 * The one guarded write path. Every change of a row that carries `updatedAt` goes through
 * `commitGuarded`: the UPDATE is guarded by tenant, id and the `updatedAt` that was read, the rest
 * of the batch (accompanying statements, outbox events) only happens when that UPDATE matched
 * (`requirePreviousChange`), and a write that lost the race is 409 `concurrent-update` instead of
 * silently overwriting the other one. See docs/decisions.md, "Writes".
 */

/** A tenant-owned table whose rows carry the optimistic-concurrency token `updatedAt`. */
export type VersionedTable = SQLiteTable & { id: SQLiteColumn; tenantId: SQLiteColumn; updatedAt: SQLiteColumn };

/** What a guarded write needs of its caller: `ServiceContext` is one, the TenantObject can build one. */
export interface WriteContext {
  db: Db;
  tenant: { id: string };
  now: Date;
}

/**
 * The `updatedAt` a change writes. It doubles as the concurrency token, so it must move forward on
 * every write, even when a frozen test clock returns the same instant twice: now, or 1 ms after the
 * stored value when now is not later.
 */
export function nextUpdatedAt(now: Date, previous: string): string {
  const iso = now.toISOString();
  return iso > previous ? iso : new Date(new Date(previous).getTime() + 1).toISOString();
}

export interface GuardedUpdate {
  table: VersionedTable;
  tenantId: string;
  id: string;
  /** The `updatedAt` of the row the change was computed from. */
  expectedUpdatedAt: string;
  /** Columns to write, `updatedAt` included. */
  set: Record<string, unknown>;
  /** More conditions the stored row must meet (e.g. a status). */
  where?: SQL;
}

/**
 * The UPDATE guarded by tenant, id and the `updatedAt` that was read, followed by the step that
 * fails the whole batch when it matched nothing. For callers that assemble their own batch (the
 * TenantObject's numbering) and map `isGuardFailure` themselves; everyone else uses `commitGuarded`.
 */
export function guardedUpdate(db: Db, u: GuardedUpdate): [BatchItem<'sqlite'>, BatchItem<'sqlite'>] {
  const t = u.table;
  return [
    db
      .update(t)
      .set(u.set as SQLiteUpdateSetSource<VersionedTable>)
      .where(and(eq(t.tenantId, u.tenantId), eq(t.id, u.id), eq(t.updatedAt, u.expectedUpdatedAt), u.where)),
    requirePreviousChange(db),
  ];
}

/** An outbox event of the change; a bare type carries the rendered resource as its data. */
export type ChangeEvent = EventType | { type: EventType; data: unknown };

export interface GuardedChange<Row, Resource> {
  table: VersionedTable;
  /** The row as read: its `id` and `updatedAt` guard the write. Fields that are not columns are ignored. */
  current: Row;
  /** What changes. `updatedAt` is always `nextUpdatedAt(ctx.now, current.updatedAt)`, whatever is given here. */
  changes: Partial<Row>;
  /** More conditions the stored row must meet (e.g. a status), besides tenant, id and `updatedAt`. */
  where?: SQL;
  /** The resource as the API shows the changed row: the data of the events and the result. */
  render?: (row: Row) => Resource;
  /** Statements that happen only together with the change (child rows, counters), in order. */
  statements?: BatchItem<'sqlite'>[];
  /** Outbox events about the changed row, written after the statements. */
  events?: ChangeEvent[];
  /** The 409 `concurrent-update` message: "The plan was changed concurrently; reload and retry." */
  conflict: string;
  /** Maps any other failure (a UNIQUE violation) to an API error; null rethrows it. */
  mapError?: (err: unknown) => ApiError | null;
}

const IMMUTABLE = new Set(['id', 'tenantId', 'createdAt']);

/**
 * Writes a change of one row with its statements and events in one `db.batch`, guarded by the
 * `updatedAt` that was read. Only the columns that differ from the row as read are written (plus
 * `updatedAt`), so a column some unguarded writer sets meanwhile (a counter, a document key) is not
 * reset to the value read. Returns the changed row and its rendering.
 */
export async function commitGuarded<Row extends { id: string; updatedAt: string }, Resource = undefined>(
  ctx: WriteContext,
  change: GuardedChange<Row, Resource>,
): Promise<{ row: Row; resource: Resource }> {
  const { table, current } = change;
  const updatedAt = nextUpdatedAt(ctx.now, current.updatedAt);
  const row = { ...current, ...change.changes, updatedAt } as Row;
  const set: Record<string, unknown> = { updatedAt };
  for (const key of Object.keys(getTableColumns(table))) {
    if (IMMUTABLE.has(key) || key === 'updatedAt' || !(key in change.changes)) continue;
    const next = (row as Record<string, unknown>)[key];
    if (JSON.stringify(next) !== JSON.stringify((current as Record<string, unknown>)[key])) set[key] = next;
  }
  const resource = change.render ? change.render(row) : (undefined as Resource);
  const events = (change.events ?? []).map((e) => (typeof e === 'string' ? { type: e, data: resource } : e));
  try {
    await ctx.db.batch([
      ...guardedUpdate(ctx.db, { table, tenantId: ctx.tenant.id, id: current.id, expectedUpdatedAt: current.updatedAt, set, where: change.where }),
      ...(change.statements ?? []),
      ...events.map((e) => insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: e.type, resourceId: current.id, data: e.data, now: ctx.now })),
    ]);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.conflict(change.conflict, 'concurrent-update');
    const mapped = change.mapError?.(err);
    if (mapped) throw mapped;
    throw err;
  }
  return { row, resource };
}

export interface BulkUpdate {
  id: string;
  /** The value of the guard column the change was computed from (`updatedAt`, a status, or null: still unset). */
  expected: string | null;
  /** The columns to write (property names of the table), the same keys for every row. */
  set: Record<string, unknown>;
}

/**
 * The guarded write in bulk, for imports. Guarded UPDATEs of many rows in one statement per chunk: each row is written only while its
 * guard column still holds the value that was read (its `updatedAt`, or the status it had), and a
 * step after each statement fails the whole batch unless every row of it was written. So a row
 * changed meanwhile makes the batch fail as a whole, as one `guardedUpdate` per row would,
 * without a statement per row. (The unary `+` keeps SQLite from walking the tenant's rows by its
 * tenant index for each JSON row: the rows are found by primary key.)
 */
export function guardedBulkUpdate<T extends SQLiteTable & { id: SQLiteColumn; tenantId: SQLiteColumn }>(
  db: Db,
  table: T,
  tenantId: string,
  guard: keyof T['$inferSelect'] & string,
  updates: readonly BulkUpdate[],
): BatchItem<'sqlite'>[] {
  if (updates.length === 0) return [];
  const columns = getTableColumns(table) as Record<string, SQLiteColumn>;
  const keys = Object.keys(updates[0]!.set);
  const name = getTableName(table);
  const assignments = sql.raw(keys.map((k, i) => `"${columns[k]!.name}" = json_extract(j.value, '$[${i + 2}]')`).join(', '));
  const guardColumn = sql.raw(`"${name}"."${columns[guard]!.name}"`);
  const encoded = updates.map((u) => JSON.stringify([u.id, u.expected, ...keys.map((k) => driverValue(columns[k]!, u.set[k]))]));
  return jsonChunks(encoded).flatMap(({ json, rows }) => {
    return [
      rawStatement(
        db,
        sql`UPDATE ${sql.raw(`"${name}"`)} SET ${assignments} FROM json_each(${json}) AS j
          WHERE ${sql.raw(`"${name}"."id"`)} = json_extract(j.value, '$[0]') AND +${sql.raw(`"${name}"."tenant_id"`)} = ${tenantId} AND ${guardColumn} IS json_extract(j.value, '$[1]')`,
      ),
      rawStatement(db, sql`SELECT json(CASE WHEN changes() = ${rows} THEN '1' ELSE 'guard_failed' END)`),
    ];
  });
}
