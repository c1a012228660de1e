import { and, asc, eq, gt, inArray, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { applyCoupons } from '../../billing/discounts';
import { parseDuration } from '../../billing/durations';
import { lineNet } from '../../billing/invoice-totals';
import { Dec, fromMinorUnits, toMinorUnitsSafe } from '../../billing/money';
import { addDuration, billingGroupStepOptions, periodAt, prorationFactor } from '../../billing/periods';
import { priceFor } from '../../billing/pricing';
import { resolveTax, TaxRateUnavailableError } from '../../billing/tax';
import { inJson, isUniqueViolation, tenantRowsById } from '../../db/client';
import {
  appliedDiscounts,
  billingLedger,
  customerAddresses,
  exchangeRates,
  invoicePositions,
  itemChanges,
  invoices,
  measurements,
  pricePlans,
  products,
  subscriptionItems,
  subscriptions,
  taxGroups,
  usageEvents,
} from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import type { ServiceContext } from '../context';
import { newId } from '../../lib/ids';
import { billingAddress, chooseBillingAddress, totalsOf } from '../invoices/drafts';
import { finalizationRequest, finalizeInvoice } from '../invoices/finalize';
import { renderInvoice, type InvoiceRow, type PositionRow } from '../invoices/render';
import { pricingOf } from '../catalogue/price-plans';
import { loadSettings } from '../platform/settings';
import { assembleSubscriptions, customerTimeZone, loadSubscription, renderSubscription, type ItemAggregate, type SubscriptionAggregate, type SubscriptionRow } from '../subscriptions/aggregate';
import { taxOverrides } from '../catalogue/taxes';
import { memo } from '../shared/memo';
import { aggregateUsage } from '../subscriptions/usage';

type PricePlanRow = typeof pricePlans.$inferSelect;
type ProductRow = typeof products.$inferSelect;
type AddressRow = typeof customerAddresses.$inferSelect;

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
  /** The ledger kind when it is not `kind` (credits and charges of a mid-period change). */
  ledgerKind?: string;
  /** Item changes this line accounts for; they are marked billed with the invoice. */
  changeIds?: string[];
}

const iso = (d: Date) => d.toISOString();

/**
 * Decides what of a subscription is due at `asOf`: recurring fees per period (in advance at the
 * period start, in arrears at its end), usage per period in arrears, one-time charges at their
 * start. Periods already billed (up to `lastBilledTo`) are never planned again; partial periods at
 * a cancellation or item end are prorated by days when the price plan says so.
 */
