import { getTableColumns, getTableName, is, SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { rawStatement, type Db } from '../../db/client';

// Writes of thousands of rows in a few statements: a statement of 10,000 lines against 10,000
// invoices must stay far below the 1,000 D1 queries a Worker invocation may make, which one
// statement per row (or per invoice) cannot. Rows travel as ONE JSON parameter per statement and
// are unpacked with json_each. (The SEPA files do the same for their inserts,
// src/services/payments/sepa-bulk-insert.ts; these two belong together in src/db/.)

/** UTF-16 units of JSON per statement: at most 3 bytes each in UTF-8, below D1's 1 MB per bound value. */
const MAX_JSON_UNITS = 300_000;

const driverValue = (column: SQLiteColumn, value: unknown): unknown => {
  if (value === undefined) {
    const fallback = column.defaultFn ? column.defaultFn() : column.default;
    if (fallback === undefined || is(fallback, SQL)) return null;
    value = fallback;
  }
  return value === null ? null : column.mapToDriverValue(value);
};

/** JSON arrays of the encoded values, cut into chunks below MAX_JSON_UNITS, with their row counts. */
function jsonChunks(encoded: string[]): { json: string; rows: number }[] {
  const out: { json: string; rows: number }[] = [];
  let chunk: string[] = [];
  let units = 2;
  const flush = () => {
    out.push({ json: `[${chunk.join(',')}]`, rows: chunk.length });
    chunk = [];
    units = 2;
  };
  for (const e of encoded) {
    if (chunk.length > 0 && units + e.length + 1 > MAX_JSON_UNITS) flush();
    chunk.push(e);
    units += e.length + 1;
  }
  if (chunk.length > 0) flush();
  return out;
}

/**
 * `INSERT INTO table (every column) SELECT … FROM json_each(?)` for any number of rows, a few
 * statements for thousands. `ignoreConflicts`: a row that breaks a UNIQUE index is skipped
 * (ON CONFLICT DO NOTHING), the others go in.
 */
export function insertJson<T extends SQLiteTable>(db: Db, table: T, rows: readonly T['$inferInsert'][], options: { ignoreConflicts?: boolean } = {}): BatchItem<'sqlite'>[] {
  const columns = Object.entries(getTableColumns(table)) as [string, SQLiteColumn][];
  const names = sql.raw(columns.map(([, c]) => `"${c.name}"`).join(', '));
  const picks = sql.raw(columns.map((_, i) => `json_extract(value, '$[${i}]')`).join(', '));
  // `WHERE true` keeps SQLite from reading ON CONFLICT as part of the SELECT's join.
  const conflict = options.ignoreConflicts ? sql.raw(' WHERE true ON CONFLICT DO NOTHING') : sql.raw('');
  const encoded = rows.map((row) => JSON.stringify(columns.map(([key, column]) => driverValue(column, (row as Record<string, unknown>)[key]))));
  return jsonChunks(encoded).map(({ json }) => rawStatement(db, sql`INSERT INTO ${sql.raw(`"${getTableName(table)}"`)} (${names}) SELECT ${picks} FROM json_each(${json})${conflict}`));
}

export interface BulkUpdate {
  id: string;
  /** The value of the guard column the change was computed from (`updatedAt`, or a status). */
  expected: string;
  /** The columns to write (property names of the table), the same keys for every row. */
  set: Record<string, unknown>;
}

/**
 * Guarded UPDATEs of many rows in one statement per chunk: each row is written only while its
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
          WHERE ${sql.raw(`"${name}"."id"`)} = json_extract(j.value, '$[0]') AND +${sql.raw(`"${name}"."tenant_id"`)} = ${tenantId} AND ${guardColumn} = json_extract(j.value, '$[1]')`,
      ),
      rawStatement(db, sql`SELECT json(CASE WHEN changes() = ${rows} THEN '1' ELSE 'guard_failed' END)`),
    ];
  });
}
