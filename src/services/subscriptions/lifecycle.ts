import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { parseDuration } from '../../billing/durations';
import { activationSchedule, alignToBillingGroup, nextPossibleCancellationDates, trialEnd } from '../../billing/periods';
import { cancellationReasons, couponRedemptions, subscriptionItems } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { newId } from '../../lib/ids';
import { entitlementStatements } from './entitlements';
import { checkItems } from './create';
import { commitSubscriptionChange } from './update';
import { customerTimeZone, loadSubscription, type ItemAggregate, type SubscriptionAggregate, type SubscriptionStatus } from './aggregate';

export type SubscriptionAction =
  | 'activate'
  | 'pause'
  | 'resume'
  | 'cancel'
  | 'revoke-cancellation'
  | 'terminate'
  | 'extend-trial'
  | 'revoke-trial'
  | 'update'
  | 'delete'
  | 'order-products'
  | 'change-payment-method'
  | 'change-invoice-address';

/**
 * Which actions each status allows (docs/state-machines.md is written from this table). Any other
 * pair is 409. Some actions have further conditions (a pending cancellation, a running trial).
 */
export const SUBSCRIPTION_TRANSITIONS: Record<SubscriptionStatus, Partial<Record<SubscriptionAction, SubscriptionStatus>>> = {
  draft: {
    activate: 'active',
    update: 'draft',
    delete: 'draft',
    'extend-trial': 'draft',
    'order-products': 'draft',
    'change-payment-method': 'draft',
    'change-invoice-address': 'draft',
  },
  active: {
    pause: 'paused',
    cancel: 'active',
    'revoke-cancellation': 'active',
    terminate: 'terminated',
    'extend-trial': 'active',
    'revoke-trial': 'active',
    update: 'active',
    'order-products': 'active',
    'change-payment-method': 'active',
    'change-invoice-address': 'active',
  },
  paused: {
    resume: 'active',
    cancel: 'paused',
    'revoke-cancellation': 'paused',
    terminate: 'terminated',
    update: 'paused',
    'change-payment-method': 'paused',
    'change-invoice-address': 'paused',
  },
  cancelled: { terminate: 'terminated', update: 'cancelled' },
  terminated: { update: 'terminated' },
  offer: { activate: 'active', update: 'offer', delete: 'offer' },
};

export function requireAction(agg: SubscriptionAggregate, action: SubscriptionAction): SubscriptionStatus {
  const next = SUBSCRIPTION_TRANSITIONS[agg.row.status][action];
  if (!next) throw ApiError.conflict(`Cannot ${action} a subscription in status ${agg.row.status}.`, 'invalid-transition');
  return next;
}

function itemsWith(agg: SubscriptionAggregate, change: (i: ItemAggregate) => Partial<ItemAggregate>): ItemAggregate[] {
  return agg.items.map((i) => ({ ...i, ...change(i) }));
}

function itemUpdate(ctx: ServiceContext, subscriptionId: string, set: Partial<typeof subscriptionItems.$inferInsert>, statuses?: (typeof subscriptionItems.$inferSelect)['status'][]) {
  return ctx.db
    .update(subscriptionItems)
    .set({ ...set, updatedAt: ctx.now.toISOString() })
    .where(
      and(
        eq(subscriptionItems.tenantId, ctx.tenant.id),
        eq(subscriptionItems.subscriptionId, subscriptionId),
        statuses ? inArray(subscriptionItems.status, statuses) : undefined,
      ),
    );
}

