import { runBatch } from '../../db/client';
import { and, sql } from 'drizzle-orm';
import { parseEurofxref, type EcbRate } from '../../billing/ecb';
import type { Db } from '../../db/client';
import { insertRows } from '../../db/insert';
import { exchangeRates } from '../../db/schema';
import { openShard, shardNames } from '../../db/shards';
import type { Env } from '../../env';
import type { RateSource } from '../ports/rate-source';

/**
 * Stores a feed's rates in every shard: billing reads them next to the tenant's data, in one
 * database (docs/decisions.md, Tenancy and shards). A day already imported is overwritten with the
 * same values (idempotent), so an import that stopped between shards is completed by the next one.
 */
export async function importRates(env: Env, source: RateSource, now: Date): Promise<number> {
  const rates = parseEurofxref(await source.fetchFeed());
  const rows = rates.map((r: EcbRate) => ({ ...r, source: source.name, importedAt: now.toISOString() }));
  for (const shard of shardNames(env)) {
    const db = openShard(env, shard);
    const statements = insertRows(db, exchangeRates, rows, {
      finish: (q) => q.onConflictDoUpdate({ target: [exchangeRates.date, exchangeRates.currency], set: { rate: sql`excluded.rate`, importedAt: sql`excluded.imported_at` } }),
    });
    await runBatch(db, statements);
  }
  return rows.length;
}

/** The rates in force on a date: for each currency, the latest ECB day at or before it. */
export async function ratesOn(db: Db, date: string) {
  const rows = await db
    .select()
    .from(exchangeRates)
    .where(and(sql`${exchangeRates.date} = (SELECT max(r.date) FROM exchange_rates r WHERE r.currency = ${exchangeRates.currency} AND r.date <= ${date})`));
  return rows.map((r) => ({ currency: r.currency, rate: r.rate, date: r.date, base: 'EUR' })).sort((a, b) => a.currency.localeCompare(b.currency));
}

