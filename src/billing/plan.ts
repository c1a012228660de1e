// The billing planner: what of a subscription is due at `asOf`, priced. Pure, in the manner of
// Kill Bill's InvoiceGenerator: it generates from preloaded input (the subscription, its price
// plans, its pending item changes, usage quantities); the caller does every read and write.
import { parseDuration } from './durations';
import { Dec, MAX_UNIT_PRICE_DECIMALS } from './money';
import { addDuration, periodAt, prorationFactor, type AddDurationOptions, type Proration } from './periods';
import { priceFor, type PricePlanPricing } from './pricing';

export type PricePlanType = 'recurring' | 'metered' | 'instant_metered' | 'one_time';

/** What the planner needs of a price plan. */
export interface PlanPrice {
  id: string;
  type: PricePlanType;
  pricing: PricePlanPricing;
  currencyCode: string;
  billingInterval: string | null;
  payInAdvance: boolean;
  proRata: boolean;
}

export interface PlanItem {
  id: string;
  productId: string;
  pricePlanId: string;
  type: 'item' | 'addon' | 'charge';
  status: 'active' | 'canceled' | 'pending' | 'terminated';
  quantity: string;
  name: string;
  billingStart: string | null;
  startDate: string | null;
  endDate: string | null;
  lastBilledTo: string | null;
  lastBilledAt: string | null;
}

export interface PlanSubscription {
  id: string;
  status: string;
  billingAnchor: string | null;
  pausedAt: string | null;
  billingResumeAt: string | null;
  cancellationDate: string | null;
  trialEndsOn: string | null;
  activatedAt: string | null;
  /** The customer's time zone: periods start at local midnight. */
  timeZone: string;
  /** The billing group's stepping rule (its day); null without a billing group. */
  billingGroup: AddDurationOptions | null;
  items: PlanItem[];
}

/** An applied item change (quantity or price plan) not yet on an invoice. */
export interface PendingChange {
  id: string;
  subscriptionItemId: string;
  effectiveAt: string;
  fromQuantity: string;
  toQuantity: string;
  fromPricePlanId: string;
  toPricePlanId: string;
}

/** A stretch of time whose usage of an item the planner needs (aggregated by the item's measurement). */
export interface UsageWindow {
  itemId: string;
  productId: string;
  start: Date;
  end: Date;
}

export const usageKey = (w: Pick<UsageWindow, 'itemId' | 'start' | 'end'>) => `${w.itemId}|${w.start.toISOString()}|${w.end.toISOString()}`;

export interface PlanInput {
  subscription: PlanSubscription;
  /** Every price plan the items and the pending changes name. */
  prices: ReadonlyMap<string, PlanPrice>;
  /** Applied, unbilled changes effective by `asOf`, oldest first. */
  changes: readonly PendingChange[];
  /** Aggregated usage per window (`usageKey`); a due window not in here is reported in `usageNeeded`. */
  usage: ReadonlyMap<string, string>;
  asOf: Date;
}

/**
 * One thing due: a period (or a one-time charge, or a push of instant usage) of an item, priced.
 * `kind: 'skipped'` is a period that a resume skipped: it is recorded so it is never billed, but
 * it puts nothing on an invoice.
 */
export interface PlannedLine {
  itemId: string;
  productId: string;
  kind: 'recurring' | 'usage' | 'charge' | 'skipped';
  /** The billing ledger's key part: the line's own kind, or `credit:…`/`charge:…`/`change:…`/`instant:…`. */
  ledgerKind: string;
  /** Whether the line moves the item's last billed period (mid-period credits and charges do not). */
  advancesBilling: boolean;
  periodStart: Date;
  periodEnd: Date | null;
  quantity: string;
  /** Exact amount before proration and discounts, in the price plan's currency; negative for a credit. */
  amount: string;
  /** The proration applied to `amount` when the period is partial. */
  factor: Proration | null;
  pricePlanId: string;
  currencyCode: string;
  description: string;
  /** Item changes this line accounts for; they are marked billed with the invoice. */
  changeIds: string[];
}

export interface SubscriptionPlan {
  lines: PlannedLine[];
  /** Usage windows that are due but missing from the input: read them, then plan again. */
  usageNeeded: UsageWindow[];
}

const LIVE = ['active', 'cancelled', 'paused'];
const iso = (d: Date) => d.toISOString();

/** A line before pricing: `sign` −1 marks the credit of a mid-period change. */
type Draft = Omit<PlannedLine, 'amount' | 'currencyCode'> & { price: PlanPrice; sign: 1 | -1 };

function draft(
  item: PlanItem,
  kind: PlannedLine['kind'],
  ledgerKind: string,
  start: Date,
  end: Date | null,
  quantity: string,
  price: PlanPrice,
  factor: Proration | null,
  description: string,
  extra: Partial<Pick<Draft, 'advancesBilling' | 'changeIds' | 'sign'>> = {},
): Draft {
  return {
    itemId: item.id,
    productId: item.productId,
    kind,
    ledgerKind,
    advancesBilling: true,
    periodStart: start,
    periodEnd: end,
    quantity,
    factor,
    pricePlanId: price.id,
    price,
    description,
    changeIds: [],
    sign: 1,
    ...extra,
  };
}

