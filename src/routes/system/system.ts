import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { HealthSchema } from '../../schemas/platform';
import { docsRoutes } from './docs';

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

// The reference page and its bundled assets (no OpenAPI operations of their own).
systemRoutes.route('/', docsRoutes);
