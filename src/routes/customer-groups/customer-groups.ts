import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { idParam, optionalText, requiredText } from '../../http/schemas';
import { CustomerGroupSchema } from '../../schemas/customers';
import { createGroup, deleteGroup, getGroup, listGroups, updateGroup } from '../../services/customers/groups';

const GroupWriteSchema = z.strictObject({ name: requiredText(2, 255), description: optionalText(1, 1000) }).openapi('CustomerGroupWrite');

const tags = ['Customer groups'];
const params = z.object({ id: idParam('id', 'Id') });
export const customerGroupRoutes = createRouter();

customerGroupRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/customer-groups',
    access: 'customer-group:read',
    tags,
    summary: 'List customer groups',
    request: { query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(CustomerGroupSchema, 'CustomerGroupCollection'), 'Customer groups') },
  }),
  async (c) => c.json(await listGroups(serviceContext(c), c.req.valid('query')), 200),
);

customerGroupRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/customer-groups',
    access: 'customer-group:write',
    tags,
    summary: 'Create a CustomerGroup',
    request: { body: jsonBody(GroupWriteSchema) },
    responses: { 201: jsonResponse(CustomerGroupSchema, 'Created') },
  }),
  async (c) => c.json(await createGroup(serviceContext(c), c.req.valid('json')), 201),
);

customerGroupRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/customer-groups/{id}',
    access: 'customer-group:read',
    tags,
    summary: 'Get a CustomerGroup',
    request: { params },
    responses: { 200: jsonResponse(CustomerGroupSchema, 'CustomerGroup') },
  }),
  async (c) => c.json(await getGroup(serviceContext(c), c.req.valid('param').id), 200),
);

customerGroupRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/customer-groups/{id}',
    access: 'customer-group:write',
    tags,
    summary: 'Replace a CustomerGroup',
    request: { params, body: jsonBody(GroupWriteSchema) },
    responses: { 200: jsonResponse(CustomerGroupSchema, 'CustomerGroup') },
  }),
  async (c) => c.json(await updateGroup(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
);

customerGroupRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/customer-groups/{id}',
    access: 'customer-group:write',
    tags,
    summary: 'Delete a CustomerGroup (refused while customers use it)',
    request: { params },
    responses: { 204: noContent },
  }),
  async (c) => {
    await deleteGroup(serviceContext(c), c.req.valid('param').id);
    return c.body(null, 204);
  },
);
