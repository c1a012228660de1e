import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from './http/context';
import { ApiError, renderProblem } from './http/errors';
import { createRouter } from './http/openapi';
import { bodyGuard, requestSetup } from './http/request';
import { PRINCIPAL_TTL_MS } from './http/principal-cache';
import { publishOutbox } from './events/publish';
import { routers } from './routes/index';
import { checkoutPages } from './pages/checkout/routes';
import { offerPages } from './pages/offers/routes';
import { devPages } from './pages/dev/mail';
import type { Context } from 'hono';
import { logError } from './lib/log';

export function buildApp() {
  const app = createRouter();
  app.use('*', requestSetup);
  // The hosted checkout and offer pages take HTML form posts, which the JSON body guard below would refuse.
  app.route('/', checkoutPages);
  app.route('/', offerPages);
  // Development only (Env.ENVIRONMENT): the local mail outbox; elsewhere its paths are 404.
  app.route('/', devPages);
  app.use('*', bodyGuard);
  // Events a change wrote to the outbox go to the queue right after the response (the cron sweeper
  // catches anything this misses); the caller never waits for webhook delivery.
  app.use('*', async (c, next) => {
    await next();
    const tenant = c.var.tenant;
    if (!tenant || c.req.method === 'GET' || c.res.status >= 400) return;
    const publishing = publishOutbox(c.env, tenant.id).catch((err) => logError({ job: 'publish' }, err));
    try {
      c.executionCtx.waitUntil(publishing);
    } catch {
      // No execution context (app.request in a unit test): the promise runs on its own.
    }
  });

  for (const routes of routers) app.route('/', routes);

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key (`sk_…`), a customer access token (JWT), or the platform ADMIN_TOKEN for /admin routes. ' +
      `A Worker instance remembers an API key and its tenant for at most ${PRINCIPAL_TTL_MS / 1000} seconds: a revocation, or a change of the tenant ` +
      `(its test clock), is seen at once by the instance that made it and by every other within ${PRINCIPAL_TTL_MS / 1000} seconds.`,
  });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Edge billing API',
      version: '0.1.0',
      description:
        'Subscription billing and invoicing. Errors are RFC 9457 problem+json; collections are `{data, meta.pagination}`; ' +
        'POST and PUT accept an `Idempotency-Key` header; PATCH takes a JSON merge patch (application/merge-patch+json or application/json). ' +
        'Reads may be served by a nearby read replica: a response that reached the tenant\'s data carries an `x-d1-bookmark` header; send it back ' +
        'as `x-d1-bookmark` on the next request to read at least what that response saw (your own writes included). A malformed or foreign bookmark is ignored. ' +
        "Requests are rate limited, an API key by its tenant's plan and public routes by the client address: their responses carry " +
        '`RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers); a refused request is 429 `rate-limited` with `Retry-After`, and nothing was done.',
    },
  });

  app.notFound((c) => renderProblem(c as Context<AppEnv>, new ApiError(404, 'not-found', `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`)));
  app.onError((err, c) => {
    if (err instanceof ApiError) return renderProblem(c, err);
    if (err instanceof HTTPException && err.status < 500) return renderProblem(c, new ApiError(err.status, 'bad-request', err.message || 'Bad request.'));
    logError({ requestId: c.get('requestId') }, err);
    return renderProblem(c, new ApiError(500, 'internal-error', 'An unexpected error occurred; the change was not applied.'));
  });
  return app;
}

export const app = buildApp();
