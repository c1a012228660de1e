import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Money movements (spec §2.5 Transaction): payments, refunds and returned debits. Amounts are
 * integer minor units of `currency_code`. A row is written before any gateway call, keyed by
 * `idempotency_key`, so a retried job finds its row instead of charging again (docs/decisions.md,
 * Payments).
 */
export const transactions = sqliteTable(
  'transactions',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    customerId: text('customer_id').notNull(),
    invoiceId: text('invoice_id'),
    paymentMethodId: text('payment_method_id'),
    /** `payment`, `refund`, `return` (a SEPA debit the payer's bank sent back). */
    type: text('type', { enum: ['payment', 'refund', 'return'] }).notNull(),
    /** The gateway name of the payment method (`testing`, `fake_provider`, `card_provider`, `sepa_debit`, `bank_transfer`). */
    gateway: text('gateway').notNull(),
    /** `pending` (written, gateway not answered), `processing` (in a SEPA file / async), `action_required`, `succeeded`, `failed`, `returned`. */
    status: text('status').notNull(),
    description: text('description'),
    documentNumber: text('document_number'),
    currencyCode: text('currency_code').notNull(),
    amount: integer('amount').notNull(),
    refundedAmount: integer('refunded_amount').notNull().default(0),
    chargedAmount: integer('charged_amount').notNull().default(0),
    feeAmount: integer('fee_amount').notNull().default(0),
    failReason: text('fail_reason'),
    /** The gateway's id of the charge or refund (Stripe's PaymentIntent or Refund id, the SEPA end-to-end id). */
    referenceId: text('reference_id'),
    idempotencyKey: text('idempotency_key').notNull(),
    /** A refund's or return's payment. */
    parentTransactionId: text('parent_transaction_id'),
    /** Collection attempt this row is (1, 2, …); the retry schedule counts them. */
    attempt: integer('attempt').notNull().default(1),
    /** When a failed collection is tried again (the tenant's time); null: no more retries. */
    nextRetryAt: text('next_retry_at'),
    /** Of a refund: whether a refund document corrects the invoice when it goes through (null: yes). */
    refundDocument: integer('refund_document', { mode: 'boolean' }),
    /** The SEPA file (pain.008 or pain.001) that carries it, and its collection or execution date. */
    sepaFileId: text('sepa_file_id'),
    sepaSequenceType: text('sepa_sequence_type'),
    collectionDate: text('collection_date'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    paidAt: text('paid_at'),
  },
  (t) => [
    uniqueIndex('transactions_idempotency_uq').on(t.tenantId, t.idempotencyKey),
    index('transactions_invoice_idx').on(t.tenantId, t.invoiceId),
    index('transactions_customer_idx').on(t.tenantId, t.customerId, t.createdAt),
    index('transactions_reference_idx').on(t.gateway, t.referenceId),
    index('transactions_retry_idx').on(t.tenantId, t.nextRetryAt),
    index('transactions_sepa_file_idx').on(t.tenantId, t.sepaFileId),
    // At most one live collection per invoice: an invoice is charged, or in one SEPA file, once.
    uniqueIndex('transactions_live_payment_uq')
      .on(t.tenantId, t.invoiceId)
      .where(sql`type = 'payment' AND status IN ('pending', 'processing', 'action_required')`),
  ],
);

/** A SEPA file written for the tenant's bank: pain.008 (direct debits) or pain.001 (credit transfers). */
export const sepaFiles = sqliteTable(
  'sepa_files',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    /** `direct_debit` (pain.008) or `credit_transfer` (pain.001). */
    kind: text('kind', { enum: ['direct_debit', 'credit_transfer'] }).notNull(),
    /** The XML message version, e.g. `pain.008.001.02`. */
    format: text('format').notNull(),
    messageId: text('message_id').notNull(),
    /** Collection date (debits) or requested execution date (transfers), YYYY-MM-DD. */
    collectionDate: text('collection_date').notNull(),
    numberOfTransactions: integer('number_of_transactions').notNull(),
    /** Sum of the amounts, minor units. */
    controlSum: integer('control_sum').notNull(),
    currencyCode: text('currency_code').notNull(),
    mediaId: text('media_id'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('sepa_files_message_uq').on(t.tenantId, t.messageId), index('sepa_files_created_idx').on(t.tenantId, t.createdAt)],
);

/** One imported bank statement file; importing the same bytes again is recognised by their hash. */
export const bankStatementImports = sqliteTable(
  'bank_statement_imports',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    sha256: text('sha256').notNull(),
    /** `camt.053.001.02`, `camt.054.001.08`, …, or `open_banking`. */
    format: text('format').notNull(),
    entries: integer('entries').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('bank_statement_imports_uq').on(t.tenantId, t.sha256)],
);

