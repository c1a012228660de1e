import { and, eq, ne } from 'drizzle-orm';
import { requirePreviousChange } from '../../db/client';
import { nextUpdatedAt } from '../../db/commit';
import { paymentMethods } from '../../db/schema';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import { loadCustomer } from './read';
import type { CustomerRow } from './render';
import { commitCustomerChange } from './update';

/** Payment methods that can no longer be charged; they cannot become the default. */
const UNUSABLE = new Set(['revoked', 'expired']);

/**
 * PATCH /customers/{id}/payment-method: makes one of the customer's payment methods its default
 * (the one billing uses when a subscription names none). The payment-methods API itself comes with
 * the payments issue; this only chooses among the customer's existing ones.
 */
/** A payment method of this customer, or a 422 at `path` (the field the client sent). */
export async function requireCustomerPaymentMethod(ctx: ServiceContext, customerId: string, paymentMethodId: string, path: string) {
  const method = await ctx.db
    .select()
    .from(paymentMethods)
    .where(and(eq(paymentMethods.tenantId, ctx.tenant.id), eq(paymentMethods.customerId, customerId), eq(paymentMethods.id, paymentMethodId)))
    .get();
  if (!method) throw ApiError.violation(path, 'No such payment method of this customer.', 'not_found');
  return method;
}

export async function setDefaultPaymentMethod(ctx: ServiceContext, customerId: string, paymentMethodId: string) {
  const before = await loadCustomer(ctx, customerId);
  const t = ctx.tenant.id;
  const ofCustomer = and(eq(paymentMethods.tenantId, t), eq(paymentMethods.customerId, customerId));
  const method = await requireCustomerPaymentMethod(ctx, customerId, paymentMethodId, 'paymentMethodId');
  if (!method.enabled || UNUSABLE.has(method.status)) {
    throw ApiError.violation('paymentMethodId', `The payment method is ${method.enabled ? method.status : 'disabled'} and cannot be the default.`, 'not_usable');
  }
  const row: CustomerRow = { ...before.row, updatedAt: nextUpdatedAt(ctx.now, before.row.updatedAt) };
  const chosen = { id: method.id, gatewayName: method.gatewayName, type: method.type, name: method.name, status: method.status, default: true, enabled: method.enabled };
  return commitCustomerChange(
    ctx,
    before,
    row,
    'customer.updated',
    [
      ctx.db.update(paymentMethods).set({ isDefault: false }).where(and(ofCustomer, ne(paymentMethods.id, method.id))),
      // The chosen row must still be there and usable when the batch runs.
      ctx.db
        .update(paymentMethods)
        .set({ isDefault: true })
        .where(and(ofCustomer, eq(paymentMethods.id, method.id), eq(paymentMethods.enabled, true))),
      requirePreviousChange(ctx.db),
    ],
    { paymentMethod: chosen },
  );
}
