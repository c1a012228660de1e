import { count, getTableColumns, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { collection, pageOffset, type Page } from '../http/pagination';
import type { Db } from './client';

/** One page of a table plus its total, in one D1 round trip, rendered as a collection response. */
export async function fetchPage<T extends SQLiteTable, R>(
  db: Db,
  table: T,
  where: SQL | undefined,
  orderBy: SQL[],
  page: Page,
  render: (row: T['$inferSelect']) => R,
  /** Extra computed fields (e.g. embedded JSON subqueries) selected next to the table's columns. */
  extra: Record<string, SQL> = {},
) {
  const fields = { ...getTableColumns(table), ...extra };
  const [[total], rows] = await db.batch([
    db.select({ n: count() }).from(table as SQLiteTable).where(where),
    db.select(fields).from(table as SQLiteTable).where(where).orderBy(...orderBy).limit(page.limit).offset(pageOffset(page)),
  ]);
  return collection((rows as T['$inferSelect'][]).map(render), total?.n ?? 0, page);
}
