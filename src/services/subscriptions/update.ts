import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { Dec } from '../../billing/money';
import { isUniqueViolation, requireCondition } from '../../db/client';
import { commitGuarded, type ChangeEvent } from '../../db/commit';
import { insertRows } from '../../db/insert';
import { subscriptionItems, subscriptions } from '../../db/schema';
import type { EventType } from '../../events/catalogue';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { forgetEntitlementChecks } from './entitlement-check';
import { checkCustomFieldValues, selectCustomFieldDefinitions } from '../customers/custom-fields';
import { type ItemAggregate, type SubscriptionAggregate, type SubscriptionRow, loadSubscription, renderSubscription } from './aggregate';
import { type SubscriptionInput, checkItems, checkSubscriptionReferences, itemRow, withPrice } from './create';

/**
 * Writes a change of a subscription with its statements and events in one batch through the guarded
 * write path (`commitGuarded`): a change computed from a stale read is 409 `concurrent-update`.
 */
export async function commitSubscriptionChange(
  ctx: ServiceContext,
  before: SubscriptionAggregate,
  changes: Partial<SubscriptionRow>,
  eventType: EventType,
  options: { statements?: BatchItem<'sqlite'>[]; items?: ItemAggregate[]; extraEvents?: ChangeEvent[]; after?: Partial<SubscriptionAggregate> } = {},
) {
  const nowIso = ctx.now.toISOString();
  // Items this change touched carry its time, as their stored rows do.
  const items = (options.items ?? before.items).map((i) => {
    const old = before.items.find((b) => b.id === i.id);
    return !old || JSON.stringify(old) !== JSON.stringify(i) ? { ...i, updatedAt: nowIso } : i;
  });
  const aggregate = (row: SubscriptionRow): SubscriptionAggregate => ({ ...before, ...options.after, row, items });
  const { row, resource } = await commitGuarded(ctx, {
    table: subscriptions,
    current: before.row,
    changes,
    render: (next) => renderSubscription(aggregate(next), ctx.now),
    statements: options.statements,
    events: [eventType, ...(options.extraEvents ?? [])],
    conflict: 'The subscription was changed concurrently; reload and retry.',
  });
  // Its entitlements may have changed with it (entitlementStatements among the statements).
  forgetEntitlementChecks(ctx.tenant.id);
  return { resource, agg: aggregate(row) };
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
  // What an offer's signers read and sign must not change under them (docs/decisions.md, Offers).
  const frozen = sql`EXISTS (SELECT 1 FROM offers WHERE tenant_id = ${ctx.tenant.id} AND subscription_id = ${id} AND status IN ('signing', 'signed'))`;
  if (r.status === 'offer' && (await ctx.db.get<{ n: number }>(sql`SELECT ${frozen} AS n`))?.n) {
    throw ApiError.conflict('The subscription belongs to an offer that is being signed or is signed; cancel its signing first (PUT /offers/{id}/cancel-signing).', 'offer-signing');
  }
  if (r.status === 'offer' && input.customer !== r.customerId) v.add('customer', "An offer's subscription keeps the offer's customer.", 'fixed');
  if (r.status !== 'draft' && r.status !== 'offer') {
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
          ...insertRows(ctx.db, subscriptionItems, items),
          // An offer that started signing meanwhile freezes it.
          ...(r.status === 'offer' ? [requireCondition(ctx.db, sql`NOT ${frozen}`)] : []),
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
