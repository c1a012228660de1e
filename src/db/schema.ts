import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

// Timestamps are ISO 8601 UTC strings from Date#toISOString (fixed width, so they sort as text).
// Every tenant-owned table carries tenant_id and every query filters on it (DESIGN §4).

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

export const customerGroups = sqliteTable(
  'customer_groups',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('customer_groups_tenant_idx').on(t.tenantId, t.createdAt)],
);

export const contactPersons = sqliteTable(
  'contact_persons',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    email: text('email').notNull(),
    avatar: text('avatar'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('contact_persons_tenant_idx').on(t.tenantId, t.createdAt)],
);

export const customFields = sqliteTable(
  'custom_fields',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    resource: text('resource', { enum: ['customer', 'subscription', 'invoice', 'product'] }).notNull(),
    name: text('name').notNull(),
    type: text('type', { enum: ['string', 'number', 'boolean', 'date', 'select'] }).notNull(),
    options: text('options', { mode: 'json' }).$type<string[] | null>(),
    required: integer('required', { mode: 'boolean' }).notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('custom_fields_name_uq').on(t.tenantId, t.resource, t.name)],
);

export const customers = sqliteTable(
  'customers',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    customerNumber: text('customer_number').notNull(),
    email: text('email').notNull(),
    // Lower-cased copy: e-mail uniqueness and login are case-insensitive.
    emailKey: text('email_key').notNull(),
    countryCode: text('country_code').notNull(),
    timeZone: text('time_zone').notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    currencyCode: text('currency_code'),
    companyName: text('company_name'),
    vatId: text('vat_id'),
    isVatIdValid: integer('is_vat_id_valid', { mode: 'boolean' }).notNull(),
    taxExempt: text('tax_exempt', { enum: ['auto', 'exempt'] }).notNull(),
    ledgerId: text('ledger_id'),
    commercialRegisterName: text('commercial_register_name'),
    commercialRegisterNumber: text('commercial_register_number'),
    status: text('status', { enum: ['STATUS_ACTIVE', 'STATUS_ARCHIVED', 'STATUS_SUSPENDED'] }).notNull(),
    gender: text('gender', { enum: ['male', 'female', 'diverse'] }),
    phone: text('phone'),
    language: text('language', { enum: ['de', 'en'] }).notNull(),
    totalTurnOverRank: integer('total_turnover_rank'),
    customerGroupId: text('customer_group_id'),
    contactPersonId: text('contact_person_id'),
    customFields: text('custom_fields', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    isPartner: integer('is_partner', { mode: 'boolean' }).notNull(),
    partnerId: text('partner_id'),
    requiresManualInvoiceApproval: integer('requires_manual_invoice_approval', { mode: 'boolean' }),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('customers_email_uq').on(t.tenantId, t.emailKey),
    uniqueIndex('customers_number_uq').on(t.tenantId, t.customerNumber),
    index('customers_created_idx').on(t.tenantId, t.createdAt, t.id),
    index('customers_status_idx').on(t.tenantId, t.status),
    index('customers_partner_idx').on(t.tenantId, t.partnerId),
  ],
);

export const customerAddresses = sqliteTable(
  'customer_addresses',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    customerId: text('customer_id').notNull(),
    type: text('type', { enum: ['TYPE_DEFAULT', 'TYPE_INVOICE'] }).notNull(),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull(),
    status: text('status', { enum: ['active', 'archived'] }).notNull(),
    vatId: text('vat_id'),
    companyName: text('company_name'),
    salutation: text('salutation', { enum: ['Firma', 'Herr', 'Frau'] }),
    firstName: text('first_name'),
    lastName: text('last_name'),
    street: text('street').notNull(),
    houseNumber: text('house_number').notNull(),
    addition: text('addition').notNull(),
    zip: text('zip').notNull(),
    city: text('city').notNull(),
    countryCode: text('country_code').notNull(),
    costCentre: text('cost_centre'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    index('customer_addresses_customer_idx').on(t.tenantId, t.customerId),
    // One default per type and customer, enforced by the database rather than by read-then-write.
    uniqueIndex('customer_addresses_default_uq').on(t.customerId, t.type).where(sql`is_default = 1`),
  ],
);

