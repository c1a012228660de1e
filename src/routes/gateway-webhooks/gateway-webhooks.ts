import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { GatewayWebhookReceivedSchema } from '../../schemas/gateways';
import { receiveGatewayWebhook } from '../../services/payments/gateway-webhooks';

// Webhooks from payment gateways. The body is not validated as JSON here: the signature covers the
// raw text, which the body guard keeps as it came (c.var.rawBody), and only a verified body is read.

export const gatewayWebhookRoutes = createRouter();

gatewayWebhookRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/gateway-webhooks/{gateway}/{tenant}',
    access: 'public',
    // A gateway sends every tenant's events from a few addresses, and a refused event delays a
    // payment; nothing is read before the signature verifies (docs/decisions.md, Rate limits).
    rateLimit: false,
    tags: ['Payments'],
    summary: "A payment gateway's webhook (Stripe: the endpoint's events, signed with Stripe-Signature)",
    description:
      "The URL is the tenant's `webhookUrl` from GET /settings/gateways. The signature is checked with the tenant's stored signing secret " +
      '(five minutes of tolerance) before the body is read; anything that does not verify is 400, whatever the reason. ' +
      'Verified events are acknowledged with 200 whether or not they change anything, and a repeated event changes nothing.',
    request: {
      params: z.object({
        gateway: z.string().max(64).openapi({ param: { name: 'gateway', in: 'path' }, example: 'card_provider' }),
        tenant: z.string().max(64).openapi({ param: { name: 'tenant', in: 'path' } }),
      }),
    },
    responses: { 200: jsonResponse(GatewayWebhookReceivedSchema, 'Received') },
  }),
  async (c) => {
    const { gateway, tenant } = c.req.valid('param');
    await receiveGatewayWebhook(
      {
        env: c.env,
        waitUntil: (p) => {
          try {
            c.executionCtx.waitUntil(p);
          } catch {
            void p.catch(() => undefined);
          }
        },
      },
      gateway,
      tenant,
      c.var.rawBody ?? '',
      c.req.raw.headers,
    );
    return c.json({ received: true as const }, 200);
  },
);
