import type { z } from '@hono/zod-openapi';
import { and, asc, desc, eq, getTableColumns, not, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { isGuardFailure, isUniqueViolation, requireCondition, requirePreviousChange, runBatch } from '../../db/client';
import { commitGuarded, type VersionedTable } from '../../db/commit';
import { fetchPage } from '../../db/paging';
import { insertEvent } from '../../events/outbox';
import type { EventType } from '../../events/catalogue';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import type { Page } from '../../http/pagination';
import { newId } from '../../lib/ids';

/** A list query parameter: its schema and the condition a given value adds. */
export interface ListFilter<T = any> {
  schema: z.ZodType;
  where(value: T): SQL | undefined;
}

/** Declares a list filter; `where` gets the value as the schema parsed it. */
export function listFilter<S extends z.ZodType>(schema: S, where: (value: z.output<S>) => SQL | undefined): ListFilter<z.output<S>> {
  return { schema, where };
}

/** A validated list query: pagination, filter values by name, `order[field]` directions. */
export type ListQuery = Page & Record<string, unknown>;

/** A tenant-owned table: every row has `id` and `tenant_id`. */
export type TenantTable = SQLiteTable & { id: SQLiteColumn; tenantId: SQLiteColumn };

export interface ResourceHooks<Row, Input, Resource> {
  /** Singular, for messages: "Unit", "Price plan". */
  label: string;
  /** Every resource table carries `updatedAt`: changes are guarded by it (`commitGuarded`). */
  table: VersionedTable;
  render(row: Row): Resource;
  /** The columns an input sets (besides id, tenantId, createdAt, updatedAt). */
  columns(ctx: ServiceContext, input: Input, current: Row | null): Partial<Row> | Promise<Partial<Row>>;
  /** Checks that need the database or the current row (references, immutable fields, state). */
  check?(ctx: ServiceContext, input: Input, current: Row | null, v: Violations): Promise<void> | void;
  /** The writable view of a row: the PUT body a merge patch applies to. */
  writable?(row: Row): unknown;
  /**
   * Records a new row points at that must still exist when it is written (checked inside the
   * creating batch, so a concurrent delete of the referenced record cannot leave it dangling).
   */
  references?(row: Row, tenantId: string): { path: string; label: string; exists: SQL }[];
  /** UNIQUE index column (as it appears in SQLite's message) → the field to blame. */
  uniques?: Record<string, string>;
  /** SQL that is true while the row is referenced; such a row cannot be deleted (409). */
  inUse?(id: string, tenantId: string): SQL;
  events?: Partial<Record<'created' | 'updated' | 'deleted', EventType>>;
  /** Computed fields selected with every row (embedded references as JSON subqueries). */
  selection?: Record<string, SQL>;
  /**
   * Selection field → the column it embeds. When a change moves that column, the embedded value is
   * stale and left out of the event (render falls back to the id); the response is read back anyway.
   */
  selectionDeps?: Record<string, string>;
  /** List query parameters and the conditions they add. */
  filters?: Record<string, ListFilter>;
  /** A condition that depends on several parameters (e.g. a default exclusion). */
  baseFilter?(query: ListQuery): SQL | undefined;
  /** Sortable fields: `order[<field>]=asc|desc`. */
  sortable?: Record<string, SQLiteColumn>;
}

function cols(table: TenantTable) {
  return table as unknown as Record<string, SQLiteColumn>;
}

export function byTenantId(table: TenantTable, ctx: ServiceContext, id: string): SQL {
  return and(eq(table.tenantId, ctx.tenant.id), eq(table.id, id))!;
}

function mapUnique(err: unknown, uniques: Record<string, string> | undefined, label: string): ApiError | null {
  for (const [column, field] of Object.entries(uniques ?? {})) {
    if (isUniqueViolation(err, column)) return ApiError.violation(field, `Another ${label.toLowerCase()} already uses this ${field}.`, 'not_unique');
  }
  return null;
}

/**
 * Generic operations over one tenant-owned resource. Each change is one batch: the row, plus the
 * outbox event, plus any statements the caller adds. Changes go through the guarded write path: a
 * change computed from a row someone else changed meanwhile is 409 `concurrent-update`.
 */
export function resourceService<Row extends { id: string }, Input, Resource>(hooks: ResourceHooks<Row, Input, Resource>) {
  const table = hooks.table;
  const c = cols(table);

  async function find(ctx: ServiceContext, id: string): Promise<Row> {
    const row = await ctx.db
      .select({ ...getTableColumns(table), ...hooks.selection })
      .from(table as SQLiteTable)
      .where(byTenantId(table, ctx, id))
      .get();
    if (!row) throw ApiError.notFound(hooks.label);
    return row as Row;
  }

  /** A page of the tenant's rows, narrowed by the declared filters and sorted by `order[…]`. */
  async function list(ctx: ServiceContext, query: ListQuery) {
    const filters = Object.entries(hooks.filters ?? {}).map(([name, f]) => (query[name] === undefined ? undefined : f.where(query[name])));
    const where = and(eq(table.tenantId, ctx.tenant.id), ...filters, hooks.baseFilter?.(query));
    const fallback = 'createdAt' in c ? [asc(c.createdAt!), asc(table.id)] : [asc(table.id)];
    const order = [...orderTerms(query, hooks.sortable ?? {}), ...fallback];
    return fetchPage(ctx.db, table, where, order, query, (r) => hooks.render(r as Row), hooks.selection);
  }

  async function write(ctx: ServiceContext, statements: BatchItem<'sqlite'>[]) {
    try {
      await runBatch(ctx.db, statements);
    } catch (err) {
      const mapped = mapUnique(err, hooks.uniques, hooks.label);
      if (mapped) throw mapped;
      throw err;
    }
  }

  function event(ctx: ServiceContext, type: EventType | undefined, id: string, data: unknown): BatchItem<'sqlite'>[] {
    return type ? [insertEvent(ctx.db, { tenantId: ctx.tenant.id, type, resourceId: id, data, now: ctx.now })] : [];
  }

  async function create(ctx: ServiceContext, input: Input, extra: (row: Row) => BatchItem<'sqlite'>[] = () => []): Promise<Resource> {
    const v = new Violations();
    await hooks.check?.(ctx, input, null, v);
    v.throwIfAny();
    const now = ctx.now.toISOString();
    const row = {
      id: newId(),
      tenantId: ctx.tenant.id,
      ...('createdAt' in c ? { createdAt: now } : {}),
      updatedAt: now,
      ...(await hooks.columns(ctx, input, null)),
    } as unknown as Row;
    const resource = hooks.render(row);
    const references = hooks.references?.(row, ctx.tenant.id) ?? [];
    try {
      await write(ctx, [
        ctx.db.insert(table).values(row as TenantTable['$inferInsert']),
        ...references.map((r) => requireCondition(ctx.db, r.exists)),
        ...extra(row),
        ...event(ctx, hooks.events?.created, row.id, resource),
      ]);
    } catch (err) {
      if (!isGuardFailure(err) || references.length === 0) throw err;
      // The batch wrote nothing; name the reference that is gone (read now, after the race).
      const gone = new Violations();
      for (const r of references) {
        const found = await ctx.db.get<{ ok: number }>(sql`SELECT CASE WHEN ${r.exists} THEN 1 ELSE 0 END AS ok`);
        if (!found?.ok) gone.add(r.path, `No such ${r.label}.`, 'not_found');
      }
      gone.throwIfAny();
      throw err;
    }
    return hooks.selection ? hooks.render(await find(ctx, row.id)) : resource;
  }

  /**
   * Applies a change computed from `current` (as read); the update, `extra` and the event share one
   * batch, guarded by the `updatedAt` of `current`.
   */
  async function change(
    ctx: ServiceContext,
    current: Row,
    columns: Partial<Row>,
    eventType: EventType | undefined,
    extra: BatchItem<'sqlite'>[] = [],
  ): Promise<Resource> {
    const { resource } = await commitGuarded(ctx, {
      table,
      current: current as Row & { updatedAt: string },
      changes: columns,
      render: (next) => {
        // An embedded reference whose column moved is stale: left out, render falls back to the id.
        const shown = { ...next } as Record<string, unknown>;
        for (const [field, column] of Object.entries(hooks.selectionDeps ?? {})) {
          const key = column as keyof Row;
          if (key in columns && JSON.stringify(columns[key]) !== JSON.stringify(current[key])) delete shown[field];
        }
        return hooks.render(shown as Row);
      },
      statements: extra,
      events: eventType ? [eventType] : [],
      conflict: `The ${hooks.label.toLowerCase()} was changed concurrently; reload and retry.`,
      mapError: (err) => mapUnique(err, hooks.uniques, hooks.label),
    });
    return hooks.selection ? hooks.render(await find(ctx, current.id)) : resource;
  }

  /** `read`: the row the input was computed from (a merge patch's base); by default it is read now. */
  async function update(ctx: ServiceContext, id: string, input: Input, read?: Row): Promise<Resource> {
    const current = read ?? (await find(ctx, id));
    const v = new Violations();
    await hooks.check?.(ctx, input, current, v);
    v.throwIfAny();
    return change(ctx, current, await hooks.columns(ctx, input, current), hooks.events?.updated);
  }

  async function remove(ctx: ServiceContext, id: string, extra: BatchItem<'sqlite'>[] = []): Promise<void> {
    const current = await find(ctx, id);
    // Bracketed: an in-use rule may be `EXISTS a OR EXISTS b`, and NOT must cover all of it.
    const guard = hooks.inUse ? not(sql`(${hooks.inUse(id, ctx.tenant.id)})`) : undefined;
    try {
      await ctx.db.batch([
        ctx.db.delete(table).where(and(byTenantId(table, ctx, id), guard)),
        requirePreviousChange(ctx.db),
        ...extra,
        ...event(ctx, hooks.events?.deleted, id, hooks.render(current)),
      ]);
    } catch (err) {
      if (isGuardFailure(err)) throw ApiError.conflict(`The ${hooks.label.toLowerCase()} is in use and cannot be deleted.`, 'in-use');
      throw err;
    }
  }

  return { hooks, find, list, create, update, change, remove, render: hooks.render };
}

export type ResourceService<Row extends { id: string }, Input, Resource> = ReturnType<typeof resourceService<Row, Input, Resource>>;

/** `order[field]=asc|desc` query values to ORDER BY terms, in the order the table lists them. */
export function orderTerms(query: Record<string, unknown>, columns: Record<string, SQLiteColumn>): SQL[] {
  const terms: SQL[] = [];
  for (const [field, column] of Object.entries(columns)) {
    const dir = query[`order[${field}]`];
    if (dir === 'asc') terms.push(asc(column));
    if (dir === 'desc') terms.push(desc(column));
  }
  return terms;
}

/** Checks that a referenced id exists in the tenant's table; adds a violation otherwise. */
export async function checkReference(
  ctx: ServiceContext,
  table: TenantTable,
  id: string | null | undefined,
  path: string,
  v: Violations,
  label: string,
): Promise<Record<string, unknown> | null> {
  if (!id) return null;
  const row = await ctx.db.select().from(table as SQLiteTable).where(byTenantId(table, ctx, id)).get();
  if (!row) v.add(path, `No such ${label}.`, 'not_found');
  return (row as Record<string, unknown> | undefined) ?? null;
}
