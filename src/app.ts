import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from './http/context';
import { ApiError, renderProblem } from './http/errors';
import { createRouter } from './http/openapi';
import { openApiDocument } from './http/openapi-document';
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
  // The document is built once per isolate, with the rules, tag descriptions and recorded examples.
  app.get('/openapi.json', (c) => c.json(openApiDocument(app)));

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
