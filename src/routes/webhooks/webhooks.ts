import { z } from '@hono/zod-openapi';
import { EVENT_VERSION, EVENT_VERSION_ALIASES } from '../../events/catalogue';
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
    // Checked by the service (violation `unknown_version`); the document lists every accepted spelling.
    version: z
      .string()
      .max(32)
      .default(EVENT_VERSION)
      .openapi({ enum: Object.keys(EVENT_VERSION_ALIASES), description: `Payload version: ${EVENT_VERSION}; v1 and 2026-11-01 are accepted as the same and read back as ${EVENT_VERSION}.` }),
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
      'Deliveries are POSTs of compact JSON {event: {type, id, version, created}, tenantId, data}, signed two ways with the one secret: X-Webhook-Signature is the lowercase hex HMAC-SHA256 of the body keyed with the secret string exactly as shown (whsec_ included), as Fynn documents; the Standard Webhooks headers webhook-id, webhook-timestamp, webhook-signature verify with any Standard Webhooks library given the same secret. URLs must be https to a public host; test tenants may also use http://localhost.',
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
    description:
      'The new secret is shown once and signs X-Webhook-Signature at once; the old one keeps signing in webhook-signature (a second Standard Webhooks signature) for 24 hours.',
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
