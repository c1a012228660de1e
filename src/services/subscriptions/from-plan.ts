import { and, eq } from 'drizzle-orm';
import { Dec } from '../../billing/money';
import { plans } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { type ItemInput, createSubscription } from './create';

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