/**
 * Decides what of a subscription is due at `asOf`: recurring fees per period (in advance at the
 * period start, in arrears at its end), usage per period in arrears, one-time charges at their
 * start. Periods already billed (up to an item's `lastBilledTo`) are never planned again; partial
 * periods at a cancellation or item end are prorated by days when the price plan says so; a change
 * inside a period billed in advance credits the rest at the old price and charges it at the new.
 */
export function planSubscription(input: PlanInput): SubscriptionPlan {
  const { subscription: s, prices, asOf } = input;
  const drafts: Draft[] = [];
  const usageNeeded: UsageWindow[] = [];
  if (!s.billingAnchor || !LIVE.includes(s.status)) return { lines: [], usageNeeded };
  const tz = s.timeZone;
  const steps = s.billingGroup ?? {};
  const anchor = new Date(s.billingAnchor);
  // Nothing is billed from the moment a subscription pauses until it resumes.
  const pausedFrom = s.status === 'paused' && s.pausedAt ? new Date(s.pausedAt) : null;
  const skipUntil = s.billingResumeAt ? new Date(s.billingResumeAt) : null;

  for (const item of s.items) {
    if (item.status === 'pending') continue;
    const price = prices.get(item.pricePlanId);
    if (!price) continue;
    const itemStart = new Date(item.billingStart ?? item.startDate ?? s.billingAnchor);
    const ends = [item.endDate, s.cancellationDate].filter((x): x is string => x !== null).map((x) => new Date(x));
    const end = ends.length ? new Date(Math.min(...ends.map((d) => d.getTime()))) : null;

    // instant_metered usage is billed per push, each on its own invoice (planInstantUsage).
    if (price.type === 'instant_metered') continue;
    if (price.type === 'one_time') {
      const at = itemStart < anchor && item.type === 'item' ? anchor : itemStart;
      if (!item.lastBilledAt && at <= asOf && (!pausedFrom || at < pausedFrom)) {
        drafts.push(draft(item, 'charge', 'charge', at, null, item.quantity, price, null, item.name));
      }
      continue;
    }
    const interval = price.billingInterval ? parseDuration(price.billingInterval) : null;
    if (!interval) continue;
    const itemAnchor = itemStart > anchor ? itemStart : anchor;
    let cursor = item.lastBilledTo ? new Date(item.lastBilledTo) : itemAnchor;
    const usage = price.type === 'metered';
    const inAdvance = price.payInAdvance && !usage;
    // A billing group moves the anchor to its day: the time from activation (after any trial) up
    // to that day is a partial period, prorated by days when the price plan says so.
    const startedAt = new Date(s.trialEndsOn ?? s.activatedAt ?? s.billingAnchor);
    if (!item.lastBilledTo && s.billingGroup && startedAt < itemAnchor && itemStart <= anchor && !usage && price.proRata) {
      const full = { start: addDuration(itemAnchor, interval, -1, tz, steps), end: itemAnchor };
      const factor = prorationFactor(full, { start: startedAt, end: itemAnchor }, tz);
      const due = price.payInAdvance ? startedAt <= asOf : itemAnchor <= asOf;
      if (due && factor.usedDays > 0 && (!end || startedAt < end)) {
        drafts.push(draft(item, 'recurring', 'recurring', startedAt, itemAnchor, item.quantity, price, factor, item.name));
        cursor = itemAnchor;
      } else if (!due) {
        continue;
      }
    }
    const changes = input.changes.filter((c) => c.subscriptionItemId === item.id);
    if (inAdvance && item.lastBilledTo) {
      // A change inside a period billed in advance: credit the rest at the old price, charge it at the new.
      for (const c of changes.filter((x) => x.effectiveAt < item.lastBilledTo!)) {
        const at = new Date(c.effectiveAt);
        const p = periodAt(itemAnchor, interval, at, tz, steps);
        const factor = prorationFactor(p, { start: at, end: p.end }, tz);
        const from = prices.get(c.fromPricePlanId)!;
        const to = prices.get(c.toPricePlanId)!;
        const own = { advancesBilling: false, changeIds: [c.id] };
        if (factor.usedDays === 0) {
          drafts.push(draft(item, 'skipped', `change:${c.id}`, at, p.end, '0', to, null, item.name, own));
          continue;
        }
        drafts.push(draft(item, 'recurring', `credit:${c.id}`, at, p.end, c.fromQuantity, from, factor, `${item.name} (credit ${c.fromQuantity})`, { ...own, sign: -1 }));
        drafts.push(draft(item, 'recurring', `charge:${c.id}`, at, p.end, c.toQuantity, to, factor, `${item.name} (${c.toQuantity})`, own));
      }
    }
    for (let guard = 0; guard < 240; guard++) {
      const p = periodAt(itemAnchor, interval, cursor, tz, steps);
      const start = p.start < cursor ? cursor : p.start;
      if (end && start >= end) break;
      if (pausedFrom && start >= pausedFrom) break;
      const due = inAdvance ? start <= asOf : p.end <= asOf;
      if (!due) break;
      const stop = end && end < p.end ? end : p.end;
      const partial = start > p.start || stop < p.end;
      const factor = partial && price.proRata && !usage ? prorationFactor(p, { start, end: stop }, tz) : null;
      const inside = changes.filter((c) => c.effectiveAt > iso(start) && c.effectiveAt < iso(stop));
      if (skipUntil && p.end <= skipUntil) {
        // Periods missed while paused, skipped by a resume with a next billing date.
        drafts.push(draft(item, 'skipped', usage ? 'usage' : 'recurring', start, stop, '0', price, null, item.name));
      } else if (usage) {
        const window = { itemId: item.id, productId: item.productId, start, end: stop };
        const quantity = input.usage.get(usageKey(window));
        if (quantity === undefined) usageNeeded.push(window);
        drafts.push(draft(item, 'usage', 'usage', start, stop, quantity ?? '0', price, null, item.name));
      } else if (!inAdvance && inside.length) {
        // A period billed in arrears with changes inside: each stretch at the quantity and price it had.
        let from = start;
        let quantity = inside[0]!.fromQuantity;
        let plan = prices.get(inside[0]!.fromPricePlanId)!;
        for (const c of [...inside, null]) {
          const to = c ? new Date(c.effectiveAt) : stop;
          const f = prorationFactor(p, { start: from, end: to }, tz);
          if (f.usedDays > 0) drafts.push(draft(item, 'recurring', 'recurring', from, to, quantity, plan, f, `${item.name} (${quantity})`, { changeIds: inside.map((x) => x.id) }));
          if (c) {
            from = to;
            quantity = c.toQuantity;
            plan = prices.get(c.toPricePlanId)!;
          }
        }
      } else if (!partial || factor !== null || !price.proRata) {
        // A partial period without proRata is billed in full (fair billing off). Changes made before
        // this period (not inside a billed one) need no proration: it is billed at the new state.
        const settled = inAdvance ? changes.filter((c) => !item.lastBilledTo || c.effectiveAt >= item.lastBilledTo).map((c) => c.id) : [];
        drafts.push(draft(item, 'recurring', 'recurring', start, stop, item.quantity, price, factor, item.name, { changeIds: settled }));
      }
      cursor = stop;
      if (stop < p.end) break;
    }
  }
  return { lines: priceLines(drafts.filter((l) => !(l.factor && l.factor.usedDays === 0))), usageNeeded };
}

