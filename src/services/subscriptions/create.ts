import { and, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { formatNumber } from '../../billing/numbering';
import { isGuardFailure, isUniqueViolation, outer, requireCondition, runBatch } from '../../db/client';
import { insertRows } from '../../db/insert';
import { appliedDiscounts, billingGroups, coupons, customerAddresses, customers, paymentMethods, plans, pricePlans, products, subscriptionItems, subscriptions } from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { embeddedCreditorId } from '../payments/methods-embed';
import { newId } from '../../lib/ids';
import { checkCustomFieldValues, selectCustomFieldDefinitions } from '../customers/custom-fields';
import { addressExists, customerExists } from '../customers/guards';
import { documentAmountLimit } from '../../billing/money';
import { periodTotal } from '../catalogue/price-plans';
import { nextSequenceValue } from '../common/sequences';
import { unbillableAmount } from '../catalogue/price-plans';
import { type ItemAggregate, type ItemRow, type SubscriptionAggregate, type SubscriptionRow, renderSubscription } from './aggregate';

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
  let lineTooLarge = false;
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
      const unbillable = unbillableAmount(price, item.quantity);
      if (unbillable) {
        v.add(`${at}.quantity`, unbillable, 'amount_too_large');
        lineTooLarge = true;
      }
      currencies.add(price.currencyCode);
    }
  });
  if (currencies.size > 1) v.add(path, `All items must share one currency (found ${[...currencies].join(', ')}).`, 'mixed_currencies');
  // Items that each fit a line can still add up beyond one invoice (docs/decisions.md, amount bounds).
  else if (!lineTooLarge) {
    const total = periodTotal(items.map((i) => ({ price: priceMap.get(i.pricePlan), quantity: i.quantity })));
    const onlyCurrency = [...currencies][0];
    // Half a document: the net of one period, with any tax up to 100 %, still fits one invoice.
    const limit = onlyCurrency ? documentAmountLimit(onlyCurrency).div(2) : null;
    if (total && onlyCurrency && limit && total.gt(limit)) {
      v.add(path, `The items bill ${total.toString()} ${onlyCurrency} a period together, more than one invoice may hold with its tax (${limit.toString()} ${onlyCurrency}).`, 'amount_too_large');
    }
  }
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
export async function checkCoupons(ctx: ServiceContext, input: SubscriptionInput, v: Violations) {
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

/**
 * The references of a subscription's fields. `prospect`: a subscription an offer to a prospect
 * will start once there is a customer (docs/decisions.md, Offers), which names no customer yet and
 * therefore no payment method or invoice address of one.
 */
export async function checkSubscriptionReferences(ctx: ServiceContext, input: SubscriptionInput, v: Violations, options: { prospect?: boolean } = {}) {
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
  if (options.prospect) {
    if (input.paymentMethod) v.add('paymentMethod', 'A subscription for a prospect has no payment method yet.', 'not_allowed');
    if (input.invoiceAddress) v.add('invoiceAddress', 'A subscription for a prospect has no invoice address yet.', 'not_allowed');
  } else if (!customer) v.add('customer', 'No such customer.', 'not_found');
  else if (customer.status !== 'STATUS_ACTIVE') v.add('customer', `The customer is ${customer.status}.`, 'not_active');
  const plan = planRows[0] ?? null;
  if (input.plan && !plan) v.add('plan', 'No such plan.', 'not_found');
  else if (plan && plan.status !== 'active') v.add('plan', `Only active plans can be subscribed to; this one is ${plan.status}.`, 'not_active');
  const billingGroup = groupRows[0] ?? null;
  if (input.billingGroup && !billingGroup) v.add('billingGroup', 'No such billing group.', 'not_found');
  const paymentMethod = input.paymentMethod ? (methodRows.find((m) => m.id === input.paymentMethod) ?? null) : (methodRows.find((m) => m.isDefault) ?? null);
  if (input.paymentMethod && !paymentMethod && !options.prospect) v.add('paymentMethod', 'No such payment method of this customer.', 'not_found');
  const invoiceAddress = addressRows[0] ?? null;
  if (input.invoiceAddress && !invoiceAddress && !options.prospect) v.add('invoiceAddress', 'No such address of this customer.', 'not_found');
  checkCustomFieldValues(defs, input.customFields, v);
  const partner = customer?.partnerId
    ? ((await ctx.db.select().from(customers).where(and(eq(customers.tenantId, t), eq(customers.id, customer.partnerId))).get()) ?? null)
    : null;
  return { customer, partner, plan, billingGroup, paymentMethod, invoiceAddress };
}

/** Every rule a new subscription's fields must meet, reported together in `v`; what they name, for `newSubscription`. */
export async function checkNewSubscription(ctx: ServiceContext, input: SubscriptionInput, v: Violations, options: { prospect?: boolean } = {}) {
  const refs = await checkSubscriptionReferences(ctx, input, v, options);
  if (input.items.length === 0) v.add('items', 'A subscription needs at least one item.', 'required');
  const catalogue = await checkItems(ctx, input.customer, input.items, 'items', v);
  const couponRows = await checkCoupons(ctx, input, v);
  // What an embedded SEPA method's mandate shows (read once per context).
  return { refs, catalogue, couponRows, creditorId: await embeddedCreditorId(ctx) };
}

export async function createSubscription(ctx: ServiceContext, input: SubscriptionInput) {
  const v = new Violations();
  const checked = await checkNewSubscription(ctx, input, v);
  v.throwIfAny();
  const made = await newSubscription(ctx, input, checked, 'draft');
  const { row } = made;
  const statements: BatchItem<'sqlite'>[] = [
    ...made.statements,
    // A customer (or its invoice address) deleted meanwhile must not be left with a subscription
    // pointing at it (their deletes check the other way).
    requireCondition(ctx.db, customerExists(ctx.tenant.id, row.customerId)),
    ...(row.invoiceAddressId ? [requireCondition(ctx.db, addressExists(ctx.tenant.id, row.customerId, row.invoiceAddressId))] : []),
  ];
  try {
    await runBatch(ctx.db, statements);
  } catch (err) {
    if (isUniqueViolation(err, 'number')) throw ApiError.violation('number', 'Another subscription already has this number.', 'not_unique');
    if (!isGuardFailure(err)) throw err;
    // Which reference went away meanwhile: the batch wrote nothing, so read what is there now.
    const customer = await ctx.db.get<{ ok: number }>(sql`SELECT CASE WHEN ${customerExists(ctx.tenant.id, row.customerId)} THEN 1 ELSE 0 END AS ok`);
    if (!customer?.ok) throw ApiError.violation('customer', 'No such customer.', 'not_found');
    throw ApiError.violation('invoiceAddress', 'No such address of this customer.', 'not_found');
  }
  return made.resource;
}

/**
 * A new subscription as it will be written (nothing is stored): its row, items and applied
 * discounts for an input that passed `checkNewSubscription`. `customer` is its customer's row, or
 * the stand-in an offer to a prospect is priced for (docs/decisions.md, Offers).
 */
export function subscriptionAggregate(
  ctx: ServiceContext,
  input: SubscriptionInput,
  checked: Awaited<ReturnType<typeof checkNewSubscription>>,
  status: 'draft' | 'offer',
  number: string,
  customer: SubscriptionAggregate['customer'],
): SubscriptionAggregate {
  const { refs, catalogue, couponRows } = checked;
  const id = newId();
  const now = ctx.now.toISOString();
  const plan = refs.plan;
  const row: SubscriptionRow = {
    id,
    tenantId: ctx.tenant.id,
    number,
    externalId: input.externalId,
    name: input.name ?? plan?.name ?? catalogue.products.get(input.items[0]!.product)?.name ?? number,
    customerId: customer.id,
    planId: plan?.id ?? null,
    status,
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
    cancellationReasonText: null,
    terminatedAt: null,
    lastBillingErrorAt: null,
    lastBillingErrorCode: null,
    lastBillingErrorMessage: null,
    customFields: input.customFields,
    createdAt: now,
    updatedAt: now,
  };
  const items = input.items.map((i) => itemRow(ctx, id, i, catalogue.products.get(i.product), catalogue.prices.get(i.pricePlan)));
  const discounts = couponRows.map((c) => ({
    d: { id: newId(), tenantId: ctx.tenant.id, subscriptionId: id, couponId: c.id, status: 'active' as const, appliedIntervals: 0, createdAt: now },
    c,
  }));
  return {
    row,
    customer,
    partner: refs.partner,
    plan,
    billingGroup: refs.billingGroup,
    paymentMethod: refs.paymentMethod,
    invoiceAddress: refs.invoiceAddress,
    reason: null,
    items: items.map((i) => withPrice(i, catalogue)),
    discounts,
    // A new subscription has no usage yet.
    usage: new Map(),
    creditorId: checked.creditorId,
  };
}

/**
 * The rows of a new subscription whose input passed `checkNewSubscription`, its representation and
 * the statements that write it with its `subscription.created` event (without the reference
 * guards, which the caller's batch adds). `offer`: the subscription an offer sells (docs/state-machines.md).
 */
export async function newSubscription(
  ctx: ServiceContext,
  input: SubscriptionInput,
  checked: Awaited<ReturnType<typeof checkNewSubscription>>,
  status: 'draft' | 'offer',
) {
  const number =
    input.number ??
    formatNumber('S-{number:8}', { number: await nextSequenceValue(ctx.db, ctx.tenant.id, 'subscription', 1), date: ctx.now, timeZone: ctx.tenant.timeZone });
  const agg = subscriptionAggregate(ctx, input, checked, status, number, checked.refs.customer!);
  const { row } = agg;
  // The stored item rows, without the price plan facts the aggregate adds for rendering.
  const items: ItemRow[] = agg.items.map(({ billingInterval: _b, pricePlanType: _t, payInAdvance: _p, productName: _n, ...item }) => item);
  const discounts = agg.discounts.map((d) => d.d);
  const resource = renderSubscription(agg, ctx.now);
  const statements: BatchItem<'sqlite'>[] = [
    ctx.db.insert(subscriptions).values(row),
    ...insertRows(ctx.db, subscriptionItems, items),
    ...insertRows(ctx.db, appliedDiscounts, discounts),
    insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'subscription.created', resourceId: row.id, data: resource, now: ctx.now }),
  ];
  return { row, items, discounts, resource, statements };
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
