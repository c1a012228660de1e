import { sql, type SQL } from 'drizzle-orm';

// The two halves of "no row points at a customer that is gone" (docs/decisions.md, Customers):
// a delete runs only while nothing references the customer, and a write that makes a row point at
// a customer runs only while the customer exists. Both are checked inside the writing batch, so
// whichever batch commits first wins and the other rolls back as a whole.

/** SQL condition: the customer exists. Put it after an insert or update that points at it (`requireCondition`). */
export function customerExists(tenantId: string, customerId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM customers WHERE tenant_id = ${tenantId} AND id = ${customerId})`;
}

/** SQL condition: the address exists and belongs to the customer (an address a subscription bills to). */
export function addressExists(tenantId: string, customerId: string, addressId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM customer_addresses WHERE tenant_id = ${tenantId} AND id = ${addressId} AND customer_id = ${customerId})`;
}

/** SQL condition: the customer exists and may be a partner (marked so, and billed through no partner itself). */
export function partnerUsable(tenantId: string, partnerId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM customers WHERE tenant_id = ${tenantId} AND id = ${partnerId} AND is_partner = 1 AND partner_id IS NULL)`;
}

/**
 * What keeps a customer from being deleted: rows of other resources that point at it and must not
 * be left pointing at nothing. Its own child rows (addresses, e-mail addresses, payment methods,
 * sessions, one-time codes) go with it instead.
 */
export const CUSTOMER_REFERENCES = {
  invoices: { type: 'has-documents', detail: 'The customer has documents and cannot be deleted; archive it instead.' },
  subscriptions: { type: 'has-subscriptions', detail: 'The customer has subscriptions and cannot be deleted; archive it instead.' },
  clients: { type: 'partner-in-use', detail: 'The customer is the partner of other customers; unassign them first.' },
  pricePlans: { type: 'has-price-plans', detail: 'Price plans are reserved for the customer; delete them first.' },
  couponRedemptions: { type: 'has-subscriptions', detail: 'The customer has redeemed coupons and cannot be deleted; archive it instead.' },
  entitlements: { type: 'has-subscriptions', detail: 'The customer has entitlements and cannot be deleted; archive it instead.' },
  offers: { type: 'has-offers', detail: 'The customer has offers and cannot be deleted; archive it instead.' },
} as const;

export type CustomerReference = keyof typeof CUSTOMER_REFERENCES;

/** SQL per reference: true when such a row points at the customer. */
export function customerReferences(tenantId: string, customerId: string): Record<CustomerReference, SQL> {
  const exists = (table: string, column: string) =>
    sql`EXISTS (SELECT 1 FROM ${sql.raw(table)} WHERE tenant_id = ${tenantId} AND ${sql.raw(column)} = ${customerId})`;
  return {
    invoices: exists('invoices', 'customer_id'),
    subscriptions: exists('subscriptions', 'customer_id'),
    clients: exists('customers', 'partner_id'),
    pricePlans: exists('price_plans', 'customer_id'),
    couponRedemptions: exists('coupon_redemptions', 'customer_id'),
    entitlements: exists('entitlements', 'customer_id'),
    offers: exists('offers', 'customer_id'),
  };
}

/** SQL condition: nothing of `customerReferences` points at the customer. */
export function customerUnreferenced(tenantId: string, customerId: string): SQL {
  return sql.join(
    Object.values(customerReferences(tenantId, customerId)).map((s) => sql`NOT ${s}`),
    sql` AND `,
  );
}
