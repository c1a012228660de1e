import { getTableColumns, getTableName, is, SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { rawStatement, type Db } from '../../db/client';

// Inserts of thousands of rows in a few statements. `insertRows` (src/db/insert.ts) binds one
// parameter per column and row, so a 28-column transaction row costs a third of a statement: a
// SEPA file of 10,000 debits would be 3,334 statements, past the 1,000 queries a Worker invocation
// may send to D1. Here each statement binds the rows as ONE JSON parameter and unpacks them with
// json_each, so 10,000 rows are about ten statements, all in the caller's one atomic batch.

/**
 * UTF-16 units of JSON per statement. A unit is at most 3 bytes of UTF-8, so a chunk stays below
 * D1's 1 MB per bound value whatever the text.
 */
const MAX_JSON_UNITS = 300_000;

const driverValue = (column: SQLiteColumn, value: unknown): unknown => {
  if (value === undefined) {
    const fallback = column.defaultFn ? column.defaultFn() : column.default;
    if (fallback === undefined || is(fallback, SQL)) return null;
    value = fallback;
  }
  return value === null ? null : column.mapToDriverValue(value);
};

/**
 * `INSERT INTO table (every column) SELECT … FROM json_each(?)` statements for `rows`, chunked by
 * the size of their JSON. Values go through each column's driver mapping (booleans as 0/1, JSON
 * columns as text); a missing value takes the column's default, else NULL (a NOT NULL column then
 * fails the batch loudly). Constraints (UNIQUE, partial indexes) apply to every row as they would
 * to separate inserts.
 */
export function insertJsonRows<T extends SQLiteTable>(db: Db, table: T, rows: readonly T['$inferInsert'][], maxUnits = MAX_JSON_UNITS): BatchItem<'sqlite'>[] {
  const columns = Object.entries(getTableColumns(table)) as [string, SQLiteColumn][];
  const names = sql.raw(columns.map(([, c]) => `"${c.name}"`).join(', '));
  const picks = sql.raw(columns.map((_, i) => `json_extract(value, '$[${i}]')`).join(', '));
  const statement = (json: string) => rawStatement(db, sql`INSERT INTO ${sql.raw(`"${getTableName(table)}"`)} (${names}) SELECT ${picks} FROM json_each(${json})`);
  const statements: BatchItem<'sqlite'>[] = [];
  let chunk: string[] = [];
  let units = 2;
  for (const row of rows) {
    const record = row as Record<string, unknown>;
    const encoded = JSON.stringify(columns.map(([key, column]) => driverValue(column, record[key])));
    if (chunk.length > 0 && units + encoded.length + 1 > maxUnits) {
      statements.push(statement(`[${chunk.join(',')}]`));
      chunk = [];
      units = 2;
    }
    chunk.push(encoded);
    units += encoded.length + 1;
  }
  if (chunk.length > 0) statements.push(statement(`[${chunk.join(',')}]`));
  return statements;
}
