import { and, asc, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import { BillingError } from '../../billing/compose';
import { planInstantUsage } from '../../billing/plan';
import { pricePlans, subscriptionItems, subscriptions, usageEvents } from '../../db/schema';
import type { ServiceContext } from '../context';
import { memo } from '../common/memo';
import { loadSubscription } from '../subscriptions/aggregate';
import { commitComposed, type BillResult } from './commit';
import { composeDue, composePlanned } from './compose';
import { loadCatalogue, toPlanPrice, type BillingPreload } from './inputs';

/**
 * Bills what is due at `asOf` of a subscription — together with the customer's other subscriptions
 * in the same billing group — as one invoice, exactly once (see commit.ts).
 */
export async function billSubscription(ctx: ServiceContext, subscriptionId: string, asOf: Date, runId: string | null, preload?: BillingPreload): Promise<BillResult> {
  for (let attempt = 0; attempt < REPLANS; attempt++) {
    // A retry reads afresh: the preload is what was stale.
    const composed = await composeDue(ctx, subscriptionId, asOf, runId, attempt === 0 ? preload : undefined);
    // Planning remembered it from the price plans it read (no query of its own on the hot path).
    const hasInstantUsage = await memo(ctx, `instant:${subscriptionId}`, () => subscriptionHasInstantUsage(ctx, subscriptionId));
    if (!composed) return { invoiceId: null, finalized: false, lines: 0, skipped: attempt === 0 ? 'nothing_due' : 'already_billed', hasInstantUsage };
    const result = await commitComposed(ctx, composed, asOf);
    // Another path billed part of what was planned (its batch holds one of the ledger keys): what
    // it left may still be due, so plan again rather than count the subscription as done.
    if (result.skipped !== 'already_billed') return { ...result, hasInstantUsage };
  }
  throw new BillingError('concurrent_billing', `Other billing of this subscription got in the way ${REPLANS} times in a row; the next run tries again.`);
}

/** Plans of one subscription within one run before a ledger conflict counts as an error. */
const REPLANS = 3;

async function subscriptionHasInstantUsage(ctx: ServiceContext, subscriptionId: string): Promise<boolean> {
  const row = await ctx.db
    .select({ id: subscriptionItems.id })
    .from(subscriptionItems)
    .innerJoin(pricePlans, and(eq(pricePlans.tenantId, subscriptionItems.tenantId), eq(pricePlans.id, subscriptionItems.pricePlanId)))
    .where(and(eq(subscriptionItems.tenantId, ctx.tenant.id), eq(subscriptionItems.subscriptionId, subscriptionId), eq(pricePlans.type, 'instant_metered')))
    .get();
  return row !== undefined;
}

/** Subscriptions that may have something due, after `afterId`, in id order (the run's cursor). */
export async function candidateSubscriptions(ctx: ServiceContext, afterId: string, limit: number) {
  return ctx.db
    .select()
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.tenantId, ctx.tenant.id),
        inArray(subscriptions.status, ['active', 'paused', 'cancelled']),
        sql`${subscriptions.billingAnchor} IS NOT NULL`,
        gt(subscriptions.id, afterId),
      ),
    )
    .orderBy(asc(subscriptions.id))
    .limit(limit);
}

/**
 * instant_metered usage is billed at once: every push not yet on an invoice becomes its own invoice
 * (one line, the pushed quantity priced by the item's price plan). The ledger key names the event,
 * so a push is billed exactly once however often this runs.
 */
export async function billInstantUsage(ctx: ServiceContext, subscriptionId: string, asOf: Date, runId: string | null): Promise<InstantUsageBilled> {
  const pending = await ctx.db
    .select({ eventId: usageEvents.eventId, itemId: usageEvents.subscriptionItemId, quantity: usageEvents.quantity, measuredAt: usageEvents.measuredAt })
    .from(usageEvents)
    .innerJoin(subscriptionItems, and(eq(subscriptionItems.tenantId, usageEvents.tenantId), eq(subscriptionItems.id, usageEvents.subscriptionItemId)))
    .innerJoin(pricePlans, and(eq(pricePlans.tenantId, subscriptionItems.tenantId), eq(pricePlans.id, subscriptionItems.pricePlanId)))
    .where(
      and(
        eq(usageEvents.tenantId, ctx.tenant.id),
        eq(subscriptionItems.subscriptionId, subscriptionId),
        eq(pricePlans.type, 'instant_metered'),
        lte(usageEvents.measuredAt, asOf.toISOString()),
        sql`NOT EXISTS (SELECT 1 FROM billing_ledger l WHERE l.subscription_item_id = ${usageEvents.subscriptionItemId} AND l.kind = 'instant:' || ${usageEvents.eventId})`,
      ),
    )
    .orderBy(asc(usageEvents.measuredAt), asc(usageEvents.eventId))
    .limit(100);
  const billed: InstantUsageBilled = { invoices: 0, finalized: [] };
  const catalogues = new Map<string, Awaited<ReturnType<typeof loadCatalogue>>>();
  for (const e of pending) {
    // A single push is its own invoice, never consolidated with a billing group. The subscription
    // is read again per push: each invoice moves its coupons' applied intervals on.
    const agg = await loadSubscription(ctx, subscriptionId);
    const item = agg.items.find((i) => i.id === e.itemId);
    if (!item) continue;
    const key = `${item.pricePlanId} ${item.productId}`;
    const catalogue = catalogues.get(key) ?? (await loadCatalogue(ctx, [item.pricePlanId], [item.productId]));
    catalogues.set(key, catalogue);
    const price = catalogue.prices.get(item.pricePlanId);
    if (!price) continue;
    const composed = await composePlanned(ctx, [{ agg, lines: planInstantUsage(item, toPlanPrice(price), e) }], catalogue.products, runId);
    const result = composed && (await commitComposed(ctx, composed, asOf));
    if (result && result.invoiceId) billed.invoices++;
    if (result && result.finalized) billed.finalized.push(result.invoiceId!);
  }
  return billed;
}

export interface InstantUsageBilled {
  invoices: number;
  /** Ids of the invoices finalized: their files are to be rendered. */
  finalized: string[];
}
