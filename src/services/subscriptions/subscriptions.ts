import { and, asc, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { parseDuration, type Duration } from '../../billing/durations';
import { formatNumber } from '../../billing/numbering';
import { billingGroupStepOptions, contractTerm, nextPossibleCancellationDates, periodAt } from '../../billing/periods';
import { Dec } from '../../billing/money';
import { inJson, isGuardFailure, isUniqueViolation, outer, requirePreviousChange, tenantRowsById } from '../../db/client';
import {
  appliedDiscounts,
  billingGroups,
  cancellationReasons,
  coupons,
  customerAddresses,
  customers,
  paymentMethods,
  plans,
  pricePlans,
  products,
  subscriptionItems,
  subscriptions,
} from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import type { EventType } from '../../events/catalogue';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { collection, pageOffset, type Page } from '../../http/pagination';
import { newId } from '../../lib/ids';
import { checkCustomFieldValues, selectCustomFieldDefinitions } from '../customers/custom-fields';
import { renderCoupon } from '../catalogue/coupons';
import { renderAddress } from '../customers/customers';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { nextSequenceValue } from '../shared/sequences';

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type ItemRow = typeof subscriptionItems.$inferSelect;
export type SubscriptionStatus = SubscriptionRow['status'];

type CustomerRow = typeof customers.$inferSelect;
type PlanRow = typeof plans.$inferSelect;
type BillingGroupRow = typeof billingGroups.$inferSelect;
type PaymentMethodRow = typeof paymentMethods.$inferSelect;
type AddressRow = typeof customerAddresses.$inferSelect;
type ReasonRow = typeof cancellationReasons.$inferSelect;
type DiscountRow = typeof appliedDiscounts.$inferSelect;
type CouponRow = typeof coupons.$inferSelect;

/** A subscription with the records its representation embeds; rendering needs nothing else. */
export interface SubscriptionAggregate {
  row: SubscriptionRow;
  customer: CustomerRow;
  partner: CustomerRow | null;
  plan: PlanRow | null;
  billingGroup: BillingGroupRow | null;
  /** The subscription's own payment method, else the customer's default. */
  paymentMethod: PaymentMethodRow | null;
  invoiceAddress: AddressRow | null;
  reason: ReasonRow | null;
  items: ItemAggregate[];
  discounts: { d: DiscountRow; c: CouponRow }[];
}

export interface ItemAggregate extends ItemRow {
  billingInterval: string | null;
  pricePlanType: string;
  payInAdvance: boolean;
  productName: string;
}

function selectItems(ctx: ServiceContext, subscriptionIds: string[]) {
  return ctx.db
    .select({
      item: subscriptionItems,
      billingInterval: pricePlans.billingInterval,
      pricePlanType: pricePlans.type,
      payInAdvance: pricePlans.payInAdvance,
      productName: products.name,
    })
    .from(subscriptionItems)
    .innerJoin(pricePlans, and(eq(pricePlans.tenantId, subscriptionItems.tenantId), eq(pricePlans.id, subscriptionItems.pricePlanId)))
    .innerJoin(products, and(eq(products.tenantId, subscriptionItems.tenantId), eq(products.id, subscriptionItems.productId)))
    .where(and(eq(subscriptionItems.tenantId, ctx.tenant.id), inJson(subscriptionItems.subscriptionId, subscriptionIds)))
    .orderBy(asc(subscriptionItems.createdAt), asc(subscriptionItems.id));
}

const byKey = <T extends { id: string }>(rows: T[]) => new Map(rows.map((r) => [r.id, r]));

/** Loads everything the given subscriptions embed, in one batch of queries. */
export async function assembleSubscriptions(ctx: ServiceContext, rows: SubscriptionRow[]): Promise<SubscriptionAggregate[]> {
  if (rows.length === 0) return [];
  const t = ctx.tenant.id;
  const ids = rows.map((r) => r.id);
  const pick = (f: (r: SubscriptionRow) => string | null) => [...new Set(rows.map(f).filter((x): x is string => x !== null))];
  const customerIds = pick((r) => r.customerId);
  // Joined selects stay out of db.batch: inside a batch D1 returns rows keyed by column name, and
  // the duplicate names of a join (id, name, type…) would overwrite each other.
  const [itemRows, discountRows, [customerRows, planRows, groupRows, methodRows, addressRows, reasonRows]] = await Promise.all([
    selectItems(ctx, ids),
    ctx.db
      .select({ d: appliedDiscounts, c: coupons })
      .from(appliedDiscounts)
      .innerJoin(coupons, and(eq(coupons.tenantId, appliedDiscounts.tenantId), eq(coupons.id, appliedDiscounts.couponId)))
      .where(and(eq(appliedDiscounts.tenantId, t), inJson(appliedDiscounts.subscriptionId, ids))),
    ctx.db.batch([
    // The customers and their partners.
    ctx.db
      .select()
      .from(customers)
      // By primary key (see tenantRowsById): the customers, then their partners.
      .where(
        sql`+${customers.tenantId} = ${t} AND ${customers.id} IN (SELECT value FROM json_each(${JSON.stringify(customerIds)})
          UNION SELECT p.partner_id FROM customers p WHERE +p.tenant_id = ${t} AND ${inJson(sql.raw('p.id'), customerIds)} AND p.partner_id IS NOT NULL)`,
      ),
    ctx.db.select().from(plans).where(tenantRowsById(plans, t, pick((r) => r.planId))),
    ctx.db.select().from(billingGroups).where(tenantRowsById(billingGroups, t, pick((r) => r.billingGroupId))),
    ctx.db
      .select()
      .from(paymentMethods)
      // The chosen ones by primary key, and the customers' defaults.
      .where(
        sql`+${paymentMethods.tenantId} = ${t} AND ${paymentMethods.id} IN (SELECT value FROM json_each(${JSON.stringify(pick((r) => r.paymentMethodId))})
          UNION SELECT m.id FROM payment_methods m WHERE m.tenant_id = ${t} AND ${inJson(sql.raw('m.customer_id'), customerIds)} AND m.is_default = 1)`,
      ),
    ctx.db.select().from(customerAddresses).where(tenantRowsById(customerAddresses, t, pick((r) => r.invoiceAddressId))),
    ctx.db.select().from(cancellationReasons).where(tenantRowsById(cancellationReasons, t, pick((r) => r.cancellationReasonId))),
    ]),
  ]);
  const items: ItemAggregate[] = itemRows.map((x) => ({ ...x.item, billingInterval: x.billingInterval, pricePlanType: x.pricePlanType, payInAdvance: x.payInAdvance, productName: x.productName }));
  const customerMap = byKey(customerRows);
  const planMap = byKey(planRows);
  const groupMap = byKey(groupRows);
  const methodMap = byKey(methodRows);
  const addressMap = byKey(addressRows);
  const reasonMap = byKey(reasonRows);
  return rows.map((row) => {
    const customer = customerMap.get(row.customerId)!;
    return {
      row,
      customer,
      partner: customer.partnerId ? (customerMap.get(customer.partnerId) ?? null) : null,
      plan: row.planId ? (planMap.get(row.planId) ?? null) : null,
      billingGroup: row.billingGroupId ? (groupMap.get(row.billingGroupId) ?? null) : null,
      paymentMethod: row.paymentMethodId
        ? (methodMap.get(row.paymentMethodId) ?? null)
        : (methodRows.find((m) => m.customerId === row.customerId && m.isDefault) ?? null),
      invoiceAddress: row.invoiceAddressId ? (addressMap.get(row.invoiceAddressId) ?? null) : null,
      reason: row.cancellationReasonId ? (reasonMap.get(row.cancellationReasonId) ?? null) : null,
      items: items.filter((i) => i.subscriptionId === row.id),
      discounts: discountRows.filter((d) => d.d.subscriptionId === row.id),
    };
  });
}

export async function loadSubscription(ctx: ServiceContext, id: string): Promise<SubscriptionAggregate> {
  const row = await ctx.db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.tenantId, ctx.tenant.id), eq(subscriptions.id, id)))
    .get();
  if (!row) throw ApiError.notFound('Subscription');
  return (await assembleSubscriptions(ctx, [row]))[0]!;
}