/** A booked line of the tenant's bank account (from camt or open banking). Amounts in minor units, credits positive. */
export const bankAccountTransactions = sqliteTable(
  'bank_account_transactions',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    importId: text('import_id'),
    openBankingAccountId: text('open_banking_account_id'),
    /** Identifies the entry across statements (account servicer reference, or a hash of its fields): the same entry is imported once. */
    fingerprint: text('fingerprint').notNull(),
    /** `STATUS_RECEIVED`, `STATUS_BOOKED`, `STATUS_MANUAL_MATCHING_REQUIRED`, `STATUS_IGNORED`. */
    status: text('status').notNull(),
    accountIban: text('account_iban'),
    bookingDate: text('booking_date'),
    valueDate: text('value_date'),
    /** Signed: credits (money in) positive, debits negative. */
    amount: integer('amount').notNull(),
    currencyCode: text('currency_code').notNull(),
    counterpartyName: text('counterparty_name'),
    /** Secret: the payer's IBAN, used for matching; output masked. */
    counterpartyIban: text('counterparty_iban'),
    remittanceInformation: text('remittance_information'),
    endToEndId: text('end_to_end_id'),
    mandateReference: text('mandate_reference'),
    /** ISO return reason (AC04, MD06, …) of a returned direct debit; with `returnFee` the bank's charge in minor units. */
    returnReason: text('return_reason'),
    returnFee: integer('return_fee'),
    /** What is assigned to invoices so far (minor units); the rest is the visible remainder. */
    assignedAmount: integer('assigned_amount').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('bank_account_transactions_fingerprint_uq').on(t.tenantId, t.fingerprint),
    index('bank_account_transactions_status_idx').on(t.tenantId, t.status, t.bookingDate),
    index('bank_account_transactions_import_idx').on(t.tenantId, t.importId),
  ],
);

/** The match between a bank account transaction and an invoice (spec §2.5); `suggested` until accepted. */
export const bankAccountTransactionAssignments = sqliteTable(
  'bank_account_transaction_assignments',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    bankAccountTransactionId: text('bank_account_transaction_id').notNull(),
    invoiceId: text('invoice_id').notNull(),
    /** The payment transaction the accepted assignment wrote on the invoice. */
    transactionId: text('transaction_id'),
    amount: integer('amount').notNull(),
    fee: integer('fee').notNull().default(0),
    /** `suggested` (automatic, waiting for acceptance) or `accepted`. */
    status: text('status', { enum: ['suggested', 'accepted'] }).notNull(),
    /** How the match was found: `reference`, `mandate`, `amount_iban`, `manual`. */
    matchedBy: text('matched_by').notNull(),
    matchedAt: text('matched_at').notNull(),
  },
  (t) => [
    uniqueIndex('bank_assignments_pair_uq').on(t.tenantId, t.bankAccountTransactionId, t.invoiceId),
    index('bank_assignments_invoice_idx').on(t.tenantId, t.invoiceId),
  ],
);

/** A bank account linked through an open-banking provider (spec §2.5); its transactions are pulled nightly. */
export const openBankingAccounts = sqliteTable(
  'open_banking_accounts',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    alias: text('alias'),
    bankName: text('bank_name'),
    /** Secret: output masked. */
    iban: text('iban').notNull(),
    status: text('status').notNull(),
    provider: text('provider').notNull(),
    /** Secret: the provider's handle of the account or its consent. */
    providerAccountId: text('provider_account_id').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    validUntil: text('valid_until'),
    lastAccessedAt: text('last_accessed_at'),
    lastInformedAt: text('last_informed_at'),
    /** The provider's cursor: transactions after it are new. */
    syncCursor: text('sync_cursor'),
  },
  (t) => [index('open_banking_accounts_tenant_idx').on(t.tenantId, t.createdAt)],
);

/** A tenant's credentials for a gateway (Stripe's secret key, its webhook signing secret), encrypted at rest. */
export const gatewayCredentials = sqliteTable(
  'gateway_credentials',
  {
    tenantId: text('tenant_id').notNull(),
    gateway: text('gateway').notNull(),
    /** AES-GCM ciphertexts (base64 of iv ‖ ciphertext) under the environment's PAYMENT_SECRETS_KEY. */
    secretKey: text('secret_key').notNull(),
    webhookSecret: text('webhook_secret'),
    /** Not secret: what a browser-side client needs (Stripe's publishable key). */
    publishableKey: text('publishable_key'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.gateway] })],
);
