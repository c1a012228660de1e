import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { countryCode, currencyCode, requiredText, timeZone } from '../../http/schemas';
import { createTenant, listTenants } from '../../services/platform/tenants';
import { ApiKeyCreatedSchema } from '../api-keys/index';

export const TenantSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    countryCode: z.string(),
    defaultCurrency: z.string(),
    timeZone: z.string(),
    mode: z.enum(['live', 'test']),
    createdAt: z.string(),
  })
  .openapi('Tenant');

const TenantCreateSchema = z
  .strictObject({
    name: requiredText(2, 255),
    countryCode,
    defaultCurrency: currencyCode.default('EUR'),
    timeZone: timeZone.default('Europe/Berlin'),
    mode: z.enum(['live', 'test']).default('test'),
  })
  .openapi('TenantCreate');

const tags = ['Platform administration'];

export const adminRoutes = createRouter();

adminRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/admin/tenants',
    access: 'admin',
    tags,
    summary: 'Create a tenant and its first API key',
    description: 'Needs `Authorization: Bearer <ADMIN_TOKEN>`. The key is shown only in this response.',
    request: { body: jsonBody(TenantCreateSchema) },
    responses: { 201: jsonResponse(z.object({ tenant: TenantSchema, apiKey: ApiKeyCreatedSchema }), 'The tenant and its API key') },
  }),
  async (c) => c.json(await createTenant(c.var.db, c.req.valid('json')), 201),
);

adminRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/admin/tenants',
    access: 'admin',
    tags,
    summary: 'List tenants',
    request: { query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(TenantSchema, 'TenantCollection'), 'Tenants') },
  }),
  async (c) => c.json(await listTenants(c.var.db, c.req.valid('query')), 200),
);