export function customerTimeZone(agg: Pick<SubscriptionAggregate, 'customer'>): string {
  return agg.customer.timeZone;
}

function duration(text: string | null): Duration | null {
  return text ? parseDuration(text) : null;
}

/** The billing block of an item: the period the next invoice covers, from the subscription's anchor. */
function itemBilling(sub: SubscriptionRow, item: ItemAggregate, now: Date, timeZone: string, group: BillingGroupRow | null) {
  const steps = group ? billingGroupStepOptions(group) : {};
  const interval = duration(item.billingInterval);
  const billable = sub.status === 'active' && (item.status === 'active' || item.status === 'canceled');
  let nextBillingAt: string | null = null;
  if (billable && sub.billingAnchor) {
    const anchor = new Date(item.billingStart ?? sub.billingAnchor);
    if (!interval) {
      // One-time charges bill once, at their billing start.
      nextBillingAt = item.lastBilledAt ? null : anchor.toISOString();
    } else {
      const lastTo = item.lastBilledTo ? new Date(item.lastBilledTo) : null;
      // A resume that skipped the missed periods restarts billing at the period holding its date.
      const resumeAt = sub.billingResumeAt ? new Date(sub.billingResumeAt) : null;
      const base = resumeAt && (!lastTo || lastTo < resumeAt) ? resumeAt : null;
      // Billing skips the periods that end by that date, so the next one is the period holding it.
      const from = base ? periodAt(anchor, interval, base, timeZone, steps).start : (lastTo ?? (now < anchor ? anchor : periodAt(anchor, interval, now, timeZone, steps).start));
      const period = periodAt(anchor, interval, from, timeZone, steps);
      nextBillingAt = (item.payInAdvance ? period.start : period.end).toISOString();
    }
  }
  return {
    lastBilledAt: item.lastBilledAt,
    lastBilledFrom: item.lastBilledFrom,
    lastBilledTo: item.lastBilledTo,
    nextBillingAt,
    billingInterval: item.billingInterval,
  };
}

