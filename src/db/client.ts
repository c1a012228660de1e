import { getTableName, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { BatchItem } from 'drizzle-orm/batch';
import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import * as schema from './schema';

export type Db = DrizzleD1Database;
export type Tenant = typeof schema.tenants.$inferSelect;

/** What Drizzle's D1 driver calls: a D1 database, one of its sessions, or a request's session (src/db/shards.ts). */
export type D1Client = Pick<D1Database, 'prepare' | 'batch'>;

/**
 * Drizzle over a D1 client; the driver only ever calls `prepare` and `batch`, so a session stands in
 * for the database. Without the schema's relations (the relational `db.query` API is not used): a
 * Drizzle instance with them walks the whole schema when it is made (about half the CPU of a
 * request that does nothing else), and every request, with its own D1 session, makes one.
 */
export function createDb(d1: D1Client): Db {
  return drizzle(d1 as D1Database);
}

/** The parts of a Drizzle prepared query that describe it (its SQL, how rows map), not where it runs. */
interface PreparedQueryShape {
  query: { sql: string; params: unknown[] };
  fields: unknown;
  executeMethod: string;
  _isResponseInArrayMode: boolean;
  customResultMapper: unknown;
  joinsNotNullableMap?: unknown;
}

/**
 * A query whose SQL is built once per isolate and then prepared on the caller's database — a
 * request's own D1 session, so reads keep their bookmark — and run with placeholder values
 * (`sql.placeholder`): for the reads every request makes, whose SQL building (six embedded
 * subqueries for a customer) cost more CPU than the read itself. Preparing again on a session is a
 * statement object, not SQL building (the same session method `rawStatement` uses).
 */
export function preparedOnce<Q>(build: (db: Db) => Q): (db: Db) => Q {
  let template: PreparedQueryShape | undefined;
  return (db) => {
    if (!template) {
      const query = build(db);
      template = query as unknown as PreparedQueryShape;
      return query;
    }
    const session = (db as unknown as { session: { prepareQuery(...args: unknown[]): Q } }).session;
    const query = session.prepareQuery(template.query, template.fields, template.executeMethod, template._isResponseInArrayMode, template.customResultMapper);
    (query as unknown as PreparedQueryShape).joinsNotNullableMap = template.joinsNotNullableMap;
    return query;
  };
}

/** SQLite's message for a UNIQUE violation names the index columns, e.g. `customers.tenant_id, customers.email_key`. */
export function isUniqueViolation(err: unknown, column?: string): boolean {
  const messages: string[] = [];
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) messages.push(String((e as Error).message ?? e));
  const text = messages.join(' | ');
  if (!/UNIQUE constraint failed/i.test(text)) return false;
  return column === undefined || text.includes(column);
}

/**
 * A batch step that fails (and so rolls back the whole batch) unless the statement before it
 * changed a row. D1 has no interactive transactions; this lets a guarded UPDATE decide whether the
 * rest of its batch happens. The failure is a deliberate JSON parse error, recognised by `isGuardFailure`.
 */
export function requirePreviousChange(db: Db) {
  return db.run(sql`SELECT json(CASE WHEN changes() > 0 THEN '1' ELSE 'guard_failed' END)`);
}

/**
 * A batch step that fails (and so rolls back the whole batch) unless `condition` holds when it runs:
 * e.g. that a referenced row still exists, so an insert pointing at it cannot outlive a concurrent
 * delete (which in turn checks with NOT EXISTS that nothing points at the row).
 */
export function requireCondition(db: Db, condition: SQL): BatchItem<'sqlite'> {
  return rawStatement(db, sql`SELECT json(CASE WHEN ${condition} THEN '1' ELSE 'guard_failed' END)`);
}

export function isGuardFailure(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if (/malformed JSON/i.test(String((e as Error).message ?? e))) return true;
  }
  return false;
}

/** `column LIKE %text%` with the wildcards of `text` escaped, so user input matches literally. */
export function containsText(column: SQLWrapper, text: string): SQL {
  const pattern = `%${text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
  return sql`${column} LIKE ${pattern} ESCAPE '\\'`;
}

/**
 * A column written as "table"."column". Drizzle renders columns of a single-table select without
 * the table name, which inside a correlated subquery would bind to the inner table instead.
 */
export function outer(column: SQLiteColumn): SQL {
  return sql.raw(`"${getTableName(column.table)}"."${column.name}"`);
}

/**
 * A raw SQL statement with bound parameters that can go into `db.batch`. Drizzle's own `db.run(sql)`
 * only batches statements without parameters (it never prepares a D1 statement for them), so this
 * prepares one through the session like Drizzle's query builders do.
 */
export function rawStatement(db: Db, query: SQL): BatchItem<'sqlite'> {
  const internals = db as unknown as {
    dialect: { sqlToQuery(q: SQL): { sql: string; params: unknown[] } };
    session: { prepareQuery(q: { sql: string; params: unknown[] }, fields: undefined, method: 'run', arrayMode: boolean): unknown };
  };
  const prepared = internals.session.prepareQuery(internals.dialect.sqlToQuery(query), undefined, 'run', false);
  return { _prepare: () => prepared } as unknown as BatchItem<'sqlite'>;
}

/** `column IN (ids)` with the ids bound as one JSON parameter, so any number of ids fits D1's limit. */
export function inJson(column: SQLiteColumn | SQL, values: string[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/**
 * A tenant's rows by primary key. Without statistics SQLite prefers a (tenant_id, …) index for
 * `tenant_id = ? AND id IN (…)` and walks every row of the tenant (100,000 customers for 25 ids);
 * the unary `+` leaves the tenant as a filter on primary-key lookups.
 */
export function tenantRowsById(table: { tenantId: SQLiteColumn; id: SQLiteColumn }, tenantId: string, ids: string[]): SQL {
  return sql`+${table.tenantId} = ${tenantId} AND ${inJson(table.id, ids)}`;
}

/**
 * Writes statements as one atomic D1 batch (nothing for none). `db.batch` wants a non-empty tuple;
 * statements assembled at run time are an array, so this is the one place that says so.
 */
export async function runBatch(db: Db, statements: readonly BatchItem<'sqlite'>[]): Promise<void> {
  if (statements.length === 0) return;
  await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
}
