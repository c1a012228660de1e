import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { publishOutbox } from '../../src/events/publish';
import { query } from '../support/api';

describe('the outbox sweeper', () => {
  it('publishes the events of more tenants than D1 binds parameters in one statement', async () => {
    // 150 tenants with an unpublished event each, older than any other, so one sweep takes them all.
    const ids = Array.from({ length: 150 }, (_, i) => `sweep-${Date.now()}-${i}`);
    await env.DB.batch(
      ids.map((id, i) =>
        env.DB.prepare(`INSERT INTO events (id, tenant_id, type, version, resource_id, data, created_at) VALUES (?, ?, 'customer.updated', '1', 'r', '{}', ?)`).bind(
          id,
          `tenant-${id}`,
          new Date(Date.UTC(2000, 0, 1, 0, 0, i)).toISOString(),
        ),
      ),
    );
    expect(await publishOutbox(env)).toBeGreaterThanOrEqual(150);
    const left = await query(`SELECT id FROM events WHERE id IN (SELECT value FROM json_each(?)) AND published_at IS NULL`, JSON.stringify(ids));
    expect(left).toEqual([]);
  });
});
