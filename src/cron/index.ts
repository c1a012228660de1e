import { lt } from 'drizzle-orm';
import { createDb } from '../db/client';
import { idempotencyKeys } from '../db/schema';
import type { Env } from '../env';
import { systemNow } from '../lib/clock';

/** Nightly clean-up: idempotency records past their 24 h retention. */
export async function purgeExpiredIdempotencyKeys(env: Env): Promise<number> {
  const db = createDb(env.DB);
  const deleted = await db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, systemNow().toISOString())).returning({ key: idempotencyKeys.key });
  return deleted.length;
}

/** Dispatches cron triggers (wrangler.toml) to their jobs; later issues add billing, dunning and the outbox sweeper. */
export async function runScheduled(controller: ScheduledController, env: Env): Promise<void> {
  if (controller.cron === '0 3 * * *') {
    const purged = await purgeExpiredIdempotencyKeys(env);
    console.log(JSON.stringify({ level: 'info', job: 'purge-idempotency-keys', purged }));
  }
}
