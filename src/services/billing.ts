import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { applyCoupons } from '../billing/discounts';
import { parseDuration } from '../billing/durations';
import { lineNet } from '../billing/invoice-totals';
import { Dec, fromMinorUnits, toMinorUnitsSafe } from '../billing/money';
import { billingGroupStepOptions, periodAt, prorationFactor } from '../billing/periods';
import { priceFor } from '../billing/pricing';
import { resolveTax, TaxRateUnavailableError } from '../billing/tax';
import { isUniqueViolation } from '../db/client';
import {
  appliedDiscounts,
  billingLedger,
  exchangeRates,
  invoicePositions,
  invoices,
  measurements,
  pricePlans,
  products,
  subscriptionItems,
  subscriptions,
  taxGroups,
} from '../db/schema';
import { insertEvent } from '../events/outbox';
import type { ServiceContext } from '../http/context';
import { newId } from '../lib/ids';
import { billingAddress, finalizeInvoice, renderInvoice, totalsOf, type InvoiceRow, type PositionRow } from './invoices';
import { pricingOf } from './price-plans';
import { loadSettings } from './settings';
import { customerTimeZone, loadSubscription, type ItemAggregate, type SubscriptionAggregate } from './subscriptions';
import { taxOverrides } from './taxes';
import { aggregateUsage } from './usage';

type PricePlanRow = typeof pricePlans.$inferSelect;
type ProductRow = typeof products.$inferSelect;

/** One thing to bill: a period (or event, or charge) of an item, priced. */
export interface BillingLine {
  item: ItemAggregate;
  kind: 'recurring' | 'usage' | 'charge';
  periodStart: Date;
  periodEnd: Date | null;
  quantity: string;
  /** Exact amount before discounts, in the price plan's currency. */
  amount: string;
  /** The proration applied, when the period is partial. */
  factor: { usedDays: number; periodDays: number } | null;
  price: PricePlanRow;
  description: string;
}

const iso = (d: Date) => d.toISOString();

/**
 * Decides what of a subscription is due at `asOf`: recurring fees per period (in advance at the
 * period start, in arrears at its end), usage per period in arrears, one-time charges at their
 * start. Periods already billed (up to `lastBilledTo`) are never planned again; partial periods at
 * a cancellation or item end are prorated by days when the price plan says so.
 */
