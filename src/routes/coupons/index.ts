import { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { coupons } from '../../db/schema';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { idParam, moneyInput, requiredText, timestamp } from '../../http/schemas';
import { couponService, toggleCoupon } from '../../services/catalogue/coupons';
import { registerResourceRoutes } from '../resource-routes';

const ids = z.array(z.string().min(1).max(64)).max(100).default([]);
const count = z.number().int().min(1).max(1_000_000_000).nullable().optional().transform((v) => v ?? null);

export const CouponSchema = z
  .object({
    id: z.string(),
    code: z.string(),
    name: z.string(),
    type: z.enum(['percentage', 'fixed_amount']),
    percentage: z.number().int().nullable(),
    fixedAmount: z.object({ amount: z.string(), currencyCode: z.string() }).nullable(),
    frequency: z.enum(['once', 'limited', 'lifetime']),
    frequencyInterval: z.number().int().nullable(),
    maxRedemptions: z.number().int().nullable(),
    maxRedemptionsPerCustomer: z.number().int().nullable(),
    expiresAt: z.string().nullable(),
    limitedToPlans: z.array(z.string()),
    excludedFromPlans: z.array(z.string()),
    limitedToProducts: z.array(z.string()),
    excludedFromProducts: z.array(z.string()),
    isEnabled: z.boolean(),
    reedemptions: z.boolean().openapi({ description: 'True once a customer redeemed the coupon (spelling as in the interface spec)' }),
    redemptionCount: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Coupon');

const CouponWriteSchema = z
  .strictObject({
    code: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Use 1 to 64 letters, digits, - and _.'),
    name: requiredText(1, 255),
    type: z.enum(['percentage', 'fixed_amount']),
    percentage: z.number().int().min(0).max(100).nullable().optional().transform((v) => v ?? null),
    fixedAmount: moneyInput.nullable().optional().transform((v) => v ?? null),
    frequency: z.enum(['once', 'limited', 'lifetime']),
    frequencyInterval: count,
    maxRedemptions: count,
    maxRedemptionsPerCustomer: count,
    expiresAt: timestamp.nullable().optional().transform((v) => v ?? null),
    limitedToPlans: ids,
    excludedFromPlans: ids,
    limitedToProducts: ids,
    excludedFromProducts: ids,
    isEnabled: z.boolean().default(true),
  })
  .openapi('CouponWrite');

export const couponRoutes = createRouter();

registerResourceRoutes(couponRoutes, {
  path: '/coupons',
  name: 'Coupon',
  tag: 'Coupons',
  permission: 'coupon',
  service: couponService,
  schema: CouponSchema,
  writeSchema: CouponWriteSchema,
  filters: {
    code: { schema: z.string().max(64), where: (v: string) => eq(coupons.code, v) },
    isEnabled: { schema: z.enum(['true', 'false']), where: (v: string) => eq(coupons.isEnabled, v === 'true') },
  },
  sortable: { code: coupons.code, createdAt: coupons.createdAt },
  descriptions: {
    list: 'Look a coupon up by its code with `?code=`.',
    put: 'Refused with 409 once the coupon has been redeemed (reedemptions true).',
    delete: 'Refused with 409 once the coupon has been redeemed; disable it instead.',
  },
});

couponRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/coupons/{id}/toggle',
    access: 'coupon:write',
    tags: ['Coupons'],
    summary: 'Enable or disable a coupon (also after redemption)',
    request: {
      params: z.object({ id: idParam('id', 'Coupon id') }),
      body: jsonBody(z.strictObject({ isEnabled: z.boolean() }).openapi('CouponToggle')),
    },
    responses: { 200: jsonResponse(CouponSchema, 'The coupon') },
  }),
  async (c) => c.json((await toggleCoupon(serviceContext(c), c.req.valid('param').id, c.req.valid('json').isEnabled)) as never, 200),
);
