import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { collectionSchema } from '../../http/pagination';
import { idParam } from '../../http/schemas';
import { WebhookDeliverySchema } from '../../schemas/webhooks';
import { deliveryListQuery, listDeliveries, redeliver } from '../../services/webhooks/webhooks';

const tags = ['Webhooks'];

export const webhookDeliveryRoutes = createRouter();

webhookDeliveryRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    access: 'webhook:read',
    tags,
    summary: 'Deliveries of a webhook: status, attempts, last response, next attempt',
    request: { params: z.object({ id: idParam('id', 'Webhook id') }), query: deliveryListQuery },
    responses: { 200: jsonResponse(collectionSchema(WebhookDeliverySchema, 'WebhookDeliveryCollection'), 'Deliveries') },
  }),
  async (c) => c.json(await listDeliveries(serviceContext(c), c.req.valid('param').id, c.req.valid('query')), 200),
);

webhookDeliveryRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/webhook-deliveries/{id}/redeliver',
    access: 'webhook:write',
    tags,
    summary: 'Send a delivery again (from the start of the retry schedule)',
    request: { params: z.object({ id: idParam('id', 'Delivery id') }) },
    responses: { 202: jsonResponse(WebhookDeliverySchema, 'The delivery, queued') },
  }),
  async (c) => c.json(await redeliver(serviceContext(c), c.req.valid('param').id), 202),
);
