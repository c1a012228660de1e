import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { isGuardFailure, requirePreviousChange } from '../../db/client';
import { customerAddresses, customerEmailAddresses, customerOtpCodes, customers, customerSessions, paymentMethods } from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import { forgetEntitlementChecks } from '../subscriptions/entitlement-check';
import { byId } from './read';
import { CUSTOMER_REFERENCES, type CustomerReference, customerReferences, customerUnreferenced } from './guards';

/** The customer's number and which references keep it from being deleted; null when there is no such customer. */
async function readReferences(ctx: ServiceContext, id: string) {
  const refs = customerReferences(ctx.tenant.id, id);
  const row = await ctx.db
    .select({ customerNumber: customers.customerNumber, held: sql<string | null>`${heldReference(refs)}` })
    .from(customers)
    .where(byId(ctx, id))
    .get();
  if (!row) return null;
  return { customerNumber: row.customerNumber, held: (row.held ?? undefined) as CustomerReference | undefined };
}

/** SQL: the name of the first reference that holds, or NULL. */
function heldReference(refs: Record<CustomerReference, SQL>): SQL {
  const cases = Object.entries(refs).map(([name, condition]) => sql`WHEN ${condition} THEN ${name}`);
  return sql`CASE ${sql.join(cases, sql` `)} ELSE NULL END`;
}

function refused(reference: CustomerReference): ApiError {
  const { type, detail } = CUSTOMER_REFERENCES[reference];
  return ApiError.conflict(detail, type);
}

/**
 * Deletes a customer that nothing else points at, with its own child rows. The reference check is
 * repeated inside the DELETE, so a subscription or invoice written meanwhile keeps the customer
 * (and the writers of such rows check in their batch that the customer still exists).
 */
export async function deleteCustomer(ctx: ServiceContext, id: string) {
  const before = await readReferences(ctx, id);
  if (!before) throw ApiError.notFound('Customer');
  if (before.held) throw refused(before.held);

  const tenantId = ctx.tenant.id;
  const ofCustomer = (t: { tenantId: SQLiteColumn; customerId: SQLiteColumn }) => and(eq(t.tenantId, tenantId), eq(t.customerId, id));
  try {
    await ctx.db.batch([
      ctx.db.delete(customers).where(and(byId(ctx, id), customerUnreferenced(tenantId, id))),
      requirePreviousChange(ctx.db),
      insertEvent(ctx.db, { tenantId, type: 'customer.deleted', resourceId: id, data: { id, customerNumber: before.customerNumber }, now: ctx.now }),
      ctx.db.delete(customerAddresses).where(ofCustomer(customerAddresses)),
      ctx.db.delete(customerEmailAddresses).where(ofCustomer(customerEmailAddresses)),
      ctx.db.delete(customerSessions).where(ofCustomer(customerSessions)),
      ctx.db.delete(customerOtpCodes).where(ofCustomer(customerOtpCodes)),
      ctx.db.delete(paymentMethods).where(ofCustomer(paymentMethods)),
    ]);
    // Its entitlement checks answer 404 from now on.
    forgetEntitlementChecks(tenantId);
  } catch (err) {
    if (!isGuardFailure(err)) throw err;
    // Lost a race: deleted meanwhile (404), or something now points at it (409, naming what).
    const now = await readReferences(ctx, id);
    if (!now) throw ApiError.notFound('Customer');
    throw now.held ? refused(now.held) : ApiError.conflict('The customer was changed concurrently; reload and retry.', 'concurrent-update');
  }
}