export function renderItem(sub: SubscriptionRow, item: ItemAggregate, now: Date, timeZone: string, group: BillingGroupRow | null = null) {
  return {
    id: item.id,
    subscriptionId: item.subscriptionId,
    parent: item.parentId,
    type: item.type,
    status: item.status,
    product: { id: item.productId, name: item.productName },
    pricePlan: { id: item.pricePlanId, type: item.pricePlanType, billingInterval: item.billingInterval, payInAdvance: item.payInAdvance },
    plan: sub.planId,
    quantity: item.quantity,
    name: item.name,
    description: item.description,
    furtherInformation: item.furtherInformation,
    startDate: item.startDate,
    endDate: item.endDate,
    activatedAt: item.activatedAt,
    inheritedPeriod: true,
    billing: itemBilling(sub, item, now, timeZone, group),
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
}

export function shortCustomer(c: CustomerRow) {
  return {
    id: c.id,
    customerNumber: c.customerNumber,
    timeZone: c.timeZone,
    firstName: c.firstName,
    lastName: c.lastName,
    currencyCode: c.currencyCode,
    companyName: c.companyName,
    ledgerId: c.ledgerId,
    status: c.status,
  };
}

/** The subscription as the API shows it, with derived contract and cancellation dates at `now`. */
export function renderSubscription(agg: SubscriptionAggregate, now: Date) {
  const r = agg.row;
  const tz = customerTimeZone(agg);
  const contractPeriod = duration(r.contractPeriod);
  const cancellationPeriod = duration(r.cancellationPeriod);
  const start = new Date(r.contractStart);
  const live = r.status === 'active' || r.status === 'paused';
  const term = contractPeriod ? contractTerm(start, contractPeriod, now < start ? start : now, tz) : null;
  const pending = live && r.cancellationDate !== null && r.cancellationDate > now.toISOString();
  const items = agg.items.map((i) => renderItem(r, i, now, tz, agg.billingGroup));
  const nextBilling = items.map((i) => i.billing.nextBillingAt).filter((d): d is string => d !== null).sort()[0] ?? null;
  return {
    id: r.id,
    externalId: r.externalId,
    number: r.number,
    name: r.name,
    status: r.status,
    customer: shortCustomer(agg.customer),
    plan: agg.plan && { id: agg.plan.id, code: agg.plan.code, name: agg.plan.name, status: agg.plan.status, changeBehaviour: agg.plan.changeBehaviour, changeApplyBehaviour: agg.plan.changeApplyBehaviour },
    items,
    billingGroup: agg.billingGroup && { id: agg.billingGroup.id, name: agg.billingGroup.name, type: agg.billingGroup.type, customDay: agg.billingGroup.customDay, customMonth: agg.billingGroup.customMonth },
    periods: [
      {
        id: `${r.id}-p`,
        contractPeriodCount: term ? term.index + 1 : r.contractPeriodCount,
        contractPeriod: r.contractPeriod,
        cancellationPeriod: r.cancellationPeriod,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
      },
    ],
    paymentMethod: agg.paymentMethod && {
      id: agg.paymentMethod.id,
      gatewayName: agg.paymentMethod.gatewayName,
      type: agg.paymentMethod.type,
      name: agg.paymentMethod.name,
      status: agg.paymentMethod.status,
      default: agg.paymentMethod.isDefault,
      enabled: agg.paymentMethod.enabled,
    },
    defaultPaymentMethod: r.paymentMethodId === null,
    invoiceAddress: agg.invoiceAddress && renderAddress(agg.invoiceAddress),
    defaultInvoiceAddress: r.invoiceAddressId === null,
    poNumber: r.poNumber,
    contractDetails: { contractStart: r.contractStart, contractEnd: term?.end?.toISOString() ?? null },
    trialDays: r.trialDays,
    trialEndsOn: r.trialEndsOn,
    activatedAt: r.activatedAt,
    pausedAt: r.pausedAt,
    nextBillingDate: live ? nextBilling : null,
    lastBillingAt: r.lastBillingAt,
    cancellationDate: r.cancellationDate,
    cancelledAt: r.cancelledAt,
    cancellationReason: agg.reason && { id: agg.reason.id, code: agg.reason.code, name: agg.reason.name, createdAt: agg.reason.createdAt, updatedAt: agg.reason.updatedAt },
    isCancellationPending: pending,
    nextPossibleCancellationDate:
      live && !pending
        ? nextPossibleCancellationDates({ contractStart: start, contractPeriod, cancellationPeriod, now, count: 3, timeZone: tz }).map((d) => d.toISOString())
        : [],
    appliedDiscounts: agg.discounts.map(({ d, c }) => ({
      id: d.id,
      coupon: { id: c.id, code: c.code },
      status: d.status,
      appliedIntervals: d.appliedIntervals,
      discount: {
        name: c.name,
        type: c.type,
        percentage: c.percentage,
        fixedAmount: renderCoupon(c).fixedAmount,
        frequency: c.frequency,
        frequencyInterval: c.frequencyInterval,
      },
    })),
    partner: agg.partner && { id: agg.partner.id, name: agg.partner.companyName ?? agg.partner.email, number: agg.partner.customerNumber, email: agg.partner.email },
    customFields: r.customFields,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export type SubscriptionResource = ReturnType<typeof renderSubscription>;

export interface SubscriptionListQuery extends Page {
  ids?: string[];
  customers?: string[];
  number?: string;
  statuses?: SubscriptionStatus[];
  paymentMethodTypes?: string[];
  productIds?: string[];
  partner?: string;
  order: { field: 'status' | 'createdAt' | 'activatedAt' | 'trialEndsOn' | 'contractEnd'; dir: 'asc' | 'desc' }[];
}

const ORDER_COLUMNS = {
  status: subscriptions.status,
  createdAt: subscriptions.createdAt,
  activatedAt: subscriptions.activatedAt,
  trialEndsOn: subscriptions.trialEndsOn,
};

/**
 * Sorting by the contract end: the end moves with every automatic renewal, so it is computed per
 * subscription at `now` (open-ended subscriptions never end: last ascending, first descending), then the page is cut.
 */
async function listByContractEnd(ctx: ServiceContext, q: SubscriptionListQuery, where: SQL, dir: 'asc' | 'desc') {
  const rows = await ctx.db
    .select({ id: subscriptions.id, start: subscriptions.contractStart, period: subscriptions.contractPeriod, createdAt: subscriptions.createdAt, timeZone: customers.timeZone })
    .from(subscriptions)
    .innerJoin(customers, and(eq(customers.tenantId, subscriptions.tenantId), eq(customers.id, subscriptions.customerId)))
    .where(where);
  const ends = rows.map((r) => {
    const period = r.period ? parseDuration(r.period) : null;
    const start = new Date(r.start);
    const end = period ? contractTerm(start, period, ctx.now < start ? start : ctx.now, r.timeZone).end : null;
    return { ...r, end: end?.toISOString() ?? null };
  });
  ends.sort((a, b) => {
    if (a.end !== b.end) {
      // No contract end means never ending: after every date ascending, before them descending.
      const cmp = a.end === null ? 1 : b.end === null ? -1 : a.end.localeCompare(b.end);
      return dir === 'asc' ? cmp : -cmp;
    }
    return b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);
  });
  const pageIds = ends.slice(pageOffset(q), pageOffset(q) + q.limit).map((r) => r.id);
  const pageRows = pageIds.length ? await ctx.db.select().from(subscriptions).where(tenantRowsById(subscriptions, ctx.tenant.id, pageIds)) : [];
  const ordered = pageIds.map((id) => pageRows.find((r) => r.id === id)!);
  const aggs = await assembleSubscriptions(ctx, ordered);
  return collection(
    aggs.map((a) => renderSubscription(a, ctx.now)),
    ends.length,
    q,
  );
}

export async function listSubscriptions(ctx: ServiceContext, q: SubscriptionListQuery) {
  const t = ctx.tenant.id;
  const filters: (SQL | undefined)[] = [eq(subscriptions.tenantId, t)];
  if (q.ids?.length) filters.push(inJson(subscriptions.id, q.ids));
  if (q.customers?.length) filters.push(inJson(subscriptions.customerId, q.customers));
  if (q.number) filters.push(eq(subscriptions.number, q.number));
  if (q.statuses?.length) filters.push(inJson(subscriptions.status, q.statuses));
  if (q.paymentMethodTypes?.length) {
    filters.push(sql`EXISTS (SELECT 1 FROM payment_methods m WHERE m.tenant_id = ${t} AND ${inJson(sql.raw('m.type'), q.paymentMethodTypes)}
      AND m.id = coalesce(${outer(subscriptions.paymentMethodId)},
        (SELECT d.id FROM payment_methods d WHERE d.tenant_id = ${t} AND d.customer_id = ${outer(subscriptions.customerId)} AND d.is_default = 1 LIMIT 1)))`);
  }
  if (q.productIds?.length) {
    filters.push(sql`EXISTS (SELECT 1 FROM subscription_items i WHERE i.tenant_id = ${t} AND i.subscription_id = ${outer(subscriptions.id)}
      AND ${inJson(sql.raw('i.product_id'), q.productIds)})`);
  }
  if (q.partner) {
    filters.push(sql`EXISTS (SELECT 1 FROM customers c WHERE c.tenant_id = ${t} AND c.id = ${outer(subscriptions.customerId)} AND c.partner_id = ${q.partner})`);
  }
  const where = and(...filters);
  const byEnd = q.order.find((o) => o.field === 'contractEnd');
  if (byEnd) return listByContractEnd(ctx, q, where!, byEnd.dir);
  const order: SQL[] = [];
  for (const o of q.order) order.push(o.dir === 'asc' ? asc(ORDER_COLUMNS[o.field as keyof typeof ORDER_COLUMNS]) : desc(ORDER_COLUMNS[o.field as keyof typeof ORDER_COLUMNS]));
  order.push(desc(subscriptions.createdAt), desc(subscriptions.id));
  const [[total], rows] = await ctx.db.batch([
    ctx.db.select({ n: count() }).from(subscriptions).where(where),
    ctx.db.select().from(subscriptions).where(where).orderBy(...order).limit(q.limit).offset(pageOffset(q)),
  ]);
  const aggs = await assembleSubscriptions(ctx, rows);
  return collection(
    aggs.map((a) => renderSubscription(a, ctx.now)),
    total?.n ?? 0,
    q,
  );
}

// ── Creation ──────────────────────────────────────────────────────────────────────────────────

export interface ItemInput {
  product: string;
  pricePlan: string;
  quantity: string;
}

export interface SubscriptionInput {
  customer: string;
  plan: string | null;
  items: ItemInput[];
  name: string | null;
  number: string | null;
  externalId: string | null;
  contractStart: string | null;
  contractPeriod: string | null;
  cancellationPeriod: string | null;
  billingGroup: string | null;
  trialDays: number;
  paymentMethod: string | null;
  invoiceAddress: string | null;
  poNumber: string | null;
  customFields: Record<string, unknown> | null;
  coupons: string[];
}

type PricePlanRow = typeof pricePlans.$inferSelect;
type ProductRow = typeof products.$inferSelect;

/**
 * Checks the products and price plans of new items: they exist, belong together, are sellable
 * (product not archived, price plan active, a custom price only for its customer) and share a currency.
 */
export async function checkItems(ctx: ServiceContext, customerId: string, items: ItemInput[], path: string, v: Violations, currency?: string) {
  const productIds = [...new Set(items.map((i) => i.product))];
  const priceIds = [...new Set(items.map((i) => i.pricePlan))];
  const [productRows, priceRows] = await ctx.db.batch([
    ctx.db.select().from(products).where(and(eq(products.tenantId, ctx.tenant.id), inArray(products.id, productIds.length ? productIds : ['']))),
    ctx.db.select().from(pricePlans).where(and(eq(pricePlans.tenantId, ctx.tenant.id), inArray(pricePlans.id, priceIds.length ? priceIds : ['']))),
  ]);
  const productMap = new Map<string, ProductRow>(productRows.map((p) => [p.id, p]));
  const priceMap = new Map<string, PricePlanRow>(priceRows.map((p) => [p.id, p]));
  const currencies = new Set<string>(currency ? [currency] : []);
  items.forEach((item, i) => {
    const at = `${path}[${i}]`;
    const product = productMap.get(item.product);
    const price = priceMap.get(item.pricePlan);
    if (!product) v.add(`${at}.product`, 'No such product.', 'not_found');
    else if (product.isArchived) v.add(`${at}.product`, 'The product is archived and cannot go into a new subscription.', 'archived');
    if (!price) v.add(`${at}.pricePlan`, 'No such price plan.', 'not_found');
    else {
      if (product && price.productId !== product.id) v.add(`${at}.pricePlan`, 'The price plan belongs to another product.', 'product_mismatch');
      if (price.status !== 'active') v.add(`${at}.pricePlan`, `The price plan is ${price.status}.`, 'not_active');
      if (price.customerId && price.customerId !== customerId) v.add(`${at}.pricePlan`, 'The price plan is reserved for another customer.', 'other_customer');
      currencies.add(price.currencyCode);
    }
  });
  if (currencies.size > 1) v.add(path, `All items must share one currency (found ${[...currencies].join(', ')}).`, 'mixed_currencies');
  return { products: productMap, prices: priceMap };
}

export function itemRow(
  ctx: ServiceContext,
  subscriptionId: string,
  input: ItemInput,
  product: ProductRow | undefined,
  price: PricePlanRow | undefined,
  extra: Partial<ItemRow> = {},
): ItemRow {
  const now = ctx.now.toISOString();
  return {
    id: newId(),
    tenantId: ctx.tenant.id,
    subscriptionId,
    parentId: null,
    productId: input.product,
    pricePlanId: input.pricePlan,
    type: price?.type === 'one_time' ? 'charge' : 'item',
    status: 'pending',
    quantity: input.quantity,
    name: product?.name ?? '',
    description: product?.description ?? null,
    furtherInformation: null,
    startDate: null,
    endDate: null,
    billingStart: null,
    lastBilledFrom: null,
    lastBilledTo: null,
    lastBilledAt: null,
    activatedAt: null,
    createdAt: now,
    updatedAt: now,
    ...extra,
  };
}

/** Checks the coupons named on a new subscription: enabled, not expired, within their limits and restrictions. */
async function checkCoupons(ctx: ServiceContext, input: SubscriptionInput, v: Violations) {
  if (input.coupons.length === 0) return [];
  const rows = await ctx.db
    .select({
      coupon: coupons,
      total: sql<number>`(SELECT count(*) FROM coupon_redemptions r WHERE r.tenant_id = ${outer(coupons.tenantId)} AND r.coupon_id = ${outer(coupons.id)})`,
      mine: sql<number>`(SELECT count(*) FROM coupon_redemptions r WHERE r.tenant_id = ${outer(coupons.tenantId)} AND r.coupon_id = ${outer(coupons.id)} AND r.customer_id = ${input.customer})`,
    })
    .from(coupons)
    .where(and(eq(coupons.tenantId, ctx.tenant.id), inArray(coupons.code, input.coupons)));
  const byCode = new Map(rows.map((r) => [r.coupon.code, r]));
  const productIds = input.items.map((i) => i.product);
  return input.coupons.flatMap((code, i) => {
    const at = `coupons[${i}]`;
    const r = byCode.get(code);
    if (!r) return v.add(at, 'No such coupon.', 'not_found'), [];
    const c = r.coupon;
    if (!c.isEnabled) v.add(at, 'The coupon is disabled.', 'disabled');
    else if (c.expiresAt && c.expiresAt <= ctx.now.toISOString()) v.add(at, 'The coupon has expired.', 'expired');
    else if (c.maxRedemptions !== null && r.total >= c.maxRedemptions) v.add(at, 'The coupon has been used up.', 'exhausted');
    else if (c.maxRedemptionsPerCustomer !== null && r.mine >= c.maxRedemptionsPerCustomer) v.add(at, 'The customer has used this coupon as often as allowed.', 'exhausted_for_customer');
    else if (c.limitedToPlans.length && (!input.plan || !c.limitedToPlans.includes(input.plan))) v.add(at, 'The coupon is not valid for this plan.', 'not_applicable');
    else if (input.plan && c.excludedFromPlans.includes(input.plan)) v.add(at, 'The coupon is not valid for this plan.', 'not_applicable');
    else if (c.limitedToProducts.length && !productIds.some((p) => c.limitedToProducts.includes(p))) v.add(at, 'The coupon applies to none of the products.', 'not_applicable');
    else if (c.excludedFromProducts.length && productIds.every((p) => c.excludedFromProducts.includes(p))) v.add(at, 'The coupon applies to none of the products.', 'not_applicable');
    else return [c];
    return [];
  });
}

export async function checkSubscriptionReferences(ctx: ServiceContext, input: SubscriptionInput, v: Violations) {
  const t = ctx.tenant.id;
  const [customerRows, planRows, groupRows, methodRows, addressRows, defs] = await ctx.db.batch([
    ctx.db.select().from(customers).where(and(eq(customers.tenantId, t), eq(customers.id, input.customer))),
    ctx.db.select().from(plans).where(and(eq(plans.tenantId, t), eq(plans.id, input.plan ?? ''))),
    ctx.db.select().from(billingGroups).where(and(eq(billingGroups.tenantId, t), eq(billingGroups.id, input.billingGroup ?? ''))),
    ctx.db
      .select()
      .from(paymentMethods)
      .where(and(eq(paymentMethods.tenantId, t), eq(paymentMethods.customerId, input.customer))),
    ctx.db
      .select()
      .from(customerAddresses)
      .where(and(eq(customerAddresses.tenantId, t), eq(customerAddresses.id, input.invoiceAddress ?? ''), eq(customerAddresses.customerId, input.customer))),
    selectCustomFieldDefinitions(ctx.db, t, 'subscription'),
  ]);
  const customer = customerRows[0];
  if (!customer) v.add('customer', 'No such customer.', 'not_found');
  else if (customer.status !== 'STATUS_ACTIVE') v.add('customer', `The customer is ${customer.status}.`, 'not_active');
  const plan = planRows[0] ?? null;
  if (input.plan && !plan) v.add('plan', 'No such plan.', 'not_found');
  else if (plan && plan.status !== 'active') v.add('plan', `Only active plans can be subscribed to; this one is ${plan.status}.`, 'not_active');
  const billingGroup = groupRows[0] ?? null;
  if (input.billingGroup && !billingGroup) v.add('billingGroup', 'No such billing group.', 'not_found');
  const paymentMethod = input.paymentMethod ? (methodRows.find((m) => m.id === input.paymentMethod) ?? null) : (methodRows.find((m) => m.isDefault) ?? null);
  if (input.paymentMethod && !paymentMethod) v.add('paymentMethod', 'No such payment method of this customer.', 'not_found');
  const invoiceAddress = addressRows[0] ?? null;
  if (input.invoiceAddress && !invoiceAddress) v.add('invoiceAddress', 'No such address of this customer.', 'not_found');
  checkCustomFieldValues(defs, input.customFields, v);
  const partner = customer?.partnerId
    ? ((await ctx.db.select().from(customers).where(and(eq(customers.tenantId, t), eq(customers.id, customer.partnerId))).get()) ?? null)
    : null;
  return { customer, partner, plan, billingGroup, paymentMethod, invoiceAddress };
}

export async function createSubscription(ctx: ServiceContext, input: SubscriptionInput) {
  const v = new Violations();
  const refs = await checkSubscriptionReferences(ctx, input, v);
  if (input.items.length === 0) v.add('items', 'A subscription needs at least one item.', 'required');
  const catalogue = await checkItems(ctx, input.customer, input.items, 'items', v);
  const couponRows = await checkCoupons(ctx, input, v);
  v.throwIfAny();

  const id = newId();
  const now = ctx.now.toISOString();
  const number =
    input.number ??
    formatNumber('S-{number:8}', { number: await nextSequenceValue(ctx.db, ctx.tenant.id, 'subscription', 1), date: ctx.now, timeZone: ctx.tenant.timeZone });
  const plan = refs.plan;
  const row: SubscriptionRow = {
    id,
    tenantId: ctx.tenant.id,
    number,
    externalId: input.externalId,
    name: input.name ?? plan?.name ?? catalogue.products.get(input.items[0]!.product)?.name ?? number,
    customerId: refs.customer!.id,
    planId: plan?.id ?? null,
    status: 'draft',
    billingGroupId: input.billingGroup,
    paymentMethodId: input.paymentMethod,
    invoiceAddressId: input.invoiceAddress,
    poNumber: input.poNumber,
    contractStart: input.contractStart ?? now,
    contractPeriod: input.contractPeriod ?? plan?.contractPeriod ?? null,
    cancellationPeriod: input.cancellationPeriod ?? plan?.cancellationPeriod ?? null,
    contractPeriodCount: 1,
    billingAnchor: null,
    billingResumeAt: null,
    trialDays: input.trialDays,
    trialEndsOn: null,
    trialExpiredAt: null,
    activatedAt: null,
    pausedAt: null,
    lastBillingAt: null,
    cancellationDate: null,
    cancelledAt: null,
    cancellationReasonId: null,
    terminatedAt: null,
    customFields: input.customFields,
    createdAt: now,
    updatedAt: now,
  };
  const items = input.items.map((i) => itemRow(ctx, id, i, catalogue.products.get(i.product), catalogue.prices.get(i.pricePlan)));
  const discounts = couponRows.map((c) => ({
    d: { id: newId(), tenantId: ctx.tenant.id, subscriptionId: id, couponId: c.id, status: 'active' as const, appliedIntervals: 0, createdAt: now },
    c,
  }));
  const agg: SubscriptionAggregate = {
    row,
    customer: refs.customer!,
    partner: refs.partner,
    plan,
    billingGroup: refs.billingGroup,
    paymentMethod: refs.paymentMethod,
    invoiceAddress: refs.invoiceAddress,
    reason: null,
    items: items.map((i) => withPrice(i, catalogue)),
    discounts,
  };
  const resource = renderSubscription(agg, ctx.now);
  const statements: BatchItem<'sqlite'>[] = [
    ctx.db.insert(subscriptions).values(row),
    ...insertItems(ctx, items),
    insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'subscription.created', resourceId: id, data: resource, now: ctx.now }),
  ];
  if (discounts.length) statements.push(ctx.db.insert(appliedDiscounts).values(discounts.map((d) => d.d)));
  try {
    await ctx.db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
  } catch (err) {
    if (isUniqueViolation(err, 'number')) throw ApiError.violation('number', 'Another subscription already has this number.', 'not_unique');
    throw err;
  }
  return resource;
}

