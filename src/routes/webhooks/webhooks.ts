import { z } from '@hono/zod-openapi';
import { EVENT_VERSION } from '../../events/catalogue';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { idParam } from '../../http/schemas';
import { availableEvents, createWebhook, rotateSecret, webhookService } from '../../services/webhooks/webhooks';
import { registerResourceRoutes } from '../resource-routes';
import { WebhookCreatedSchema, WebhookEventCatalogueSchema, WebhookRotatedSchema, WebhookSchema } from '../../schemas/webhooks';

const tags = ['Webhooks'];

const WebhookWriteSchema = z
  .strictObject({
    url: z.string().min(1).max(2048),
    events: z.array(z.string().min(1).max(100)).min(1, 'Subscribe to at least one event (or "*").').max(200),
    version: z.string().max(32).default(EVENT_VERSION),
    enabled: z.boolean().default(true),
    activities: z.array(z.string().min(1).max(100)).max(50).default([]),
  })
  .openapi('WebhookWrite');

export const webhookRoutes = createRouter();

webhookRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/webhooks',
    access: 'webhook:write',
    tags,
    summary: 'Register a webhook (its signing secret is shown once)',
    description:
      'Deliveries are POSTs of {event: {type, id, version, created}, tenantId, data}, signed with X-Webhook-Signature (hex HMAC-SHA256 of the raw body) and the Standard Webhooks headers webhook-id, webhook-timestamp, webhook-signature. Live tenants need https; test tenants may use http://localhost.',
    request: { body: jsonBody(WebhookWriteSchema) },
    responses: { 201: jsonResponse(WebhookCreatedSchema, 'The webhook with its secret') },
  }),
  async (c) => c.json(await createWebhook(serviceContext(c), c.req.valid('json')), 201),
);

registerResourceRoutes(webhookRoutes, {
  paths: { collection: '/webhooks', item: '/webhooks/{id}' },
  name: 'Webhook',
  tag: 'Webhooks',
  permission: 'webhook',
  service: webhookService,
  schema: WebhookSchema,
  writeSchema: WebhookWriteSchema,
  skipCreate: true,
});

const params = z.object({ id: idParam('id', 'Webhook id') });

webhookRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/webhooks/{id}/rotate-secret',
    access: 'webhook:write',
    tags,
    summary: 'Rotate the signing secret',
    description: 'The new secret is shown once; the old one keeps signing (a second signature) for 24 hours.',
    request: { params },
    responses: { 200: jsonResponse(WebhookRotatedSchema, 'The webhook with its new secret') },
  }),
  async (c) => c.json(await rotateSecret(serviceContext(c), c.req.valid('param').id), 200),
);

webhookRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/available-webhook-events',
    access: 'webhook:read',
    tags,
    summary: 'Every event the service emits, with what it means',
    responses: {
      200: jsonResponse(WebhookEventCatalogueSchema, 'The catalogue'),
    },
  }),
  (c) => c.json({ data: availableEvents() }, 200),
);
