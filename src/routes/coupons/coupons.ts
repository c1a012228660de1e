import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { idParam, moneyInput, requiredText, timestamp } from '../../http/schemas';
import { couponService, toggleCoupon } from '../../services/catalogue/coupons';
import { registerResourceRoutes } from '../resource-routes';
import { CouponSchema } from '../../schemas/catalogue';

const ids = z.array(z.string().min(1).max(64)).max(100).default([]);
const count = z.number().int().min(1).max(1_000_000_000).nullable().optional().transform((v) => v ?? null);

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
  paths: { collection: '/coupons', item: '/coupons/{id}' },
  name: 'Coupon',
  tag: 'Coupons',
  permission: 'coupon',
  service: couponService,
  schema: CouponSchema,
  writeSchema: CouponWriteSchema,
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
  async (c) => c.json(await toggleCoupon(serviceContext(c), c.req.valid('param').id, c.req.valid('json').isEnabled), 200),
);