/** Inserts item rows in chunks: 22 columns a row, so 4 rows a statement stay under D1's 100 bound parameters. */
export function insertItems(ctx: ServiceContext, rows: ItemRow[]): BatchItem<'sqlite'>[] {
  const out: BatchItem<'sqlite'>[] = [];
  for (let i = 0; i < rows.length; i += 4) out.push(ctx.db.insert(subscriptionItems).values(rows.slice(i, i + 4)));
  return out;
}

/** An item row with the price plan facts its representation shows. */
export function withPrice(item: ItemRow, catalogue: { products: Map<string, ProductRow>; prices: Map<string, PricePlanRow> }): ItemAggregate {
  const price = catalogue.prices.get(item.pricePlanId);
  return {
    ...item,
    billingInterval: price?.billingInterval ?? null,
    pricePlanType: price?.type ?? 'recurring',
    payInAdvance: price?.payInAdvance ?? true,
    productName: catalogue.products.get(item.productId)?.name ?? item.name,
  };
}

/**
 * Writes a change of a subscription (its row, and any accompanying statements) with its event in one
 * batch. The update is guarded by the `updatedAt` that was read, so a concurrent change makes this
 * one fail with 409 instead of overwriting it.
 */
export async function commitSubscriptionChange(
  ctx: ServiceContext,
  before: SubscriptionAggregate,
  changes: Partial<SubscriptionRow>,
  eventType: EventType,
  options: { statements?: BatchItem<'sqlite'>[]; items?: ItemAggregate[]; extraEvents?: { type: EventType; data: unknown }[]; after?: Partial<SubscriptionAggregate> } = {},
) {
  const nowIso = ctx.now.toISOString();
  const updatedAt = nowIso > before.row.updatedAt ? nowIso : new Date(new Date(before.row.updatedAt).getTime() + 1).toISOString();
  const row: SubscriptionRow = { ...before.row, ...changes, updatedAt };
  // Items this change touched carry its time, as their stored rows do.
  const items = (options.items ?? before.items).map((i) => {
    const old = before.items.find((b) => b.id === i.id);
    return !old || JSON.stringify(old) !== JSON.stringify(i) ? { ...i, updatedAt: nowIso } : i;
  });
  const agg: SubscriptionAggregate = { ...before, ...options.after, row, items };
  const resource = renderSubscription(agg, ctx.now);
  const { id: _id, tenantId: _t, createdAt: _c, ...set } = row;
  try {
    await ctx.db.batch([
      ctx.db
        .update(subscriptions)
        .set(set)
        .where(and(eq(subscriptions.tenantId, ctx.tenant.id), eq(subscriptions.id, row.id), eq(subscriptions.updatedAt, before.row.updatedAt))),
      requirePreviousChange(ctx.db),
      ...(options.statements ?? []),
      insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: eventType, resourceId: row.id, data: resource, now: ctx.now }),
      ...(options.extraEvents ?? []).map((e) => insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: e.type, resourceId: row.id, data: e.data, now: ctx.now })),
    ]);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.conflict('The subscription was changed concurrently; reload and retry.', 'concurrent-update');
    throw err;
  }
  return { resource, agg };
}

