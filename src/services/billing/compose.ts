// Composes the invoice for what is due of a subscription (and the customer's other subscriptions in
// the same billing group): reads the inputs, plans each subscription and composes the positions with
// the pure planner and composer. Writes nothing; commit.ts writes.
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { composeInvoice, currenciesToConvert, type ComposedInvoice } from '../../billing/compose';
import { localDay } from '../../billing/periods';
import type { PlannedLine } from '../../billing/plan';
import { subscriptions } from '../../db/schema';
import { newId } from '../../lib/ids';
import type { ServiceContext } from '../context';
import { billingAddress, chooseBillingAddress } from '../invoices/drafts';
import { renderInvoice, type InvoiceEmbeds, type InvoiceRow, type PositionRow } from '../invoices/render';
import { composedEmbeds } from '../invoices/embeds';
import { newInvoiceRow } from '../invoices/row';
import { loadSettings } from '../platform/settings';
import { memo } from '../common/memo';
import { loadSubscription, type SubscriptionAggregate } from '../subscriptions/aggregate';
import {
  couponInputs,
  loadCatalogue,
  loadRates,
  pendingChanges,
  planWithUsage,
  taxContext,
  toPlanPrice,
  toPlanSubscription,
  type BillingPreload,
  type PricePlanRow,
} from './inputs';

/** The lines of each subscription of a billing unit (only subscriptions with something due). */
export type PlannedUnit = { agg: SubscriptionAggregate; lines: PlannedLine[] }[];

/** What is due, priced: positions to write, or (`skipOnly`) only skipped periods to record. */
export type Composed =
  | { skipOnly: true; lines: PlannedLine[]; now: Date }
  | {
      skipOnly: false;
      row: InvoiceRow;
      positions: PositionRow[];
      resource: ReturnType<typeof renderInvoice>;
      lines: PlannedLine[];
      planned: PlannedUnit;
      appliedCoupons: string[];
      approval: boolean;
      payer: SubscriptionAggregate['customer'];
      embeds: InvoiceEmbeds;
      now: Date;
    };

/** The live subscriptions billed together with `first`: those of its customer in the same billing group. */
async function billingUnit(ctx: ServiceContext, first: SubscriptionAggregate): Promise<SubscriptionAggregate[]> {
  if (!first.row.billingGroupId) return [first];
  const siblings = await ctx.db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.tenantId, ctx.tenant.id),
        eq(subscriptions.customerId, first.row.customerId),
        eq(subscriptions.billingGroupId, first.row.billingGroupId),
        inArray(subscriptions.status, ['active', 'paused', 'cancelled']),
        sql`${subscriptions.id} <> ${first.row.id}`,
      ),
    )
    .orderBy(asc(subscriptions.id));
  const others = [];
  for (const { id } of siblings) others.push(await loadSubscription(ctx, id));
  return [first, ...others];
}

/**
 * Plans what is due at `asOf` of a subscription and of the customer's other subscriptions in the
 * same billing group (consolidated on one invoice), each through the pure planner.
 */
export async function planDue(ctx: ServiceContext, subscriptionId: string, asOf: Date, preload?: BillingPreload) {
  // A subscription in a billing group is billed with its siblings, which the chunk may already have
  // billed: it is read fresh.
  const preloaded = preload?.aggregates.get(subscriptionId);
  const first = preloaded && !preloaded.row.billingGroupId ? preloaded : await loadSubscription(ctx, subscriptionId);
  const unit = await billingUnit(ctx, first);
  const items = unit.flatMap((a) => a.items);
  const catalogue = await loadCatalogue(ctx, [...new Set(items.map((i) => i.pricePlanId))], [...new Set(items.map((i) => i.productId))], preload);
  // Remembered for the run, so it need not ask again whether to look for instant usage.
  void memo(ctx, `instant:${subscriptionId}`, async () => first.items.some((i) => catalogue.prices.get(i.pricePlanId)?.type === 'instant_metered'));
  const planned: PlannedUnit = [];
  for (const agg of unit) {
    const changes = await pendingChanges(ctx, agg, asOf, preload);
    await addMissingPrices(ctx, catalogue.prices, changes.flatMap((c) => [c.fromPricePlanId, c.toPricePlanId]));
    const prices = new Map([...catalogue.prices].map(([id, p]) => [id, toPlanPrice(p)]));
    const lines = await planWithUsage(ctx, { subscription: toPlanSubscription(agg), prices, changes, asOf });
    if (lines.length) planned.push({ agg, lines });
  }
  return { planned, products: catalogue.products };
}

