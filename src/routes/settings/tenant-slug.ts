import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { TenantSlugSchema } from '../../schemas/platform';
import { readTenantSlug, setTenantSlug } from '../../services/platform/tenant-slug';

// The tenant's public slug: its name in the URLs of its hosted checkout pages.

const tags = ['Settings'];

export const tenantSlugRoutes = createRouter();

tenantSlugRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/settings/tenant-slug',
    access: 'settings:read',
    tags,
    summary: "The tenant's public slug",
    responses: { 200: jsonResponse(TenantSlugSchema, 'The slug, or null while the tenant id names the tenant in page URLs') },
  }),
  async (c) => c.json(await readTenantSlug(serviceContext(c)), 200),
);

tenantSlugRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/settings/tenant-slug',
    access: 'settings:write',
    tags,
    summary: "Set the tenant's public slug",
    description:
      'The name of the tenant in its page URLs (`/checkout/{slug}/{link}`): 3 to 50 lowercase letters, digits and single hyphens, ' +
      'unique across tenants (422 `not_unique`), not a reserved word (422 `reserved`). Checkout links then show URLs with it; URLs ' +
      'with the tenant id keep working. null removes it. Other servers may show the previous slug for up to a minute.',
    request: { body: jsonBody(z.strictObject({ slug: z.string().max(100).nullable() }).openapi('TenantSlugWrite')) },
    responses: { 200: jsonResponse(TenantSlugSchema, 'The slug as stored') },
  }),
  async (c) => c.json(await setTenantSlug(serviceContext(c), c.req.valid('json').slug), 200),
);
