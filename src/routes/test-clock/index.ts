import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { timestamp } from '../../http/schemas';
import { advanceTestClock, renderTestClock } from '../../services/tenants';
import { ApiError } from '../../http/errors';
import { serviceContext } from '../../http/context';
import { sweepSubscriptions } from '../../services/subscription-sweep';

const TestClockSchema = z
  .object({ now: z.string(), frozen: z.boolean().openapi({ description: 'false until the clock is first set: then it follows the real clock' }) })
  .openapi('TestClock');

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
  async (c) => {
    if (c.var.tenant.mode !== 'test') throw ApiError.conflict('Only test-mode tenants have a test clock.', 'not-test-mode');
    return c.json(renderTestClock(c.var.tenant), 200);
  },
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
  async (c) => {
    const clock = await advanceTestClock(c.var.db, c.var.tenant, new Date(c.req.valid('json').now));
    // Everything that became due up to the new time happens before the answer (deterministic scenarios).
    const now = new Date(clock.now);
    const ctx = { ...serviceContext(c), tenant: { ...c.var.tenant, testClockNow: clock.now }, now };
    for (let more = true; more; ) more = (await sweepSubscriptions(ctx)).more;
    await c.env.TENANT.getByName(c.var.tenant.id).runBilling(c.var.tenant.id, { trigger: 'test_clock', sync: true, asOf: clock.now });
    // Transitions that billing made due (a cancellation after the last billed period) follow it.
    for (let more = true; more; ) more = (await sweepSubscriptions(ctx)).more;
    return c.json(clock, 200);
  },
);