export async function planSubscription(ctx: ServiceContext, agg: SubscriptionAggregate, asOf: Date, prices: Map<string, PricePlanRow>, preload?: BillingPreload) {
  const s = agg.row;
  const lines: BillingLine[] = [];
  if (!s.billingAnchor || !['active', 'cancelled', 'paused'].includes(s.status)) return lines;
  const changes = await pendingChanges(ctx, agg, asOf, prices, preload);
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

    // instant_metered usage is billed per push, each on its own invoice (billInstantUsage).
    if (price.type === 'instant_metered') continue;
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
    // A billing group moves the anchor to its day: the time from activation (after any trial) up
    // to that day is a partial period, prorated by days when the price plan says so.
    const startedAt = new Date(s.trialEndsOn ?? s.activatedAt ?? s.billingAnchor);
    const usageItem = price.type === 'metered';
    if (!item.lastBilledTo && agg.billingGroup && startedAt < itemAnchor && itemStart <= anchor && !usageItem && price.proRata) {
      const full = { start: addDuration(itemAnchor, interval, -1, tz, steps), end: itemAnchor };
      const factor = prorationFactor(full, { start: startedAt, end: itemAnchor }, tz);
      const due = price.payInAdvance ? startedAt <= asOf : itemAnchor <= asOf;
      if (due && factor.usedDays > 0 && (!end || startedAt < end)) {
        lines.push(line(item, 'recurring', startedAt, itemAnchor, item.quantity, price, factor, item.name));
        cursor = itemAnchor;
      } else if (!due) {
        continue;
      }
    }
    const itemChangesList = changes.filter((c) => c.subscriptionItemId === item.id);
    const usageType = price.type === 'metered';
    if (price.payInAdvance && !usageType && item.lastBilledTo) {
      // A change inside a period billed in advance: credit the rest at the old price, charge it at the new.
      for (const c of itemChangesList.filter((x) => x.effectiveAt < item.lastBilledTo!)) {
        const at = new Date(c.effectiveAt);
        const p = periodAt(itemAnchor, interval, at, tz, steps);
        const factor = prorationFactor(p, { start: at, end: p.end }, tz);
        const from = prices.get(c.fromPricePlanId)!;
        const to = prices.get(c.toPricePlanId)!;
        if (factor.usedDays === 0) {
          lines.push({ ...line(item, 'recurring', at, p.end, '0', to, null, 'skipped'), ledgerKind: `change:${c.id}`, changeIds: [c.id] });
          continue;
        }
        const credit = line(item, 'recurring', at, p.end, c.fromQuantity, from, factor, `${item.name} (credit ${c.fromQuantity})`);
        lines.push({ ...credit, amount: new Dec(credit.amount).neg().toString(), ledgerKind: `credit:${c.id}`, changeIds: [c.id] });
        lines.push({ ...line(item, 'recurring', at, p.end, c.toQuantity, to, factor, `${item.name} (${c.toQuantity})`), ledgerKind: `charge:${c.id}`, changeIds: [c.id] });
      }
    }
    for (let guard = 0; guard < 240; guard++) {
      const p = periodAt(itemAnchor, interval, cursor, tz, steps);
      const start = p.start < cursor ? cursor : p.start;
      if (end && start >= end) break;
      if (pausedFrom && start >= pausedFrom) break;
      const usage = usageType;
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
      } else if (!inAdvance && itemChangesList.some((c) => c.effectiveAt > iso(start) && c.effectiveAt < iso(stop))) {
        // A period billed in arrears with changes inside: each stretch at the quantity and price it had.
        const inside = itemChangesList.filter((c) => c.effectiveAt > iso(start) && c.effectiveAt < iso(stop));
        let from = start;
        let quantity = inside[0]!.fromQuantity;
        let plan = prices.get(inside[0]!.fromPricePlanId)!;
        for (const c of [...inside, null]) {
          const to = c ? new Date(c.effectiveAt) : stop;
          const f = prorationFactor(p, { start: from, end: to }, tz);
          if (f.usedDays > 0) lines.push({ ...line(item, 'recurring', from, to, quantity, plan, f, `${item.name} (${quantity})`), changeIds: inside.map((x) => x.id) });
          if (c) {
            from = to;
            quantity = c.toQuantity;
            plan = prices.get(c.toPricePlanId)!;
          }
        }
      } else if (!partial || factor !== null || !price.proRata) {
        // A partial period without proRata is billed in full (fair billing off). Changes made before
        // this period (not inside a billed one) need no proration: it is billed at the new state.
        const settled = inAdvance ? itemChangesList.filter((c) => !item.lastBilledTo || c.effectiveAt >= item.lastBilledTo).map((c) => c.id) : [];
        lines.push({ ...line(item, 'recurring', start, stop, item.quantity, price, factor, item.name), ...(settled.length ? { changeIds: settled } : {}) });
      }
      cursor = stop;
      if (stop < p.end) break;
    }
  }
  return lines.filter((l) => !(l.factor && l.factor.usedDays === 0));
}

/** Applied item changes not yet on an invoice, with the price plans they name loaded into `prices`. */
async function pendingChanges(ctx: ServiceContext, agg: SubscriptionAggregate, asOf: Date, prices: Map<string, PricePlanRow>, preload?: BillingPreload) {
  const ids = agg.items.map((i) => i.id);
  if (ids.length === 0) return [];
  const known = preload && preload.asOf.getTime() === asOf.getTime() && ids.every((id) => preload.changes.has(id));
  const rows = known ? ids.flatMap((id) => preload.changes.get(id)!).sort(byEffectiveAt) : await selectPendingChanges(ctx, ids, asOf);
  const missing = [...new Set(rows.flatMap((r) => [r.fromPricePlanId, r.toPricePlanId]))].filter((id) => !prices.has(id));
  if (missing.length) {
    for (const p of await ctx.db.select().from(pricePlans).where(and(eq(pricePlans.tenantId, ctx.tenant.id), inArray(pricePlans.id, missing)))) prices.set(p.id, p);
  }
  return rows;
}

type ItemChangeRow = typeof itemChanges.$inferSelect;

