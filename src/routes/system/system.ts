import { swaggerUI } from '@hono/swagger-ui';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { HealthSchema } from '../../schemas/platform';

export const systemRoutes = createRouter();

systemRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/health',
    access: 'public',
    // Monitoring must always see whether the worker answers, and the answer costs nothing.
    rateLimit: false,
    tags: ['System'],
    summary: 'Liveness check',
    responses: { 200: jsonResponse(HealthSchema, 'The worker answers') },
  }),
  (c) => c.json({ status: 'ok' as const }, 200),
);

systemRoutes.get('/docs', swaggerUI({ url: '/openapi.json', title: 'Billing API' }));
