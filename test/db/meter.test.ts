import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { d1Meter, metered } from '../../src/db/meter';
import { binding } from '../../src/db/shards';

// The D1 meter (src/db/meter.ts) the billing benchmark counts a run's rows with: what it counts, and
// that metering never changes what a statement does (a write through raw() runs once).

describe('D1 meter', () => {
  it('counts rows read and written by run, all, raw and batch, on the binding and on its sessions; a write through raw() runs once', async () => {
    const d1 = metered(binding(env, 'DB_1'), true);
    const table = `meter_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
    await d1.prepare(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, v TEXT)`).run();
    const before = d1Meter();
    await d1.batch([1, 2, 3].map((i) => d1.prepare(`INSERT INTO ${table} (id, v) VALUES (?, ?)`).bind(i, `v${i}`)));
    const afterBatch = d1Meter();
    expect(afterBatch.rowsWritten - before.rowsWritten).toBeGreaterThanOrEqual(3);
    expect(afterBatch.statements - before.statements).toBe(3);

    const session = d1.withSession('first-primary');
    const rows = await session.prepare(`SELECT id, v FROM ${table} ORDER BY id`).raw();
    expect(rows).toEqual([
      [1, 'v1'],
      [2, 'v2'],
      [3, 'v3'],
    ]);
    const afterRead = d1Meter();
    expect(afterRead.rowsRead - afterBatch.rowsRead).toBeGreaterThanOrEqual(3);

    await d1.prepare(`INSERT INTO ${table} (id, v) VALUES (4, 'v4') RETURNING id`).raw();
    expect(d1Meter().uncounted - afterRead.uncounted).toBe(1);
    expect(await d1.prepare(`SELECT count(*) AS n FROM ${table}`).first('n')).toBe(4);
    await d1.prepare(`DROP TABLE ${table}`).run();
  });

  it('leaves the binding as it is when off', () => {
    const d1 = binding(env, 'DB_1');
    expect(metered(d1, false)).toBe(d1);
  });
});
