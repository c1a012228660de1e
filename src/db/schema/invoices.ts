import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Billing documents: invoices, credit notes, cancellations, refunds, reminders and dunning letters.
 * Amounts are integer minor units of `currency_code`. A draft has no number; finalization assigns
 * the next number of the type's range (`number_seq`, gap-free, allocated by the TenantObject).
 */
export const invoices = sqliteTable(
  'invoices',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    customerId: text('customer_id').notNull(),
    type: text('type').notNull(),
    status: text('status').notNull(),
    number: text('number'),
    createdAt: text('created_at').notNull(),
    subscriptionId: text('subscription_id'),
    currencyCode: text('currency_code').notNull().default('EUR'),
    numberSeq: integer('number_seq'),
    finalizationDate: text('finalization_date'),
    dueDate: text('due_date'),
    payDate: text('pay_date'),
    lastSentAt: text('last_sent_at'),
    lastReminderDate: text('last_reminder_date'),
    dunningLevel: integer('dunning_level').notNull().default(0),
    dunningStatus: text('dunning_status').notNull().default('none'),
    dunningDisabled: integer('dunning_disabled', { mode: 'boolean' }).notNull().default(false),
    invoiceAddress: text('invoice_address', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    paymentMethodId: text('payment_method_id'),
    referencedInvoiceId: text('referenced_invoice_id'),
    internalNote: text('internal_note'),
    title: text('title'),
    introduction: text('introduction'),
    closing: text('closing'),
    netAmount: integer('net_amount').notNull().default(0),
    taxAmount: integer('tax_amount').notNull().default(0),
    grossAmount: integer('gross_amount').notNull().default(0),
    discountAmount: integer('discount_amount').notNull().default(0),
    paidAmount: integer('paid_amount').notNull().default(0),
    taxBreakdown: text('tax_breakdown', { mode: 'json' }).$type<{ rate: string; category: string; taxableAmount: string; taxAmount: string }[] | null>(),
    serviceDateFrom: text('service_date_from'),
    serviceDateTo: text('service_date_to'),
    sourceType: text('source_type').notNull().default('manual'),
    customFields: text('custom_fields', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    exchangeRates: text('exchange_rates', { mode: 'json' }).$type<Record<string, unknown>[] | null>(),
    billingRunId: text('billing_run_id'),
    /** What the customer receives, fixed at finalization: the e-invoice type and Leitweg-ID then in force. */
    eInvoiceType: text('e_invoice_type', { enum: ['zugferd', 'xrechnung', 'cii', 'ubl'] }),
    leitwegId: text('leitweg_id'),
    /** The rendered PDF and e-invoice XML (media ids); set once, never replaced. */
    fileId: text('file_id'),
    xmlFileId: text('xml_file_id'),
    /** Failed render attempts (the sweeper stops retrying after a few) and the last reason. */
    renderAttempts: integer('render_attempts').notNull().default(0),
    renderError: text('render_error'),
    /** Unguessable token of the public usage breakdown; set when the document bills usage. */
    usageToken: text('usage_token'),
    updatedAt: text('updated_at').notNull().default(''),
  },
  (t) => [
    index('invoices_customer_idx').on(t.tenantId, t.customerId),
    index('invoices_status_idx').on(t.tenantId, t.status, t.createdAt),
    index('invoices_subscription_idx').on(t.tenantId, t.subscriptionId),
    // The dunning run: open documents by due date.
    index('invoices_due_idx').on(t.tenantId, t.status, t.dueDate),
    // The number ranges: one per document type, never a number twice.
    uniqueIndex('invoices_number_seq_uq').on(t.tenantId, t.type, t.numberSeq),
    uniqueIndex('invoices_usage_token_uq').on(t.usageToken),
    // What credit notes took off an invoice, asked for by every open-amount query (docs/decisions.md, Invoices and billing, "What is owed").
    index('invoices_referenced_idx').on(t.tenantId, t.referencedInvoiceId),
    // The render sweeper: finalized documents still without a file.
    index('invoices_unrendered_idx').on(t.fileId, t.finalizationDate),
  ],
);

/** A snapshot of a position's unit, tax group or tenant tax as they were when the line was made. */
export interface PositionUnit {
  id: string;
  name: string;
}
export interface PositionTaxGroup {
  id: string;
  internalDescription: string | null;
  reverseChargeType: string;
  type: string;
}
export interface PositionTax {
  /** The tenant's /taxes entry that supplied the rate; null for the EU table or a 0 % rule. */
  id: string | null;
  code: string | null;
  description: string | null;
}

/**
 * Invoice lines; `parent_id` groups lines under a header (at most two levels). `net_amount` is after
 * the line's discount (`discount_amount`); unit, tax group and tax are snapshots (null when the line
 * was made without them, e.g. by billing so far).
 */
export const invoicePositions = sqliteTable(
  'invoice_positions',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    invoiceId: text('invoice_id').notNull(),
    parentId: text('parent_id'),
    sort: integer('sort').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    quantity: text('quantity').notNull(),
    unitPrice: text('unit_price').notNull(),
    discountAmount: integer('discount_amount').notNull(),
    netAmount: integer('net_amount').notNull(),
    taxRate: text('tax_rate').notNull(),
    taxCategory: text('tax_category').notNull(),
    taxNote: text('tax_note'),
    serviceFrom: text('service_from'),
    serviceTo: text('service_to'),
    kind: text('kind').notNull(),
    productId: text('product_id'),
    subscriptionItemId: text('subscription_item_id'),
    createdAt: text('created_at').notNull(),
    unit: text('unit', { mode: 'json' }).$type<PositionUnit | null>(),
    taxGroup: text('tax_group', { mode: 'json' }).$type<PositionTaxGroup | null>(),
    tax: text('tax', { mode: 'json' }).$type<PositionTax | null>(),
    /** Percent (decimal string) when the discount was given as a percentage. */
    discountPercentage: text('discount_percentage'),
    unitPriceInterval: text('unit_price_interval'),
  },
  (t) => [index('invoice_positions_invoice_idx').on(t.tenantId, t.invoiceId, t.sort)],
);

