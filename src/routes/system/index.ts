import { swaggerUI } from '@hono/swagger-ui';
import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';

export const systemRoutes = createRouter();

systemRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/health',
    access: 'public',
    tags: ['System'],
    summary: 'Liveness check',
    responses: { 200: jsonResponse(z.object({ status: z.literal('ok') }).openapi('Health'), 'The worker answers') },
  }),
  (c) => c.json({ status: 'ok' as const }, 200),
);

systemRoutes.get('/docs', swaggerUI({ url: '/openapi.json', title: 'Billing API' }));