/** Activation: billing starts at the contract start (after any trial), aligned to the billing group's day. */
export async function activateSubscription(ctx: ServiceContext, id: string, trialDaysOverride: number | null) {
  const before = await loadSubscription(ctx, id);
  requireAction(before, 'activate');
  const v = new Violations();
  // Products archived or prices retired since the draft was made cannot start now.
  await checkItems(
    ctx,
    before.row.customerId,
    before.items.map((i) => ({ product: i.productId, pricePlan: i.pricePlanId, quantity: i.quantity })),
    'items',
    v,
  );
  if (before.customer.status !== 'STATUS_ACTIVE') v.add('customer', `The customer is ${before.customer.status}.`, 'not_active');
  v.throwIfAny();

  const now = ctx.now;
  const trialDays = trialDaysOverride ?? before.row.trialDays;
  const { contractStart, trialEndsOn, billingAnchor: anchor } = activationSchedule({
    contractStart: new Date(before.row.contractStart),
    trialDays,
    billingGroup: before.billingGroup,
    now,
    timeZone: customerTimeZone(before),
  });
  const iso = now.toISOString();
  const items = itemsWith(before, (i) => {
    const starts = i.startDate && i.startDate > iso;
    return { status: starts ? 'pending' : 'active', activatedAt: starts ? null : iso };
  });
  const statements: BatchItem<'sqlite'>[] = [
    itemUpdate(ctx, id, { status: 'active', activatedAt: iso }, ['pending']),
    // Items with a later start date wait as pending; the lifecycle sweep activates them.
    ctx.db
      .update(subscriptionItems)
      .set({ status: 'pending', activatedAt: null })
      .where(and(eq(subscriptionItems.tenantId, ctx.tenant.id), eq(subscriptionItems.subscriptionId, id), sql`${subscriptionItems.startDate} > ${iso}`)),
    ...before.discounts.map(({ d }) =>
      ctx.db.insert(couponRedemptions).values({ id: newId(), tenantId: ctx.tenant.id, couponId: d.couponId, customerId: before.row.customerId, subscriptionId: id, createdAt: iso }),
    ),
  ];
  const after = { ...before, items };
  const entitlement = await entitlementStatements(ctx, { ...after, row: { ...after.row, status: 'active' } });
  const { resource } = await commitSubscriptionChange(
    ctx,
    before,
    { status: 'active', activatedAt: iso, contractStart: contractStart.toISOString(), trialDays, trialEndsOn: trialEndsOn?.toISOString() ?? null, billingAnchor: anchor.toISOString() },
    'subscription.activated',
    { items, statements: [...statements, ...entitlement.statements], extraEvents: entitlement.events },
  );
  return resource;
}

export async function pauseSubscription(ctx: ServiceContext, id: string) {
  const before = await loadSubscription(ctx, id);
  requireAction(before, 'pause');
  return (await commitSubscriptionChange(ctx, before, { status: 'paused', pausedAt: ctx.now.toISOString() }, 'subscription.paused')).resource;
}

/**
 * Resume: without a date, billing catches up on the periods missed while paused; with
 * `nextBillingDate`, the missed periods are skipped and billing restarts at that date.
 */
export async function resumeSubscription(ctx: ServiceContext, id: string, nextBillingDate: string | null) {
  const before = await loadSubscription(ctx, id);
  requireAction(before, 'resume');
  if (nextBillingDate !== null && new Date(nextBillingDate) < ctx.now) {
    throw ApiError.violation('nextBillingDate', 'Must not lie in the past.', 'in_past');
  }
  const changes = { status: 'active' as const, pausedAt: null, billingResumeAt: nextBillingDate ? new Date(nextBillingDate).toISOString() : null };
  return (await commitSubscriptionChange(ctx, before, changes, 'subscription.resumed')).resource;
}

export interface CancelInput {
  cancellationDateType: 'immediate' | 'next_possible' | 'custom';
  cancellationDate: string | null;
  reason: string | null;
  sendConfirmationEmail: boolean;
}

/** Our ids (UUIDv7): a reason shaped like one names a reason record, never free text. */
const ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A cancellation reason as Fynn clients send it (docs/decisions.md, Subscriptions): the id of one
 * of the tenant's reasons, else its code, else free text. An unknown id is refused rather than
 * kept as text, so a mistyped id does not pass unnoticed.
 */