export const customerEmailAddresses = sqliteTable(
  'customer_email_addresses',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    customerId: text('customer_id').notNull(),
    email: text('email').notNull(),
    receiverName: text('receiver_name'),
    type: text('type', { enum: ['default', 'invoice'] }).notNull(),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    index('customer_emails_customer_idx').on(t.tenantId, t.customerId),
    uniqueIndex('customer_emails_default_uq').on(t.customerId, t.type).where(sql`is_default = 1`),
  ],
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
    documentKey: text('document_key'),
    updatedAt: text('updated_at').notNull().default(''),
  },
  (t) => [
    index('invoices_customer_idx').on(t.tenantId, t.customerId),
    index('invoices_status_idx').on(t.tenantId, t.status, t.createdAt),
    index('invoices_subscription_idx').on(t.tenantId, t.subscriptionId),
    // The number ranges: one per document type, never a number twice.
    uniqueIndex('invoices_number_seq_uq').on(t.tenantId, t.type, t.numberSeq),
  ],
);

/** Invoice lines; `parent_id` groups lines under a header (at most two levels). */
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
  },
  (t) => [index('invoice_positions_invoice_idx').on(t.tenantId, t.invoiceId, t.sort)],
);

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
    invoiceId: text('invoice_id').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.subscriptionItemId, t.periodStart, t.kind] }), index('billing_ledger_invoice_idx').on(t.tenantId, t.invoiceId)],
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

/** Mails the service sent through the local mail interface (the fake used in tests and development). */
export const outgoingMails = sqliteTable(
  'outgoing_mails',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    attachmentKey: text('attachment_key'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('outgoing_mails_tenant_idx').on(t.tenantId, t.createdAt)],
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

/** Transactional outbox: written in the same batch as the change it announces (DESIGN §5). */
export const events = sqliteTable(
  'events',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    type: text('type').notNull(),
    version: text('version').notNull(),
    resourceId: text('resource_id'),
    data: text('data', { mode: 'json' }).notNull(),
    createdAt: text('created_at').notNull(),
    publishedAt: text('published_at'),
  },
  (t) => [
    index('events_tenant_idx').on(t.tenantId, t.createdAt),
    index('events_unpublished_idx').on(t.publishedAt, t.createdAt),
  ],
);

// ── Catalogue ────────────────────────────────────────────────────────────────────────────────

export const productFamilies = sqliteTable(
  'product_families',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    name: text('name').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('product_families_tenant_idx').on(t.tenantId, t.createdAt)],
);

export const units = sqliteTable(
  'units',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    name: text('name').notNull(),
    code: text('code').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('units_code_uq').on(t.tenantId, t.code)],
);

export const measurements = sqliteTable(
  'measurements',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    unitId: text('unit_id').notNull(),
    code: text('code').notNull(),
    description: text('description'),
    fairBilling: integer('fair_billing', { mode: 'boolean' }).notNull(),
    aggregationType: text('aggregation_type', { enum: ['count', 'count_unique', 'max', 'sum', 'last_value', 'average'] }).notNull(),
    type: text('type', { enum: ['instant_metered', 'metered', 'recurring'] }).notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('measurements_code_uq').on(t.tenantId, t.code)],
);

export const costCentres = sqliteTable(
  'cost_centres',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    name: text('name').notNull(),
    code: text('code').notNull(),
    type: text('type'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('cost_centres_code_uq').on(t.tenantId, t.code)],
);

export const cancellationReasons = sqliteTable(
  'cancellation_reasons',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('cancellation_reasons_code_uq').on(t.tenantId, t.code)],
);

export const billingGroups = sqliteTable(
  'billing_groups',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    name: text('name').notNull(),
    type: text('type', { enum: ['start_of_month', 'end_of_month', 'start_of_year', 'end_of_year', 'custom'] }).notNull(),
    customDay: integer('custom_day'),
    customMonth: integer('custom_month'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('billing_groups_tenant_idx').on(t.tenantId, t.createdAt)],
);

export const taxGroups = sqliteTable(
  'tax_groups',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    internalDescription: text('internal_description'),
    reverseChargeType: text('reverse_charge_type', {
      enum: ['REVERSE_CHARGE_DEACTIVATED', 'REVERSE_CHARGE', 'REVERSE_CHARGE_INTRA_EU_SUPPLY'],
    }).notNull(),
    type: text('type', { enum: ['standard', 'reduced'] }).notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('tax_groups_tenant_idx').on(t.tenantId, t.createdAt)],
);

/** A tenant's own rate for a tax group in a country from a date on; it overrides the EU table. */
export const taxes = sqliteTable(
  'taxes',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    taxGroupId: text('tax_group_id').notNull(),
    countryCode: text('country_code').notNull(),
    validFrom: text('valid_from').notNull(),
    rate: text('rate').notNull(),
    code: text('code').notNull(),
    description: text('description'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('taxes_scope_uq').on(t.tenantId, t.taxGroupId, t.countryCode, t.validFrom)],
);

