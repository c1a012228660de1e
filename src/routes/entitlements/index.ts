import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { idParam, optionalText, requiredText, timestamp } from '../../http/schemas';
import { createAssignment, customerEntitlement, deleteAssignment, featureService, getAssignment, listAssignments } from '../../services/subscriptions/entitlements';
import { findCustomerRow } from '../../services/customers/read';
import { registerResourceRoutes } from '../resource-routes';
import { FeatureAssignmentSchema, FeatureSchema } from './schemas';

export const entitlementRoutes = createRouter();

registerResourceRoutes(entitlementRoutes, {
  paths: { collection: '/entitlement/features', item: '/entitlement/features/{id}' },
  name: 'Feature',
  tag: 'Entitlements',
  permission: 'feature',
  service: featureService,
  schema: FeatureSchema,
  writeSchema: z
    .strictObject({
      code: z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/i, 'Use 1 to 64 letters, digits, _ . -'),
      name: requiredText(1, 255),
      description: optionalText(1, 1000),
      status: z.enum(['active', 'inactive', 'archived']).default('active'),
      type: z.enum(['switch', 'quantity', 'config']),
      config: z
        .array(z.strictObject({ value: z.string().min(1).max(255), label: z.string().min(1).max(255) }))
        .max(100)
        .nullable()
        .optional()
        .transform((v) => v ?? null),
      unit: optionalText(1, 64),
    })
    .openapi('FeatureWrite'),
  descriptions: { put: 'The code cannot change: applications check entitlements by code.' },
});

const tags = ['Entitlements'];
const nullable = <T extends z.ZodTypeAny>(s: T) => s.nullable().optional().transform((v) => v ?? null);

entitlementRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/entitlement/feature-assignments',
    access: 'entitlement:write',
    tags,
    summary: 'Assign a feature to a product or price plan',
    description:
      'Inside validFrom..validUntil the assignment applies to new subscriptions; with applyToExistingSubscriptions, live subscriptions using the product or price get the entitlement at once.',
    request: {
      body: jsonBody(
        z
          .strictObject({
            feature: z.string().min(1).max(64),
            value: z.string().max(255).nullable(),
            object: z.enum(['product-price', 'product']),
            objectId: z.string().min(1).max(64),
            validFrom: nullable(timestamp),
            validUntil: nullable(timestamp),
            applyToExistingSubscriptions: z.boolean().default(false),
          })
          .openapi('FeatureAssignmentWrite'),
      ),
    },
    responses: { 201: jsonResponse(FeatureAssignmentSchema, 'The assignment') },
  }),
  async (c) => c.json((await createAssignment(serviceContext(c), c.req.valid('json'))) as never, 201),
);

entitlementRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/entitlement/feature-assignments',
    access: 'entitlement:read',
    tags,
    summary: 'List feature assignments',
    request: { query: z.object({ ...paginationQuery, feature: z.string().max(64).optional(), objectId: z.string().max(64).optional() }) },
    responses: { 200: jsonResponse(collectionSchema(FeatureAssignmentSchema, 'FeatureAssignmentCollection'), 'Assignments') },
  }),
  async (c) => {
    const q = c.req.valid('query');
    return c.json((await listAssignments(serviceContext(c), q, { feature: q.feature, objectId: q.objectId })) as never, 200);
  },
);

const params = z.object({ id: idParam('id', 'Feature assignment id') });

entitlementRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/entitlement/feature-assignments/{id}',
    access: 'entitlement:read',
    tags,
    summary: 'Get a feature assignment',
    request: { params },
    responses: { 200: jsonResponse(FeatureAssignmentSchema, 'The assignment') },
  }),
  async (c) => c.json((await getAssignment(serviceContext(c), c.req.valid('param').id)) as never, 200),
);

entitlementRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/entitlement/feature-assignments/{id}',
    access: 'entitlement:write',
    tags,
    summary: 'Remove a feature assignment and the entitlements it granted',
    request: { params },
    responses: { 204: noContent },
  }),
  async (c) => {
    await deleteAssignment(serviceContext(c), c.req.valid('param').id);
    return c.body(null, 204);
  },
);

entitlementRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/customers/{id}/entitlements',
    access: 'entitlement:read',
    customerSelf: 'id',
    tags,
    summary: 'Is the customer entitled to a feature?',
    description: 'The check an application makes on its own requests; answered from a precomputed row in one indexed read.',
    request: { params: z.object({ id: idParam('id', 'Customer id') }), query: z.object({ feature: z.string().min(1).max(64) }) },
    responses: {
      200: jsonResponse(
        z
          .object({ customer: z.string(), feature: z.string(), entitled: z.boolean(), values: z.array(z.string()), subscriptions: z.array(z.string()) })
          .openapi('CustomerEntitlement'),
        'The answer',
      ),
    },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    const id = c.req.valid('param').id;
    const [answer] = await Promise.all([customerEntitlement(ctx, id, c.req.valid('query').feature), findCustomerRow(ctx, id)]);
    return c.json(answer, 200);
  },
);
