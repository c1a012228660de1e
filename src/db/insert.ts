import { getTableColumns, getTableName, is, SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn, SQLiteInsertBase, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { rawStatement, type Db } from './client';

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

// Writes of thousands of rows in a few statements. `insertRows` binds one parameter per column and
// row, so a 28-column transaction row costs a third of a statement: a SEPA file of 10,000 debits or
// a statement of 10,000 lines would be thousands of statements, past the 1,000 queries a Worker
// invocation may send to D1. The bulk writers bind the rows as ONE JSON parameter per statement and
// unpack them with json_each (docs/decisions.md, Writes).

/** UTF-16 units of JSON per statement: at most 3 bytes each in UTF-8, below D1's 1 MB per bound value. */
export const MAX_JSON_UNITS = 300_000;

/** A value as its column stores it (booleans 0/1, JSON as text); a missing one takes the column's default, else NULL. */
export function driverValue(column: SQLiteColumn, value: unknown): unknown {
  if (value === undefined) {
    const fallback = column.defaultFn ? column.defaultFn() : column.default;
    if (fallback === undefined || is(fallback, SQL)) return null;
    value = fallback;
  }
  return value === null ? null : column.mapToDriverValue(value);
}

/** JSON arrays of encoded rows, cut into chunks below `maxUnits`, with their row counts. */
export function jsonChunks(encoded: readonly string[], maxUnits = MAX_JSON_UNITS): { json: string; rows: number }[] {
  const out: { json: string; rows: number }[] = [];
  let chunk: string[] = [];
  let units = 2;
  const flush = () => {
    out.push({ json: `[${chunk.join(',')}]`, rows: chunk.length });
    chunk = [];
    units = 2;
  };
  for (const e of encoded) {
    if (chunk.length > 0 && units + e.length + 1 > maxUnits) flush();
    chunk.push(e);
    units += e.length + 1;
  }
  if (chunk.length > 0) flush();
  return out;
}

/**
 * `INSERT INTO table (every column) SELECT … FROM json_each(?)` for any number of rows, a few
 * statements for thousands, for the caller's one atomic batch. Constraints (UNIQUE, partial
 * indexes) apply to every row as to separate inserts; `ignoreConflicts` skips a row that breaks
 * one (ON CONFLICT DO NOTHING) and inserts the others. `shared` columns have one value for every
 * row (the tenant, the time of a write): bound once per statement instead of repeated in each
 * row's JSON (a usage event's tenant and time of receipt are a third of its row); the rows' own
 * values of those columns are not read.
 */
export function insertJsonRows<T extends SQLiteTable>(
  db: Db,
  table: T,
  rows: readonly T['$inferInsert'][],
  options: { ignoreConflicts?: boolean; maxUnits?: number; shared?: Partial<T['$inferInsert']> } = {},
): BatchItem<'sqlite'>[] {
  const columns = Object.entries(getTableColumns(table)) as [string, SQLiteColumn][];
  const shared = (options.shared ?? {}) as Record<string, unknown>;
  const perRow = columns.filter(([key]) => !Object.hasOwn(shared, key));
  const names = sql.raw(columns.map(([, c]) => `"${c.name}"`).join(', '));
  const picks = sql.join(
    columns.map(([key, column]) => {
      if (Object.hasOwn(shared, key)) return sql`${driverValue(column, shared[key])}`;
      return sql.raw(`json_extract(value, '$[${perRow.findIndex(([k]) => k === key)}]')`);
    }),
    sql.raw(', '),
  );
  // `WHERE true` keeps SQLite from reading ON CONFLICT as part of the SELECT's join.
  const conflict = options.ignoreConflicts ? sql.raw(' WHERE true ON CONFLICT DO NOTHING') : sql.raw('');
  const encoded = rows.map((row) => JSON.stringify(perRow.map(([key, column]) => driverValue(column, (row as Record<string, unknown>)[key]))));
  return jsonChunks(encoded, options.maxUnits).map(({ json }) =>
    rawStatement(db, sql`INSERT INTO ${sql.raw(`"${getTableName(table)}"`)} (${names}) SELECT ${picks} FROM json_each(${json})${conflict}`),
  );
}