/** A push of instant_metered usage: billed at once, on its own invoice; the ledger key names the event. */
export function planInstantUsage(item: PlanItem, price: PlanPrice, event: { eventId: string; quantity: string; measuredAt: string }): PlannedLine[] {
  const at = new Date(event.measuredAt);
  return priceLines([draft(item, 'usage', `instant:${event.eventId}`, at, at, event.quantity, price, null, item.name, { advancesBilling: false })]);
}

/** The amount of a line at its full period, before proration (the factor is applied once, on the invoice). */
const prorated = (l: PlannedLine) => (l.factor ? new Dec(l.amount).times(l.factor.usedDays).div(l.factor.periodDays) : new Dec(l.amount));

/**
 * Prices the lines: each at its price plan (skipped periods at nothing); then percentage price
 * plans at their share of the subscription's other lines whose service period starts within theirs
 * (docs/decisions.md, percentage price plans). A percentage line is not prorated again: its base
 * already is.
 */
function priceLines(drafts: Draft[]): PlannedLine[] {
  const priced = drafts.map(({ price, sign, ...l }): PlannedLine & { percentage: boolean; sign: 1 | -1; pricing: PricePlanPricing } => {
    const percentage = price.pricing.calculationType === 'percentage';
    const amount = l.kind === 'skipped' || percentage ? '0' : priceFor(price.pricing, l.quantity).amount;
    return { ...l, amount: sign < 0 ? new Dec(amount).neg().toString() : amount, currencyCode: price.currencyCode, percentage, sign, pricing: price.pricing };
  });
  const bases = priced.filter((l) => !l.percentage && l.kind !== 'skipped');
  return priced.map(({ percentage, sign, pricing, ...l }) => {
    if (!percentage || l.kind === 'skipped') return l;
    const within = (b: PlannedLine) => l.periodEnd === null || (b.periodStart >= l.periodStart && b.periodStart < l.periodEnd);
    const base = Dec.max(bases.filter(within).reduce((sum, b) => sum.plus(prorated(b)), new Dec(0)), 0);
    // A prorated base does not end (141.8645161290…): the fee, a unit price, keeps 10 decimals (half-up).
    const exact = new Dec(priceFor(pricing, l.quantity, { baseAmount: base.toDecimalPlaces(MAX_UNIT_PRICE_DECIMALS).toString() }).amount);
    const amount = exact.toDecimalPlaces(MAX_UNIT_PRICE_DECIMALS, Dec.ROUND_HALF_UP);
    return { ...l, amount: (sign < 0 ? amount.neg() : amount).toString(), factor: null };
  });
}
