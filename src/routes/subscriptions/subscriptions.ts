import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema } from '../../http/pagination';
import { customFieldValues, optionalText } from '../../http/schemas';
import { SubscriptionSchema } from '../../schemas/subscriptions';
import { loadSubscription, renderSubscription } from '../../services/subscriptions/aggregate';
import { createSubscription } from '../../services/subscriptions/create';
import { deleteSubscription } from '../../services/subscriptions/details';
import { createSubscriptionFromPlan } from '../../services/subscriptions/from-plan';
import { listSubscriptions, subscriptionListQuery } from '../../services/subscriptions/list';
import { updateSubscription } from '../../services/subscriptions/update';
import { params, quantity, ref, subscriptionFields, subscriptionInput } from './requests';

const tags = ['Subscriptions'];

const SubscriptionWriteSchema = z.strictObject({ customer: z.string().min(1).max(64), ...subscriptionFields }).openapi('SubscriptionWrite');

type WriteBody = z.infer<typeof SubscriptionWriteSchema>;
const toInput = (b: WriteBody) => ({ customer: b.customer, ...subscriptionInput(b) });

export const subscriptionRoutes = createRouter();

subscriptionRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/subscriptions',
    access: 'subscription:read',
    tags,
    summary: 'List subscriptions',
    request: { query: subscriptionListQuery },
    responses: { 200: jsonResponse(collectionSchema(SubscriptionSchema, 'SubscriptionCollection'), 'A page of subscriptions') },
  }),
  async (c) => c.json(await listSubscriptions(serviceContext(c), c.req.valid('query')), 200),
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/subscriptions',
    access: 'subscription:write',
    tags,
    summary: 'Create a subscription (as a draft)',
    description: 'A number like S-00000001 is generated when none is given. Activate it with PUT /subscriptions/{id}/activate.',
    request: { body: jsonBody(SubscriptionWriteSchema) },
    responses: { 201: jsonResponse(SubscriptionSchema, 'The subscription') },
  }),
  async (c) => c.json(await createSubscription(serviceContext(c), toInput(c.req.valid('json'))), 201),
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/subscriptions/from-plan',
    access: 'subscription:write',
    tags,
    summary: 'Create a subscription from a plan (as a draft)',
    description: "The plan's items are taken as they are; planItemSelections choose its add-ons and their quantities (within the plan's limits).",
    request: {
      body: jsonBody(
        z
          .strictObject({
            customer: z.string().min(1).max(64),
            planCode: z.string().min(1).max(64),
            planItemSelections: z
              .array(z.strictObject({ product: z.string().min(1).max(64), pricePlan: ref, quantity }))
              .max(50)
              .default([]),
            name: optionalText(1, 255),
            number: optionalText(2, 255),
            paymentMethod: ref,
            customFields: customFieldValues,
            trialDays: z.number().int().min(0).max(730).default(0),
            coupons: z.array(z.string().min(1).max(64)).max(10).default([]),
          })
          .openapi('SubscriptionFromPlan'),
      ),
    },
    responses: { 201: jsonResponse(SubscriptionSchema, 'The subscription') },
  }),
  async (c) => c.json(await createSubscriptionFromPlan(serviceContext(c), c.req.valid('json')), 201),
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/subscriptions/{id}',
    access: 'subscription:read',
    tags,
    summary: 'Get a subscription',
    request: { params },
    responses: { 200: jsonResponse(SubscriptionSchema, 'The subscription') },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    return c.json(renderSubscription(await loadSubscription(ctx, c.req.valid('param').id), ctx.now), 200);
  },
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscriptions/{id}',
    access: 'subscription:write',
    tags,
    summary: 'Replace a subscription',
    description: 'A draft can change everything; afterwards only name, externalId, poNumber and customFields (other changes are 409: use the operations).',
    request: { params, body: jsonBody(SubscriptionWriteSchema) },
    responses: { 200: jsonResponse(SubscriptionSchema, 'The subscription') },
  }),
  async (c) => c.json(await updateSubscription(serviceContext(c), c.req.valid('param').id, toInput(c.req.valid('json'))), 200),
);

subscriptionRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/subscriptions/{id}',
    access: 'subscription:write',
    tags,
    summary: 'Delete a draft subscription',
    request: { params },
    responses: { 204: noContent },
  }),
  async (c) => {
    await deleteSubscription(serviceContext(c), c.req.valid('param').id);
    return c.body(null, 204);
  },
);