export const products = sqliteTable(
  'products',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    internalName: text('internal_name'),
    number: text('number'),
    type: text('type', { enum: ['product', 'charge', 'plan'] }).notNull(),
    productFamilies: text('product_families', { mode: 'json' }).$type<string[]>().notNull(),
    measurementId: text('measurement_id').notNull(),
    taxGroupId: text('tax_group_id').notNull(),
    invoiceVisibility: text('invoice_visibility', { enum: ['always', 'only_if_charged'] }).notNull(),
    costCentreId: text('cost_centre_id'),
    isArchived: integer('is_archived', { mode: 'boolean' }).notNull(),
    customFields: text('custom_fields', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('products_number_uq').on(t.tenantId, t.number), index('products_tenant_idx').on(t.tenantId, t.createdAt)],
);

export interface PriceTier {
  upTo: string | null;
  unitPrice: string;
  flatPrice: string;
}

export const pricePlans = sqliteTable(
  'price_plans',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    productId: text('product_id').notNull(),
    internalName: text('internal_name'),
    status: text('status', { enum: ['active', 'inactive', 'archived'] }).notNull(),
    type: text('type', { enum: ['recurring', 'one_time', 'metered', 'instant_metered'] }).notNull(),
    calculationType: text('calculation_type', { enum: ['flat_fee', 'per_unit', 'tiered', 'volume', 'stair_step', 'percentage'] }).notNull(),
    currencyCode: text('currency_code').notNull(),
    // Decimal strings: unit prices may carry up to 10 decimals.
    priceAmount: text('price_amount'),
    percentage: text('percentage'),
    tiers: text('tiers', { mode: 'json' }).$type<PriceTier[] | null>(),
    freeUnits: text('free_units').notNull(),
    billingInterval: text('billing_interval'),
    showPricePerInterval: text('show_price_per_interval'),
    applyTrial: integer('apply_trial', { mode: 'boolean' }).notNull(),
    payInAdvance: integer('pay_in_advance', { mode: 'boolean' }).notNull(),
    proRata: integer('pro_rata', { mode: 'boolean' }).notNull(),
    custom: integer('custom', { mode: 'boolean' }).notNull(),
    customerId: text('customer_id'),
    salesChannel: text('sales_channel'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('price_plans_product_idx').on(t.tenantId, t.productId), index('price_plans_tenant_idx').on(t.tenantId, t.createdAt)],
);

export interface PlanItem {
  product: string;
  pricePlan: string;
  quantity: string;
}

export interface PlanAddon {
  product: string;
  pricePlan: string;
  minQuantity: string;
  maxQuantity: string | null;
}

export const plans = sqliteTable(
  'plans',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    familyId: text('family_id').notNull(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    originProductId: text('origin_product_id'),
    allowCheckout: integer('allow_checkout', { mode: 'boolean' }).notNull(),
    status: text('status', { enum: ['draft', 'active', 'inactive', 'archived'] }).notNull(),
    changeBehaviour: text('change_behaviour', {
      enum: ['upgradeable', 'downgradeable', 'upgradeable_and_downgradeable', 'not_changeable'],
    }).notNull(),
    changeApplyBehaviour: text('change_apply_behaviour', { enum: ['immediately', 'end_of_period'] }),
    contractPeriod: text('contract_period'),
    cancellationPeriod: text('cancellation_period'),
    items: text('items', { mode: 'json' }).$type<PlanItem[]>().notNull(),
    addons: text('addons', { mode: 'json' }).$type<PlanAddon[]>().notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('plans_code_uq').on(t.tenantId, t.code), index('plans_tenant_idx').on(t.tenantId, t.createdAt)],
);

export const coupons = sqliteTable(
  'coupons',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    type: text('type', { enum: ['percentage', 'fixed_amount'] }).notNull(),
    percentage: integer('percentage'),
    // Minor units of fixedAmountCurrency.
    fixedAmount: integer('fixed_amount'),
    fixedAmountCurrency: text('fixed_amount_currency'),
    frequency: text('frequency', { enum: ['once', 'limited', 'lifetime'] }).notNull(),
    frequencyInterval: integer('frequency_interval'),
    maxRedemptions: integer('max_redemptions'),
    maxRedemptionsPerCustomer: integer('max_redemptions_per_customer'),
    expiresAt: text('expires_at'),
    limitedToPlans: text('limited_to_plans', { mode: 'json' }).$type<string[]>().notNull(),
    excludedFromPlans: text('excluded_from_plans', { mode: 'json' }).$type<string[]>().notNull(),
    limitedToProducts: text('limited_to_products', { mode: 'json' }).$type<string[]>().notNull(),
    excludedFromProducts: text('excluded_from_products', { mode: 'json' }).$type<string[]>().notNull(),
    isEnabled: integer('is_enabled', { mode: 'boolean' }).notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('coupons_code_uq').on(t.tenantId, t.code), index('coupons_tenant_idx').on(t.tenantId, t.createdAt)],
);

