import { and, asc, eq, inArray, not, sql } from 'drizzle-orm';
import { isGuardFailure, requireCondition, requirePreviousChange } from '../../db/client';
import { addressExists } from '../customers/guards';
import { requireCustomerPaymentMethod } from '../customers/payment-methods';
import { insertRows } from '../../db/insert';
import { appliedDiscounts, customerAddresses, paymentMethods, subscriptionComments, subscriptionItems, subscriptions } from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import type { Page } from '../../http/pagination';
import { fetchPage } from '../../db/paging';
import { newId } from '../../lib/ids';
import { entitlementStatements } from './entitlements';
import { checkItems, itemRow, withPrice, type ItemInput } from './create';
import { commitSubscriptionChange } from './update';
import { loadSubscription } from './aggregate';
import { requireAction } from './lifecycle';
import type { SubscriptionComment } from '../../schemas/subscriptions';

export async function setInvoiceAddress(ctx: ServiceContext, id: string, addressId: string | null) {
  const before = await loadSubscription(ctx, id);
  requireAction(before, 'change-invoice-address');
  let address = null;
  if (addressId) {
    address = await ctx.db
      .select()
      .from(customerAddresses)
      .where(and(eq(customerAddresses.tenantId, ctx.tenant.id), eq(customerAddresses.id, addressId), eq(customerAddresses.customerId, before.row.customerId)))
      .get();
    if (!address) throw ApiError.violation('invoiceAddress', 'No such address of this customer.', 'not_found');
  }
  // The address must still exist when the change is written (a concurrent delete makes this a 409).
  const statements = addressId ? [requireCondition(ctx.db, addressExists(ctx.tenant.id, before.row.customerId, addressId))] : [];
  return (await commitSubscriptionChange(ctx, before, { invoiceAddressId: addressId }, 'subscription.invoice_address.updated', { statements, after: { invoiceAddress: address ?? null } }))
    .resource;
}

export async function setPaymentMethod(ctx: ServiceContext, id: string, paymentMethodId: string | null) {
  const before = await loadSubscription(ctx, id);
  requireAction(before, 'change-payment-method');
  let method = null;
  if (paymentMethodId) {
    method = await requireCustomerPaymentMethod(ctx, before.row.customerId, paymentMethodId, 'paymentMethodId');
  } else {
    method =
      (await ctx.db
        .select()
        .from(paymentMethods)
        .where(and(eq(paymentMethods.tenantId, ctx.tenant.id), eq(paymentMethods.customerId, before.row.customerId), eq(paymentMethods.isDefault, true)))
        .get()) ?? null;
  }
  return (await commitSubscriptionChange(ctx, before, { paymentMethodId }, 'subscription.payment_method.updated', { after: { paymentMethod: method } })).resource;
}

export interface OrderProductsInput {
  billingStart: string | null;
  startDate: string | null;
  endDate: string | null;
  products: ItemInput[];
}

/** Adds add-ons (recurring) and one-time charges; items starting later wait as pending. */
export async function orderProducts(ctx: ServiceContext, id: string, input: OrderProductsInput) {
  const before = await loadSubscription(ctx, id);
  requireAction(before, 'order-products');
  const v = new Violations();
  const catalogue = await checkItems(ctx, before.row.customerId, input.products, 'products', v);
  const existing = await checkItems(
    ctx,
    before.row.customerId,
    before.items.map((i) => ({ product: i.productId, pricePlan: i.pricePlanId, quantity: i.quantity })),
    'items',
    new Violations(),
  );
  const currencies = new Set([...existing.prices.values(), ...catalogue.prices.values()].map((p) => p.currencyCode));
  if (currencies.size > 1) v.add('products', `All items must share one currency (found ${[...currencies].join(', ')}).`, 'mixed_currencies');
  if (input.startDate && input.endDate && input.endDate <= input.startDate) v.add('endDate', 'Must lie after startDate.', 'out_of_range');
  v.throwIfAny();
  const iso = ctx.now.toISOString();
  const startsLater = input.startDate !== null && new Date(input.startDate) > ctx.now;
  const active = before.row.status === 'active' && !startsLater;
  const rows = input.products.map((p) => {
    const price = catalogue.prices.get(p.pricePlan);
    return itemRow(ctx, id, p, catalogue.products.get(p.product), price, {
      type: price?.type === 'one_time' ? 'charge' : 'addon',
      status: active ? 'active' : 'pending',
      activatedAt: active ? iso : null,
      startDate: input.startDate ? new Date(input.startDate).toISOString() : null,
      endDate: input.endDate ? new Date(input.endDate).toISOString() : null,
      billingStart: input.billingStart ? new Date(input.billingStart).toISOString() : input.startDate ? new Date(input.startDate).toISOString() : null,
    });
  });
  const items = [...before.items, ...rows.map((r) => withPrice(r, catalogue))];
  const after = { ...before, items };
  const entitlement = before.row.status === 'active' ? await entitlementStatements(ctx, after) : { statements: [], events: [] };
  return (
    await commitSubscriptionChange(ctx, before, {}, 'subscription.products.ordered', {
      items,
      statements: [...insertRows(ctx.db, subscriptionItems, rows), ...entitlement.statements],
      extraEvents: entitlement.events,
    })
  ).resource;
}

