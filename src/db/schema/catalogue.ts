import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

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

/** A coupon redeemed by a customer's subscription (written when the subscription is activated). */
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