export interface FromPlanInput {
  customer: string;
  planCode: string;
  planItemSelections: { product: string; pricePlan: string | null; quantity: string }[];
  name: string | null;
  number: string | null;
  paymentMethod: string | null;
  customFields: Record<string, unknown> | null;
  trialDays: number;
  coupons: string[];
}

/**
 * A subscription from a plan: the plan's items as they are, plus the add-ons chosen in
 * `planItemSelections` within their min/max quantities (add-ons with a minimum are always included).
 */
export async function createSubscriptionFromPlan(ctx: ServiceContext, input: FromPlanInput) {
  const plan = await ctx.db
    .select()
    .from(plans)
    .where(and(eq(plans.tenantId, ctx.tenant.id), eq(plans.code, input.planCode)))
    .get();
  const v = new Violations();
  if (!plan) throw ApiError.violation('planCode', 'No plan with this code.', 'not_found');
  if (plan.status !== 'active') throw ApiError.violation('planCode', `Only active plans can be subscribed to; this one is ${plan.status}.`, 'not_active');
  const items: ItemInput[] = plan.items.map((i) => ({ product: i.product, pricePlan: i.pricePlan, quantity: i.quantity }));
  const chosen = new Set<string>();
  input.planItemSelections.forEach((sel, i) => {
    const addon = plan.addons.find((a) => a.product === sel.product && (sel.pricePlan === null || a.pricePlan === sel.pricePlan));
    if (!addon) return v.add(`planItemSelections[${i}].product`, 'Not an add-on of this plan.', 'not_in_plan');
    if (chosen.has(addon.product)) return v.add(`planItemSelections[${i}].product`, 'Chosen more than once.', 'duplicate');
    chosen.add(addon.product);
    const q = new Dec(sel.quantity);
    if (q.lt(addon.minQuantity) || (addon.maxQuantity !== null && q.gt(addon.maxQuantity))) {
      v.add(`planItemSelections[${i}].quantity`, `Must be between ${addon.minQuantity} and ${addon.maxQuantity ?? 'unlimited'}.`, 'out_of_range');
    }
    items.push({ product: addon.product, pricePlan: addon.pricePlan, quantity: sel.quantity });
  });
  for (const addon of plan.addons) {
    if (!chosen.has(addon.product) && new Dec(addon.minQuantity).gt(0)) items.push({ product: addon.product, pricePlan: addon.pricePlan, quantity: addon.minQuantity });
  }
  v.throwIfAny();
  return createSubscription(ctx, {
    customer: input.customer,
    plan: plan.id,
    items,
    name: input.name,
    number: input.number,
    externalId: null,
    contractStart: null,
    contractPeriod: null,
    cancellationPeriod: null,
    billingGroup: null,
    trialDays: input.trialDays,
    paymentMethod: input.paymentMethod,
    invoiceAddress: null,
    poNumber: null,
    customFields: input.customFields,
    coupons: input.coupons,
  });
}

