import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Payment methods of a customer (spec §2.2); secrets (IBAN, gateway token) sit in their own columns and are never rendered. */
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
    updatedAt: text('updated_at').notNull().default(''),
    /** How the method came in: `api`, `checkout`, `customerfront`, `add_link`. */
    source: text('source').notNull().default('api'),
    /** A public reference shown as `referenceId` (the mandate reference for SEPA); never a gateway secret. */
    referenceId: text('reference_id'),
    /** Free strings the tenant attaches (`data`). */
    data: text('data', { mode: 'json' }).$type<string[]>().notNull().default([]),
    /** Card expiry (end of the expiry month, UTC); the nightly cron marks the method `expired` after it. */
    expiresAt: text('expires_at'),
    /** What may be shown: card {brand,last4,expMonth,expYear,cardHolder}, sepaDebit {iban masked,bic,…}, bankTransfer {…}. */
    details: text('details', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default({}),
    /** Secret: the full IBAN of a SEPA mandate, needed for the pain.008 file; only ever output masked. */
    iban: text('iban'),
    /** Secret: the gateway's token for the method (Stripe's customer and payment method ids). */
    gatewayToken: text('gateway_token'),
    /** SEPA mandate reference (unique per creditor, so per tenant) and its signing date. */
    mandateReference: text('mandate_reference'),
    mandateSignedAt: text('mandate_signed_at'),
    /** When a debit on this mandate was first put into a file: before it, debits are FRST, after it RCUR. */
    mandateFirstUsedAt: text('mandate_first_used_at'),
    revokedAt: text('revoked_at'),
  },
  (t) => [
    index('payment_methods_customer_idx').on(t.tenantId, t.customerId),
    uniqueIndex('payment_methods_mandate_uq').on(t.tenantId, t.mandateReference),
    // The nightly card expiry.
    index('payment_methods_expiry_idx').on(t.tenantId, t.status, t.expiresAt),
  ],
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
    // A cancellation reason given as free text rather than as a reason's id or code.
    cancellationReasonText: text('cancellation_reason_text'),
    terminatedAt: text('terminated_at'),
    // The last billing failure, until billing succeeds again; the event is sent when the code changes.
    lastBillingErrorAt: text('last_billing_error_at'),
    lastBillingErrorCode: text('last_billing_error_code'),
    lastBillingErrorMessage: text('last_billing_error_message'),
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