/** A coupon applied to a customer's subscription; written by the subscriptions issue. */
export const couponRedemptions = sqliteTable(
  'coupon_redemptions',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    couponId: text('coupon_id').notNull(),
    customerId: text('customer_id').notNull(),
    subscriptionId: text('subscription_id'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('coupon_redemptions_coupon_idx').on(t.tenantId, t.couponId, t.customerId)],
);

// ── Subscriptions, usage, entitlements ─────────────────────────────────────────────────────────

/** Payment methods of a customer. Gateways arrive with the payments issue; the record exists for references. */
export const paymentMethods = sqliteTable(
  'payment_methods',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    customerId: text('customer_id').notNull(),
    gatewayName: text('gateway_name').notNull(),
    type: text('type').notNull(),
    name: text('name'),
    status: text('status').notNull(),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('payment_methods_customer_idx').on(t.tenantId, t.customerId)],
);

export const subscriptions = sqliteTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    number: text('number').notNull(),
    externalId: text('external_id'),
    name: text('name').notNull(),
    customerId: text('customer_id').notNull(),
    planId: text('plan_id'),
    status: text('status', { enum: ['draft', 'active', 'paused', 'cancelled', 'terminated', 'offer'] }).notNull(),
    billingGroupId: text('billing_group_id'),
    paymentMethodId: text('payment_method_id'),
    invoiceAddressId: text('invoice_address_id'),
    poNumber: text('po_number'),
    contractStart: text('contract_start').notNull(),
    contractPeriod: text('contract_period'),
    cancellationPeriod: text('cancellation_period'),
    contractPeriodCount: integer('contract_period_count').notNull(),
    billingAnchor: text('billing_anchor'),
    // Set by a resume that skips the missed periods: billing restarts with the period containing it.
    billingResumeAt: text('billing_resume_at'),
    trialDays: integer('trial_days').notNull(),
    trialEndsOn: text('trial_ends_on'),
    // When the end of the trial was announced (subscription.trial_expired); null while it runs.
    trialExpiredAt: text('trial_expired_at'),
    activatedAt: text('activated_at'),
    pausedAt: text('paused_at'),
    lastBillingAt: text('last_billing_at'),
    cancellationDate: text('cancellation_date'),
    cancelledAt: text('cancelled_at'),
    cancellationReasonId: text('cancellation_reason_id'),
    terminatedAt: text('terminated_at'),
    customFields: text('custom_fields', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('subscriptions_number_uq').on(t.tenantId, t.number),
    index('subscriptions_customer_idx').on(t.tenantId, t.customerId),
    index('subscriptions_status_idx').on(t.tenantId, t.status, t.createdAt),
    index('subscriptions_created_idx').on(t.tenantId, t.createdAt, t.id),
    // The billing run's cursor walks a tenant's subscriptions in id order.
    index('subscriptions_tenant_id_idx').on(t.tenantId, t.id),
  ],
);

export const subscriptionItems = sqliteTable(
  'subscription_items',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    subscriptionId: text('subscription_id').notNull(),
    parentId: text('parent_id'),
    productId: text('product_id').notNull(),
    pricePlanId: text('price_plan_id').notNull(),
    type: text('type', { enum: ['item', 'addon', 'charge'] }).notNull(),
    status: text('status', { enum: ['active', 'canceled', 'pending', 'terminated'] }).notNull(),
    quantity: text('quantity').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    furtherInformation: text('further_information'),
    startDate: text('start_date'),
    endDate: text('end_date'),
    billingStart: text('billing_start'),
    lastBilledFrom: text('last_billed_from'),
    lastBilledTo: text('last_billed_to'),
    lastBilledAt: text('last_billed_at'),
    activatedAt: text('activated_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    index('subscription_items_subscription_idx').on(t.tenantId, t.subscriptionId),
    index('subscription_items_product_idx').on(t.tenantId, t.productId),
    index('subscription_items_price_plan_idx').on(t.tenantId, t.pricePlanId),
  ],
);