/**
 * PUT on a subscription. A draft takes every field (its items are replaced); afterwards only the
 * descriptive fields change here, and anything else must go through its operation (409).
 */
export async function updateSubscription(ctx: ServiceContext, id: string, input: SubscriptionInput) {
  const before = await loadSubscription(ctx, id);
  const r = before.row;
  const v = new Violations();
  const defs = await selectCustomFieldDefinitions(ctx.db, ctx.tenant.id, 'subscription');
  checkCustomFieldValues(defs, input.customFields, v);
  const descriptive = { name: input.name ?? r.name, externalId: input.externalId, poNumber: input.poNumber, customFields: input.customFields };
  if (r.status !== 'draft') {
    const sameItems =
      JSON.stringify(input.items.map((i) => [i.product, i.pricePlan, new Dec(i.quantity).toString()])) ===
      JSON.stringify(before.items.filter((i) => i.type === 'item').map((i) => [i.productId, i.pricePlanId, new Dec(i.quantity).toString()]));
    const fixed: [string, unknown, unknown][] = [
      ['customer', input.customer, r.customerId],
      ['plan', input.plan, r.planId],
      ['billingGroup', input.billingGroup, r.billingGroupId],
      ['trialDays', input.trialDays, r.trialDays],
      ['periods.contractPeriod', input.contractPeriod ?? r.contractPeriod, r.contractPeriod],
      ['periods.cancellationPeriod', input.cancellationPeriod ?? r.cancellationPeriod, r.cancellationPeriod],
      ['paymentMethod', input.paymentMethod, r.paymentMethodId],
      ['invoiceAddress', input.invoiceAddress, r.invoiceAddressId],
      ['number', input.number ?? r.number, r.number],
      ['contractDetails.contractStart', input.contractStart ?? r.contractStart, r.contractStart],
    ];
    const changed = fixed.filter(([, a, b]) => a !== b).map(([f]) => f);
    if (!sameItems) changed.push('items');
    if (input.coupons.length) changed.push('coupons');
    if (changed.length) {
      throw ApiError.conflict(
        `A ${r.status} subscription changes ${changed.join(', ')} through its operations (activate, cancel, products, payment-method, invoice-address, subscription items), not PUT.`,
        'invalid-transition',
      );
    }
    v.throwIfAny();
    return (await commitSubscriptionChange(ctx, before, descriptive, 'subscription.updated')).resource;
  }
  const refs = await checkSubscriptionReferences(ctx, input, v);
  const catalogue = await checkItems(ctx, input.customer, input.items, 'items', v);
  if (input.coupons.length) v.add('coupons', 'Coupons are given when the subscription is created.', 'not_allowed');
  v.throwIfAny();
  const items = input.items.map((i) => itemRow(ctx, id, i, catalogue.products.get(i.product), catalogue.prices.get(i.pricePlan)));
  const changes: Partial<SubscriptionRow> = {
    ...descriptive,
    number: input.number ?? r.number,
    customerId: input.customer,
    planId: input.plan,
    billingGroupId: input.billingGroup,
    paymentMethodId: input.paymentMethod,
    invoiceAddressId: input.invoiceAddress,
    contractStart: input.contractStart ?? r.contractStart,
    contractPeriod: input.contractPeriod ?? refs.plan?.contractPeriod ?? null,
    cancellationPeriod: input.cancellationPeriod ?? refs.plan?.cancellationPeriod ?? null,
    trialDays: input.trialDays,
  };
  try {
    return (
      await commitSubscriptionChange(ctx, before, changes, 'subscription.updated', {
        items: items.map((i) => withPrice(i, catalogue)),
        statements: [
          ctx.db.delete(subscriptionItems).where(and(eq(subscriptionItems.tenantId, ctx.tenant.id), eq(subscriptionItems.subscriptionId, id))),
          ...insertItems(ctx, items),
        ],
        after: {
          customer: refs.customer ?? before.customer,
          partner: refs.partner,
          plan: refs.plan,
          billingGroup: refs.billingGroup,
          paymentMethod: refs.paymentMethod,
          invoiceAddress: refs.invoiceAddress,
        },
      })
    ).resource;
  } catch (err) {
    if (isUniqueViolation(err, 'number')) throw ApiError.violation('number', 'Another subscription already has this number.', 'not_unique');
    throw err;
  }
}
