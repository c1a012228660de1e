import { getTableColumns, getTableName, is, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { integer, SQLiteTable, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client';
import { D1_MAX_PARAMETERS, insertRows, rowsPerInsert } from '../../src/db/insert';
import * as schema from '../../src/db/schema';

// Statements are only built here (toSQL), never run: no D1 needed.
const db = drizzle({} as never, { schema }) as unknown as Db;

/** A table of `n` text columns (an id and c1…c(n-1)), standing for a table that grew. */
function tableWith(n: number) {
  const columns: Record<string, ReturnType<typeof text>> = { id: text('id').primaryKey() };
  for (let i = 1; i < n; i++) columns[`c${i}`] = text(`c${i}`);
  return sqliteTable(`wide_${n}`, columns);
}

function rowsOf(n: number, columns: number) {
  return Array.from({ length: n }, (_, r) => Object.fromEntries(Array.from({ length: columns }, (_, i) => [i === 0 ? 'id' : `c${i}`, `${r}:${i}`])));
}

const boundParameters = (statement: unknown) => (statement as { toSQL(): { params: unknown[] } }).toSQL().params.length;

describe('rowsPerInsert', () => {
  it('derives rows per statement from the column count and D1’s 100 parameters', () => {
    expect(rowsPerInsert(tableWith(5))).toBe(20);
    expect(rowsPerInsert(tableWith(20))).toBe(5);
    expect(rowsPerInsert(tableWith(21))).toBe(4);
    expect(rowsPerInsert(tableWith(51))).toBe(1);
    expect(rowsPerInsert(tableWith(100))).toBe(1);
    expect(rowsPerInsert(tableWith(20), 10)).toBe(4);
    expect(() => rowsPerInsert(tableWith(101))).toThrow(/does not fit/);
  });

  it('keeps every table of the schema within the limit, whatever its columns are today', () => {
    const tables = (Object.values(schema) as unknown[]).filter((t): t is SQLiteTable => is(t, SQLiteTable));
    expect(tables.length).toBeGreaterThan(30);
    for (const table of tables) {
      const columns = Object.keys(getTableColumns(table)).length;
      expect(rowsPerInsert(table) * columns, getTableName(table)).toBeLessThanOrEqual(D1_MAX_PARAMETERS);
      // And as full as it may be: one more row would not fit.
      expect((rowsPerInsert(table) + 1) * columns, getTableName(table)).toBeGreaterThan(D1_MAX_PARAMETERS);
    }
  });
});

describe('insertRows', () => {
  it('chunks any number of rows of a wide table into statements of at most 100 parameters', () => {
    for (const columns of [3, 13, 20, 21, 22, 34, 50, 51, 99]) {
      const table = tableWith(columns);
      const statements = insertRows(db, table, rowsOf(250, columns) as never);
      const params = statements.map(boundParameters);
      expect(Math.max(...params), `${columns} columns`).toBeLessThanOrEqual(D1_MAX_PARAMETERS);
      expect(params.reduce((a, b) => a + b, 0), `${columns} columns`).toBe(250 * columns);
    }
  });

  it('a column added to a table shrinks the chunks instead of breaking the limit', () => {
    // invoice_positions had 20 columns (5 rows a statement); with 21 a hand-written 5 would bind 105.
    const before = insertRows(db, tableWith(20), rowsOf(60, 20) as never);
    const after = insertRows(db, tableWith(21), rowsOf(60, 21) as never);
    expect(before.map(boundParameters)).toEqual(Array(12).fill(100));
    expect(after).toHaveLength(15);
    expect(Math.max(...after.map(boundParameters))).toBe(84);
  });

  it('finishes each statement (upsert, returning) and leaves room for parameters the finish binds', () => {
    const table = tableWith(10);
    const upsert = insertRows(db, table, rowsOf(35, 10) as never, {
      finish: (q) => q.onConflictDoUpdate({ target: table.id!, set: { c1: sql`excluded.c1` } }).returning({ id: table.id! }),
    });
    expect(upsert).toHaveLength(4);
    expect((upsert[0] as unknown as { toSQL(): { sql: string } }).toSQL().sql).toMatch(/on conflict .* do update set .* returning/);
    // A SET with bound values: 10 of the 100 parameters are reserved for it.
    const withValues = insertRows(db, table, rowsOf(35, 10) as never, {
      finish: (q) => q.onConflictDoUpdate({ target: table.id!, set: { c1: 'a', c2: 'b', c3: 'c', c4: 'd', c5: 'e', c6: 'f', c7: 'g', c8: 'h', c9: 'i', c10: 'j' } as never }),
      reservedParameters: 10,
    });
    expect(Math.max(...withValues.map(boundParameters))).toBeLessThanOrEqual(D1_MAX_PARAMETERS);
    expect(withValues).toHaveLength(4);
    // Forgetting to reserve them is caught when the statements are built, not by D1.
    expect(() =>
      insertRows(db, table, rowsOf(35, 10) as never, { finish: (q) => q.onConflictDoUpdate({ target: table.id!, set: { c1: 'a' } as never }) }),
    ).toThrow(/binds 101 parameters/);
  });

  it('builds nothing for no rows', () => {
    expect(insertRows(db, schema.invoicePositions, [])).toEqual([]);
  });

  it('binds a parameter for a column left out of a row that has a default', () => {
    const t = sqliteTable('ints', { id: text('id').primaryKey(), a: integer('a').notNull(), b: integer('b').notNull().default(0) });
    const statements = insertRows(db, t, Array.from({ length: 100 }, (_, i) => ({ id: String(i), a: i })));
    expect(statements).toHaveLength(4);
    expect(statements.map(boundParameters)).toEqual([99, 99, 99, 3]);
  });
});
