-- Tenants made before shards existed live in shard 0 (DB): their directory entries, so they stay
-- reachable (docs/decisions.md, Tenancy and shards). Every shard runs this, but only shard 0's
-- directory is ever read, and a shard added later is empty when it runs.
INSERT OR IGNORE INTO `tenant_directory` (`tenant_id`, `shard`, `moving_since`, `created_at`) SELECT `id`, 'DB', NULL, `created_at` FROM `tenants`;
--> statement-breakpoint
INSERT OR IGNORE INTO `api_key_directory` (`key_hash`, `tenant_id`, `created_at`) SELECT `key_hash`, `tenant_id`, `created_at` FROM `api_keys`;
