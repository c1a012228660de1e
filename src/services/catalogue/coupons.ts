import { z } from '@hono/zod-openapi';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { checkDecimal, formatMoney, fromMinorUnits, roundMoney, toDec, toMinorUnitsSafe } from '../../billing/money';
import { outer } from '../../db/client';
import { coupons, plans, products } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import type { CouponResource } from '../../schemas/catalogue';
import { listFilter, resourceService } from '../common/resource';

type CouponRow = typeof coupons.$inferSelect & { redemptionCount?: number | null };

export interface CouponInput {
  code: string;
  name: string;
  type: CouponRow['type'];
  percentage: number | null;
  fixedAmount: { amount: string; currencyCode: string } | null;
  frequency: CouponRow['frequency'];
  frequencyInterval: number | null;
  maxRedemptions: number | null;
  maxRedemptionsPerCustomer: number | null;
  expiresAt: string | null;
  limitedToPlans: string[];
  excludedFromPlans: string[];
  limitedToProducts: string[];
  excludedFromProducts: string[];
  isEnabled: boolean;
}

export function renderCoupon(r: CouponRow): CouponResource {
  const redemptions = Number(r.redemptionCount ?? 0);
  return {
    id: r.id,
    code: r.code,
    name: r.name,
    type: r.type,
    percentage: r.percentage,
    fixedAmount:
      r.fixedAmount === null || r.fixedAmountCurrency === null ? null : formatMoney(fromMinorUnits(r.fixedAmount, r.fixedAmountCurrency), r.fixedAmountCurrency),
    frequency: r.frequency,
    frequencyInterval: r.frequencyInterval,
    maxRedemptions: r.maxRedemptions,
    maxRedemptionsPerCustomer: r.maxRedemptionsPerCustomer,
    expiresAt: r.expiresAt,
    limitedToPlans: r.limitedToPlans,
    excludedFromPlans: r.excludedFromPlans,
    limitedToProducts: r.limitedToProducts,
    excludedFromProducts: r.excludedFromProducts,
    isEnabled: r.isEnabled,
    // The spec's spelling: true once a customer has redeemed the coupon.
    reedemptions: redemptions > 0,
    redemptionCount: redemptions,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

const redeemedSql = (id: unknown, tenantId: unknown) =>
  sql`EXISTS (SELECT 1 FROM coupon_redemptions WHERE tenant_id = ${tenantId} AND coupon_id = ${id})`;

async function checkIds(ctx: ServiceContext, table: typeof plans | typeof products, ids: string[], path: string, v: Violations) {
  if (ids.length === 0) return;
  const found = await ctx.db
    .select({ id: table.id })
    .from(table)
    .where(and(eq(table.tenantId, ctx.tenant.id), inArray(table.id, ids)));
  const known = new Set(found.map((f) => f.id));
  ids.forEach((id, i) => {
    if (!known.has(id)) v.add(`${path}[${i}]`, `No such ${table === plans ? 'plan' : 'product'}.`, 'not_found');
  });
}

export const couponService = resourceService({
  label: 'Coupon',
  table: coupons,
  selection: {
    redemptionCount: sql<number>`(SELECT count(*) FROM coupon_redemptions r WHERE r.tenant_id = ${outer(coupons.tenantId)} AND r.coupon_id = ${outer(coupons.id)})`,
  },
  render: renderCoupon,
  async check(ctx: ServiceContext, input: CouponInput, current, v: Violations) {
    if (current && Number((current as CouponRow).redemptionCount ?? 0) > 0) {
      throw ApiError.conflict('The coupon has been redeemed and can no longer be changed; disable it instead.', 'coupon-redeemed');
    }
    if (input.type === 'percentage') {
      if (input.percentage === null) v.add('percentage', 'A percentage coupon needs percentage (0 to 100).', 'required');
      if (input.fixedAmount !== null) v.add('fixedAmount', 'A percentage coupon takes no fixedAmount.', 'not_allowed');
    } else {
      if (input.fixedAmount === null) v.add('fixedAmount', 'A fixed_amount coupon needs fixedAmount {amount, currencyCode}.', 'required');
      if (input.percentage !== null) v.add('percentage', 'A fixed_amount coupon takes no percentage.', 'not_allowed');
      const fixed = input.fixedAmount;
      // Checked before it is parsed: a string the parser refuses is a violation, never a DecimalFormatError.
      const problem = fixed && checkDecimal(fixed.amount, { allowNegative: false });
      if (problem) v.add('fixedAmount.amount', problem.message, problem.code);
      else if (fixed && !roundMoney(fixed.amount, fixed.currencyCode).eq(toDec(fixed.amount))) {
        v.add('fixedAmount.amount', `Has more decimals than ${fixed.currencyCode} allows.`, 'too_many_decimals');
      }
    }
    if (input.frequency === 'limited' && input.frequencyInterval === null) {
      v.add('frequencyInterval', 'A limited coupon needs frequencyInterval (the number of billing periods).', 'required');
    }
    if (input.frequency !== 'limited' && input.frequencyInterval !== null) {
      v.add('frequencyInterval', 'Only limited coupons take frequencyInterval.', 'not_allowed');
    }
    if (input.maxRedemptions !== null && input.maxRedemptionsPerCustomer !== null && input.maxRedemptionsPerCustomer > input.maxRedemptions) {
      v.add('maxRedemptionsPerCustomer', 'Must not exceed maxRedemptions.', 'out_of_range');
    }
    if (input.expiresAt !== null && new Date(input.expiresAt) <= ctx.now && (!current || current.expiresAt !== input.expiresAt)) {
      v.add('expiresAt', 'Must lie in the future.', 'in_past');
    }
    for (const [a, b, label] of [
      ['limitedToPlans', 'excludedFromPlans', 'plan'],
      ['limitedToProducts', 'excludedFromProducts', 'product'],
    ] as const) {
      input[b].forEach((id, i) => {
        if (input[a].includes(id)) v.add(`${b}[${i}]`, `A ${label} cannot be both included and excluded.`, 'conflicting_restriction');
      });
    }
    await checkIds(ctx, plans, input.limitedToPlans, 'limitedToPlans', v);
    await checkIds(ctx, plans, input.excludedFromPlans, 'excludedFromPlans', v);
    await checkIds(ctx, products, input.limitedToProducts, 'limitedToProducts', v);
    await checkIds(ctx, products, input.excludedFromProducts, 'excludedFromProducts', v);
  },
  columns: (_ctx, i: CouponInput) => ({
    code: i.code,
    name: i.name,
    type: i.type,
    percentage: i.percentage,
    fixedAmount: i.fixedAmount ? toMinorUnitsSafe(i.fixedAmount.amount, i.fixedAmount.currencyCode) : null,
    fixedAmountCurrency: i.fixedAmount?.currencyCode ?? null,
    frequency: i.frequency,
    frequencyInterval: i.frequencyInterval,
    maxRedemptions: i.maxRedemptions,
    maxRedemptionsPerCustomer: i.maxRedemptionsPerCustomer,
    expiresAt: i.expiresAt === null ? null : new Date(i.expiresAt).toISOString(),
    limitedToPlans: [...new Set(i.limitedToPlans)],
    excludedFromPlans: [...new Set(i.excludedFromPlans)],
    limitedToProducts: [...new Set(i.limitedToProducts)],
    excludedFromProducts: [...new Set(i.excludedFromProducts)],
    isEnabled: i.isEnabled,
  }),
  writable: (r): CouponInput => {
    const rendered = renderCoupon(r);
    return {
      code: r.code,
      name: r.name,
      type: r.type,
      percentage: r.percentage,
      fixedAmount: rendered.fixedAmount,
      frequency: r.frequency,
      frequencyInterval: r.frequencyInterval,
      maxRedemptions: r.maxRedemptions,
      maxRedemptionsPerCustomer: r.maxRedemptionsPerCustomer,
      expiresAt: r.expiresAt,
      limitedToPlans: r.limitedToPlans,
      excludedFromPlans: r.excludedFromPlans,
      limitedToProducts: r.limitedToProducts,
      excludedFromProducts: r.excludedFromProducts,
      isEnabled: r.isEnabled,
    };
  },
  uniques: { 'coupons.code': 'code' },
  inUse: (id, tenantId) => redeemedSql(id, tenantId),
  events: { created: 'coupon.created', updated: 'coupon.updated', deleted: 'coupon.deleted' },
  filters: {
    code: listFilter(z.string().max(64), (v) => eq(coupons.code, v)),
    isEnabled: listFilter(z.enum(['true', 'false']), (v) => eq(coupons.isEnabled, v === 'true')),
  },
  sortable: { code: coupons.code, createdAt: coupons.createdAt },
});

/** Enabling or disabling is allowed even after redemption: it is how a redeemed coupon is retired. */
export async function toggleCoupon(ctx: ServiceContext, id: string, isEnabled: boolean) {
  const current = await couponService.find(ctx, id);
  if (current.isEnabled === isEnabled) return couponService.render(current);
  return couponService.change(ctx, current, { isEnabled }, 'coupon.toggled');
}
