import { and, eq, inArray } from 'drizzle-orm';
import { parseDuration } from '../../billing/durations';
import { Dec, formatMoney, roundMoney } from '../../billing/money';
import { billingGroupStepOptions, periodAt } from '../../billing/periods';
import { priceFor } from '../../billing/pricing';
import { measurements, pricePlans, products } from '../../db/schema';
import type { ServiceContext } from '../context';
import { pricingOf } from '../catalogue/price-plans';
import { customerTimeZone, loadSubscription } from '../subscriptions/aggregate';
import { aggregateUsage } from '../subscriptions/usage';
import { couponInputs, estimatedInvoice } from './billing';
import { applyCoupons } from '../../billing/discounts';

/**
 * The net amount of a subscription's next invoice: each billable item priced for its next period
 * (recurring fees at their quantity, usage as aggregated so far, one-time charges not yet billed),
 * then the active coupons, never below zero. Tax is not included. Each line is rounded once, half-up.
 */
export async function estimatedAmount(ctx: ServiceContext, id: string) {
  const agg = await loadSubscription(ctx, id);
  // A live subscription: exactly what billing will compose at the next billing date.
  if (agg.row.billingAnchor) {
    const invoice = await estimatedInvoice(ctx, id);
    const currency = agg.customer.currencyCode ?? ctx.tenant.defaultCurrency;
    return invoice ? invoice.netAmount : formatMoney(new Dec(0), currency);
  }
  const tz = customerTimeZone(agg);
  const billable = agg.items.filter((i) => i.status === 'active' || i.status === 'canceled' || (agg.row.status === 'draft' && i.status === 'pending'));
  const priceIds = [...new Set(billable.map((i) => i.pricePlanId))];
  const productIds = [...new Set(billable.map((i) => i.productId))];
  // Not a db.batch: the join's duplicate column names would collide in batch results.
  const [priceRows, measurementRows] = await Promise.all([
    ctx.db.select().from(pricePlans).where(and(eq(pricePlans.tenantId, ctx.tenant.id), inArray(pricePlans.id, priceIds.length ? priceIds : ['']))),
    ctx.db
      .select({ productId: products.id, measurement: measurements })
      .from(products)
      .innerJoin(measurements, and(eq(measurements.tenantId, products.tenantId), eq(measurements.id, products.measurementId)))
      .where(and(eq(products.tenantId, ctx.tenant.id), inArray(products.id, productIds.length ? productIds : ['']))),
  ]);
  const prices = new Map(priceRows.map((p) => [p.id, p]));
  const measurementOf = new Map(measurementRows.map((m) => [m.productId, m.measurement]));
  const currency = priceRows[0]?.currencyCode ?? agg.customer.currencyCode ?? ctx.tenant.defaultCurrency;
  const anchor = agg.row.billingAnchor ? new Date(agg.row.billingAnchor) : ctx.now;
  const steps = agg.billingGroup ? billingGroupStepOptions(agg.billingGroup) : {};

  const lines: { productId: string; amount: Dec }[] = [];
  for (const item of billable) {
    const price = prices.get(item.pricePlanId);
    if (!price || price.calculationType === 'percentage') continue;
    if (price.type === 'one_time' && item.lastBilledAt) continue;
    let quantity = item.quantity;
    if (price.type === 'metered' || price.type === 'instant_metered') {
      const measurement = measurementOf.get(item.productId);
      const interval = price.billingInterval ? parseDuration(price.billingInterval) : null;
      if (!measurement) continue;
      const period = interval ? periodAt(new Date(item.billingStart ?? anchor.toISOString()), interval, ctx.now, tz, steps) : { start: new Date(0), end: ctx.now };
      quantity = await aggregateUsage(ctx, item.id, measurement, period.start, new Date(Math.min(period.end.getTime(), ctx.now.getTime() + 1)));
    }
    lines.push({ productId: item.productId, amount: roundMoney(priceFor(pricingOf(price), quantity).amount, currency) });
  }
  // Percentage price plans take their share of the other items' fees.
  const base = lines.reduce((sum, l) => sum.plus(l.amount), new Dec(0));
  for (const item of billable) {
    const price = prices.get(item.pricePlanId);
    if (price?.calculationType !== 'percentage') continue;
    lines.push({ productId: item.productId, amount: roundMoney(priceFor(pricingOf(price), item.quantity, { baseAmount: base.toString() }).amount, currency) });
  }

  const total = lines.reduce((sum, l) => sum.plus(l.amount), new Dec(0));
  // The same coupon rules as billing: restrictions, frequency, never below zero.
  const discounts = applyCoupons(
    lines.map((l, i) => ({ id: String(i), productId: l.productId, planId: agg.row.planId ?? undefined, net: l.amount.toString() })),
    couponInputs(agg.discounts),
    currency,
  );
  return formatMoney(Dec.max(total.minus(discounts.discount), 0), currency);
}
