import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent, problem } from '../../http/openapi';
import { collection, collectionSchema, paginationQuery } from '../../http/pagination';
import { GatewayCredentialsSchema } from '../../schemas/gateways';
import {
  CREDENTIAL_GATEWAYS,
  deleteGatewayCredentials,
  getGatewayCredentials,
  listGatewayCredentials,
  saveGatewayCredentials,
} from '../../services/payments/gateway-credentials';

// The tenant's own gateway credentials (Stripe for `card_provider`): stored sealed, shown masked.

const tags = ['Settings'];
const params = z.object({
  gateway: z.enum(CREDENTIAL_GATEWAYS).openapi({ param: { name: 'gateway', in: 'path' }, description: 'The gateway (`card_provider`: Stripe)' }),
});

const nullIfEmpty = (v: unknown) => (v === '' ? null : v);
const GatewayCredentialsWriteSchema = z
  .strictObject({
    secretKey: z
      .string()
      .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]{8,247}$/, 'Must be a Stripe secret key (sk_test_…, sk_live_…) or restricted key (rk_test_…, rk_live_…).')
      .openapi({ description: 'Stripe secret or restricted key; write-only', example: 'sk_test_…' }),
    webhookSecret: z
      .preprocess(nullIfEmpty, z.string().regex(/^whsec_[A-Za-z0-9+/=]{8,250}$/, "Must be a Stripe webhook signing secret (whsec_…).").nullable().optional())
      .openapi({ description: "The signing secret of the webhook endpoint registered at Stripe for webhookUrl; write-only. Without it, the gateway's webhooks are refused." }),
    publishableKey: z
      .preprocess(nullIfEmpty, z.string().regex(/^pk_(test|live)_[A-Za-z0-9]{8,247}$/, 'Must be a Stripe publishable key (pk_test_…, pk_live_…).').nullable().optional())
      .openapi({ description: "For Stripe.js on the tenant's pages; not secret" }),
  })
  .openapi('GatewayCredentialsWrite');

export const gatewaySettingsRoutes = createRouter();

gatewaySettingsRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/settings/gateways',
    access: 'settings:read',
    tags,
    summary: 'Gateways with stored credentials',
    request: { query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(GatewayCredentialsSchema, 'GatewayCredentialsCollection'), 'The configured gateways') },
  }),
  async (c) => {
    const { page, limit } = c.req.valid('query');
    const all = await listGatewayCredentials(serviceContext(c), new URL(c.req.url).origin);
    return c.json(collection(all.slice((page - 1) * limit, page * limit), all.length, { page, limit }), 200);
  },
);

gatewaySettingsRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/settings/gateways/{gateway}',
    access: 'settings:read',
    tags,
    summary: "A gateway's stored credentials (masked)",
    request: { params },
    responses: { 200: jsonResponse(GatewayCredentialsSchema, 'The credentials, masked') },
  }),
  async (c) => c.json(await getGatewayCredentials(serviceContext(c), c.req.valid('param').gateway, new URL(c.req.url).origin), 200),
);

gatewaySettingsRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/settings/gateways/{gateway}',
    access: 'settings:write',
    tags,
    summary: "Store a gateway's credentials (checked with the gateway first)",
    description:
      'Replaces what was stored (a field left out is removed). The key must be of the tenant\'s mode and Stripe must accept it ' +
      '(one authenticated read): else 422 at `secretKey`, and nothing is stored. Secrets are stored encrypted and never shown again. ' +
      "Register `webhookUrl` as a webhook endpoint at Stripe (events payment_intent.succeeded, payment_intent.payment_failed, " +
      'payment_intent.requires_action, payment_intent.canceled, refund.updated, refund.failed) and store its signing secret as `webhookSecret`.',
    request: { params, body: jsonBody(GatewayCredentialsWriteSchema) },
    responses: {
      200: jsonResponse(GatewayCredentialsSchema, 'The stored credentials, masked'),
      503: problem('The gateway could not be reached to check the key; nothing was stored'),
    },
  }),
  async (c) => c.json(await saveGatewayCredentials(serviceContext(c), c.req.valid('param').gateway, c.req.valid('json'), new URL(c.req.url).origin), 200),
);

gatewaySettingsRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/settings/gateways/{gateway}',
    access: 'settings:write',
    tags,
    summary: "Remove a gateway's credentials",
    description: 'Charges through the gateway stop (its payment methods cannot be charged until credentials are stored again) and its webhooks are refused.',
    request: { params },
    responses: { 204: noContent },
  }),
  async (c) => {
    await deleteGatewayCredentials(serviceContext(c), c.req.valid('param').gateway);
    return c.body(null, 204);
  },
);
