import { and, eq, sql, type SQL } from 'drizzle-orm';
import { paymentMethods } from '../../db/schema';

// The one rule for which payment method pays an invoice: the invoice's own, else its customer's
// default (docs/decisions.md, Payments). Collection, the SEPA files, the collection sweeper and the
// invoice's documents all read it here.

/** Drizzle condition on `payment_methods` selecting the method that pays `invoice`. */
export function payingMethodWhere(tenantId: string, invoice: { customerId: string; paymentMethodId: string | null }): SQL {
  return and(
    eq(paymentMethods.tenantId, tenantId),
    eq(paymentMethods.customerId, invoice.customerId),
    invoice.paymentMethodId ? eq(paymentMethods.id, invoice.paymentMethodId) : eq(paymentMethods.isDefault, true),
  )!;
}

/** The same rule over methods already read: the invoice's own, else its customer's default. */
export function payingMethodOf<M extends { id: string; customerId: string; isDefault: boolean }>(invoice: { customerId: string; paymentMethodId: string | null }, methods: readonly M[]): M | null {
  return methods.find((m) => m.customerId === invoice.customerId && (invoice.paymentMethodId ? m.id === invoice.paymentMethodId : m.isDefault)) ?? null;
}

/**
 * Raw SQL join condition of `payment_methods m` on the invoice aliased `i`, for queries over many
 * invoices. The method must also be the invoice customer's.
 */
export function payingMethodJoin(tenantId: string): SQL {
  return sql`+m.tenant_id = ${tenantId} AND m.customer_id = i.customer_id AND m.id = coalesce(i.payment_method_id,
      (SELECT d.id FROM payment_methods d WHERE d.tenant_id = ${tenantId} AND d.customer_id = i.customer_id AND d.is_default = 1 LIMIT 1))`;
}
