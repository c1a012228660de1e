import { and, eq } from 'drizzle-orm';
import { subscriptionItems } from '../db/schema';
import { ApiError } from '../http/errors';
import type { ServiceContext } from '../http/context';
import { entitlementStatements } from './entitlements';
import { commitSubscriptionChange, customerTimeZone, loadSubscription, renderItem, renderSubscription, type SubscriptionAggregate } from './subscriptions';

async function loadItem(ctx: ServiceContext, itemId: string) {
  const row = await ctx.db
    .select({ subscriptionId: subscriptionItems.subscriptionId })
    .from(subscriptionItems)
    .where(and(eq(subscriptionItems.tenantId, ctx.tenant.id), eq(subscriptionItems.id, itemId)))
    .get();
  if (!row) throw ApiError.notFound('Subscription item');
  const agg = await loadSubscription(ctx, row.subscriptionId);
  return { agg, item: agg.items.find((i) => i.id === itemId)! };
}

function itemResource(ctx: ServiceContext, agg: SubscriptionAggregate, itemId: string) {
  const item = agg.items.find((i) => i.id === itemId)!;
  return renderItem(agg.row, item, ctx.now, customerTimeZone(agg), agg.billingGroup);
}

export async function getItem(ctx: ServiceContext, itemId: string) {
  const { agg } = await loadItem(ctx, itemId);
  return itemResource(ctx, agg, itemId);
}

function itemWhere(ctx: ServiceContext, itemId: string) {
  return and(eq(subscriptionItems.tenantId, ctx.tenant.id), eq(subscriptionItems.id, itemId));
}

export async function updateItem(ctx: ServiceContext, itemId: string, input: { name: string; description: string | null; furtherInformation: string | null }) {
  const { agg } = await loadItem(ctx, itemId);
  const items = agg.items.map((i) => (i.id === itemId ? { ...i, ...input } : i));
  const { agg: after } = await commitSubscriptionChange(ctx, agg, {}, 'subscription.updated', {
    items,
    statements: [ctx.db.update(subscriptionItems).set({ ...input, updatedAt: ctx.now.toISOString() }).where(itemWhere(ctx, itemId))],
  });
  return itemResource(ctx, after, itemId);
}

/** A new quantity takes effect now; billing prorates it inside the current period (billing issue). */
export async function changeQuantity(ctx: ServiceContext, itemId: string, quantity: string) {
  const { agg, item } = await loadItem(ctx, itemId);
  if (!['draft', 'active', 'paused'].includes(agg.row.status)) {
    throw ApiError.conflict(`The quantity of an item of a ${agg.row.status} subscription cannot change.`, 'invalid-transition');
  }
  if (!['active', 'pending'].includes(item.status)) throw ApiError.conflict(`Cannot change the quantity of a ${item.status} item.`, 'invalid-transition');
  const items = agg.items.map((i) => (i.id === itemId ? { ...i, quantity } : i));
  const { agg: after } = await commitSubscriptionChange(ctx, agg, {}, 'subscription.updated', {
    items,
    statements: [ctx.db.update(subscriptionItems).set({ quantity, updatedAt: ctx.now.toISOString() }).where(itemWhere(ctx, itemId))],
  });
  return itemResource(ctx, after, itemId);
}

/** A cancelled item is billed until the end of the current contract term, then ends. */
export async function cancelItem(ctx: ServiceContext, itemId: string) {
  const { agg, item } = await loadItem(ctx, itemId);
  if (!['active', 'pending'].includes(item.status)) throw ApiError.conflict(`Cannot cancel a ${item.status} item.`, 'invalid-transition');
  if (!['draft', 'active', 'paused'].includes(agg.row.status)) throw ApiError.conflict(`Cannot cancel an item of a ${agg.row.status} subscription.`, 'invalid-transition');
  // The end of the current term, or now for open-ended subscriptions and pending items.
  const end = item.status === 'pending' ? ctx.now.toISOString() : (renderSubscription(agg, ctx.now).contractDetails.contractEnd ?? ctx.now.toISOString());
  const status = item.status === 'pending' || end <= ctx.now.toISOString() ? ('terminated' as const) : ('canceled' as const);
  const items = agg.items.map((i) => (i.id === itemId ? { ...i, status, endDate: end } : i));
  const ent = await entitlementStatements(ctx, { ...agg, items });
  const { agg: after } = await commitSubscriptionChange(ctx, agg, {}, 'subscription.updated', {
    items,
    statements: [ctx.db.update(subscriptionItems).set({ status, endDate: end, updatedAt: ctx.now.toISOString() }).where(itemWhere(ctx, itemId)), ...ent.statements],
    extraEvents: ent.events,
  });
  return itemResource(ctx, after, itemId);
}
