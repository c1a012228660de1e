import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { countryCode, currencyCode, requiredText, timeZone } from '../../http/schemas';
import { TenantCreatedSchema, TenantSchema } from '../../schemas/platform';
import { createTenant, listTenants, setTenantPlan } from '../../services/platform/tenants';

const plan = z
  .string()
  .max(32)
  .optional()
  .openapi({ description: "The plan whose rate limit the tenant's API keys get: one of the deployment's RATE_LIMIT_PLANS (422 `unknown_plan`); default DEFAULT_TENANT_PLAN." });

const TenantCreateSchema = z
  .strictObject({
    name: requiredText(2, 255),
    countryCode,
    defaultCurrency: currencyCode.default('EUR'),
    timeZone: timeZone.default('Europe/Berlin'),
    mode: z.enum(['live', 'test']).default('test'),
    shard: z
      .string()
      .max(64)
      .optional()
      .openapi({ description: 'Pins the tenant to this shard (a D1 binding named in D1_SHARDS) instead of the placement policy: for tests, benchmarks and moves.' }),
    plan,
  })
  .openapi('TenantCreate');

const TenantPlanSchema = z.strictObject({ plan: plan.unwrap() }).openapi('TenantPlan');

const tags = ['Platform administration'];

export const tenantRoutes = createRouter();

tenantRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/admin/tenants',
    access: 'admin',
    tags,
    summary: 'Create a tenant and its first API key',
    description:
      'Needs `Authorization: Bearer <ADMIN_TOKEN>`. The key is shown only in this response. The tenant is placed on the shard with the fewest tenants unless `shard` pins one.',
    request: { body: jsonBody(TenantCreateSchema) },
    responses: { 201: jsonResponse(TenantCreatedSchema, 'The tenant and its API key') },
  }),
  async (c) => c.json(await createTenant(c.env, c.req.valid('json')), 201),
);

tenantRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/admin/tenants',
    access: 'admin',
    tags,
    summary: 'List tenants',
    request: { query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(TenantSchema, 'TenantCollection'), 'Tenants') },
  }),
  async (c) => c.json(await listTenants(c.env, c.req.valid('query')), 200),
);

tenantRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/admin/tenants/{id}/plan',
    access: 'admin',
    tags,
    summary: "Move a tenant to another plan (its API keys' rate limit)",
    description:
      'Needs `Authorization: Bearer <ADMIN_TOKEN>`. The plan must be one of the deployment\'s (RATE_LIMIT_PLANS). ' +
      "Applies to the tenant's next requests; a key an isolate remembers follows within seconds.",
    request: { params: z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' } }) }), body: jsonBody(TenantPlanSchema) },
    responses: { 200: jsonResponse(TenantSchema, 'The tenant on its new plan') },
  }),
  async (c) => c.json(await setTenantPlan(c.env, c.req.valid('param').id, c.req.valid('json').plan), 200),
);
