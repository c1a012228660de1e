import { and, eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { guardedUpdate, nextUpdatedAt } from '../../db/commit';
import { insertEvent } from '../../events/outbox';
import { paymentMethods } from '../../db/schema';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import { loadCustomer } from './read';
import type { CustomerRow } from './render';
import { commitCustomerChange } from './update';
import { creditorIdOf, otherDefaults, takeDefault } from '../payments/methods';
import { renderPaymentMethod, UNUSABLE_STATUSES } from '../payments/methods-render';

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

/**
 * PATCH /customers/{id}/payment-method: makes one of the customer's payment methods its default
 * (the one billing and collection use when a subscription or invoice names none), through the same
 * statements as PATCH /payment-methods/{id} {default: true}.
 */
export async function setDefaultPaymentMethod(ctx: ServiceContext, customerId: string, paymentMethodId: string) {
  const before = await loadCustomer(ctx, customerId);
  const method = await requireCustomerPaymentMethod(ctx, customerId, paymentMethodId, 'paymentMethodId');
  if (!method.enabled || UNUSABLE_STATUSES.includes(method.status)) {
    throw ApiError.violation('paymentMethodId', `The payment method is ${method.enabled ? method.status : 'disabled'} and cannot be the default.`, 'not_usable');
  }
  const row: CustomerRow = { ...before.row, updatedAt: nextUpdatedAt(ctx.now, before.row.updatedAt) };
  const [previous, creditorId] = await Promise.all([otherDefaults(ctx, customerId, method.id), creditorIdOf(ctx)]);
  const statements: BatchItem<'sqlite'>[] = takeDefault(ctx, customerId, method.id, previous, creditorId);
  if (!method.isDefault) {
    // The chosen method must still be as read (usable, not changed) when the batch runs.
    const updatedAt = nextUpdatedAt(ctx.now, method.updatedAt);
    statements.push(
      ...guardedUpdate(ctx.db, { table: paymentMethods, tenantId: ctx.tenant.id, id: method.id, expectedUpdatedAt: method.updatedAt, set: { isDefault: true, updatedAt } }),
      insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'payment_method.updated', resourceId: method.id, data: renderPaymentMethod({ ...method, isDefault: true, updatedAt }, creditorId), now: ctx.now }),
    );
  }
  return commitCustomerChange(ctx, before, row, 'customer.updated', statements, { paymentMethod: renderPaymentMethod({ ...method, isDefault: true }, creditorId) });
}
