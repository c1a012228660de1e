import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { CustomerTokensSchema } from '../../schemas/platform';
import { refreshCustomerSession } from '../../services/platform/customer-sessions';

const RefreshSchema = z.strictObject({ refreshToken: z.string().min(1).max(512) }).openapi('RefreshRequest');

export const authRoutes = createRouter();

authRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/auth/refresh',
    access: 'public',
    tags: ['Auth'],
    summary: 'Exchange a refresh token for a new access and refresh token',
    description: 'Refresh tokens are single-use; presenting a spent one closes the whole session.',
    request: { body: jsonBody(RefreshSchema) },
    responses: { 200: jsonResponse(CustomerTokensSchema, 'New tokens') },
  }),
  async (c) => c.json(await refreshCustomerSession(c.env, c.req.valid('json').refreshToken), 200),
);
