// Reads what the pure planner and composer (src/billing/plan.ts, compose.ts) need: a chunk's
// subscriptions with their price plans, pending changes and payers' addresses in one go, usage per
// window, ECB rates, tax groups. Everything here is I/O; the decisions are made in src/billing.
import { and, asc, eq, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { RateOnDay, TaxContext, TaxGroupInput } from '../../billing/compose';
import type { CouponInput } from '../../billing/discounts';
import { fromMinorUnits } from '../../billing/money';
import { billingGroupStepOptions } from '../../billing/periods';
import { planSubscription, usageKey, type PendingChange, type PlanInput, type PlannedLine, type PlanPrice, type PlanSubscription, type UsageWindow } from '../../billing/plan';
import { inJson, tenantRowsById } from '../../db/client';
import { customerAddresses, exchangeRates, itemChanges, measurements, pricePlans, products, taxGroups } from '../../db/schema';
import { pricingOf } from '../catalogue/price-plans';
import { taxOverrides } from '../catalogue/taxes';
import type { ServiceContext } from '../context';
import { memo } from '../common/memo';
import { assembleSubscriptions, type SubscriptionAggregate, type SubscriptionRow } from '../subscriptions/aggregate';
import { aggregateUsage } from '../subscriptions/usage';

export type PricePlanRow = typeof pricePlans.$inferSelect;
export type ProductRow = typeof products.$inferSelect;
type AddressRow = typeof customerAddresses.$inferSelect;
type ItemChangeRow = typeof itemChanges.$inferSelect;

export function toPlanPrice(row: PricePlanRow): PlanPrice {
  return {
    id: row.id,
    type: row.type,
    pricing: pricingOf(row),
    currencyCode: row.currencyCode,
    billingInterval: row.billingInterval,
    payInAdvance: row.payInAdvance,
    proRata: row.proRata,
  };
}

export function toPlanSubscription(agg: SubscriptionAggregate): PlanSubscription {
  const r = agg.row;
  return {
    id: r.id,
    status: r.status,
    billingAnchor: r.billingAnchor,
    pausedAt: r.pausedAt,
    billingResumeAt: r.billingResumeAt,
    cancellationDate: r.cancellationDate,
    trialEndsOn: r.trialEndsOn,
    activatedAt: r.activatedAt,
    timeZone: agg.customer.timeZone,
    billingGroup: agg.billingGroup ? billingGroupStepOptions(agg.billingGroup) : null,
    items: agg.items,
  };
}

/** A stored coupon's terms as `applyCoupons` takes them (fixed amounts in major units). */
export function couponTerms(c: SubscriptionAggregate['discounts'][number]['c']): Omit<CouponInput, 'id' | 'appliedIntervals'> {
  return {
    type: c.type,
    percentage: c.percentage ?? undefined,
    fixedAmount: c.fixedAmount !== null && c.fixedAmountCurrency ? fromMinorUnits(c.fixedAmount, c.fixedAmountCurrency).toString() : undefined,
    currency: c.fixedAmountCurrency ?? undefined,
    frequency: c.frequency,
    frequencyInterval: c.frequencyInterval ?? undefined,
    limitedToProducts: c.limitedToProducts,
    excludedFromProducts: c.excludedFromProducts,
    limitedToPlans: c.limitedToPlans,
    excludedFromPlans: c.excludedFromPlans,
  };
}

/** A subscription's active coupons as `applyCoupons` takes them. */
export function couponInputs(discounts: SubscriptionAggregate['discounts']): CouponInput[] {
  return discounts.filter(({ d }) => d.status === 'active').map(({ d, c }) => ({ id: d.id, appliedIntervals: d.appliedIntervals, ...couponTerms(c) }));
}

/**
 * What a run reads once for a chunk of subscriptions instead of once per subscription: the
 * aggregates, their price plans and products, pending item changes and payers' default addresses.
 * It is read right before the chunk is billed; the ledger keeps a stale read from billing twice.
 */
export interface BillingPreload {
  asOf: Date;
  aggregates: Map<string, SubscriptionAggregate>;
  prices: Map<string, PricePlanRow>;
  products: Map<string, ProductRow>;
  /** Pending changes per item; every item of the chunk has an entry. */
  changes: Map<string, ItemChangeRow[]>;
  /** Default addresses per payer; every payer of the chunk has an entry. */
  addresses: Map<string, AddressRow[]>;
}

/** Applied, not yet billed changes of the items, effective by `asOf`, oldest first. */
function selectPendingChanges(ctx: ServiceContext, itemIds: string[], asOf: Date) {
  return ctx.db
    .select()
    .from(itemChanges)
    .where(
      and(
        eq(itemChanges.tenantId, ctx.tenant.id),
        inJson(itemChanges.subscriptionItemId, itemIds),
        isNotNull(itemChanges.appliedAt),
        isNull(itemChanges.billedAt),
        lte(itemChanges.effectiveAt, asOf.toISOString()),
      ),
    )
    .orderBy(asc(itemChanges.effectiveAt), asc(itemChanges.id));
}

export async function preloadChunk(ctx: ServiceContext, rows: SubscriptionRow[], asOf: Date): Promise<BillingPreload> {
  const aggs = await assembleSubscriptions(ctx, rows);
  const items = aggs.flatMap((a) => a.items);
  const itemIds = items.map((i) => i.id);
  const payerIds = [...new Set(aggs.map((a) => (a.partner ?? a.customer).id))];
  const ids = (xs: string[]) => [...new Set(xs)];
  const [priceRows, productRows, changeRows, addressRows] = await ctx.db.batch([
    ctx.db.select().from(pricePlans).where(tenantRowsById(pricePlans, ctx.tenant.id, ids(items.map((i) => i.pricePlanId)))),
    ctx.db.select().from(products).where(tenantRowsById(products, ctx.tenant.id, ids(items.map((i) => i.productId)))),
    selectPendingChanges(ctx, itemIds, asOf),
    ctx.db
      .select()
      .from(customerAddresses)
      .where(and(eq(customerAddresses.tenantId, ctx.tenant.id), inJson(customerAddresses.customerId, payerIds), eq(customerAddresses.isDefault, true))),
  ]);
  const changes = new Map<string, ItemChangeRow[]>(itemIds.map((id) => [id, []]));
  for (const c of changeRows) changes.get(c.subscriptionItemId)?.push(c);
  const addresses = new Map<string, AddressRow[]>(payerIds.map((id) => [id, []]));
  for (const a of addressRows) addresses.get(a.customerId)?.push(a);
  return {
    asOf,
    aggregates: new Map(aggs.map((a) => [a.row.id, a])),
    prices: new Map(priceRows.map((p) => [p.id, p])),
    products: new Map(productRows.map((p) => [p.id, p])),
    changes,
    addresses,
  };
}

const byEffectiveAt = (a: ItemChangeRow, b: ItemChangeRow) => (a.effectiveAt < b.effectiveAt ? -1 : a.effectiveAt > b.effectiveAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The subscription's pending item changes (from the preload when it covers them). */
export async function pendingChanges(ctx: ServiceContext, agg: SubscriptionAggregate, asOf: Date, preload?: BillingPreload): Promise<PendingChange[]> {
  const ids = agg.items.map((i) => i.id);
  if (ids.length === 0) return [];
  const known = preload && preload.asOf.getTime() === asOf.getTime() && ids.every((id) => preload.changes.has(id));
  return known ? ids.flatMap((id) => preload.changes.get(id)!).sort(byEffectiveAt) : await selectPendingChanges(ctx, ids, asOf);
}

/** Price plans and products by id: from the preload when it has them all, else read in one batch. */
export async function loadCatalogue(ctx: ServiceContext, priceIds: string[], productIds: string[], preload?: BillingPreload) {
  const [priceRows, productRows] =
    preload && priceIds.every((id) => preload.prices.has(id)) && productIds.every((id) => preload.products.has(id))
      ? [priceIds.map((id) => preload.prices.get(id)!), productIds.map((id) => preload.products.get(id)!)]
      : await ctx.db.batch([
          ctx.db.select().from(pricePlans).where(tenantRowsById(pricePlans, ctx.tenant.id, priceIds.length ? priceIds : [''])),
          ctx.db.select().from(products).where(tenantRowsById(products, ctx.tenant.id, productIds.length ? productIds : [''])),
        ]);
  return { prices: new Map(priceRows.map((p) => [p.id, p])), products: new Map(productRows.map((p) => [p.id, p])) };
}

async function productMeasurement(ctx: ServiceContext, productId: string) {
  return memo(ctx, `measurement:${productId}`, async () => {
    const row = await ctx.db
      .select({ m: measurements })
      .from(products)
      .innerJoin(measurements, and(eq(measurements.tenantId, products.tenantId), eq(measurements.id, products.measurementId)))
      .where(and(eq(products.tenantId, ctx.tenant.id), eq(products.id, productId)))
      .get();
    return row?.m ?? null;
  });
}

/** Aggregated usage per window, by each item's measurement (none: 0). */
export async function loadUsage(ctx: ServiceContext, windows: UsageWindow[]): Promise<Map<string, string>> {
  const usage = new Map<string, string>();
  for (const w of windows) {
    const measurement = await productMeasurement(ctx, w.productId);
    usage.set(usageKey(w), measurement ? await aggregateUsage(ctx, w.itemId, measurement, w.start, w.end) : '0');
  }
  return usage;
}

/** Plans a subscription: once without usage, then — when usage periods are due — with their quantities read. */
export async function planWithUsage(ctx: ServiceContext, input: Omit<PlanInput, 'usage'>): Promise<PlannedLine[]> {
  const first = planSubscription({ ...input, usage: new Map() });
  if (first.usageNeeded.length === 0) return first.lines;
  return planSubscription({ ...input, usage: await loadUsage(ctx, first.usageNeeded) }).lines;
}

/** The ECB rate (1 EUR = rate × currency) of the latest publication at or before the invoice date. */
async function rateOn(ctx: ServiceContext, currency: string, day: string): Promise<RateOnDay | null> {
  if (currency === 'EUR') return { rate: '1', date: day };
  const row = await ctx.db
    .select()
    .from(exchangeRates)
    .where(and(eq(exchangeRates.currency, currency), sql`${exchangeRates.date} <= ${day}`))
    .orderBy(sql`${exchangeRates.date} DESC`)
    .limit(1)
    .get();
  return row ? { rate: row.rate, date: row.date } : null;
}

/** The rates of the given currencies in force on a day (a currency without one is left out). */
export async function loadRates(ctx: ServiceContext, currencies: string[], day: string): Promise<Map<string, RateOnDay>> {
  const rates = new Map<string, RateOnDay>();
  for (const c of currencies) {
    const rate = await rateOn(ctx, c, day);
    if (rate) rates.set(c, rate);
  }
  return rates;
}

/** The tenant's tax groups with their overrides, read once per context (a billing run). */
export async function loadTaxGroups(ctx: ServiceContext): Promise<Map<string, TaxGroupInput>> {
  return memo(ctx, 'tax-groups', async () => {
    const groups = await ctx.db.select().from(taxGroups).where(eq(taxGroups.tenantId, ctx.tenant.id));
    const out = new Map<string, TaxGroupInput>();
    for (const g of groups) out.set(g.id, { type: g.type, reverseChargeType: g.reverseChargeType, overrides: await taxOverrides(ctx, g) });
    return out;
  });
}

/** How the payer is taxed for the given products. */
export async function taxContext(
  ctx: ServiceContext,
  payer: SubscriptionAggregate['customer'],
  productRows: readonly { id: string; taxGroupId: string | null }[],
): Promise<TaxContext> {
  return {
    sellerCountry: ctx.tenant.countryCode,
    payer: { countryCode: payer.countryCode, vatIdValid: payer.isVatIdValid, isBusiness: payer.companyName !== null || payer.vatId !== null, taxExempt: payer.taxExempt },
    productTaxGroups: new Map(productRows.map((p) => [p.id, p.taxGroupId])),
    taxGroups: await loadTaxGroups(ctx),
  };
}