async function resolveReason(ctx: ServiceContext, given: string | null, v: Violations) {
  const reason = given?.trim();
  if (!reason) return { row: null, text: null };
  const rows = await ctx.db
    .select()
    .from(cancellationReasons)
    .where(and(eq(cancellationReasons.tenantId, ctx.tenant.id), or(eq(cancellationReasons.id, reason), eq(cancellationReasons.code, reason))));
  const row = rows.find((r) => r.id === reason) ?? rows.find((r) => r.code === reason) ?? null;
  if (row) return { row, text: null };
  if (ID_SHAPE.test(reason)) v.add('reason', 'No such cancellation reason.', 'not_found');
  return { row: null, text: reason };
}

export async function cancelSubscription(ctx: ServiceContext, id: string, input: CancelInput) {
  const before = await loadSubscription(ctx, id);
  requireAction(before, 'cancel');
  const nowIso = ctx.now.toISOString();
  if (before.row.cancellationDate && before.row.cancellationDate > nowIso) {
    throw ApiError.conflict('A cancellation is already pending; revoke it first to choose another date.', 'invalid-transition');
  }
  const v = new Violations();
  if (input.cancellationDateType === 'custom' && !input.cancellationDate) v.add('cancellationDate', 'A custom cancellation needs cancellationDate.', 'required');
  if (input.cancellationDateType !== 'custom' && input.cancellationDate) v.add('cancellationDate', 'Only custom cancellations take a date.', 'not_allowed');
  if (input.cancellationDate && new Date(input.cancellationDate) < ctx.now) v.add('cancellationDate', 'Must not lie in the past.', 'in_past');
  const reason = await resolveReason(ctx, input.reason, v);
  v.throwIfAny();

  const tz = customerTimeZone(before);
  let date: Date;
  if (input.cancellationDateType === 'immediate') date = ctx.now;
  else if (input.cancellationDateType === 'custom') date = new Date(input.cancellationDate!);
  else {
    date = nextPossibleCancellationDates({
      contractStart: new Date(before.row.contractStart),
      contractPeriod: before.row.contractPeriod ? parseDuration(before.row.contractPeriod) : null,
      cancellationPeriod: before.row.cancellationPeriod ? parseDuration(before.row.cancellationPeriod) : null,
      now: ctx.now,
      count: 1,
      timeZone: tz,
    })[0]!;
  }
  const immediate = date <= ctx.now;
  const dateIso = date.toISOString();
  const items = itemsWith(before, (i) =>
    i.status === 'active' || i.status === 'pending' ? { status: immediate ? 'terminated' : 'canceled', endDate: dateIso } : {},
  );
  const statements: BatchItem<'sqlite'>[] = [itemUpdate(ctx, id, { status: immediate ? 'terminated' : 'canceled', endDate: dateIso }, ['active', 'pending'])];
  const changes = {
    status: immediate ? ('cancelled' as const) : before.row.status,
    cancellationDate: dateIso,
    cancelledAt: nowIso,
    cancellationReasonId: reason.row?.id ?? null,
    cancellationReasonText: reason.text,
  };
  const extra = immediate ? await entitlementStatements(ctx, { ...before, items, row: { ...before.row, ...changes } }) : { statements: [], events: [] };
  return (
    await commitSubscriptionChange(ctx, before, changes, 'subscription.canceled', {
      items,
      statements: [...statements, ...extra.statements],
      extraEvents: extra.events,
      after: { reason: reason.row },
    })
  ).resource;
}

export async function revokeCancellation(ctx: ServiceContext, id: string) {
  const before = await loadSubscription(ctx, id);
  requireAction(before, 'revoke-cancellation');
  if (!before.row.cancellationDate || before.row.cancellationDate <= ctx.now.toISOString()) {
    throw ApiError.conflict('There is no pending cancellation to revoke.', 'invalid-transition');
  }
  const cancelled = before.row.cancellationDate;
  const items = itemsWith(before, (i) => (i.status === 'canceled' && i.endDate === cancelled ? { status: 'active', endDate: null } : {}));
  const statements = [
    ctx.db
      .update(subscriptionItems)
      .set({ status: 'active', endDate: null, updatedAt: ctx.now.toISOString() })
      .where(
        and(
          eq(subscriptionItems.tenantId, ctx.tenant.id),
          eq(subscriptionItems.subscriptionId, id),
          eq(subscriptionItems.status, 'canceled'),
          eq(subscriptionItems.endDate, cancelled),
        ),
      ),
  ];
  const changes = { cancellationDate: null, cancelledAt: null, cancellationReasonId: null, cancellationReasonText: null };
  return (await commitSubscriptionChange(ctx, before, changes, 'subscription.cancellation_revoked', { items, statements, after: { reason: null } })).resource;
}

