import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { idParam } from '../../http/schemas';
import * as service from '../../services/customers/custom-fields';

const resources = ['customer', 'subscription', 'invoice', 'product'] as const;
const CustomFieldSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(['string', 'number', 'boolean', 'date', 'select']),
    resource: z.enum(resources),
    options: z.array(z.string()).nullable(),
    required: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('CustomField');

const CustomFieldWriteSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'Must start with a letter and use only letters, digits and _ (at most 64).'),
    type: z.enum(['string', 'number', 'boolean', 'date', 'select']),
    resource: z.enum(resources),
    options: z.array(z.string().min(1).max(255)).max(100).nullable().optional().transform((v) => v ?? null),
    required: z.boolean().optional().default(false),
  })
  .openapi('CustomFieldWrite');

const tags = ['Custom fields'];
const params = z.object({ id: idParam('id', 'Custom field id') });
export const customFieldRoutes = createRouter();

customFieldRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/custom-fields',
    access: 'custom-field:read',
    tags,
    summary: 'List custom field definitions',
    request: { query: z.object({ ...paginationQuery, resource: z.enum(resources).optional() }) },
    responses: { 200: jsonResponse(collectionSchema(CustomFieldSchema, 'CustomFieldCollection'), 'Custom fields') },
  }),
  async (c) => {
    const q = c.req.valid('query');
    return c.json(await service.listCustomFields(serviceContext(c), q, q.resource), 200);
  },
);

customFieldRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/custom-fields',
    access: 'custom-field:write',
    tags,
    summary: 'Define a custom field',
    request: { body: jsonBody(CustomFieldWriteSchema) },
    responses: { 201: jsonResponse(CustomFieldSchema, 'The definition') },
  }),
  async (c) => c.json(await service.createCustomField(serviceContext(c), c.req.valid('json')), 201),
);

customFieldRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/custom-fields/{id}',
    access: 'custom-field:read',
    tags,
    summary: 'Get a custom field definition',
    request: { params },
    responses: { 200: jsonResponse(CustomFieldSchema, 'The definition') },
  }),
  async (c) => c.json(await service.getCustomField(serviceContext(c), c.req.valid('param').id), 200),
);

customFieldRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/custom-fields/{id}',
    access: 'custom-field:write',
    tags,
    summary: 'Replace a custom field definition (type and resource are fixed)',
    request: { params, body: jsonBody(CustomFieldWriteSchema) },
    responses: { 200: jsonResponse(CustomFieldSchema, 'The definition') },
  }),
  async (c) => c.json(await service.updateCustomField(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
);

customFieldRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/custom-fields/{id}',
    access: 'custom-field:write',
    tags,
    summary: 'Delete a custom field definition',
    request: { params },
    responses: { 204: noContent },
  }),
  async (c) => {
    await service.deleteCustomField(serviceContext(c), c.req.valid('param').id);
    return c.body(null, 204);
  },
);
