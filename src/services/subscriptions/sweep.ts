import { and, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import { itemChanges, subscriptionItems, subscriptions } from '../../db/schema';
import type { ServiceContext } from '../context';
import { entitlementStatements } from './entitlements';
import { commitSubscriptionChange } from './update';
import { loadSubscription, type ItemAggregate } from './aggregate';

/** Subscriptions handled per sweep call; the cron and the test clock call again while work remains. */
const SWEEP_LIMIT = 200;

/**
 * Applies what time has made due for a tenant at `ctx.now`: pending cancellations take effect
 * (status cancelled), ended trials are announced (trial_expired), items whose start date came
 * become active and cancelled items past their end date end. Each subscription is one guarded batch
 * with its events, so running the sweep twice (or concurrently) changes nothing twice.
 */
export async function sweepSubscriptions(ctx: ServiceContext): Promise<{ changed: number; more: boolean }> {
  const now = ctx.now.toISOString();
  const t = ctx.tenant.id;
  const due = await ctx.db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.tenantId, t),
        inArray(subscriptions.status, ['active', 'paused']),
        or(
          lte(subscriptions.cancellationDate, now),
          and(lte(subscriptions.trialEndsOn, now), isNull(subscriptions.trialExpiredAt)),
          sql`EXISTS (SELECT 1 FROM subscription_items i WHERE i.tenant_id = ${t} AND i.subscription_id = ${subscriptions.id}
            AND ((i.status = 'pending' AND i.start_date <= ${now}) OR (i.status = 'canceled' AND i.end_date <= ${now})))`,
        ),
      ),
    )
    .limit(SWEEP_LIMIT + 1);
  let changed = 0;
  for (const { id } of due.slice(0, SWEEP_LIMIT)) {
    const before = await loadSubscription(ctx, id);
    const r = before.row;
    const cancels = r.cancellationDate !== null && r.cancellationDate <= now;
    const trialEnded = r.trialEndsOn !== null && r.trialEndsOn <= now && r.trialExpiredAt === null;
    const items: ItemAggregate[] = before.items.map((i) => {
      if (cancels && i.status !== 'terminated') return { ...i, status: 'terminated', endDate: i.endDate ?? r.cancellationDate };
      if (i.status === 'pending' && i.startDate !== null && i.startDate <= now) return { ...i, status: 'active', activatedAt: now };
      if (i.status === 'canceled' && i.endDate !== null && i.endDate <= now) return { ...i, status: 'terminated' };
      return i;
    });
    const itemsChanged = items.filter((i, k) => i.status !== before.items[k]!.status);
    const changes = {
      ...(cancels ? { status: 'cancelled' as const } : {}),
      ...(trialEnded ? { trialExpiredAt: now } : {}),
    };
    const ent = itemsChanged.length || cancels ? await entitlementStatements(ctx, { row: { ...r, ...changes }, items }) : { statements: [], events: [] };
    const statements = itemsChanged.map((i) =>
      ctx.db
        .update(subscriptionItems)
        .set({ status: i.status, endDate: i.endDate, activatedAt: i.activatedAt, updatedAt: now })
        .where(and(eq(subscriptionItems.tenantId, t), eq(subscriptionItems.id, i.id))),
    );
    const extraEvents = [...ent.events];
    // The end of a trial is its own event; a cancellation taking effect or items changing are updates.
    const primary = cancels || itemsChanged.length ? 'subscription.updated' : 'subscription.trial_expired';
    if (trialEnded && primary !== 'subscription.trial_expired') extraEvents.push({ type: 'subscription.trial_expired', data: { id, trialEndsOn: r.trialEndsOn } });
    try {
      await commitSubscriptionChange(ctx, before, changes, primary, { items, statements: [...statements, ...ent.statements], extraEvents });
      changed++;
    } catch (err) {
      // A concurrent change came first; the next sweep looks at the subscription again.
      if ((err as { status?: number }).status !== 409) throw err;
    }
  }
  // Price plan changes that waited for the end of their billed period take effect now.
  const scheduled = await ctx.db
    .select()
    .from(itemChanges)
    .where(and(eq(itemChanges.tenantId, t), isNull(itemChanges.appliedAt), lte(itemChanges.effectiveAt, now)))
    .limit(SWEEP_LIMIT);
  for (const change of scheduled) {
    const item = await ctx.db
      .select({ subscriptionId: subscriptionItems.subscriptionId })
      .from(subscriptionItems)
      .where(and(eq(subscriptionItems.tenantId, t), eq(subscriptionItems.id, change.subscriptionItemId)))
      .get();
    if (!item) continue;
    const before = await loadSubscription(ctx, item.subscriptionId);
    const items = before.items.map((i) => (i.id === change.subscriptionItemId ? { ...i, pricePlanId: change.toPricePlanId } : i));
    try {
      await commitSubscriptionChange(ctx, before, {}, 'subscription.updated', {
        items,
        statements: [
          ctx.db
            .update(subscriptionItems)
            .set({ pricePlanId: change.toPricePlanId, updatedAt: now })
            .where(and(eq(subscriptionItems.tenantId, t), eq(subscriptionItems.id, change.subscriptionItemId), eq(subscriptionItems.pricePlanId, change.fromPricePlanId))),
          // At a period boundary there is nothing to prorate: the change counts as billed.
          ctx.db.update(itemChanges).set({ appliedAt: change.effectiveAt, billedAt: change.effectiveAt }).where(and(eq(itemChanges.tenantId, t), eq(itemChanges.id, change.id))),
        ],
      });
      changed++;
    } catch (err) {
      if ((err as { status?: number }).status !== 409) throw err;
    }
  }
  return { changed, more: due.length > SWEEP_LIMIT || scheduled.length === SWEEP_LIMIT };
}
