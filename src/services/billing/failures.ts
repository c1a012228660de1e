// Billing failures are not silent (docs/decisions.md, Invoices and billing): a subscription that
// cannot be billed shows why (lastBillingError) and the tenant gets subscription.billing_failed,
// once per cause, until billing succeeds again. The next run simply tries again.
import { and, eq } from 'drizzle-orm';
import { BillingError } from '../../billing/compose';
import { runBatch } from '../../db/client';
import { subscriptions } from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import type { SubscriptionBillingErrorCode } from '../../schemas/subscriptions';
import type { ServiceContext } from '../context';
import type { SubscriptionRow } from '../subscriptions/aggregate';

/** What the tenant is told: the reason of a foreseen failure, nothing of the internals of another. */
export function describeFailure(err: unknown): { code: SubscriptionBillingErrorCode; message: string } {
  if (err instanceof BillingError) return { code: err.code, message: err.message };
  return { code: 'billing_error', message: 'Billing failed unexpectedly; the next billing run tries again.' };
}

/**
 * Records a failure on the subscription (a plain write: billing state, not a change of the
 * resource, so `updatedAt` stays). The event goes out when the cause is new: the first failure, or
 * one with another code than the stored one; the same cause run after run only moves `at`.
 */
export async function recordBillingFailure(ctx: ServiceContext, row: SubscriptionRow, err: unknown, runId: string, asOf: Date) {
  const { code, message } = describeFailure(err);
  const at = ctx.now.toISOString();
  const update = ctx.db
    .update(subscriptions)
    .set({ lastBillingErrorAt: at, lastBillingErrorCode: code, lastBillingErrorMessage: message })
    .where(and(eq(subscriptions.tenantId, ctx.tenant.id), eq(subscriptions.id, row.id)));
  if (row.lastBillingErrorCode === code) {
    await update;
    return;
  }
  const data = { subscriptionId: row.id, number: row.number, billingRunId: runId, asOf: asOf.toISOString(), error: { at, code, message } };
  await runBatch(ctx.db, [update, insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'subscription.billing_failed', resourceId: row.id, data, now: ctx.now })]);
}

/** The columns that clear a recorded failure, for the write of a billing that succeeded. */
export const CLEARED_FAILURE = { lastBillingErrorAt: null, lastBillingErrorCode: null, lastBillingErrorMessage: null } as const;

/** Clears the failure of a subscription billed (or found with nothing due) without an error. */
export async function clearBillingFailure(ctx: ServiceContext, row: SubscriptionRow) {
  if (row.lastBillingErrorCode === null) return;
  await ctx.db
    .update(subscriptions)
    .set(CLEARED_FAILURE)
    .where(and(eq(subscriptions.tenantId, ctx.tenant.id), eq(subscriptions.id, row.id)));
}
