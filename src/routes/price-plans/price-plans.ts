import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { currencyCode, decimalString, durationText, idParam, optionalText } from '../../http/schemas';
import { archivePricePlan, pricePlanService } from '../../services/catalogue/price-plans';
import { registerResourceRoutes } from '../resource-routes';
import { CALCULATION_TYPES, PRICE_PLAN_TYPES, PricePlanSchema } from '../../schemas/catalogue';

const TierSchema = z
  .strictObject({
    upTo: decimalString(10).nullable().openapi({ description: 'Inclusive upper bound; null for the last, unbounded tier' }),
    unitPrice: decimalString(10).default('0'),
    flatPrice: decimalString(10).default('0'),
  })
  .openapi('PriceTier');

const nullable = <T extends z.ZodTypeAny>(s: T) => s.nullable().optional().transform((v) => v ?? null);

const PricePlanWriteSchema = z
  .strictObject({
    product: z.string().min(1).max(64),
    internalName: optionalText(1, 255),
    status: z.enum(['active', 'inactive']).default('active'),
    type: nullable(z.enum(PRICE_PLAN_TYPES)).openapi({ description: 'Derived from the product (charge → one_time) and its measurement type; if given it must match' }),
    calculationType: z.enum(CALCULATION_TYPES),
    currencyCode,
    price: nullable(z.strictObject({ amount: decimalString(10) })),
    percentage: nullable(decimalString(10)),
    tiers: nullable(z.array(TierSchema).min(1).max(100)),
    freeUnits: decimalString(10).default('0'),
    billingInterval: nullable(durationText),
    showPricePerInterval: nullable(durationText),
    applyTrial: z.boolean().default(true),
    payInAdvance: nullable(z.boolean()),
    proRata: z.boolean().default(true),
    custom: z.boolean().default(false),
    customer: nullable(z.string().min(1).max(64)),
    salesChannel: optionalText(1, 255),
  })
  .openapi('PricePlanWrite');

export const pricePlanRoutes = createRouter();

registerResourceRoutes(pricePlanRoutes, {
  paths: { collection: '/price-plans', item: '/price-plans/{id}' },
  name: 'PricePlan',
  tag: 'Price plans',
  permission: 'price-plan',
  service: pricePlanService,
  schema: PricePlanSchema,
  writeSchema: PricePlanWriteSchema,
  descriptions: {
    create:
      'flat_fee and per_unit take price.amount; tiered (graduated), volume and stair_step take tiers [{upTo, unitPrice, flatPrice}] with the last upTo null; percentage takes percentage (0..100). freeUnits are deducted first. Usage price plans are billed in arrears.',
    put: 'Once the price plan is in use (inUse), its price cannot change (409): create a new price plan instead.',
  },
});

pricePlanRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/price-plans/{id}/archive',
    access: 'price-plan:write',
    tags: ['Price plans'],
    summary: 'Archive a price plan (no longer offered)',
    request: { params: z.object({ id: idParam('id', 'Price plan id') }) },
    responses: { 200: jsonResponse(PricePlanSchema, 'The price plan') },
  }),
  async (c) => c.json(await archivePricePlan(serviceContext(c), c.req.valid('param').id), 200),
);
