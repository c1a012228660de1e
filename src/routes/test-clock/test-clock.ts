import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { timestamp } from '../../http/schemas';
import { readTestClock, setTestClock } from '../../services/platform/test-clock';
import { TestClockSchema } from '../../schemas/platform';

const tags = ['Test clock'];
export const testClockRoutes = createRouter();

testClockRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/test-clock',
    access: 'test-clock:read',
    tags,
    summary: "A test-mode tenant's clock",
    responses: { 200: jsonResponse(TestClockSchema, 'The clock') },
  }),
  async (c) => c.json(readTestClock(c.var.tenant), 200),
);

testClockRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/test-clock',
    access: 'test-clock:write',
    tags,
    summary: 'Set the test clock',
    description:
      'The first setting may be any instant; after that the clock only moves forward. Every time the service uses for this tenant comes from it. Everything due up to the new time (subscription transitions, billing) happens before the answer.',
    request: { body: jsonBody(z.strictObject({ now: timestamp }).openapi('TestClockSet')) },
    responses: { 200: jsonResponse(TestClockSchema, 'The clock') },
  }),
  async (c) => c.json(await setTestClock(serviceContext(c), new Date(c.req.valid('json').now)), 200),
);
