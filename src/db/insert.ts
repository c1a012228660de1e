import { getTableColumns, getTableName } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteInsertBase, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './client';

/** D1 binds at most 100 parameters per statement ("too many SQL variables" above that). */
export const D1_MAX_PARAMETERS = 100;

/** A multi-row INSERT into `table` as Drizzle builds it for D1, before any ON CONFLICT or RETURNING. */
export type RowsInsert<T extends SQLiteTable> = SQLiteInsertBase<T, 'async', D1Result>;

/**
 * Rows per multi-row INSERT into `table`. Drizzle binds one parameter per column and row (a missing
 * value becomes its default or a literal NULL, never fewer columns), so the table's column count,
 * read from the schema, decides: a new column shrinks the chunks instead of breaking D1's limit.
 * `reservedParameters` are bound once per statement besides the rows (an upsert's SET values).
 */
export function rowsPerInsert(table: SQLiteTable, reservedParameters = 0): number {
  const columns = Object.keys(getTableColumns(table)).length;
  const rows = Math.floor((D1_MAX_PARAMETERS - reservedParameters) / columns);
  if (rows < 1) throw new Error(`A row of ${getTableName(table)} (${columns} columns) does not fit in one D1 statement.`);
  return rows;
}

export interface InsertRowsOptions<T extends SQLiteTable, R> {
  /** Finishes each statement: `(q) => q.onConflictDoNothing()`, an upsert, `.returning(…)`. */
  finish?: (insert: RowsInsert<T>) => R;
  /** Parameters `finish` binds per statement (an upsert's SET with bound values, not `excluded.…`). */
  reservedParameters?: number;
}

/**
 * The INSERT statements for any number of rows, chunked so each stays within D1's 100 bound
 * parameters (see `rowsPerInsert`), for one `db.batch`. Every multi-row insert goes through here:
 * no hand-written chunk sizes. With a `finish`, the first statement is checked against the limit, so
 * one that binds more than `reservedParameters` fails loudly in tests rather than in D1.
 */
export function insertRows<T extends SQLiteTable, R extends BatchItem<'sqlite'> = RowsInsert<T>>(
  db: Db,
  table: T,
  rows: T['$inferInsert'][],
  options: InsertRowsOptions<T, R> = {},
): R[] {
  const size = rowsPerInsert(table, options.reservedParameters);
  const finish = options.finish ?? ((q: RowsInsert<T>) => q as unknown as R);
  const statements: R[] = [];
  for (let i = 0; i < rows.length; i += size) statements.push(finish(db.insert(table).values(rows.slice(i, i + size)) as RowsInsert<T>));
  // Plain inserts fit by construction; only a `finish` can bind more (checked once, cheaply in billing's hot path).
  const first = options.finish ? (statements[0] as unknown as { toSQL?: () => { params: unknown[] } } | undefined) : undefined;
  const bound = first?.toSQL?.().params.length ?? 0;
  if (bound > D1_MAX_PARAMETERS) {
    throw new Error(`An insert into ${getTableName(table)} binds ${bound} parameters, more than D1's ${D1_MAX_PARAMETERS}: raise reservedParameters.`);
  }
  return statements;
}
