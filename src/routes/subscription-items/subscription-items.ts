import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { decimalString, idParam, optionalText, requiredText } from '../../http/schemas';
import { cancelItem, changePricePlan, changeQuantity, getItem, updateItem } from '../../services/subscriptions/items';
import { SubscriptionItemSchema } from '../../schemas/subscriptions';

const tags = ['Subscription items'];
const params = z.object({ id: idParam('id', 'Subscription item id') });
export const subscriptionItemRoutes = createRouter();

subscriptionItemRoutes.openapi(
  defineRoute({ method: 'get', path: '/subscription-items/{id}', access: 'subscription:read', tags, summary: 'Get a subscription item', request: { params }, responses: { 200: jsonResponse(SubscriptionItemSchema, 'The item') } }),
  async (c) => c.json(await getItem(serviceContext(c), c.req.valid('param').id), 200),
);

subscriptionItemRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscription-items/{id}',
    access: 'subscription:write',
    tags,
    summary: 'Change the texts shown on invoices',
    request: {
      params,
      body: jsonBody(z.strictObject({ name: requiredText(1, 255), description: optionalText(1, 1000), furtherInformation: optionalText(1, 1000) }).openapi('SubscriptionItemWrite')),
    },
    responses: { 200: jsonResponse(SubscriptionItemSchema, 'The item') },
  }),
  async (c) => c.json(await updateItem(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
);

subscriptionItemRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscription-items/{id}/quantity',
    access: 'subscription:write',
    tags,
    summary: 'Change the quantity (effective now)',
    request: {
      params,
      body: jsonBody(
        z
          .strictObject({ quantity: decimalString(4).refine((v) => /[1-9]/.test(v), { message: 'Must be greater than 0.', params: { code: 'too_small' } }) })
          .openapi('SubscriptionItemQuantity'),
      ),
    },
    responses: { 200: jsonResponse(SubscriptionItemSchema, 'The item') },
  }),
  async (c) => c.json(await changeQuantity(serviceContext(c), c.req.valid('param').id, c.req.valid('json').quantity), 200),
);

subscriptionItemRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscription-items/{id}/price-plan',
    access: 'subscription:write',
    tags,
    summary: 'Upgrade or downgrade: move the item to another price plan of its product',
    description:
      "The subscription plan's changeBehaviour decides which directions are allowed (409 otherwise); with changeApplyBehaviour end_of_period the change waits for the end of the billed period, else billing prorates it now.",
    request: { params, body: jsonBody(z.strictObject({ pricePlan: z.string().min(1).max(64) }).openapi('SubscriptionItemPricePlan')) },
    responses: { 200: jsonResponse(SubscriptionItemSchema, 'The item') },
  }),
  async (c) => c.json(await changePricePlan(serviceContext(c), c.req.valid('param').id, c.req.valid('json').pricePlan), 200),
);

subscriptionItemRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscription-items/{id}/cancel',
    access: 'subscription:write',
    tags,
    summary: 'Cancel an item: billed until the end of the contract term',
    request: { params },
    responses: { 200: jsonResponse(SubscriptionItemSchema, 'The item') },
  }),
  async (c) => c.json(await cancelItem(serviceContext(c), c.req.valid('param').id), 200),
);
