import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema } from '../../http/pagination';
import { idParam, timestamp } from '../../http/schemas';
import { FeatureAssignmentSchema } from '../../schemas/entitlements';
import { assignmentListQuery, createAssignment, deleteAssignment, getAssignment, listAssignments } from '../../services/subscriptions/entitlements';

const tags = ['Entitlements'];
const nullable = <T extends z.ZodTypeAny>(s: T) => s.nullable().optional().transform((v) => v ?? null);
const params = z.object({ id: idParam('id', 'Feature assignment id') });

export const featureAssignmentRoutes = createRouter();

featureAssignmentRoutes.openapi(
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
  async (c) => c.json(await createAssignment(serviceContext(c), c.req.valid('json')), 201),
);

featureAssignmentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/entitlement/feature-assignments',
    access: 'entitlement:read',
    tags,
    summary: 'List feature assignments',
    request: { query: assignmentListQuery },
    responses: { 200: jsonResponse(collectionSchema(FeatureAssignmentSchema, 'FeatureAssignmentCollection'), 'Assignments') },
  }),
  async (c) => c.json(await listAssignments(serviceContext(c), c.req.valid('query')), 200),
);

featureAssignmentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/entitlement/feature-assignments/{id}',
    access: 'entitlement:read',
    tags,
    summary: 'Get a feature assignment',
    request: { params },
    responses: { 200: jsonResponse(FeatureAssignmentSchema, 'The assignment') },
  }),
  async (c) => c.json(await getAssignment(serviceContext(c), c.req.valid('param').id), 200),
);

featureAssignmentRoutes.openapi(
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
