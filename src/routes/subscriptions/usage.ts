import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { decimalOrNumber, idParam, timestamp } from '../../http/schemas';
import { exactNumbers } from '../../http/exact-numbers';
import { CurrentMeasurementValueSchema, MeasurementValueSchema, UsageBatchResultSchema } from '../../schemas/subscriptions';
import { currentUsage, ingestUsage, listMeasurementValues, USAGE_BATCH_LIMIT } from '../../services/subscriptions/usage';
import { nullable, ref } from './requests';

// Usage: events reported for metered items, and what they add up to.

const tags = ['Usage'];
const itemParams = z.object({ id: idParam('id', 'Subscription item id') });

const UsageBatchSchema = z
  .strictObject({
    events: z
      .array(
        z.strictObject({
          id: z.string().min(1).max(255),
          subscriptionItem: ref,
          customer: ref,
          measurement: nullable(z.string().min(1).max(255)),
          // A JSON number is read from the request text (exactNumbers below), never through a float.
          quantity: decimalOrNumber(6, { integerDigits: 9 }, '1'),
          measuredAt: nullable(timestamp),
          uniqueId: nullable(z.string().min(1).max(255)),
        }),
      )
      .min(1)
      .max(USAGE_BATCH_LIMIT, `At most ${USAGE_BATCH_LIMIT} events a batch.`),
  })
  .superRefine((b, ctx) => {
    b.events.forEach((e, i) => {
      if (e.subscriptionItem === null && (e.customer === null || e.measurement === null)) {
        ctx.addIssue({ code: 'custom', path: ['events', i, 'subscriptionItem'], message: 'Name the subscriptionItem, or the customer and the measurement code.' });
      }
    });
  })
  .openapi('UsageBatch');

export const usageRoutes = createRouter();
usageRoutes.use('/subscriptions/measurements', exactNumbers('events.*.quantity'));

usageRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/subscriptions/measurements',
    access: 'subscription:write',
    tags,
    summary: 'Report usage events (up to 10,000 a batch)',
    description:
      'Each event names its subscriptionItem, or its customer and measurement code. An event id counts once per tenant for 35 days (repeats are reported as duplicates). Bad events are reported by index without losing the good ones. The body may be up to 5 MiB (413 beyond).',
    request: { body: jsonBody(UsageBatchSchema) },
    responses: { 200: jsonResponse(UsageBatchResultSchema, 'What was stored') },
  }),
  async (c) => c.json(await ingestUsage(serviceContext(c), c.req.valid('json').events), 200),
);

usageRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/subscription-items/{id}/measurement-values',
    access: 'subscription:read',
    tags,
    summary: 'The usage events of an item, newest first',
    request: { params: itemParams, query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(MeasurementValueSchema, 'MeasurementValueCollection'), 'Usage events') },
  }),
  async (c) => c.json(await listMeasurementValues(serviceContext(c), c.req.valid('param').id, c.req.valid('query')), 200),
);

usageRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/subscription-items/{id}/current-measurement-value',
    access: 'subscription:read',
    tags,
    summary: 'The aggregated usage of the current billing period',
    request: { params: itemParams },
    responses: { 200: jsonResponse(CurrentMeasurementValueSchema, 'The current value') },
  }),
  async (c) => c.json(await currentUsage(serviceContext(c), c.req.valid('param').id), 200),
);
