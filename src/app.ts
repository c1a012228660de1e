import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from './http/context';
import { ApiError, renderProblem } from './http/errors';
import { createRouter } from './http/openapi';
import { bodyGuard, requestSetup } from './http/request';
import { publishOutbox } from './events/delivery';
import { adminRoutes } from './routes/admin/index';
import { apiKeyRoutes } from './routes/api-keys/index';
import { authRoutes } from './routes/auth/index';
import { customFieldRoutes } from './routes/custom-fields/index';
import { customerGroupRoutes } from './routes/customer-groups/index';
import { customerRoutes } from './routes/customers/index';
import { settingsRoutes } from './routes/settings/index';
import { systemRoutes } from './routes/system/index';
import { testClockRoutes } from './routes/test-clock/index';
import { billingGroupRoutes } from './routes/billing-groups/index';
import { cancellationReasonRoutes } from './routes/cancellation-reasons/index';
import { costCentreRoutes } from './routes/cost-centres/index';
import { measurementRoutes } from './routes/measurements/index';
import { productFamilyRoutes } from './routes/product-families/index';
import { unitRoutes } from './routes/units/index';
import { productRoutes } from './routes/products/index';
import { taxRoutes } from './routes/tax-groups/index';
import { pricePlanRoutes } from './routes/price-plans/index';
import { planRoutes } from './routes/plans/index';
import { couponRoutes } from './routes/coupons/index';
import { subscriptionRoutes } from './routes/subscriptions/index';
import { subscriptionItemRoutes } from './routes/subscription-items/index';
import { entitlementRoutes } from './routes/entitlements/index';
import { invoiceRoutes } from './routes/invoices/index';
import { billingRunRoutes } from './routes/billing-runs/index';
import { exchangeRateRoutes } from './routes/exchange-rates/index';
import { webhookRoutes } from './routes/webhooks/index';
import type { Context } from 'hono';

export function buildApp() {
  const app = createRouter();
  app.use('*', requestSetup);
  app.use('*', bodyGuard);
  // Events a change wrote to the outbox go to the queue right after the response (the cron sweeper
  // catches anything this misses); the caller never waits for webhook delivery.
  app.use('*', async (c, next) => {
    await next();
    const tenant = c.var.tenant;
    if (!tenant || c.req.method === 'GET' || c.res.status >= 400) return;
    const publishing = publishOutbox(c.env, tenant.id).catch((err) => console.error(JSON.stringify({ level: 'error', job: 'publish', message: String(err) })));
    try {
      c.executionCtx.waitUntil(publishing);
    } catch {
      // No execution context (app.request in a unit test): the promise runs on its own.
    }
  });

  for (const routes of [
    systemRoutes,
    adminRoutes,
    authRoutes,
    apiKeyRoutes,
    testClockRoutes,
    settingsRoutes,
    customFieldRoutes,
    customerGroupRoutes,
    customerRoutes,
    productFamilyRoutes,
    unitRoutes,
    measurementRoutes,
    costCentreRoutes,
    cancellationReasonRoutes,
    billingGroupRoutes,
    taxRoutes,
    productRoutes,
    pricePlanRoutes,
    planRoutes,
    couponRoutes,
    subscriptionRoutes,
    subscriptionItemRoutes,
    entitlementRoutes,
    invoiceRoutes,
    billingRunRoutes,
    exchangeRateRoutes,
    webhookRoutes,
  ]) {
    app.route('/', routes);
  }

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key (`sk_…`), a customer access token (JWT), or the platform ADMIN_TOKEN for /admin routes.',
  });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Edge billing API',
      version: '0.1.0',
      description:
        'Subscription billing and invoicing. Errors are RFC 9457 problem+json; collections are `{data, meta.pagination}`; ' +
        'POST and PUT accept an `Idempotency-Key` header; PATCH takes application/merge-patch+json.',
    },
  });

  app.notFound((c) => renderProblem(c as Context<AppEnv>, new ApiError(404, 'not-found', `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`)));
  app.onError((err, c) => {
    if (err instanceof ApiError) return renderProblem(c, err);
    if (err instanceof HTTPException && err.status < 500) return renderProblem(c, new ApiError(err.status, 'bad-request', err.message || 'Bad request.'));
    console.error(JSON.stringify({ level: 'error', requestId: c.get('requestId'), message: String(err), stack: (err as Error).stack }));
    return renderProblem(c, new ApiError(500, 'internal-error', 'An unexpected error occurred; the change was not applied.'));
  });
  return app;
}

export const app = buildApp();