export async function planSubscription(ctx: ServiceContext, agg: SubscriptionAggregate, asOf: Date, prices: Map<string, PricePlanRow>) {
  const s = agg.row;
  const lines: BillingLine[] = [];
  if (!s.billingAnchor || !['active', 'cancelled', 'paused'].includes(s.status)) return lines;
  const tz = customerTimeZone(agg);
  const steps = agg.billingGroup ? billingGroupStepOptions(agg.billingGroup) : {};
  const anchor = new Date(s.billingAnchor);
  // Nothing is billed from the moment a subscription pauses until it resumes.
  const pausedFrom = s.status === 'paused' && s.pausedAt ? new Date(s.pausedAt) : null;
  const skipUntil = s.billingResumeAt ? new Date(s.billingResumeAt) : null;

  for (const item of agg.items) {
    if (item.status === 'pending') continue;
    const price = prices.get(item.pricePlanId);
    if (!price) continue;
    const itemStart = new Date(item.billingStart ?? item.startDate ?? s.billingAnchor);
    const ends = [item.endDate, s.cancellationDate].filter((x): x is string => x !== null).map((x) => new Date(x));
    const end = ends.length ? new Date(Math.min(...ends.map((d) => d.getTime()))) : null;

    if (price.type === 'one_time') {
      const at = itemStart < anchor && item.type === 'item' ? anchor : itemStart;
      if (!item.lastBilledAt && at <= asOf && (!pausedFrom || at < pausedFrom)) {
        lines.push(line(item, 'charge', at, null, item.quantity, price, null, item.name));
      }
      continue;
    }
    const interval = price.billingInterval ? parseDuration(price.billingInterval) : null;
    if (!interval) continue;
    const itemAnchor = itemStart > anchor ? itemStart : anchor;
    let cursor = item.lastBilledTo ? new Date(item.lastBilledTo) : itemAnchor;
    for (let guard = 0; guard < 240; guard++) {
      const p = periodAt(itemAnchor, interval, cursor, tz, steps);
      const start = p.start < cursor ? cursor : p.start;
      if (end && start >= end) break;
      if (pausedFrom && start >= pausedFrom) break;
      const usage = price.type === 'metered' || price.type === 'instant_metered';
      const inAdvance = price.payInAdvance && !usage;
      const due = inAdvance ? start <= asOf : p.end <= asOf;
      if (!due) break;
      const stop = end && end < p.end ? end : p.end;
      const partial = start > p.start || stop < p.end;
      const factor = partial && price.proRata && !usage ? prorationFactor(p, { start, end: stop }, tz) : null;
      if (skipUntil && p.end <= skipUntil) {
        // Periods missed while paused, skipped by a resume with a next billing date.
        lines.push(line(item, usage ? 'usage' : 'recurring', start, stop, '0', price, null, 'skipped'));
      } else if (usage) {
        const measurement = await itemMeasurement(ctx, item);
        const quantity = measurement ? await aggregateUsage(ctx, item.id, measurement, start, stop) : '0';
        lines.push(line(item, 'usage', start, stop, quantity, price, null, `${item.name}`));
      } else if (!partial || factor !== null || !price.proRata) {
        // A partial period without proRata is billed in full (fair billing off).
        lines.push(line(item, 'recurring', start, stop, item.quantity, price, factor, item.name));
      }
      cursor = stop;
      if (stop < p.end) break;
    }
  }
  return lines.filter((l) => !(l.factor && l.factor.usedDays === 0));
}

function line(
  item: ItemAggregate,
  kind: BillingLine['kind'],
  start: Date,
  end: Date | null,
  quantity: string,
  price: PricePlanRow,
  factor: { usedDays: number; periodDays: number } | null,
  description: string,
): BillingLine {
  const skipped = description === 'skipped';
  const amount = skipped ? '0' : priceFor(pricingOf(price), quantity).amount;
  return { item, kind, periodStart: start, periodEnd: end, quantity, amount, factor, price, description };
}

const measurementCache = new WeakMap<ServiceContext, Map<string, typeof measurements.$inferSelect | null>>();
async function itemMeasurement(ctx: ServiceContext, item: ItemAggregate) {
  let cache = measurementCache.get(ctx);
  if (!cache) measurementCache.set(ctx, (cache = new Map()));
  if (!cache.has(item.productId)) {
    const row = await ctx.db
      .select({ m: measurements })
      .from(products)
      .innerJoin(measurements, and(eq(measurements.tenantId, products.tenantId), eq(measurements.id, products.measurementId)))
      .where(and(eq(products.tenantId, ctx.tenant.id), eq(products.id, item.productId)))
      .get();
    cache.set(item.productId, row?.m ?? null);
  }
  return cache.get(item.productId)!;
}

/** The ECB rate (1 EUR = rate × currency) on the latest day at or before `date`. */
export async function rateOn(ctx: ServiceContext, currency: string, date: Date): Promise<{ rate: string; date: string } | null> {
  if (currency === 'EUR') return { rate: '1', date: date.toISOString().slice(0, 10) };
  const row = await ctx.db
    .select()
    .from(exchangeRates)
    .where(and(eq(exchangeRates.currency, currency), sql`${exchangeRates.date} <= ${date.toISOString().slice(0, 10)}`))
    .orderBy(sql`${exchangeRates.date} DESC`)
    .limit(1)
    .get();
  return row ? { rate: row.rate, date: row.date } : null;
}

export interface BillResult {
  invoiceId: string | null;
  lines: number;
  skipped: 'nothing_due' | 'already_billed' | null;
}

