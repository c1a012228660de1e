import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { idParam } from '../../http/schemas';
import { getRun, listRuns, startBillingRun } from '../../services/billing/runs';
import { BillingRunSchema } from '../../schemas/billing';

const tags = ['Billing runs'];
export const billingRunRoutes = createRouter();

billingRunRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/billing-runs',
    access: 'billing-run:read',
    tags,
    summary: 'List billing runs with their counts',
    request: { query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(BillingRunSchema, 'BillingRunCollection'), 'Runs') },
  }),
  async (c) => c.json(await listRuns(serviceContext(c), c.req.valid('query')), 200),
);

billingRunRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/billing-runs',
    access: 'billing-run:write',
    tags,
    summary: 'Start a billing run now',
    description:
      'Schedules a run that bills everything due up to now in the background and answers at once (poll GET /billing-runs/{id}). While a run is under way, that run is returned instead of a second one.',
    responses: { 202: jsonResponse(BillingRunSchema, 'The run') },
  }),
  async (c) => c.json(await startBillingRun(serviceContext(c), 'api'), 202),
);

billingRunRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/billing-runs/{id}',
    access: 'billing-run:read',
    tags,
    summary: 'Get a billing run',
    request: { params: z.object({ id: idParam('id', 'Billing run id') }) },
    responses: { 200: jsonResponse(BillingRunSchema, 'The run') },
  }),
  async (c) => c.json(await getRun(serviceContext(c), c.req.valid('param').id), 200),
);
