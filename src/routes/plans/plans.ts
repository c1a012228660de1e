import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { decimalString, durationText, idParam, optionalText, requiredText } from '../../http/schemas';
import { planService, transitionPlan } from '../../services/catalogue/plans';
import { registerResourceRoutes } from '../resource-routes';
import { CHANGE_BEHAVIOURS, PlanSchema } from '../../schemas/catalogue';

const positive = decimalString(4).refine((v) => /[1-9]/.test(v), { message: 'Must be greater than 0.', params: { code: 'too_small' } });

const PlanItemSchema = z
  .strictObject({ product: z.string().min(1).max(64), pricePlan: z.string().min(1).max(64), quantity: positive.default('1') })
  .openapi('PlanItem');
const PlanAddonSchema = z
  .strictObject({
    product: z.string().min(1).max(64),
    pricePlan: z.string().min(1).max(64),
    minQuantity: decimalString(4).default('0'),
    maxQuantity: decimalString(4).nullable().default(null),
  })
  .openapi('PlanAddon');

const PlanWriteSchema = z
  .strictObject({
    family: z.string().min(1).max(64),
    code: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'Must be URL-safe: letters, digits, - and _, at most 64, starting with a letter or digit.'),
    name: requiredText(1, 255),
    description: optionalText(1, 10_000),
    originProduct: z.string().min(1).max(64).nullable().optional().transform((v) => v ?? null),
    allowCheckout: z.boolean().default(false),
    changeBehaviour: z.enum(CHANGE_BEHAVIOURS).default('upgradeable_and_downgradeable'),
    changeApplyBehaviour: z.enum(['immediately', 'end_of_period']).nullable().optional().transform((v) => v ?? null),
    contractPeriod: durationText.nullable().optional().transform((v) => v ?? null),
    cancellationPeriod: durationText.nullable().optional().transform((v) => v ?? null),
    items: z.array(PlanItemSchema).max(50).default([]),
    addons: z.array(PlanAddonSchema).max(50).default([]),
  })
  .openapi('PlanWrite');

export const planRoutes = createRouter();

registerResourceRoutes(planRoutes, {
  paths: { collection: '/plans', item: '/plans/{id}' },
  name: 'Plan',
  tag: 'Plans',
  permission: 'plan',
  service: planService,
  schema: PlanSchema,
  writeSchema: PlanWriteSchema,
  descriptions: {
    create: 'Plans start as drafts. Only active plans can be used for new subscriptions; see PUT /plans/{id}/activate.',
    delete: 'Only draft plans can be deleted (409 otherwise); archive a plan that was active.',
  },
});

const params = z.object({ id: idParam('id', 'Plan id') });

planRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/plans/{id}/activate',
    access: 'plan:write',
    tags: ['Plans'],
    summary: 'Activate a plan (draft or inactive → active)',
    description: 'Refused with 422 unless the plan has items, no archived products, only active price plans, and one currency.',
    request: { params },
    responses: { 200: jsonResponse(PlanSchema, 'The plan') },
  }),
  async (c) => c.json(await transitionPlan(serviceContext(c), c.req.valid('param').id, 'activate'), 200),
);

planRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/plans/{id}/deactivate',
    access: 'plan:write',
    tags: ['Plans'],
    summary: 'Deactivate a plan (active → inactive)',
    request: { params },
    responses: { 200: jsonResponse(PlanSchema, 'The plan') },
  }),
  async (c) => c.json(await transitionPlan(serviceContext(c), c.req.valid('param').id, 'deactivate'), 200),
);

planRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/plans/{id}/archive',
    access: 'plan:write',
    tags: ['Plans'],
    summary: 'Archive a plan',
    request: { params },
    responses: { 200: jsonResponse(PlanSchema, 'The plan') },
  }),
  async (c) => c.json(await transitionPlan(serviceContext(c), c.req.valid('param').id, 'archive'), 200),
);
