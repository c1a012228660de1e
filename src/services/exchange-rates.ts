import { and, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { parseEurofxref, type EcbRate } from '../billing/ecb';
import type { Db } from '../db/client';
import { exchangeRates } from '../db/schema';
import type { Env } from '../env';

/** Where the daily rates come from: the ECB in production, a fixture locally and in tests. */
export interface RateSource {
  name: string;
  fetchFeed(): Promise<string>;
}

export class EcbRateSource implements RateSource {
  name = 'ecb';
  async fetchFeed() {
    const res = await fetch('https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml', { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`ECB feed answered ${res.status}`);
    return res.text();
  }
}

/** A fixed feed (the ECB's format), for tests and local development without network. */
export class StaticRateSource implements RateSource {
  name = 'fixture';
  constructor(private readonly xml: string) {}
  async fetchFeed() {
    return this.xml;
  }
}

export function rateSource(env: Env): RateSource {
  return env.RATE_SOURCE === 'ecb' ? new EcbRateSource() : new StaticRateSource(DEFAULT_FIXTURE);
}

/** Stores a feed's rates; a day already imported is overwritten with the same values (idempotent). */
export async function importRates(db: Db, source: RateSource, now: Date): Promise<number> {
  const rates = parseEurofxref(await source.fetchFeed());
  const rows = rates.map((r: EcbRate) => ({ ...r, source: source.name, importedAt: now.toISOString() }));
  const statements: BatchItem<'sqlite'>[] = [];
  // 5 columns a row: 19 rows a statement stay under D1's 100 bound parameters.
  for (let i = 0; i < rows.length; i += 19) {
    statements.push(
      db
        .insert(exchangeRates)
        .values(rows.slice(i, i + 19))
        .onConflictDoUpdate({ target: [exchangeRates.date, exchangeRates.currency], set: { rate: sql`excluded.rate`, importedAt: sql`excluded.imported_at` } }),
    );
  }
  await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
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


// A two-day feed in the ECB's format, so local development has rates without network.
const DEFAULT_FIXTURE = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
<Cube><Cube time="2014-06-13"><Cube currency="USD" rate="1.3534"/><Cube currency="GBP" rate="0.79870"/><Cube currency="CHF" rate="1.2162"/><Cube currency="JPY" rate="138.08"/></Cube></Cube>
</gesmes:Envelope>`;