export async function terminateSubscription(ctx: ServiceContext, id: string) {
  const before = await loadSubscription(ctx, id);
  requireAction(before, 'terminate');
  const nowIso = ctx.now.toISOString();
  const items = itemsWith(before, (i) => (i.status === 'terminated' ? {} : { status: 'terminated', endDate: i.endDate && i.endDate < nowIso ? i.endDate : nowIso }));
  const changes = { status: 'terminated' as const, terminatedAt: nowIso, cancellationDate: before.row.cancellationDate ?? nowIso };
  const extra = await entitlementStatements(ctx, { ...before, items, row: { ...before.row, ...changes } });
  return (
    await commitSubscriptionChange(ctx, before, changes, 'subscription.terminated', {
      items,
      statements: [itemUpdate(ctx, id, { status: 'terminated', endDate: nowIso }, ['active', 'pending', 'canceled']), ...extra.statements],
      extraEvents: extra.events,
    })
  ).resource;
}

/** A trial can be extended while it runs (or, on a draft, before it starts); the new end must be later. */
export async function extendTrial(ctx: ServiceContext, id: string, input: { trialDays: number | null; trialEndsOn: string | null }) {
  const before = await loadSubscription(ctx, id);
  requireAction(before, 'extend-trial');
  if ((input.trialDays === null) === (input.trialEndsOn === null)) {
    throw ApiError.violation('trialDays', 'Give either trialDays or trialEndsOn.', 'one_of');
  }
  if (before.row.status === 'draft') {
    if (input.trialDays === null) throw ApiError.violation('trialEndsOn', 'A draft takes trialDays; the trial starts at activation.', 'not_allowed');
    return (await commitSubscriptionChange(ctx, before, { trialDays: before.row.trialDays + input.trialDays }, 'subscription.trial_extended')).resource;
  }
  const current = before.row.trialEndsOn;
  if (!current || current <= ctx.now.toISOString()) throw ApiError.conflict('The subscription is not in a trial.', 'invalid-transition');
  const tz = customerTimeZone(before);
  const next = input.trialDays !== null ? trialEnd(new Date(current), input.trialDays, tz) : new Date(input.trialEndsOn!);
  if (next.toISOString() <= current) {
    throw ApiError.violation(input.trialDays !== null ? 'trialDays' : 'trialEndsOn', `The trial must end after ${current}.`, 'not_later');
  }
  const anchor = before.billingGroup ? alignToBillingGroup(next, before.billingGroup, tz) : next;
  const changes = { trialEndsOn: next.toISOString(), billingAnchor: anchor.toISOString() };
  return (await commitSubscriptionChange(ctx, before, changes, 'subscription.trial_extended')).resource;
}

/** Ends a running trial now: billing starts at once. */
export async function revokeTrial(ctx: ServiceContext, id: string) {
  const before = await loadSubscription(ctx, id);
  requireAction(before, 'revoke-trial');
  if (!before.row.trialEndsOn || before.row.trialEndsOn <= ctx.now.toISOString()) {
    throw ApiError.conflict('The subscription is not in a trial.', 'invalid-transition');
  }
  const tz = customerTimeZone(before);
  const anchor = before.billingGroup ? alignToBillingGroup(ctx.now, before.billingGroup, tz) : ctx.now;
  const changes = { trialEndsOn: ctx.now.toISOString(), trialExpiredAt: ctx.now.toISOString(), billingAnchor: anchor.toISOString() };
  return (await commitSubscriptionChange(ctx, before, changes, 'subscription.trial_expired')).resource;
}