/** SQL: an offer sells the subscription (docs/decisions.md, Offers); it goes with its offer, not on its own. */
export function offered(tenantId: string, subscriptionId: string) {
  return sql`EXISTS (SELECT 1 FROM offers WHERE tenant_id = ${tenantId} AND subscription_id = ${subscriptionId})`;
}

export async function deleteSubscription(ctx: ServiceContext, id: string) {
  const before = await loadSubscription(ctx, id);
  requireAction(before, 'delete');
  if ((await ctx.db.get<{ n: number }>(sql`SELECT ${offered(ctx.tenant.id, id)} AS n`))?.n) {
    throw ApiError.conflict('The subscription belongs to an offer; delete the offer (while it is open) instead.', 'offer-subscription');
  }
  try {
    await ctx.db.batch([
      ctx.db
        .delete(subscriptions)
        .where(and(eq(subscriptions.tenantId, ctx.tenant.id), eq(subscriptions.id, id), inArray(subscriptions.status, ['draft', 'offer']), not(offered(ctx.tenant.id, id)))),
      requirePreviousChange(ctx.db),
      ...subscriptionDeletion(ctx, id, before.row.number),
    ]);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.conflict('Only draft subscriptions can be deleted.', 'invalid-transition');
    throw err;
  }
}

/** What goes with a deleted (draft or offer) subscription: its items, discounts and comments, and the event. */
export function subscriptionDeletion(ctx: ServiceContext, id: string, number: string) {
  const t = ctx.tenant.id;
  return [
    ctx.db.delete(subscriptionItems).where(and(eq(subscriptionItems.tenantId, t), eq(subscriptionItems.subscriptionId, id))),
    ctx.db.delete(appliedDiscounts).where(and(eq(appliedDiscounts.tenantId, t), eq(appliedDiscounts.subscriptionId, id))),
    ctx.db.delete(subscriptionComments).where(and(eq(subscriptionComments.tenantId, t), eq(subscriptionComments.subscriptionId, id))),
    insertEvent(ctx.db, { tenantId: t, type: 'subscription.deleted', resourceId: id, data: { id, number }, now: ctx.now }),
  ];
}

export async function addComment(ctx: ServiceContext, id: string, text: string, author: string | null): Promise<SubscriptionComment> {
  await loadSubscription(ctx, id);
  const row = { id: newId(), tenantId: ctx.tenant.id, subscriptionId: id, text, author, createdAt: ctx.now.toISOString() };
  await ctx.db.insert(subscriptionComments).values(row);
  return { id: row.id, text: row.text, author: row.author, createdAt: row.createdAt };
}

export async function listComments(ctx: ServiceContext, id: string, page: Page) {
  await loadSubscription(ctx, id);
  const where = and(eq(subscriptionComments.tenantId, ctx.tenant.id), eq(subscriptionComments.subscriptionId, id));
  return fetchPage(ctx.db, subscriptionComments, where, [asc(subscriptionComments.createdAt), asc(subscriptionComments.id)], page, (r): SubscriptionComment => ({
    id: r.id,
    text: r.text,
    author: r.author,
    createdAt: r.createdAt,
  }));
}
