import { and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { parseDuration } from '../../billing/durations';
import { Dec, toDecimalString } from '../../billing/money';
import { billingGroupStepOptions, periodAt } from '../../billing/periods';
import { fetchPage } from '../../db/paging';
import { billInstantUsage } from '../billing/bill';
import { afterFinalization } from '../invoices/after-finalization';
import { billingGroups, customers, measurements, products, subscriptionItems, subscriptions, usageEvents, pricePlans } from '../../db/schema';
import { tenantRowsById } from '../../db/client';
import { insertJsonRows } from '../../db/insert';
import { ApiError, type Violation } from '../../http/errors';
import type { ServiceContext } from '../context';
import { unbillableAmount } from '../catalogue/price-plans';
import type { Page } from '../../http/pagination';
import type { CurrentMeasurementValue, MeasurementValueResource, UsageBatchResult } from '../../schemas/subscriptions';
import { logError } from '../../lib/log';

/** Event ids are remembered (and old events refused) for this long: a retry within it is counted once. */
export const USAGE_DEDUP_DAYS = 35;
export const USAGE_BATCH_LIMIT = 10_000;
const MICROS = 1_000_000n;
/** Aggregations that bill the number of events, whatever their quantities. */
const COUNTING = new Set(['count', 'count_unique']);

export interface UsageEventInput {
  id: string;
  subscriptionItem: string | null;
  customer: string | null;
  measurement: string | null;
  quantity: string;
  measuredAt: string | null;
  uniqueId: string | null;
}

type MeasurementRow = typeof measurements.$inferSelect;
type PricePlanRow = typeof pricePlans.$inferSelect;
interface Target {
  itemId: string;
  subscriptionId: string;
  measurement: MeasurementRow;
  price: PricePlanRow;
}

/** "1.5" → 1500000n; quantities have at most 6 decimals (checked by the schema). */
export function toMicros(quantity: string): bigint {
  const [whole, frac = ''] = quantity.split('.');
  return BigInt(whole!) * MICROS + BigInt((frac + '000000').slice(0, 6));
}

export function fromMicros(micros: bigint | number | string): string {
  return toDecimalString(new Dec(String(micros)).div(String(MICROS)));
}

/** Finds the billable item each event belongs to: by item id, or by customer and measurement code. */
async function resolveTargets(ctx: ServiceContext, events: UsageEventInput[]) {
  const t = ctx.tenant.id;
  const itemIds = [...new Set(events.map((e) => e.subscriptionItem).filter((x): x is string => x !== null))];
  const pairs = [...new Set(events.filter((e) => e.subscriptionItem === null).map((e) => JSON.stringify([e.customer, e.measurement])))];
  const live = sql`${subscriptions.status} IN ('active', 'paused') AND ${subscriptionItems.status} IN ('active', 'canceled')`;
  const base = () =>
    ctx.db
      .select({ itemId: subscriptionItems.id, subscriptionId: subscriptions.id, customerId: subscriptions.customerId, measurement: measurements, price: pricePlans })
      .from(subscriptionItems)
      .innerJoin(subscriptions, and(eq(subscriptions.tenantId, subscriptionItems.tenantId), eq(subscriptions.id, subscriptionItems.subscriptionId)))
      .innerJoin(products, and(eq(products.tenantId, subscriptionItems.tenantId), eq(products.id, subscriptionItems.productId)))
      .innerJoin(measurements, and(eq(measurements.tenantId, products.tenantId), eq(measurements.id, products.measurementId)))
      .innerJoin(pricePlans, and(eq(pricePlans.tenantId, subscriptionItems.tenantId), eq(pricePlans.id, subscriptionItems.pricePlanId)));
  // Not a db.batch: the join's duplicate column names would collide in batch results.
  const [byItem, byPair] = await Promise.all([
    base().where(and(tenantRowsById(subscriptionItems, t, itemIds), live)),
    base().where(
      and(
        eq(subscriptionItems.tenantId, t),
        live,
        sql`json_array(${subscriptions.customerId}, ${measurements.code}) IN (SELECT value FROM json_each(${JSON.stringify(pairs.map((p) => JSON.parse(p)))}))`,
      ),
    ),
  ]);
  const items = new Map<string, Target>(byItem.map((r) => [r.itemId, { itemId: r.itemId, subscriptionId: r.subscriptionId, measurement: r.measurement, price: r.price }]));
  const candidates = new Map<string, Target[]>();
  for (const r of byPair) {
    const key = JSON.stringify([r.customerId, r.measurement.code]);
    candidates.set(key, [...(candidates.get(key) ?? []), { itemId: r.itemId, subscriptionId: r.subscriptionId, measurement: r.measurement, price: r.price }]);
  }
  return { items, candidates };
}

export type IngestResult = UsageBatchResult;

/** `list` with one more violation of event `index` (a new list for the first). */
function violate(list: Violation[] | undefined, index: number, field: string, message: string, code: string): Violation[] {
  const v = { propertyPath: `events[${index}].${field}`, message, code };
  if (!list) return [v];
  list.push(v);
  return list;
}

/**
 * Stores a batch of usage events. Each event is checked on its own: good events are stored and bad
 * ones reported by index, so one bad event never loses the others (docs/decisions.md). An event id
 * counts once per tenant: repeats within the batch, across batches and from concurrent batches are
 * dropped by the UNIQUE (tenant, event id) key.
 */
export async function ingestUsage(ctx: ServiceContext, events: UsageEventInput[]): Promise<IngestResult> {
  const { items, candidates } = await resolveTargets(ctx, events);
  const now = ctx.now;
  const oldest = new Date(now.getTime() - USAGE_DEDUP_DAYS * 86_400_000).toISOString();
  const latest = new Date(now.getTime() + 5 * 60_000).toISOString();
  const rejected: IngestResult['rejected'] = [];
  // Pricing a quantity is most of the work per event, and a batch repeats its few quantities.
  const priced = new Map<string, string | null>();
  const rows: (typeof usageEvents.$inferInsert)[] = [];
  const instant = new Set<string>();
  const nowIso = now.toISOString();
  // A plain loop without closures per event: a batch has up to 10,000 of them.
  for (let index = 0; index < events.length; index++) {
    const e = events[index]!;
    let violations: Violation[] | undefined;
    let target: Target | undefined;
    if (e.subscriptionItem !== null) {
      target = items.get(e.subscriptionItem);
      if (!target) violations = violate(violations, index, 'subscriptionItem', 'No billable subscription item with this id.', 'not_found');
    } else {
      const found = candidates.get(JSON.stringify([e.customer, e.measurement])) ?? [];
      if (found.length === 0) violations = violate(violations, index, 'measurement', 'The customer has no billable subscription item with this measurement.', 'not_found');
      else if (found.length > 1) violations = violate(violations, index, 'subscriptionItem', `${found.length} items of the customer use this measurement; name the subscriptionItem.`, 'ambiguous');
      else target = found[0];
    }
    const measuredAt = e.measuredAt ? new Date(e.measuredAt).toISOString() : nowIso;
    if (measuredAt < oldest) violations = violate(violations, index, 'measuredAt', `Events older than ${USAGE_DEDUP_DAYS} days are refused.`, 'too_old');
    if (measuredAt > latest) violations = violate(violations, index, 'measuredAt', 'Must not lie in the future.', 'in_future');
    if (target?.measurement.aggregationType === 'count_unique' && !e.uniqueId) violations = violate(violations, index, 'uniqueId', 'A count_unique measurement needs uniqueId.', 'required');
    // An event whose quantity alone bills more than a line may: never billable (counts bill events, not quantities).
    if (target && !COUNTING.has(target.measurement.aggregationType)) {
      const key = `${target.price.id} ${e.quantity}`;
      let unbillable = priced.get(key);
      if (unbillable === undefined) priced.set(key, (unbillable = unbillableAmount(target.price, e.quantity)));
      if (unbillable) violations = violate(violations, index, 'quantity', unbillable, 'amount_too_large');
    }
    if (violations || !target) {
      rejected.push({ index, id: e.id, violations: violations ?? [] });
      continue;
    }
    if (target.measurement.type === 'instant_metered') instant.add(target.subscriptionId);
    // The tenant and the time of receipt are the batch's (shared by insertJsonRows below).
    rows.push({
      tenantId: ctx.tenant.id,
      eventId: e.id,
      subscriptionItemId: target.itemId,
      measurementId: target.measurement.id,
      quantity: e.quantity,
      quantityMicros: Number(toMicros(e.quantity)),
      uniqueId: e.uniqueId,
      measuredAt,
      receivedAt: nowIso,
    });
  }
  let accepted = 0;
  if (rows.length) {
    // One batch is atomic, a few statements however many events (the rows go in as JSON); an event
    // id already stored, or repeated earlier in the batch, is skipped, and each statement's count of
    // changed rows is what it stored.
    const statements = insertJsonRows(ctx.db, usageEvents, rows, { ignoreConflicts: true, shared: { tenantId: ctx.tenant.id, receivedAt: nowIso } });
    const results = (await ctx.db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as unknown as D1Result[];
    accepted = results.reduce((n, r) => n + r.meta.changes, 0);
  }
  // instant_metered usage is billed at once, each push on its own invoice. The events are stored
  // whatever happens to that: a push that cannot be billed now is left to the next run, which
  // shows why on the subscription (lastBillingError).
  const finalized: string[] = [];
  for (const subscriptionId of instant) {
    await billInstantUsage(ctx, subscriptionId, ctx.now, null)
      .then((billed) => finalized.push(...billed.finalized))
      .catch((err) => logError({ job: 'instant-usage', subscriptionId }, err));
  }
  await afterFinalization(ctx.env, ctx.tenant.id, finalized);
  return { received: events.length, accepted, duplicates: rows.length - accepted, rejected };
}

async function findItem(ctx: ServiceContext, itemId: string) {
  const row = await ctx.db
    .select({ item: subscriptionItems, sub: subscriptions, measurement: measurements, interval: pricePlans.billingInterval, timeZone: customers.timeZone })
    .from(subscriptionItems)
    .innerJoin(subscriptions, and(eq(subscriptions.tenantId, subscriptionItems.tenantId), eq(subscriptions.id, subscriptionItems.subscriptionId)))
    .innerJoin(customers, and(eq(customers.tenantId, subscriptions.tenantId), eq(customers.id, subscriptions.customerId)))
    .innerJoin(products, and(eq(products.tenantId, subscriptionItems.tenantId), eq(products.id, subscriptionItems.productId)))
    .innerJoin(measurements, and(eq(measurements.tenantId, products.tenantId), eq(measurements.id, products.measurementId)))
    .innerJoin(pricePlans, and(eq(pricePlans.tenantId, subscriptionItems.tenantId), eq(pricePlans.id, subscriptionItems.pricePlanId)))
    .where(and(eq(subscriptionItems.tenantId, ctx.tenant.id), eq(subscriptionItems.id, itemId)))
    .get();
  if (!row) throw ApiError.notFound('Subscription item');
  return row;
}

/**
 * The aggregated usage of an item over [from, to) by the measurement's aggregation: count,
 * count_unique, max, sum, last_value or average. `recurring` measurements are not reset: their last
 * value before `to` carries over from earlier periods.
 */
export async function aggregateUsage(ctx: ServiceContext, itemId: string, measurement: MeasurementRow, from: Date, to: Date): Promise<string> {
  const inItem = and(eq(usageEvents.tenantId, ctx.tenant.id), eq(usageEvents.subscriptionItemId, itemId), lt(usageEvents.measuredAt, to.toISOString()));
  const where = measurement.type === 'recurring' ? inItem : and(inItem, gte(usageEvents.measuredAt, from.toISOString()));
  if (measurement.aggregationType === 'last_value') {
    const last = await ctx.db
      .select({ quantity: usageEvents.quantity })
      .from(usageEvents)
      .where(where)
      .orderBy(desc(usageEvents.measuredAt), desc(usageEvents.receivedAt), desc(usageEvents.eventId))
      .limit(1)
      .get();
    return last?.quantity ?? '0';
  }
  const agg = await ctx.db
    .select({
      n: sql<number>`count(*)`,
      unique: sql<number>`count(DISTINCT ${usageEvents.uniqueId})`,
      max: sql<number | null>`max(${usageEvents.quantityMicros})`,
      sum: sql<string | null>`CAST(sum(${usageEvents.quantityMicros}) AS TEXT)`,
    })
    .from(usageEvents)
    .where(where)
    .get();
  switch (measurement.aggregationType) {
    case 'count':
      return String(agg?.n ?? 0);
    case 'count_unique':
      return String(agg?.unique ?? 0);
    case 'max':
      return agg?.max === null || agg?.max === undefined ? '0' : fromMicros(agg.max);
    case 'sum':
      return agg?.sum ? fromMicros(agg.sum) : '0';
    default: {
      // average: exact sum / count, at most 10 decimals (what pricing accepts), half-up.
      if (!agg?.n || !agg.sum) return '0';
      return toDecimalString(new Dec(agg.sum).div(String(MICROS)).div(agg.n).toDecimalPlaces(10));
    }
  }
}

/** The current billing period of an item and its aggregated usage so far. */
export async function currentUsage(ctx: ServiceContext, itemId: string): Promise<CurrentMeasurementValue> {
  const row = await findItem(ctx, itemId);
  const interval = row.interval ? parseDuration(row.interval) : null;
  const anchor = row.item.billingStart ?? row.sub.billingAnchor;
  let from = new Date(0);
  let to = ctx.now;
  if (interval && anchor) {
    const group = row.sub.billingGroupId
      ? await ctx.db.select().from(billingGroups).where(and(eq(billingGroups.tenantId, ctx.tenant.id), eq(billingGroups.id, row.sub.billingGroupId))).get()
      : undefined;
    const period = periodAt(new Date(anchor), interval, ctx.now, row.timeZone, group ? billingGroupStepOptions(group) : {});
    from = period.start;
    to = period.end;
  }
  const quantity = await aggregateUsage(ctx, itemId, row.measurement, from, to < ctx.now ? to : new Date(ctx.now.getTime() + 1));
  return {
    subscriptionItem: itemId,
    measurement: { id: row.measurement.id, code: row.measurement.code, aggregationType: row.measurement.aggregationType, type: row.measurement.type },
    quantity,
    periodStart: interval && anchor ? from.toISOString() : null,
    periodEnd: interval && anchor ? to.toISOString() : null,
    measuredAt: ctx.now.toISOString(),
  };
}

export async function listMeasurementValues(ctx: ServiceContext, itemId: string, page: Page) {
  await findItem(ctx, itemId);
  return fetchPage(
    ctx.db,
    usageEvents,
    and(eq(usageEvents.tenantId, ctx.tenant.id), eq(usageEvents.subscriptionItemId, itemId)),
    [desc(usageEvents.measuredAt), desc(usageEvents.eventId)],
    page,
    (e): MeasurementValueResource => ({ id: e.eventId, measurement: e.measurementId, quantity: e.quantity, uniqueId: e.uniqueId, measuredAt: e.measuredAt, receivedAt: e.receivedAt }),
  );
}