/**
 * Bills what is due of one subscription at `asOf` as one invoice. The invoice, its positions, the
 * ledger rows (UNIQUE per item, period start and kind), the items' billing state and the events
 * are one D1 batch: a rerun, an overlapping run or a retry after a crash cannot bill anything twice.
 */
export async function billSubscription(ctx: ServiceContext, subscriptionId: string, asOf: Date, runId: string | null): Promise<BillResult> {
  const agg = await loadSubscription(ctx, subscriptionId);
  const priceIds = [...new Set(agg.items.map((i) => i.pricePlanId))];
  const productIds = [...new Set(agg.items.map((i) => i.productId))];
  const [priceRows, productRows] = await ctx.db.batch([
    ctx.db.select().from(pricePlans).where(and(eq(pricePlans.tenantId, ctx.tenant.id), inArray(pricePlans.id, priceIds.length ? priceIds : ['']))),
    ctx.db.select().from(products).where(and(eq(products.tenantId, ctx.tenant.id), inArray(products.id, productIds.length ? productIds : ['']))),
  ]);
  const prices = new Map(priceRows.map((p) => [p.id, p]));
  const lines = await planSubscription(ctx, agg, asOf, prices);
  if (lines.length === 0) return { invoiceId: null, lines: 0, skipped: 'nothing_due' };

  // Partner billing: the partner receives the invoice, at its address.
  const payer = agg.partner ?? agg.customer;
  const currency = payer.currencyCode ?? agg.customer.currencyCode ?? ctx.tenant.defaultCurrency;
  const invoiceId = newId();
  const now = ctx.now;
  const productMap = new Map<string, ProductRow>(productRows.map((p) => [p.id, p]));

  // Conversion at the ECB rate of the invoice date when the price currency is not the invoice currency.
  const rates: Record<string, unknown>[] = [];
  const convert = async (amount: string, from: string): Promise<string> => {
    if (from === currency) return amount;
    const fromRate = await rateOn(ctx, from, now);
    const toRate = await rateOn(ctx, currency, now);
    if (!fromRate || !toRate) throw new Error(`No ECB rate for ${from}/${currency} on ${now.toISOString().slice(0, 10)}`);
    const rate = new Dec(toRate.rate).div(fromRate.rate);
    if (!rates.some((r) => r.sourceCurrencyCode === from)) {
      rates.push({ sourceCurrencyCode: from, destinationCurrencyCode: currency, exchangeRate: rate.toDecimalPlaces(10).toString(), exchangeRateDate: toRate.date > fromRate.date ? toRate.date : fromRate.date });
    }
    return new Dec(amount).times(rate).toString();
  };

  // Item price → coupon discount → tax (issue 5): discounts on the converted line amounts.
  const priced = [] as { l: BillingLine; id: string; amount: string }[];
  for (const l of lines) priced.push({ l, id: newId(), amount: await convert(l.amount, l.price.currencyCode) });
  const coupons = agg.discounts.filter(({ d }) => d.status === 'active');
  const discountResult = applyCoupons(
    priced.map((p) => ({
      id: p.id,
      productId: p.l.item.productId,
      planId: agg.row.planId ?? undefined,
      net: p.l.factor ? new Dec(p.amount).times(p.l.factor.usedDays).div(p.l.factor.periodDays).toString() : p.amount,
    })),
    coupons.map(({ d, c }) => ({
      id: d.id,
      type: c.type,
      percentage: c.percentage ?? undefined,
      fixedAmount: c.fixedAmount !== null && c.fixedAmountCurrency ? fromMinorUnits(c.fixedAmount, c.fixedAmountCurrency).toString() : undefined,
      currency: c.fixedAmountCurrency ?? undefined,
      frequency: c.frequency,
      frequencyInterval: c.frequencyInterval ?? undefined,
      appliedIntervals: d.appliedIntervals,
      limitedToProducts: c.limitedToProducts,
      excludedFromProducts: c.excludedFromProducts,
      limitedToPlans: c.limitedToPlans,
      excludedFromPlans: c.excludedFromPlans,
    })),
    currency,
  );
  const discountOf = new Map(discountResult.lines.map((x) => [x.id, x.discount]));

  const groups = await ctx.db.select().from(taxGroups).where(eq(taxGroups.tenantId, ctx.tenant.id));
  const header: PositionRow = {
    id: newId(),
    tenantId: ctx.tenant.id,
    invoiceId,
    parentId: null,
    sort: 0,
    name: agg.row.name,
    description: `Subscription ${agg.row.number}`,
    quantity: '0',
    unitPrice: '0',
    discountAmount: 0,
    netAmount: 0,
    taxRate: '0',
    taxCategory: 'O',
    taxNote: null,
    serviceFrom: null,
    serviceTo: null,
    kind: 'header',
    productId: null,
    subscriptionItemId: null,
    createdAt: now.toISOString(),
  };
  const positions: PositionRow[] = [];
  for (const [i, p] of priced.entries()) {
    const product = productMap.get(p.l.item.productId);
    const group = groups.find((g) => g.id === product?.taxGroupId);
    let tax = { rate: '0', category: 'E', legalNote: null as string | null };
    if (group) {
      try {
        tax = resolveTax({
          taxGroup: { type: group.type, reverseChargeType: group.reverseChargeType },
          sellerCountry: ctx.tenant.countryCode,
          customerCountry: payer.countryCode,
          vatIdValid: payer.isVatIdValid,
          isBusiness: payer.companyName !== null || payer.vatId !== null,
          taxExempt: payer.taxExempt,
          date: p.l.periodStart,
          overrides: await taxOverrides(ctx, group),
        });
      } catch (err) {
        if (!(err instanceof TaxRateUnavailableError)) throw err;
        throw new Error(`No tax rate for ${err.country}`);
      }
    }
    // The priced amount is the line total; the position shows it as quantity × unit price.
    const unitPrice = new Dec(p.l.quantity).isZero() ? new Dec(0) : new Dec(p.amount).div(p.l.quantity);
    // The net comes from the exact amount (not the 10-decimal unit price shown), rounded once.
    const exact = lineNet({ quantity: '1', unitPrice: p.amount, discount: discountOf.get(p.id), factor: p.l.factor ?? undefined }, currency);
    positions.push({
      id: p.id,
      tenantId: ctx.tenant.id,
      invoiceId,
      parentId: header.id,
      sort: i + 1,
      name: p.l.description,
      description: p.l.factor ? `${p.l.factor.usedDays}/${p.l.factor.periodDays} days` : p.l.kind === 'usage' ? `Usage` : null,
      quantity: p.l.quantity,
      unitPrice: unitPrice.toDecimalPlaces(10).toString(),
      discountAmount: toMinorUnitsSafe(exact.discount, currency),
      netAmount: toMinorUnitsSafe(exact.net, currency),
      taxRate: tax.rate,
      taxCategory: tax.category,
      taxNote: tax.legalNote,
      serviceFrom: iso(p.l.periodStart),
      serviceTo: p.l.periodEnd ? iso(p.l.periodEnd) : null,
      kind: p.l.kind,
      productId: p.l.item.productId,
      subscriptionItemId: p.l.item.id,
      createdAt: now.toISOString(),
    });
  }

  const settings = await loadSettings(ctx.db, ctx.tenant.id);
  const approval = agg.customer.requiresManualInvoiceApproval ?? settings.requiresManualInvoiceApproval;
  const row: InvoiceRow = {
    id: invoiceId,
    tenantId: ctx.tenant.id,
    customerId: payer.id,
    type: 'TYPE_INVOICE',
    status: 'STATUS_DRAFT',
    number: null,
    createdAt: now.toISOString(),
    subscriptionId: agg.row.id,
    currencyCode: currency,
    numberSeq: null,
    finalizationDate: null,
    dueDate: null,
    payDate: null,
    lastSentAt: null,
    lastReminderDate: null,
    dunningLevel: 0,
    dunningStatus: 'none',
    dunningDisabled: false,
    invoiceAddress: await billingAddress(ctx, payer.id),
    paymentMethodId: agg.partner ? null : agg.row.paymentMethodId,
    referencedInvoiceId: null,
    internalNote: null,
    title: null,
    introduction: null,
    closing: null,
    ...totalsOf(positions, currency),
    paidAmount: 0,
    sourceType: 'subscription',
    customFields: null,
    exchangeRates: rates.length ? rates : null,
    billingRunId: runId,
    documentKey: null,
    updatedAt: now.toISOString(),
  };
  const allPositions = [header, ...positions];
  const resource = renderInvoice({ row, positions: allPositions, customer: payer });
  const statements: BatchItem<'sqlite'>[] = [ctx.db.insert(invoices).values(row)];
  for (let i = 0; i < allPositions.length; i += 4) statements.push(ctx.db.insert(invoicePositions).values(allPositions.slice(i, i + 4)));
  // The ledger: a second attempt at the same (item, period start, kind) fails the whole batch.
  const ledger = lines.map((l) => ({
    tenantId: ctx.tenant.id,
    subscriptionItemId: l.item.id,
    periodStart: iso(l.periodStart),
    kind: l.kind,
    periodEnd: l.periodEnd ? iso(l.periodEnd) : null,
    invoiceId,
    createdAt: now.toISOString(),
  }));
  for (let i = 0; i < ledger.length; i += 14) statements.push(ctx.db.insert(billingLedger).values(ledger.slice(i, i + 14)));
  const lastByItem = new Map<string, BillingLine>();
  for (const l of lines) {
    const prev = lastByItem.get(l.item.id);
    if (!prev || l.periodStart > prev.periodStart) lastByItem.set(l.item.id, l);
  }
  for (const [itemId, l] of lastByItem) {
    statements.push(
      ctx.db
        .update(subscriptionItems)
        .set({ lastBilledFrom: iso(l.periodStart), lastBilledTo: l.periodEnd ? iso(l.periodEnd) : iso(l.periodStart), lastBilledAt: now.toISOString() })
        .where(and(eq(subscriptionItems.tenantId, ctx.tenant.id), eq(subscriptionItems.id, itemId))),
    );
  }
  for (const c of discountResult.coupons.filter((x) => x.applied)) {
    statements.push(
      ctx.db
        .update(appliedDiscounts)
        .set({ appliedIntervals: sql`${appliedDiscounts.appliedIntervals} + 1` })
        .where(and(eq(appliedDiscounts.tenantId, ctx.tenant.id), eq(appliedDiscounts.id, c.id))),
    );
  }
  statements.push(
    ctx.db.update(subscriptions).set({ lastBillingAt: now.toISOString() }).where(and(eq(subscriptions.tenantId, ctx.tenant.id), eq(subscriptions.id, agg.row.id))),
    insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'invoice.created', resourceId: invoiceId, data: resource, now }),
    insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'subscription.billed', resourceId: agg.row.id, data: { subscriptionId: agg.row.id, invoiceId, lines: lines.length, asOf: iso(asOf) }, now }),
  );
  if (approval) statements.push(insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'invoice.requires_approval', resourceId: invoiceId, data: resource, now }));
  try {
    await ctx.db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
  } catch (err) {
    if (isUniqueViolation(err, 'billing_ledger')) return { invoiceId: null, lines: 0, skipped: 'already_billed' };
    throw err;
  }
  if (!approval && row.grossAmount >= 0) await finalizeInvoice(ctx, invoiceId, null);
  return { invoiceId, lines: lines.length, skipped: null };
}

/** Subscriptions that may have something due, after `afterId`, in id order (the run's cursor). */
export async function candidateSubscriptions(ctx: ServiceContext, afterId: string, limit: number) {
  return ctx.db
    .select({ id: subscriptions.id })
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

