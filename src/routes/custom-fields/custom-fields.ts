import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema } from '../../http/pagination';
import { idParam } from '../../http/schemas';
import * as service from '../../services/customers/custom-fields';
import { CUSTOM_FIELD_RESOURCES, CUSTOM_FIELD_TYPES, CustomFieldSchema } from '../../schemas/customers';

const CustomFieldWriteSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'Must start with a letter and use only letters, digits and _ (at most 64).'),
    type: z.enum(CUSTOM_FIELD_TYPES),
    resource: z.enum(CUSTOM_FIELD_RESOURCES),
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
    request: { query: service.customFieldListQuery },
    responses: { 200: jsonResponse(collectionSchema(CustomFieldSchema, 'CustomFieldCollection'), 'Custom fields') },
  }),
  async (c) => c.json(await service.listCustomFields(serviceContext(c), c.req.valid('query')), 200),
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
