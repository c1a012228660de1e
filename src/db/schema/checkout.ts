import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** A checkout link's item: a product at a price plan (optionally of a plan), the quantity it opens with and its bounds. */
export interface CheckoutLinkItemRow {
  product: string;
  pricePlan: string;
  plan: string | null;
  quantity: number;
  minQuantity: number;
  maxQuantity: number | null;
  contractPeriod: string | null;
  cancellationPeriod: string | null;
}

export interface CheckoutLinkAfterCheckout {
  url: string | null;
  confirmationMessage: string | null;
  action: 'redirect' | 'confirmation_message' | 'none';
  backToProviderUrl: string | null;
}

export interface CheckoutLinkOptions {
  trialDays: number;
  allowCoupons: boolean;
  quantityEditable: boolean;
  forceCompany: boolean;
}

/** A tenant's checkout link: what a buyer gets on `/checkout/{tenant}/{slug}` (docs: checkout). */
export const checkoutLinks = sqliteTable(
  'checkout_links',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    slug: text('slug').notNull(),
    isEnabled: integer('is_enabled', { mode: 'boolean' }).notNull(),
    afterCheckout: text('after_checkout', { mode: 'json' }).$type<CheckoutLinkAfterCheckout>().notNull(),
    options: text('options', { mode: 'json' }).$type<CheckoutLinkOptions>().notNull(),
    items: text('items', { mode: 'json' }).$type<CheckoutLinkItemRow[]>().notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('checkout_links_slug_uq').on(t.tenantId, t.slug), index('checkout_links_tenant_idx').on(t.tenantId, t.createdAt)],
);

/**
 * A public cart's durable record. The cart's live copy is its Durable Object (src/objects/cart-object.ts),
 * which answers reads; this row is written on every change and at completion, holds the whole state
 * (`state`, the object's copy) and is what the tenant lists. The id is a 192-bit random token.
 */
export const carts = sqliteTable(
  'carts',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    checkoutLinkId: text('checkout_link_id').notNull(),
    status: text('status', { enum: ['open', 'confirming', 'redirect_to_payment', 'completed', 'paid'] }).notNull(),
    version: integer('version').notNull(),
    customerId: text('customer_id'),
    email: text('email'),
    paymentMethodId: text('payment_method_id'),
    subscriptionId: text('subscription_id'),
    invoiceId: text('invoice_id'),
    currencyCode: text('currency_code').notNull(),
    /** Minor units of currency_code. */
    amountDue: integer('amount_due').notNull(),
    state: text('state', { mode: 'json' }).$type<unknown>().notNull(),
    expiresAt: text('expires_at').notNull(),
    completedAt: text('completed_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('carts_tenant_idx').on(t.tenantId, t.createdAt), index('carts_status_idx').on(t.tenantId, t.status, t.createdAt)],
);
