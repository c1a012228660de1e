import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sequences } from '../../db/schema';

/** The statement that takes the next value of a per-tenant counter (returns `[{ value }]`), for a batch of reads. */
export function sequenceStatement(db: Db, tenantId: string, name: string, start: number) {
  return db
    .insert(sequences)
    .values({ tenantId, name, value: start })
    .onConflictDoUpdate({ target: [sequences.tenantId, sequences.name], set: { value: sql`${sequences.value} + 1` } })
    .returning({ value: sequences.value });
}

/** Next value of a per-tenant counter; one atomic statement, so concurrent callers never share a value. */
export async function nextSequenceValue(db: Db, tenantId: string, name: string, start: number): Promise<number> {
  const row = await sequenceStatement(db, tenantId, name, start).get();
  return row!.value;
}

