import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const tenants = sqliteTable('tenants', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  countryCode: text('country_code').notNull(),
  defaultCurrency: text('default_currency').notNull(),
  timeZone: text('time_zone').notNull(),
  mode: text('mode', { enum: ['live', 'test'] }).notNull(),
  // Frozen time of a test-mode tenant; null means the real clock until the first PUT /test-clock.
  testClockNow: text('test_clock_now'),
  createdAt: text('created_at').notNull(),
  // The plan whose rate limit its API keys get (docs/decisions.md, Rate limits). New tenants take
  // the deployment's DEFAULT_TENANT_PLAN; the default here only fills the rows of tenants made before plans.
  plan: text('plan').notNull().default('standard'),
});

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id),
    name: text('name'),
    keyPrefix: text('key_prefix').notNull(),
    keyHash: text('key_hash').notNull(),
    permissions: text('permissions', { mode: 'json' }).$type<string[]>().notNull(),
    expiresAt: text('expires_at'),
    revokedAt: text('revoked_at'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('api_keys_hash_uq').on(t.keyHash), index('api_keys_tenant_idx').on(t.tenantId, t.createdAt)],
);

export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    tenantId: text('tenant_id').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    state: text('state', { enum: ['in_flight', 'done'] }).notNull(),
    responseStatus: integer('response_status'),
    responseContentType: text('response_content_type'),
    responseBody: text('response_body'),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.key] }), index('idempotency_expires_idx').on(t.expiresAt)],
);

/** Per-tenant counters for human-readable numbers that may have gaps (customer numbers, ledger ids). */
export const sequences = sqliteTable(
  'sequences',
  {
    tenantId: text('tenant_id').notNull(),
    name: text('name').notNull(),
    value: integer('value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.name] })],
);

export const settings = sqliteTable(
  'settings',
  {
    tenantId: text('tenant_id').notNull(),
    key: text('key').notNull(),
    value: text('value', { mode: 'json' }).notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.key] })],
);

export const customerSessions = sqliteTable(
  'customer_sessions',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    customerId: text('customer_id').notNull(),
    refreshTokenHash: text('refresh_token_hash').notNull(),
    // Refresh tokens rotate; all tokens of one login share a family so a replayed old token revokes them all.
    familyId: text('family_id').notNull(),
    expiresAt: text('expires_at').notNull(),
    revokedAt: text('revoked_at'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('customer_sessions_hash_uq').on(t.refreshTokenHash), index('customer_sessions_family_idx').on(t.familyId)],
);

/**
 * The customer's current one-time login code (POST /public/customer/request-otp): only its keyed
 * hash is stored, with its expiry and the wrong attempts so far; `codeHash` is null once used. The
 * window columns count the codes sent per hour, so requests cannot flood a customer's mailbox.
 */
export const customerOtpCodes = sqliteTable(
  'customer_otp_codes',
  {
    tenantId: text('tenant_id').notNull(),
    customerId: text('customer_id').notNull(),
    codeHash: text('code_hash'),
    expiresAt: text('expires_at').notNull(),
    attempts: integer('attempts').notNull(),
    windowStartedAt: text('window_started_at').notNull(),
    codesInWindow: integer('codes_in_window').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.customerId] })],
);
