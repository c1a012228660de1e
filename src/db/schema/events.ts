import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Transactional outbox: written in the same batch as the change it announces (docs/decisions.md, events). */
export const events = sqliteTable(
  'events',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    type: text('type').notNull(),
    version: text('version').notNull(),
    resourceId: text('resource_id'),
    /** The event's document; null when it is shared with other events (`documentId`). */
    data: text('data', { mode: 'json' }),
    /**
     * The document in `event_documents`, stored once for all the events that carry it (a billed
     * invoice is finalized, unpaid and has its files requested with the same document).
     */
    documentId: text('document_id'),
    createdAt: text('created_at').notNull(),
    publishedAt: text('published_at'),
  },
  (t) => [
    index('events_tenant_idx').on(t.tenantId, t.createdAt),
    // The outbox: only unpublished events, in publishing order per tenant. With an index of every
    // event by tenant, SQLite chose that one for a tenant's outbox and read all its published events
    // on every publish (640 rows read per invoice in a billing run with a webhook).
    index('events_outbox_idx').on(t.tenantId, t.createdAt, t.id).where(sql`published_at IS NULL`),
    // Which events still point to a shared document (the retention purge keeps those documents).
    index('events_document_idx').on(t.documentId).where(sql`document_id IS NOT NULL`),
  ],
);

/** Documents shared by several events (see `events.documentId`); written in the same batch as they are. */
export const eventDocuments = sqliteTable(
  'event_documents',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    data: text('data', { mode: 'json' }).notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('event_documents_tenant_idx').on(t.tenantId, t.createdAt)],
);

export const webhooks = sqliteTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    url: text('url').notNull(),
    events: text('events', { mode: 'json' }).$type<string[]>().notNull(),
    version: text('version').notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    activities: text('activities', { mode: 'json' }).$type<string[]>().notNull(),
    secret: text('secret').notNull(),
    // After a rotation the old secret keeps signing (a second signature) until previous_secret_expires_at.
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: text('previous_secret_expires_at'),
    failureCount: integer('failure_count').notNull(),
    disabledReason: text('disabled_reason'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('webhooks_tenant_idx').on(t.tenantId, t.enabled)],
);

/** One event for one webhook: its attempts live here, so retries can outlast what a queue allows. */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    webhookId: text('webhook_id').notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull(),
    lastResponseCode: integer('last_response_code'),
    lastError: text('last_error'),
    nextAttemptAt: text('next_attempt_at'),
    lastAttemptAt: text('last_attempt_at'),
    deadLetteredAt: text('dead_lettered_at'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_event_uq').on(t.webhookId, t.eventId),
    index('webhook_deliveries_webhook_idx').on(t.tenantId, t.webhookId, t.createdAt),
    index('webhook_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    // The deliveries a webhook has not tried yet, in order: what goes out before a later one
    // (attemptInOrder). Only those rows, so a webhook's 100,000 delivered ones are never walked.
    index('webhook_deliveries_untried_idx').on(t.webhookId, t.id).where(sql`status = 'pending' AND attempts = 0`),
  ],
);
