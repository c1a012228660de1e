import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

// The directory: where each tenant's data lives, and what finds a tenant without knowing its shard
// (docs/decisions.md, Tenancy and shards). Only the directory database (the `DB` binding, shard 0)
// holds rows here; the tables exist in every shard because all shards share one set of migrations.

/** A tenant's shard (a D1 binding name). `movingSince` is set while an operator moves the tenant to another shard. */
export const tenantDirectory = sqliteTable(
  'tenant_directory',
  {
    tenantId: text('tenant_id').primaryKey(),
    shard: text('shard').notNull(),
    movingSince: text('moving_since'),
    createdAt: text('created_at').notNull(),
    /** The tenant's public name in page URLs (`/checkout/{slug}/…`), unique across tenants; null until the tenant sets one. */
    slug: text('slug'),
  },
  (t) => [
    index('tenant_directory_shard_idx').on(t.shard),
    index('tenant_directory_created_idx').on(t.createdAt, t.tenantId),
    uniqueIndex('tenant_directory_slug_uq').on(t.slug),
  ],
);

/** API key hash → tenant: authentication finds the key's tenant (and so its shard) before it can read the key. */
export const apiKeyDirectory = sqliteTable('api_key_directory', {
  keyHash: text('key_hash').primaryKey(),
  tenantId: text('tenant_id').notNull(),
  createdAt: text('created_at').notNull(),
});
