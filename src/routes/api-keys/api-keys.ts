import { z } from '@hono/zod-openapi';
import { requireTenantPrincipal } from '../../http/auth';
import { serviceContext } from '../../http/context';
import { PRINCIPAL_TTL_MS } from '../../http/principal-cache';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { idParam, optionalText, timestamp } from '../../http/schemas';
import { createApiKey, listApiKeys, revokeApiKey } from '../../services/platform/api-keys';
import { ApiKeyCreatedSchema, ApiKeySchema } from '../../schemas/platform';

const ApiKeyCreateSchema = z
  .strictObject({
    name: optionalText(1, 255),
    permissions: z.array(z.string()).min(1, 'At least one permission is needed.').max(100),
    expiresAt: timestamp.nullable().optional().transform((v) => v ?? null),
  })
  .openapi('ApiKeyCreate');

const tags = ['API keys'];
export const apiKeyRoutes = createRouter();

apiKeyRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/api-keys',
    access: 'api-key:write',
    tags,
    summary: 'Create an API key',
    description: 'Permissions are `<resource>:<read|write>` or `*`; a key can only grant what it holds itself.',
    request: { body: jsonBody(ApiKeyCreateSchema) },
    responses: { 201: jsonResponse(ApiKeyCreatedSchema, 'The key, with its secret shown once') },
  }),
  async (c) => {
    const principal = c.var.principal;
    requireTenantPrincipal(principal);
    const body = c.req.valid('json');
    return c.json(await createApiKey(serviceContext(c), principal.permissions, body), 201);
  },
);

apiKeyRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/api-keys',
    access: 'api-key:read',
    tags,
    summary: 'List API keys (without their secrets)',
    description: 'Lists the keys whose every permission the calling key holds itself (`*` only for `*` keys).',
    request: { query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(ApiKeySchema, 'ApiKeyCollection'), 'API keys') },
  }),
  async (c) => {
    const principal = c.var.principal;
    requireTenantPrincipal(principal);
    return c.json(await listApiKeys(serviceContext(c), principal.permissions, c.req.valid('query')), 200);
  },
);

apiKeyRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/api-keys/{id}',
    access: 'api-key:write',
    tags,
    summary: 'Revoke an API key',
    description:
      'Only a key whose every permission the calling key holds can be revoked; any other answers 404, like an unknown id. ' +
      'The key is refused from the next request on wherever that request is served by the Worker instance that revoked it, ' +
      `and everywhere within ${PRINCIPAL_TTL_MS / 1000} seconds (each instance remembers a key it has seen for at most that long).`,
    request: { params: z.object({ id: idParam('id', 'API key id') }) },
    responses: { 204: noContent },
  }),
  async (c) => {
    const principal = c.var.principal;
    requireTenantPrincipal(principal);
    await revokeApiKey(serviceContext(c), principal.permissions, c.req.valid('param').id);
    return c.body(null, 204);
  },
);
