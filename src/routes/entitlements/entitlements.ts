import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { idParam } from '../../http/schemas';
import { CustomerEntitlementSchema, EntitlementSchema } from '../../schemas/entitlements';
import { customerEntitlement, ENTITLEMENT_CHECK_TTL_MS } from '../../services/subscriptions/entitlement-check';
import { listSubscriptionEntitlements } from '../../services/subscriptions/entitlements';

// What customers and subscriptions are entitled to (resolved from the feature assignments).

const tags = ['Entitlements'];

export const entitlementRoutes = createRouter();

entitlementRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/customers/{id}/entitlements',
    access: 'entitlement:read',
    customerSelf: 'id',
    tags,
    summary: 'Is the customer entitled to a feature?',
    description:
      'The check an application makes on its own requests; answered from precomputed rows in one indexed read (the customer and its entitlements in one statement). ' +
      `A Worker instance remembers the rows for at most ${ENTITLEMENT_CHECK_TTL_MS / 1000} seconds: a subscription change is seen at once by the instance that made it and by every other within that time; validity windows are applied at every check.`,
    request: { params: z.object({ id: idParam('id', 'Customer id') }), query: z.object({ feature: z.string().min(1).max(64) }) },
    responses: { 200: jsonResponse(CustomerEntitlementSchema, 'The answer') },
  }),
  async (c) => c.json(await customerEntitlement(serviceContext(c), c.req.valid('param').id, c.req.valid('query').feature), 200),
);

entitlementRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/subscriptions/{id}/entitlements',
    access: 'subscription:read',
    tags,
    summary: "The subscription's entitlements, per item",
    request: { params: z.object({ id: idParam('id', 'Subscription id') }), query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(EntitlementSchema, 'EntitlementCollection'), 'Entitlements') },
  }),
  async (c) => c.json(await listSubscriptionEntitlements(serviceContext(c), c.req.valid('param').id, c.req.valid('query')), 200),
);