const byEffectiveAt = (a: ItemChangeRow, b: ItemChangeRow) => (a.effectiveAt < b.effectiveAt ? -1 : a.effectiveAt > b.effectiveAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

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

async function itemMeasurement(ctx: ServiceContext, item: ItemAggregate) {
  return memo(ctx, `measurement:${item.productId}`, async () => {
    const row = await ctx.db
      .select({ m: measurements })
      .from(products)
      .innerJoin(measurements, and(eq(measurements.tenantId, products.tenantId), eq(measurements.id, products.measurementId)))
      .where(and(eq(products.tenantId, ctx.tenant.id), eq(products.id, item.productId)))
      .get();
    return row?.m ?? null;
  });
}

/** A subscription's active coupons as `applyCoupons` takes them (fixed amounts in major units). */
export function couponInputs(discounts: SubscriptionAggregate['discounts']) {
  return discounts
    .filter(({ d }) => d.status === 'active')
    .map(({ d, c }) => ({
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
    }));
}

/** The invoice date: the calendar day of `at` in the tenant's time zone. */
export function localDate(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/** The ECB rate (1 EUR = rate × currency) of the latest publication at or before the invoice date. */
export async function rateOn(ctx: ServiceContext, currency: string, at: Date): Promise<{ rate: string; date: string } | null> {
  const day = localDate(at, ctx.tenant.timeZone);
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

export interface BillResult {
  invoiceId: string | null;
  lines: number;
  skipped: 'nothing_due' | 'already_billed' | null;
  /** The subscription has instant_metered items (billed per push, see billInstantUsage). */
  hasInstantUsage?: boolean;
}

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
 * Composes the invoice for what is due at `asOf` of a subscription and the customer's other
 * subscriptions in the same billing group, each subscription's lines under a header with its name:
 * item price → coupon discount → tax, converted to the invoice currency. Writes nothing.
 */
type Planner = (ctx: ServiceContext, agg: SubscriptionAggregate, asOf: Date, prices: Map<string, PricePlanRow>, preload?: BillingPreload) => Promise<BillingLine[]>;

export async function composeInvoice(ctx: ServiceContext, subscriptionId: string, asOf: Date, runId: string | null, planner: Planner = planSubscription, preload?: BillingPreload) {
  // A subscription in a billing group is billed with its siblings, which the chunk may already have
  // billed: it is read fresh.
  const preloaded = preload?.aggregates.get(subscriptionId);
  const first0 = preloaded && !preloaded.row.billingGroupId ? preloaded : await loadSubscription(ctx, subscriptionId);
  // A billing group consolidates regular billing; a single push of instant usage is its own invoice.
  const unit = planner === planSubscription ? await billingUnit(ctx, first0) : [first0];
  const allItems = unit.flatMap((a) => a.items);
  const priceIds = [...new Set(allItems.map((i) => i.pricePlanId))];
  const productIds = [...new Set(allItems.map((i) => i.productId))];
  const [priceRows, productRows] =
    preload && priceIds.every((id) => preload.prices.has(id)) && productIds.every((id) => preload.products.has(id))
      ? [priceIds.map((id) => preload.prices.get(id)!), productIds.map((id) => preload.products.get(id)!)]
      : await ctx.db.batch([
          ctx.db.select().from(pricePlans).where(tenantRowsById(pricePlans, ctx.tenant.id, priceIds)),
          ctx.db.select().from(products).where(tenantRowsById(products, ctx.tenant.id, productIds)),
        ]);
  const prices = new Map(priceRows.map((p) => [p.id, p]));
  // Remembered for the run, so it need not ask again whether to look for instant usage.
  void memo(ctx, `instant:${subscriptionId}`, async () => first0.items.some((i) => prices.get(i.pricePlanId)?.type === 'instant_metered'));
  const planned: { agg: SubscriptionAggregate; lines: BillingLine[] }[] = [];
  const isSkip = (l: BillingLine) => l.description === 'skipped';
  for (const agg of unit) {
    const lines = await planner(ctx, agg, asOf, prices, preload);
    if (lines.length) planned.push({ agg, lines });
  }
  const lines = planned.flatMap((p) => p.lines);
  if (lines.length === 0) return null;
  // Periods skipped by a resume (and zero-day changes) advance billing without an invoice.
  if (lines.every(isSkip)) return { skipOnly: true as const, lines, now: ctx.now };

  const first = planned[0]!.agg;
  // Partner billing: the partner receives the invoice, at its address.
  const payer = first.partner ?? first.customer;
  const currency = payer.currencyCode ?? first.customer.currencyCode ?? ctx.tenant.defaultCurrency;
  const invoiceId = newId();
  const now = ctx.now;
  const productMap = new Map<string, ProductRow>(productRows.map((p) => [p.id, p]));

  // Conversion at the ECB rate of the invoice date when the price currency is not the invoice currency.
  const rates: Record<string, unknown>[] = [];
  const convert = async (amount: string, from: string): Promise<string> => {
    if (from === currency) return amount;
    const fromRate = await rateOn(ctx, from, now);
    const toRate = await rateOn(ctx, currency, now);
    if (!fromRate || !toRate) throw new Error(`No ECB rate for ${from}/${currency} on ${localDate(now, ctx.tenant.timeZone)}`);
    const rate = new Dec(toRate.rate).div(fromRate.rate);
    if (!rates.some((r) => r.sourceCurrencyCode === from)) {
      // The date of the ECB publication used (the euro side has none of its own).
      const published = [from === 'EUR' ? null : fromRate.date, currency === 'EUR' ? null : toRate.date].filter((d): d is string => d !== null).sort();
      rates.push({ sourceCurrencyCode: from, destinationCurrencyCode: currency, exchangeRate: rate.toDecimalPlaces(10).toString(), exchangeRateDate: published[published.length - 1] });
    }
    return new Dec(amount).times(rate).toString();
  };

  const groups = await memo(ctx, 'tax-groups', () => ctx.db.select().from(taxGroups).where(eq(taxGroups.tenantId, ctx.tenant.id)));
  const positions: PositionRow[] = [];
  const appliedCoupons: string[] = [];
  for (const { agg, lines: all } of planned) {
    const own = all.filter((l) => !isSkip(l));
    if (own.length === 0) continue;
    // Item price → coupon discount → tax (issue 5): each subscription's coupons on its converted lines.
    const priced = [] as { l: BillingLine; id: string; amount: string }[];
    for (const l of own) priced.push({ l, id: newId(), amount: await convert(l.amount, l.price.currencyCode) });
    const discountResult = applyCoupons(
      priced.map((p) => ({
        id: p.id,
        productId: p.l.item.productId,
        planId: agg.row.planId ?? undefined,
        net: p.l.factor ? new Dec(p.amount).times(p.l.factor.usedDays).div(p.l.factor.periodDays).toString() : p.amount,
      })),
      couponInputs(agg.discounts),
      currency,
    );
    appliedCoupons.push(...discountResult.coupons.filter((x) => x.applied).map((x) => x.id));
    const discountOf = new Map(discountResult.lines.map((x) => [x.id, x.discount]));
    const header: PositionRow = {
      id: newId(),
      tenantId: ctx.tenant.id,
      invoiceId,
      parentId: null,
      sort: positions.length,
      name: agg.row.name,
      description: `Subscription ${agg.row.number}${agg.partner ? ` of ${agg.customer.companyName ?? agg.customer.email}` : ''}`,
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
    positions.push(header);
    for (const p of priced) {
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
            overrides: await memo(ctx, `tax-overrides:${group.id}`, () => taxOverrides(ctx, group)),
          });
        } catch (err) {
          if (!(err instanceof TaxRateUnavailableError)) throw err;
          throw new Error(`No tax rate for ${err.country}`);
        }
      }
      // The position shows quantity × unit price; its net comes from the exact amount, rounded once.
      const unitPrice = new Dec(p.l.quantity).isZero() ? new Dec(0) : new Dec(p.amount).div(p.l.quantity);
      const exact = lineNet({ quantity: '1', unitPrice: p.amount, discount: discountOf.get(p.id), factor: p.l.factor ?? undefined }, currency);
      positions.push({
        id: p.id,
        tenantId: ctx.tenant.id,
        invoiceId,
        parentId: header.id,
        sort: positions.length,
        name: p.l.description,
        description: p.l.factor ? `${p.l.factor.usedDays}/${p.l.factor.periodDays} days` : p.l.kind === 'usage' ? 'Usage' : null,
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
  }

  const settings = await memo(ctx, 'settings', () => loadSettings(ctx.db, ctx.tenant.id));
  const approval = first.customer.requiresManualInvoiceApproval ?? settings.requiresManualInvoiceApproval;
  const row: InvoiceRow = {
    id: invoiceId,
    tenantId: ctx.tenant.id,
    customerId: payer.id,
    type: 'TYPE_INVOICE',
    status: 'STATUS_DRAFT',
    number: null,
    createdAt: now.toISOString(),
    subscriptionId: first.row.id,
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
    invoiceAddress: preload?.addresses.has(payer.id) ? chooseBillingAddress(preload.addresses.get(payer.id)!) : await billingAddress(ctx, payer.id),
    paymentMethodId: first.partner ? null : first.row.paymentMethodId,
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
  // More credit than charge (a large downgrade): the document is a credit note, not an invoice.
  if (row.grossAmount < 0) row.type = 'TYPE_CREDIT';
  const resource = renderInvoice({ row, positions, customer: payer });
  return { skipOnly: false as const, row, resource, positions, lines, planned, appliedCoupons, approval, invoiceId, now, payer };
}

/**
 * Bills what is due at `asOf` of a subscription — together with the customer's other subscriptions
 * in the same billing group — as one invoice (see composeInvoice). The invoice, its positions, the
 * ledger rows (UNIQUE per item, period start and kind), the items' billing state and the events are
 * one D1 batch: a rerun, an overlapping run or a retry after a crash cannot bill anything twice.
 */
export async function billSubscription(ctx: ServiceContext, subscriptionId: string, asOf: Date, runId: string | null, preload?: BillingPreload): Promise<BillResult> {
  const composed = await composeInvoice(ctx, subscriptionId, asOf, runId, planSubscription, preload);
  const hasInstantUsage = await memo(ctx, `instant:${subscriptionId}`, () => subscriptionHasInstantUsage(ctx, subscriptionId));
  if (!composed || composed.skipOnly) {
    return composed ? { ...(await commitComposed(ctx, composed, asOf)), hasInstantUsage } : { invoiceId: null, lines: 0, skipped: 'nothing_due', hasInstantUsage };
  }
  return { ...(await commitComposed(ctx, composed, asOf)), hasInstantUsage };
}

async function subscriptionHasInstantUsage(ctx: ServiceContext, subscriptionId: string): Promise<boolean> {
  const row = await ctx.db
    .select({ id: subscriptionItems.id })
    .from(subscriptionItems)
    .innerJoin(pricePlans, and(eq(pricePlans.tenantId, subscriptionItems.tenantId), eq(pricePlans.id, subscriptionItems.pricePlanId)))
    .where(and(eq(subscriptionItems.tenantId, ctx.tenant.id), eq(subscriptionItems.subscriptionId, subscriptionId), eq(pricePlans.type, 'instant_metered')))
    .get();
  return row !== undefined;
}

type Composed = NonNullable<Awaited<ReturnType<typeof composeInvoice>>>;

/** Advances billing past skipped periods: ledger rows (no invoice) and the items' billing state. */
async function commitSkipped(ctx: ServiceContext, lines: BillingLine[], now: Date): Promise<BillResult> {
  const statements: BatchItem<'sqlite'>[] = [];
  const ledger = lines.map((l) => ({
    tenantId: ctx.tenant.id,
    subscriptionItemId: l.item.id,
    periodStart: iso(l.periodStart),
    kind: l.ledgerKind ?? l.kind,
    periodEnd: l.periodEnd ? iso(l.periodEnd) : null,
    invoiceId: 'skipped',
    createdAt: now.toISOString(),
  }));
  for (let i = 0; i < ledger.length; i += 14) statements.push(ctx.db.insert(billingLedger).values(ledger.slice(i, i + 14)));
  statements.push(...billingStateStatements(ctx, lines, now));
  try {
    await ctx.db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
  } catch (err) {
    if (isUniqueViolation(err, 'billing_ledger')) return { invoiceId: null, lines: 0, skipped: 'already_billed' };
    throw err;
  }
  return { invoiceId: null, lines: lines.length, skipped: null };
}

/** The items' last billed period and the item changes now accounted for. */
function billingStateStatements(ctx: ServiceContext, lines: BillingLine[], now: Date): BatchItem<'sqlite'>[] {
  const statements: BatchItem<'sqlite'>[] = [];
  const billedChanges = [...new Set(lines.flatMap((l) => l.changeIds ?? []))];
  if (billedChanges.length) {
    statements.push(
      ctx.db.update(itemChanges).set({ billedAt: now.toISOString() }).where(and(eq(itemChanges.tenantId, ctx.tenant.id), inArray(itemChanges.id, billedChanges))),
    );
  }
  const lastByItem = new Map<string, BillingLine>();
  for (const l of lines.filter((x) => !x.ledgerKind)) {
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
  return statements;
}

/** Writes a composed invoice with its ledger rows, billing state and events in one batch, then finalizes it. */
async function commitComposed(ctx: ServiceContext, composed: Composed, asOf: Date): Promise<BillResult> {
  if (composed.skipOnly) return commitSkipped(ctx, composed.lines, composed.now);
  const { row, resource, positions, lines, planned, appliedCoupons, approval, invoiceId, now, payer } = composed;
  const statements: BatchItem<'sqlite'>[] = [ctx.db.insert(invoices).values(row)];
  for (let i = 0; i < positions.length; i += 4) statements.push(ctx.db.insert(invoicePositions).values(positions.slice(i, i + 4)));
  // The ledger: a second attempt at the same (item, period start, kind) fails the whole batch.
  const ledger = lines.map((l) => ({
    tenantId: ctx.tenant.id,
    subscriptionItemId: l.item.id,
    periodStart: iso(l.periodStart),
    kind: l.ledgerKind ?? l.kind,
    periodEnd: l.periodEnd ? iso(l.periodEnd) : null,
    invoiceId,
    createdAt: now.toISOString(),
  }));
  for (let i = 0; i < ledger.length; i += 14) statements.push(ctx.db.insert(billingLedger).values(ledger.slice(i, i + 14)));
  statements.push(...billingStateStatements(ctx, lines, now));
  for (const id of appliedCoupons) {
    statements.push(
      ctx.db
        .update(appliedDiscounts)
        .set({ appliedIntervals: sql`${appliedDiscounts.appliedIntervals} + 1` })
        .where(and(eq(appliedDiscounts.tenantId, ctx.tenant.id), eq(appliedDiscounts.id, id))),
    );
  }
  for (const { agg, lines: own } of planned) {
    statements.push(
      ctx.db.update(subscriptions).set({ lastBillingAt: now.toISOString() }).where(and(eq(subscriptions.tenantId, ctx.tenant.id), eq(subscriptions.id, agg.row.id))),
      insertEvent(ctx.db, {
        tenantId: ctx.tenant.id,
        type: 'subscription.billed',
        resourceId: agg.row.id,
        data: { subscriptionId: agg.row.id, invoiceId, lines: own.length, asOf: iso(asOf) },
        now,
      }),
    );
  }
  statements.push(insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'invoice.created', resourceId: invoiceId, data: resource, now }));
  if (approval) statements.push(insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'invoice.requires_approval', resourceId: invoiceId, data: resource, now }));
  const draft = { row, positions, customer: payer };
  // The draft and its ledger rows go in with the numbering (one batch inside the TenantObject, see
  // the Numbering port); a draft awaiting approval is only written.
  try {
    if (approval) await ctx.db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
    else {
      const result = await ctx.numbering.finalize((await finalizationRequest(ctx, draft, null)).request, statements);
      if (!result.ok) throw new Error(`invoice ${invoiceId} was changed while it was being written`);
    }
  } catch (err) {
    if (isUniqueViolation(err, 'billing_ledger')) return { invoiceId: null, lines: 0, skipped: 'already_billed' };
    throw err;
  }
  return { invoiceId, lines: lines.length, skipped: null };
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
 * The subscription's next invoice as billing would compose it at its next billing date (usage as
 * measured so far). Nothing is stored.
 */
export async function estimatedInvoice(ctx: ServiceContext, subscriptionId: string) {
  const agg = await loadSubscription(ctx, subscriptionId);
  const next = renderSubscription(agg, ctx.now).nextBillingDate;
  const at = next ? new Date(next) : ctx.now;
  const composed = await composeInvoice({ ...ctx, now: at < ctx.now ? ctx.now : at }, subscriptionId, at < ctx.now ? ctx.now : at, null);
  return composed && !composed.skipOnly ? composed.resource : null;
}

/**
 * instant_metered usage is billed at once: every push not yet on an invoice becomes its own invoice
 * (one line, the pushed quantity priced by the item's price plan). The ledger key names the event,
 * so a push is billed exactly once however often this runs.
 */
export async function billInstantUsage(ctx: ServiceContext, subscriptionId: string, asOf: Date, runId: string | null) {
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
  let invoices = 0;
  for (const e of pending) {
    const planner: Planner = async (_ctx, agg, _asOf, prices) => {
      const item = agg.items.find((i) => i.id === e.itemId);
      const price = item && prices.get(item.pricePlanId);
      if (!item || !price) return [];
      const at = new Date(e.measuredAt);
      return [{ ...line(item, 'usage', at, at, e.quantity, price, null, item.name), ledgerKind: `instant:${e.eventId}` }];
    };
    const composed = await composeInvoice(ctx, subscriptionId, asOf, runId, planner);
    if (composed && (await commitComposed(ctx, composed, asOf)).invoiceId) invoices++;
  }
  return invoices;
}
