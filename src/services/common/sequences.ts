import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sequences } from '../../db/schema';

/** Next value of a per-tenant counter; one atomic statement, so concurrent callers never share a value. */
export async function nextSequenceValue(db: Db, tenantId: string, name: string, start: number): Promise<number> {
  const row = await db
    .insert(sequences)
    .values({ tenantId, name, value: start })
    .onConflictDoUpdate({ target: [sequences.tenantId, sequences.name], set: { value: sql`${sequences.value} + 1` } })
    .returning({ value: sequences.value })
    .get();
  return row!.value;
}

