import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** A rule's texts in one language; `{placeholders}` are filled in when a document is made. */
export interface DunningTexts {
  title?: string | null;
  introduction?: string | null;
  closing?: string | null;
  emailSubject?: string | null;
  emailBody?: string | null;
}

/**
 * Overdue rules: level n of a tenant's dunning. A tenant without rows uses the default set
 * (docs/decisions.md, Dunning). A fee is integer minor units of `fee_currency_code` and applies to
 * invoices in that currency.
 */
export const dunningRules = sqliteTable(
  'dunning_rules',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    level: integer('level').notNull(),
    type: text('type', { enum: ['reminder', 'dunning'] }).notNull(),
    daysOverdue: integer('days_overdue').notNull(),
    dueInDays: integer('due_in_days').notNull(),
    feeAmount: integer('fee_amount').notNull().default(0),
    feeCurrencyCode: text('fee_currency_code').notNull().default('EUR'),
    texts: text('texts', { mode: 'json' }).$type<Record<string, DunningTexts>>().notNull(),
    emailTemplate: text('email_template'),
    documentTemplate: text('document_template'),
    attachInvoice: integer('attach_invoice', { mode: 'boolean' }).notNull().default(false),
    /** What the last level does besides its document: `none`, `suspend_customer`, `pause_subscriptions`. */
    finalAction: text('final_action', { enum: ['none', 'suspend_customer', 'pause_subscriptions'] }).notNull().default('none'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('dunning_rules_level_uq').on(t.tenantId, t.level)],
);

/** One line of a dunning document: the open invoice, or a fee (this level's or an earlier one's). */
export interface DunningPosition {
  type: 'invoice' | 'dunning_fee';
  name: string;
  /** Integer minor units. */
  amount: number;
  level?: number;
}

/**
 * Reminders and dunning letters (spec §2.5 Dunning document). One per invoice and level, whatever
 * runs concurrently; `number_seq` is the document's place in its type's gap-free range, allocated by
 * the TenantObject. Amounts are integer minor units of `currency_code`.
 */
export const dunningDocuments = sqliteTable(
  'dunning_documents',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    customerId: text('customer_id').notNull(),
    invoiceId: text('invoice_id').notNull(),
    ruleId: text('rule_id'),
    level: integer('level').notNull(),
    type: text('type', { enum: ['reminder', 'dunning'] }).notNull(),
    status: text('status', { enum: ['open', 'paid', 'cancelled'] }).notNull(),
    reason: text('reason'),
    number: text('number').notNull(),
    numberSeq: integer('number_seq').notNull(),
    language: text('language').notNull(),
    recipient: text('recipient', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    title: text('title').notNull(),
    introduction: text('introduction'),
    closing: text('closing'),
    documentDate: text('document_date').notNull(),
    dueDate: text('due_date').notNull(),
    currencyCode: text('currency_code').notNull(),
    feeAmount: integer('fee_amount').notNull().default(0),
    /** The invoice's open amount when the document was made, and what the document asks for (open amount + fees). */
    openAmount: integer('open_amount').notNull(),
    amountDue: integer('amount_due').notNull(),
    positions: text('positions', { mode: 'json' }).$type<DunningPosition[]>().notNull(),
    attachInvoice: integer('attach_invoice', { mode: 'boolean' }).notNull().default(false),
    emailTemplate: text('email_template'),
    documentTemplate: text('document_template'),
    /** The rendered PDF (media id); set once. */
    fileId: text('file_id'),
    sentAt: text('sent_at'),
    /** Failed renders or mails; the sweeper stops after a few. */
    deliveryAttempts: integer('delivery_attempts').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('dunning_documents_level_uq').on(t.tenantId, t.invoiceId, t.level),
    uniqueIndex('dunning_documents_number_seq_uq').on(t.tenantId, t.type, t.numberSeq),
    index('dunning_documents_customer_idx').on(t.tenantId, t.customerId, t.createdAt),
    index('dunning_documents_status_idx').on(t.tenantId, t.status, t.createdAt),
    // Documents still to be rendered and mailed.
    index('dunning_documents_unsent_idx').on(t.sentAt, t.status, t.createdAt),
  ],
);
