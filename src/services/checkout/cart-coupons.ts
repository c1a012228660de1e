import { and, eq, sql } from 'drizzle-orm';
import { couponTerms } from '../billing/inputs';
import { outer } from '../../db/client';
import { coupons } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import type { CartState } from './state';

/**
 * The coupon a buyer enters: the tenant's, enabled, unexpired, not used up, and valid for the
 * link's plan and products (the rules a subscription's coupons meet when it is created); in the
 * cart's currency when it is a fixed amount. Violations at `path`.
 */
export async function cartCoupon(ctx: ServiceContext, state: CartState, code: string, path: string): Promise<NonNullable<CartState['coupon']>> {
  const v = new Violations();
  if (!state.options.allowCoupons) throw ApiError.violation(path, 'This checkout does not accept coupons.', 'coupons_not_allowed');
  const trimmed = code.trim();
  const row = trimmed
    ? await ctx.db
        .select({
          c: coupons,
          total: sql<number>`(SELECT count(*) FROM coupon_redemptions r WHERE r.tenant_id = ${outer(coupons.tenantId)} AND r.coupon_id = ${outer(coupons.id)})`,
          mine: sql<number>`(SELECT count(*) FROM coupon_redemptions r WHERE r.tenant_id = ${outer(coupons.tenantId)} AND r.coupon_id = ${outer(coupons.id)} AND r.customer_id = ${state.customerId ?? ''})`,
        })
        .from(coupons)
        .where(and(eq(coupons.tenantId, ctx.tenant.id), eq(coupons.code, trimmed)))
        .get()
    : undefined;
  if (!row) throw ApiError.violation(path, 'No such coupon.', 'not_found');
  const c = row.c;
  const productIds = state.items.map((i) => i.productId);
  const plan = state.planId;
  if (!c.isEnabled) v.add(path, 'The coupon is disabled.', 'disabled');
  else if (c.expiresAt && c.expiresAt <= ctx.now.toISOString()) v.add(path, 'The coupon has expired.', 'expired');
  else if (c.maxRedemptions !== null && row.total >= c.maxRedemptions) v.add(path, 'The coupon has been used up.', 'exhausted');
  else if (c.maxRedemptionsPerCustomer !== null && row.mine >= c.maxRedemptionsPerCustomer) v.add(path, 'The coupon has been used as often as allowed.', 'exhausted_for_customer');
  else if (c.limitedToPlans.length && (!plan || !c.limitedToPlans.includes(plan))) v.add(path, 'The coupon is not valid for this plan.', 'not_applicable');
  else if (plan && c.excludedFromPlans.includes(plan)) v.add(path, 'The coupon is not valid for this plan.', 'not_applicable');
  else if (c.limitedToProducts.length && !productIds.some((p) => c.limitedToProducts.includes(p))) v.add(path, 'The coupon applies to none of the products.', 'not_applicable');
  else if (c.excludedFromProducts.length && productIds.every((p) => c.excludedFromProducts.includes(p))) v.add(path, 'The coupon applies to none of the products.', 'not_applicable');
  else if (c.type === 'fixed_amount' && c.fixedAmountCurrency !== state.currency) v.add(path, `The coupon is in ${c.fixedAmountCurrency}, the cart in ${state.currency}.`, 'currency_mismatch');
  v.throwIfAny();
  return {
    id: c.id,
    code: c.code,
    name: c.name,
    input: couponTerms(c),
  };
}
