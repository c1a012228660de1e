import { and, asc, eq, sql } from 'drizzle-orm';
import { parseDuration, type Duration } from '../../billing/durations';
import { billingGroupStepOptions, contractTerm, nextPossibleCancellationDates, periodAt } from '../../billing/periods';
import { inJson, tenantRowsById } from '../../db/client';
import { appliedDiscounts, billingGroups, cancellationReasons, coupons, customerAddresses, customers, paymentMethods, plans, pricePlans, products, subscriptionItems, subscriptions } from '../../db/schema';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import { renderCoupon } from '../catalogue/coupons';
import { partnerName, renderAddress } from '../customers/render';
import { type SubscriptionBillingErrorCode, type SubscriptionItemResource, type SubscriptionResource } from '../../schemas/subscriptions';
import { couponMatchesLine } from '../../billing/discounts';
import { renderPaymentMethod } from '../payments/methods-render';
import { embeddedCreditorId, shortPaymentMethod } from '../payments/methods-embed';
import { latestUsage, type MeasurementValue } from './item-usage';


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
  /** The items' latest measurement values, newest first, by item id (see `latestUsage`). */
  usage: ReadonlyMap<string, MeasurementValue[]>;
  /** The tenant's SEPA creditor id, shown in an embedded method's `sepaMandate`. */
  creditorId: string | null;
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
  const [itemRows, discountRows, creditorId, [customerRows, planRows, groupRows, methodRows, addressRows, reasonRows]] = await Promise.all([
    selectItems(ctx, ids),
    ctx.db
      .select({ d: appliedDiscounts, c: coupons })
      .from(appliedDiscounts)
      .innerJoin(coupons, and(eq(coupons.tenantId, appliedDiscounts.tenantId), eq(coupons.id, appliedDiscounts.couponId)))
      .where(and(eq(appliedDiscounts.tenantId, t), inJson(appliedDiscounts.subscriptionId, ids))),
    embeddedCreditorId(ctx),
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
  // The items are known only now: their usage is the page's one further read.
  const usage = await latestUsage(ctx, items.map((i) => i.id));
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
      usage,
      creditorId,
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

/** The subscription's contract periods: items inherit them (`inheritedPeriod`). */
function renderPeriods(r: SubscriptionRow, term: { index: number } | null) {
  return [
    {
      id: `${r.id}-p`,
      contractPeriodCount: term ? term.index + 1 : r.contractPeriodCount,
      contractPeriod: r.contractPeriod,
      cancellationPeriod: r.cancellationPeriod,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    },
  ];
}

function renderDiscounts(discounts: SubscriptionAggregate['discounts']) {
  return discounts.map(({ d, c }) => ({
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
  }));
}

function contractTermOf(r: SubscriptionRow, now: Date, tz: string) {
  const contractPeriod = duration(r.contractPeriod);
  const start = new Date(r.contractStart);
  return contractPeriod ? contractTerm(start, contractPeriod, now < start ? start : now, tz) : null;
}

export function renderItem(agg: SubscriptionAggregate, item: ItemAggregate, now: Date): SubscriptionItemResource {
  const sub = agg.row;
  const timeZone = customerTimeZone(agg);
  const values = agg.usage.get(item.id) ?? [];
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
    measurementValues: values,
    currentMeasurementValue: values[0] ?? null,
    // The coupons billing applies to this item's lines (the same rule: couponMatchesLine).
    appliedDiscounts: renderDiscounts(agg.discounts.filter(({ c }) => couponMatchesLine(c, { productId: item.productId, planId: sub.planId }))),
    periods: renderPeriods(sub, contractTermOf(sub, now, timeZone)),
    billing: itemBilling(sub, item, now, timeZone, agg.billingGroup),
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
export function renderSubscription(agg: SubscriptionAggregate, now: Date): SubscriptionResource {
  const r = agg.row;
  const tz = customerTimeZone(agg);
  const contractPeriod = duration(r.contractPeriod);
  const cancellationPeriod = duration(r.cancellationPeriod);
  const start = new Date(r.contractStart);
  const live = r.status === 'active' || r.status === 'paused';
  const term = contractTermOf(r, now, tz);
  const pending = live && r.cancellationDate !== null && r.cancellationDate > now.toISOString();
  const items = agg.items.map((i) => renderItem(agg, i, now));
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
    periods: renderPeriods(r, term),
    paymentMethod: agg.paymentMethod && shortPaymentMethod(renderPaymentMethod(agg.paymentMethod, agg.creditorId)),
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
    cancellationReasonText: r.cancellationReasonText,
    isCancellationPending: pending,
    nextPossibleCancellationDate:
      live && !pending
        ? nextPossibleCancellationDates({ contractStart: start, contractPeriod, cancellationPeriod, now, count: 3, timeZone: tz }).map((d) => d.toISOString())
        : [],
    appliedDiscounts: renderDiscounts(agg.discounts),
    partner: agg.partner && { id: agg.partner.id, name: partnerName(agg.partner), number: agg.partner.customerNumber, email: agg.partner.email },
    lastBillingError:
      r.lastBillingErrorAt && r.lastBillingErrorCode
        ? { at: r.lastBillingErrorAt, code: r.lastBillingErrorCode as SubscriptionBillingErrorCode, message: r.lastBillingErrorMessage ?? '' }
        : null,
    customFields: r.customFields,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export type { SubscriptionResource };
