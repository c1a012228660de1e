import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';

/**
 * One per tenant (DESIGN §1): the place for work that must be serial within a tenant. It holds the
 * gap-free document number ranges; billing runs join it with the billing issue.
 */
export class TenantObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS number_ranges (name TEXT PRIMARY KEY, value INTEGER NOT NULL)`);
    });
  }

  /** Current value of a number range (0 when none was allocated yet). */
  currentNumber(range: string): number {
    const row = this.ctx.storage.sql.exec<{ value: number }>(`SELECT value FROM number_ranges WHERE name = ?`, range).toArray()[0];
    return row?.value ?? 0;
  }

  /**
   * Allocates the next number of a range. Calls to one object run one at a time and the upsert is
   * atomic, so no two callers ever receive the same number.
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
}
