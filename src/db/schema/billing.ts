import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * What billing runs have billed: one row per (subscription item, period start, kind), written in the
 * same batch as the invoice that bills it. The UNIQUE key is what makes billing exactly-once.
 */
export const billingLedger = sqliteTable(
  'billing_ledger',
  {
    tenantId: text('tenant_id').notNull(),
    subscriptionItemId: text('subscription_item_id').notNull(),
    periodStart: text('period_start').notNull(),
    kind: text('kind').notNull(),
    periodEnd: text('period_end'),
    // The invoice that billed the period; null for a period a resume skipped (billed as nothing).
    invoiceId: text('invoice_id'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.subscriptionItemId, t.periodStart, t.kind] }), index('billing_ledger_invoice_idx').on(t.tenantId, t.invoiceId)],
);

export const billingRuns = sqliteTable(
  'billing_runs',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    status: text('status', { enum: ['running', 'completed', 'failed'] }).notNull(),
    asOf: text('as_of').notNull(),
    trigger: text('trigger').notNull(),
    itemsBilled: integer('items_billed').notNull(),
    invoicesCreated: integer('invoices_created').notNull(),
    errors: integer('errors').notNull(),
    lastError: text('last_error'),
    startedAt: text('started_at').notNull(),
    finishedAt: text('finished_at'),
  },
  (t) => [index('billing_runs_tenant_idx').on(t.tenantId, t.startedAt)],
);

/** ECB euro reference rates: 1 EUR = `rate` units of `currency` on `date`. */
export const exchangeRates = sqliteTable(
  'exchange_rates',
  {
    date: text('date').notNull(),
    currency: text('currency').notNull(),
    rate: text('rate').notNull(),
    source: text('source').notNull(),
    importedAt: text('imported_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.date, t.currency] })],
);
