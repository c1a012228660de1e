import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { publishShardOutbox } from '../../src/events/publish';
import { binding } from '../../src/db/shards';
import { shardSweeps } from '../../src/db/directory';

describe('the outbox sweeper', () => {
  it('publishes the events of more tenants than D1 binds parameters in one statement, on every shard', async () => {
    // 150 tenants per shard with an unpublished event each, older than any other, so one sweep of
    // each shard takes them all.
    for (const sweep of await shardSweeps(env)) {
      const ids = Array.from({ length: 150 }, (_, i) => `sweep-${sweep.shard}-${Date.now()}-${i}`);
      const d1 = binding(env, sweep.shard);
      await d1.batch(
        ids.map((id, i) =>
          d1.prepare(`INSERT INTO events (id, tenant_id, type, version, resource_id, data, created_at) VALUES (?, ?, 'customer.updated', '1', 'r', '{}', ?)`).bind(
            id,
            `tenant-${id}`,
            new Date(Date.UTC(2000, 0, 1, 0, 0, i)).toISOString(),
          ),
        ),
      );
      expect(await publishShardOutbox(env, sweep)).toBeGreaterThanOrEqual(150);
      const left = await d1.prepare(`SELECT id FROM events WHERE id IN (SELECT value FROM json_each(?)) AND published_at IS NULL`).bind(JSON.stringify(ids)).all();
      expect(left.results).toEqual([]);
    }
  });
});
