import { DurableObject } from 'cloudflare:workers';
import { and, eq, max, sql } from 'drizzle-orm';
import { formatNumber } from '../billing/numbering';
import { createDb, isGuardFailure, isUniqueViolation, requirePreviousChange } from '../db/client';
import { events, invoices } from '../db/schema';
import type { Env } from '../env';

/** What the worker hands the object to finalize one document. */
export interface FinalizeRequest {
  tenantId: string;
  invoiceId: string;
  /** The document type; each type has its own number range. */
  type: string;
  /** The draft's updatedAt that the worker validated; a change since then refuses the finalization. */
  expectedUpdatedAt: string;
  format: string;
  timeZone: string;
  customerNumber: string;
  /** ISO instant of the finalization (the tenant's now). */
  date: string;
  /** Columns to set together with the number (status, dates, totals…). */
  set: Record<string, unknown>;
  /** The events to write in the same batch; `{number}` in their data is filled in. */
  events: { id: string; type: string; version: string; resourceId: string; data: Record<string, unknown>; createdAt: string }[];
}

export type FinalizeResult = { ok: true; number: string; numberSeq: number } | { ok: false; reason: 'not_draft' };

/**
 * One per tenant (DESIGN §1): the place for work that must be serial within a tenant. It owns the
 * gap-free document number ranges; billing runs join it with the rest of the billing issue.
 */
export class TenantObject extends DurableObject<Env> {
  /** Calls that allocate numbers run one after the other: D1 awaits would otherwise interleave them. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS number_ranges (name TEXT PRIMARY KEY, value INTEGER NOT NULL)`);
    });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Current value of a number range (0 when none was allocated yet). */
  currentNumber(range: string): number {
    const row = this.ctx.storage.sql.exec<{ value: number }>(`SELECT value FROM number_ranges WHERE name = ?`, range).toArray()[0];
    return row?.value ?? 0;
  }

  private setNumber(range: string, value: number) {
    this.ctx.storage.sql.exec(`INSERT INTO number_ranges (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`, range, value);
  }

  /**
   * Allocates the next number of a free-standing range (no document behind it). Calls to one
   * object run one at a time and the upsert is atomic, so no two callers receive the same number.
   */
  allocateNumber(range: string): number {
    const row = this.ctx.storage.sql
      .exec<{ value: number }>(
        `INSERT INTO number_ranges (name, value) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value`,
        range,
      )
      .one();
    return row.value;
  }

  /**
   * Finalizes a draft: takes the next number of its type's range and writes it with the status
   * change and the events in one D1 batch. The range only moves when that batch commits, so a
   * refused or failed finalization leaves no gap; D1's UNIQUE (tenant, type, number_seq) is the
   * backstop if the object's counter ever lags behind D1 (it then resynchronises and retries).
   */
  finalizeDocument(req: FinalizeRequest): Promise<FinalizeResult> {
    return this.serial(async () => {
      const db = createDb(this.env.DB);
      const range = `document:${req.type}`;
      for (let attempt = 0; attempt < 3; attempt++) {
        const next = this.currentNumber(range) + 1;
        const number = formatNumber(req.format, { number: next, date: new Date(req.date), timeZone: req.timeZone, customerNumber: req.customerNumber });
        const fill = (data: Record<string, unknown>) => JSON.parse(JSON.stringify(data).replaceAll('"{number}"', JSON.stringify(number)));
        try {
          await db.batch([
            db
              .update(invoices)
              .set({ ...req.set, number, numberSeq: next })
              .where(
                and(
                  eq(invoices.tenantId, req.tenantId),
                  eq(invoices.id, req.invoiceId),
                  eq(invoices.status, 'STATUS_DRAFT'),
                  eq(invoices.updatedAt, req.expectedUpdatedAt),
                ),
              ),
            requirePreviousChange(db),
            ...req.events.map((e) => db.insert(events).values({ ...e, tenantId: req.tenantId, data: fill(e.data) })),
          ]);
          this.setNumber(range, next);
          return { ok: true as const, number, numberSeq: next };
        } catch (err) {
          if (isGuardFailure(err)) return { ok: false as const, reason: 'not_draft' as const };
          if (!isUniqueViolation(err, 'number_seq')) throw err;
          // D1 already holds this number (the object's storage was reset or lags): catch up and retry.
          const [row] = await db
            .select({ max: max(invoices.numberSeq) })
            .from(invoices)
            .where(and(eq(invoices.tenantId, req.tenantId), eq(invoices.type, req.type)));
          this.setNumber(range, row?.max ?? 0);
        }
      }
      throw new Error(`could not allocate a ${req.type} number after 3 attempts`);
    });
  }

  /** For tests and diagnostics: the highest number D1 holds for a range. */
  async storedMaximum(tenantId: string, type: string): Promise<number> {
    const db = createDb(this.env.DB);
    const [row] = await db
      .select({ max: sql<number>`coalesce(max(${invoices.numberSeq}), 0)` })
      .from(invoices)
      .where(and(eq(invoices.tenantId, tenantId), eq(invoices.type, type)));
    return row?.max ?? 0;
  }
}
