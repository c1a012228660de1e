import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { binding, shardNames } from '../../src/db/shards';

// Every shard gets the same migrations (wrangler.toml's D1_SHARDS: two shards, so the whole suite
// runs with tenants spread over both; docs/decisions.md, Tenancy and shards).
for (const shard of shardNames(env)) await applyD1Migrations(binding(env, shard), env.TEST_MIGRATIONS);

// Tests never use the network. A webhook registered by any test (to hosts like hooks.example) is
// delivered by the queue consumer in the background; without this guard its fetch goes to DNS,
// which workerd logs as an "uncaught exception" even though the delivery catches and records it.
// Here it fails at once and the delivery records that failure. Tests that receive deliveries
// replace fetch with their own receiver (test/webhooks/receiver.ts).
globalThis.fetch = async (input: RequestInfo | URL) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  throw new TypeError(`network access is disabled in tests (${url})`);
};