/** Price plans that pending changes name but the items no longer do. */
async function addMissingPrices(ctx: ServiceContext, prices: Map<string, PricePlanRow>, ids: string[]) {
  const missing = [...new Set(ids)].filter((id) => !prices.has(id));
  if (missing.length) for (const [id, p] of (await loadCatalogue(ctx, missing, [])).prices) prices.set(id, p);
}

/**
 * Composes the invoice for planned lines: the payer (a partner receives its clients' invoices, at
 * its address), the invoice currency, rates of the invoice day, taxes; then the invoice row and its
 * positions as they would be stored. Writes nothing.
 */
export async function composePlanned(
  ctx: ServiceContext,
  planned: PlannedUnit,
  products: Map<string, { id: string; taxGroupId: string | null }>,
  runId: string | null,
  preload?: BillingPreload,
  options: { currency?: string } = {},
): Promise<Composed | null> {
  const lines = planned.flatMap((p) => p.lines);
  if (lines.length === 0) return null;
  // Periods skipped by a resume (and zero-day changes) advance billing without an invoice.
  if (lines.every((l) => l.kind === 'skipped')) return { skipOnly: true, lines, now: ctx.now };
  const first = planned[0]!.agg;
  const payer = first.partner ?? first.customer;
  const currency = options.currency ?? payer.currencyCode ?? first.customer.currencyCode ?? ctx.tenant.defaultCurrency;
  const now = ctx.now;
  const day = localDay(now, ctx.tenant.timeZone);
  const composed: ComposedInvoice = composeInvoice({
    currency,
    subscriptions: planned.map(({ agg, lines: own }) => ({
      header: { name: agg.row.name, description: `Subscription ${agg.row.number}${agg.partner ? ` of ${agg.customer.companyName ?? agg.customer.email}` : ''}` },
      planId: agg.row.planId,
      coupons: couponInputs(agg.discounts),
      lines: own,
    })),
    tax: await taxContext(ctx, payer, [...products.values()]),
    rates: await loadRates(ctx, currenciesToConvert(currency, lines), day),
    invoiceDay: day,
    newId,
  });
  const invoiceId = newId();
  const positions: PositionRow[] = composed.positions.map((p) => ({ ...p, tenantId: ctx.tenant.id, invoiceId, createdAt: now.toISOString() }));
  const settings = await memo(ctx, 'settings', () => loadSettings(ctx.db, ctx.tenant.id));
  const approval = first.customer.requiresManualInvoiceApproval ?? settings.requiresManualInvoiceApproval;
  const row = newInvoiceRow(ctx, {
    id: invoiceId,
    customerId: payer.id,
    type: composed.type,
    currencyCode: currency,
    subscriptionId: first.row.id,
    invoiceAddress: preload?.addresses.has(payer.id) ? chooseBillingAddress(preload.addresses.get(payer.id)!) : await billingAddress(ctx, payer.id),
    paymentMethodId: first.partner ? null : first.row.paymentMethodId,
    ...composed.totals,
    sourceType: 'subscription',
    exchangeRates: composed.exchangeRates.length ? composed.exchangeRates : null,
    billingRunId: runId,
  });
  const embeds = composedEmbeds(ctx, row.paymentMethodId, first.paymentMethod, first.creditorId);
  const resource = renderInvoice({ row, embeds, positions, customer: payer });
  return { skipOnly: false, row, resource, positions, lines, planned, appliedCoupons: composed.appliedCoupons, approval, payer, embeds, now };
}

/** Plans and composes what is due at `asOf` of a subscription and its billing group (nothing written). */
export async function composeDue(ctx: ServiceContext, subscriptionId: string, asOf: Date, runId: string | null, preload?: BillingPreload) {
  const { planned, products } = await planDue(ctx, subscriptionId, asOf, preload);
  return composePlanned(ctx, planned, products, runId, preload);
}