export const invoicePayments = sqliteTable(
  'invoice_payments',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    invoiceId: text('invoice_id').notNull(),
    amount: integer('amount').notNull(),
    paymentDate: text('payment_date').notNull(),
    description: text('description'),
    paymentMethod: text('payment_method'),
    createdAt: text('created_at').notNull(),
    /** The payment provider's fee (minor units), informational: it does not change what is paid. */
    feeAmount: integer('fee_amount'),
    /** The transaction (gateway charge, SEPA debit, bank match) behind the payment; null for one recorded by hand. */
    transactionId: text('transaction_id'),
    /**
     * What the same payment paid of the invoice's dunning fees beyond `amount` (minor units, no VAT:
     * damages, not a supply); `amount` alone is what counts toward the invoice (docs/decisions.md,
     * Dunning, "Fees are receivable").
     */
    dunningFeeAmount: integer('dunning_fee_amount').notNull().default(0),
  },
  (t) => [index('invoice_payments_invoice_idx').on(t.tenantId, t.invoiceId)],
);

export const invoiceComments = sqliteTable(
  'invoice_comments',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    invoiceId: text('invoice_id').notNull(),
    text: text('text').notNull(),
    author: text('author'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('invoice_comments_idx').on(t.tenantId, t.invoiceId, t.createdAt)],
);

/**
 * Every mail the service sends, written by the mail port (docs/decisions.md, Mail). With the local
 * `outbox` adapter (development, tests) a mail stays here as `recorded`; with a provider it is
 * `pending` until the mail queue's consumer claims it (`sending`) and the provider accepted it
 * (`sent`) or refused it for good (`failed`). The row's id is the provider's idempotency key. The
 * body is dropped once a provider has the mail: it may hold a one-time code.
 */
export const outgoingMails = sqliteTable(
  'outgoing_mails',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    /** R2 objects attached: key, file name and media type each. */
    attachments: text('attachments', { mode: 'json' }).$type<{ key: string; fileName: string; mimeType: string }[]>().notNull().default([]),
    status: text('status', { enum: ['recorded', 'pending', 'sending', 'sent', 'failed'] }).notNull().default('recorded'),
    /** Provider calls made (each claim counts one). */
    attempts: integer('attempts').notNull().default(0),
    /** A pending mail's next try; a sending mail's claim time (a claim older than the stale limit may be taken over). */
    nextAttemptAt: text('next_attempt_at'),
    providerMessageId: text('provider_message_id'),
    /** The provider's reason for the last failure (status and its message; never a credential). */
    lastError: text('last_error'),
    sentAt: text('sent_at'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('outgoing_mails_tenant_idx').on(t.tenantId, t.createdAt), index('outgoing_mails_due_idx').on(t.status, t.nextAttemptAt)],
);
