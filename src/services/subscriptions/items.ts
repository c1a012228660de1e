import { and, eq } from 'drizzle-orm';
import { itemChanges, pricePlans, subscriptionItems } from '../../db/schema';
import { Dec } from '../../billing/money';
import { priceFor } from '../../billing/pricing';
import { newId } from '../../lib/ids';
import { pricingOf, unbillableAmount } from '../catalogue/price-plans';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { entitlementStatements } from './entitlements';
import { commitSubscriptionChange } from './update';
import { loadSubscription, renderItem, renderSubscription, type SubscriptionAggregate } from './aggregate';

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
  return renderItem(agg, item, ctx.now);
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

/** The change row billing reads; only items already billing (active, with an anchor) need one. */
function changeRow(ctx: ServiceContext, agg: SubscriptionAggregate, item: SubscriptionAggregate['items'][number], to: { quantity: string; pricePlanId: string }) {
  if (agg.row.status === 'draft' || !agg.row.billingAnchor || item.status !== 'active') return [];
  return [
    ctx.db.insert(itemChanges).values({
      id: newId(),
      tenantId: ctx.tenant.id,
      subscriptionItemId: item.id,
      effectiveAt: ctx.now.toISOString(),
      fromQuantity: item.quantity,
      toQuantity: to.quantity,
      fromPricePlanId: item.pricePlanId,
      toPricePlanId: to.pricePlanId,
      appliedAt: ctx.now.toISOString(),
      billedAt: null,
      createdAt: ctx.now.toISOString(),
    }),
  ];
}

/**
 * A new quantity takes effect now: billing credits the rest of a period billed in advance at the
 * old quantity and charges it at the new one, or splits a period billed in arrears.
 */
export async function changeQuantity(ctx: ServiceContext, itemId: string, quantity: string) {
  const { agg, item } = await loadItem(ctx, itemId);
  if (!['draft', 'active', 'paused'].includes(agg.row.status)) {
    throw ApiError.conflict(`The quantity of an item of a ${agg.row.status} subscription cannot change.`, 'invalid-transition');
  }
  if (!['active', 'pending'].includes(item.status)) throw ApiError.conflict(`Cannot change the quantity of a ${item.status} item.`, 'invalid-transition');
  const price = await ctx.db.select().from(pricePlans).where(and(eq(pricePlans.tenantId, ctx.tenant.id), eq(pricePlans.id, item.pricePlanId))).get();
  const unbillable = price && unbillableAmount(price, quantity);
  if (unbillable) throw ApiError.violation('quantity', unbillable, 'amount_too_large');
  const items = agg.items.map((i) => (i.id === itemId ? { ...i, quantity } : i));
  const { agg: after } = await commitSubscriptionChange(ctx, agg, {}, 'subscription.updated', {
    items,
    statements: [
      ctx.db.update(subscriptionItems).set({ quantity, updatedAt: ctx.now.toISOString() }).where(itemWhere(ctx, itemId)),
      ...changeRow(ctx, agg, item, { quantity, pricePlanId: item.pricePlanId }),
    ],
    extraEvents: ['subscription.item.quantity_changed'],
  });
  return itemResource(ctx, after, itemId);
}

/**
 * Moves an item to another price plan of its product (an upgrade or a downgrade). The plan's
 * changeBehaviour decides whether that direction is allowed (compared by the price of the current
 * quantity); with changeApplyBehaviour end_of_period the change waits for the end of the billed
 * period, otherwise it applies now and billing prorates it.
 */
export async function changePricePlan(ctx: ServiceContext, itemId: string, pricePlanId: string) {
  const { agg, item } = await loadItem(ctx, itemId);
  if (!['draft', 'active', 'paused'].includes(agg.row.status)) throw ApiError.conflict(`Cannot change a ${agg.row.status} subscription.`, 'invalid-transition');
  if (!['active', 'pending'].includes(item.status)) throw ApiError.conflict(`Cannot change a ${item.status} item.`, 'invalid-transition');
  const [current, next] = await Promise.all([
    ctx.db.select().from(pricePlans).where(and(eq(pricePlans.tenantId, ctx.tenant.id), eq(pricePlans.id, item.pricePlanId))).get(),
    ctx.db.select().from(pricePlans).where(and(eq(pricePlans.tenantId, ctx.tenant.id), eq(pricePlans.id, pricePlanId))).get(),
  ]);
  if (!next) throw ApiError.violation('pricePlan', 'No such price plan.', 'not_found');
  const v = new Violations();
  if (next.productId !== item.productId) v.add('pricePlan', 'The price plan belongs to another product.', 'product_mismatch');
  if (next.status !== 'active') v.add('pricePlan', `The price plan is ${next.status}.`, 'not_active');
  if (current && next.currencyCode !== current.currencyCode) v.add('pricePlan', 'The price plan has another currency.', 'currency_mismatch');
  if (current && next.type !== current.type) v.add('pricePlan', 'The price plan bills differently (type); use a new item.', 'type_mismatch');
  if (next.id === item.pricePlanId) v.add('pricePlan', 'The item already has this price plan.', 'unchanged');
  const unbillable = unbillableAmount(next, item.quantity);
  if (unbillable) v.add('pricePlan', unbillable, 'amount_too_large');
  v.throwIfAny();
  const behaviour = agg.plan?.changeBehaviour ?? 'upgradeable_and_downgradeable';
  const before = new Dec(priceFor(pricingOf(current!), item.quantity).amount);
  const after = new Dec(priceFor(pricingOf(next), item.quantity).amount);
  const direction = after.gt(before) ? 'upgrade' : after.lt(before) ? 'downgrade' : 'sidegrade';
  const allowed =
    behaviour === 'upgradeable_and_downgradeable' ||
    (behaviour === 'upgradeable' && direction !== 'downgrade') ||
    (behaviour === 'downgradeable' && direction !== 'upgrade');
  if (!allowed) throw ApiError.conflict(`The plan is ${behaviour}; this change is a ${direction}.`, 'change-not-allowed');
  if (agg.plan?.changeApplyBehaviour === 'end_of_period' && item.lastBilledTo && item.lastBilledTo > ctx.now.toISOString()) {
    // Applied when the billed period ends: billing bills the next period at the new price.
    const statements = [
      ctx.db.insert(itemChanges).values({
        id: newId(),
        tenantId: ctx.tenant.id,
        subscriptionItemId: item.id,
        effectiveAt: item.lastBilledTo,
        fromQuantity: item.quantity,
        toQuantity: item.quantity,
        fromPricePlanId: item.pricePlanId,
        toPricePlanId: next.id,
        appliedAt: null,
        billedAt: null,
        createdAt: ctx.now.toISOString(),
      }),
    ];
    const { agg: saved } = await commitSubscriptionChange(ctx, agg, {}, 'subscription.updated', { statements, extraEvents: ['subscription.changed'] });
    return itemResource(ctx, saved, itemId);
  }
  const items = agg.items.map((i) => (i.id === itemId ? { ...i, pricePlanId: next.id, billingInterval: next.billingInterval, payInAdvance: next.payInAdvance } : i));
  const { agg: saved } = await commitSubscriptionChange(ctx, agg, {}, 'subscription.updated', {
    items,
    statements: [
      ctx.db.update(subscriptionItems).set({ pricePlanId: next.id, updatedAt: ctx.now.toISOString() }).where(itemWhere(ctx, itemId)),
      ...changeRow(ctx, agg, item, { quantity: item.quantity, pricePlanId: next.id }),
    ],
    extraEvents: ['subscription.changed'],
  });
  return itemResource(ctx, saved, itemId);
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