/**
 * Quantity and price plan changes of an item, in effect from `effective_at`. Billing reads them to
 * split periods billed in arrears and to credit and charge the rest of a period billed in advance;
 * `billed_at` marks a change whose proration is on an invoice.
 */
export const itemChanges = sqliteTable(
  'item_changes',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    subscriptionItemId: text('subscription_item_id').notNull(),
    effectiveAt: text('effective_at').notNull(),
    fromQuantity: text('from_quantity').notNull(),
    toQuantity: text('to_quantity').notNull(),
    fromPricePlanId: text('from_price_plan_id').notNull(),
    toPricePlanId: text('to_price_plan_id').notNull(),
    // Null while a change waits for the end of the billed period (plan changeApplyBehaviour end_of_period).
    appliedAt: text('applied_at'),
    billedAt: text('billed_at'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('item_changes_item_idx').on(t.tenantId, t.subscriptionItemId, t.effectiveAt)],
);

/** A coupon applied to a subscription (and so to its matching items). */
export const appliedDiscounts = sqliteTable(
  'applied_discounts',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    subscriptionId: text('subscription_id').notNull(),
    couponId: text('coupon_id').notNull(),
    status: text('status', { enum: ['active', 'expired', 'removed'] }).notNull(),
    appliedIntervals: integer('applied_intervals').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('applied_discounts_subscription_idx').on(t.tenantId, t.subscriptionId)],
);

export const subscriptionComments = sqliteTable(
  'subscription_comments',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    subscriptionId: text('subscription_id').notNull(),
    text: text('text').notNull(),
    author: text('author'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('subscription_comments_idx').on(t.tenantId, t.subscriptionId, t.createdAt)],
);

/**
 * Usage events. `event_id` is the client's id: UNIQUE per tenant, so a repeated event (also within
 * one batch, also from two concurrent batches) is stored once. Kept at least 35 days.
 */
export const usageEvents = sqliteTable(
  'usage_events',
  {
    tenantId: text('tenant_id').notNull(),
    eventId: text('event_id').notNull(),
    subscriptionItemId: text('subscription_item_id').notNull(),
    measurementId: text('measurement_id').notNull(),
    quantity: text('quantity').notNull(),
    // quantity × 10^6 as an integer: SQLite sums and compares integers exactly, never as floats.
    quantityMicros: integer('quantity_micros').notNull(),
    uniqueId: text('unique_id'),
    measuredAt: text('measured_at').notNull(),
    receivedAt: text('received_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.eventId] }),
    index('usage_events_item_idx').on(t.tenantId, t.subscriptionItemId, t.measuredAt),
  ],
);

export const features = sqliteTable(
  'features',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    status: text('status', { enum: ['active', 'inactive', 'archived'] }).notNull(),
    type: text('type', { enum: ['switch', 'quantity', 'config'] }).notNull(),
    config: text('config', { mode: 'json' }).$type<{ value: string; label: string }[] | null>(),
    unit: text('unit'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('features_code_uq').on(t.tenantId, t.code)],
);

export const featureAssignments = sqliteTable(
  'feature_assignments',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    featureId: text('feature_id').notNull(),
    object: text('object', { enum: ['product-price', 'product'] }).notNull(),
    objectId: text('object_id').notNull(),
    value: text('value'),
    validFrom: text('valid_from'),
    validUntil: text('valid_until'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('feature_assignments_object_idx').on(t.tenantId, t.objectId)],
);

/** Entitlements resolved per subscription item and feature; rewritten when a subscription changes. */
export const entitlements = sqliteTable(
  'entitlements',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    subscriptionId: text('subscription_id').notNull(),
    subscriptionItemId: text('subscription_item_id').notNull(),
    customerId: text('customer_id').notNull(),
    featureId: text('feature_id').notNull(),
    featureCode: text('feature_code').notNull(),
    assignmentId: text('assignment_id').notNull(),
    value: text('value'),
    validFrom: text('valid_from'),
    validUntil: text('valid_until'),
    active: integer('active', { mode: 'boolean' }).notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('entitlements_item_feature_uq').on(t.subscriptionItemId, t.assignmentId),
    index('entitlements_subscription_idx').on(t.tenantId, t.subscriptionId),
    // The check applications make on every request: one indexed read per customer and feature.
    index('entitlements_customer_feature_idx').on(t.tenantId, t.customerId, t.featureCode, t.active),
  ],
);

// ── Webhooks ──────────────────────────────────────────────────────────────────────────────────

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
  ],
);
