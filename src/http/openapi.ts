import { OpenAPIHono, createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler, TypedResponse } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { authorize } from './auth';
import type { Permission } from './permissions';
import type { AppEnv } from './context';
import { ApiError, zodViolations } from './errors';
import { idempotency } from './idempotency';
import { rateLimit, type RateLimitRule } from './rate-limit';
import { runInRequestScope } from './request-scope';
import { ProblemSchema } from '../schemas/problems';

/** A problem+json answer; routes declare the ones beyond ERROR_RESPONSES they can give. */
export const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ProblemSchema } } });

const ERROR_RESPONSES = {
  400: problem('Malformed JSON or query parameters'),
  401: problem('Missing or invalid credentials'),
  403: problem('Missing permission'),
  404: problem('Unknown id (ids of other tenants included)'),
  409: problem('State conflict or idempotency key in flight'),
  413: problem('Body too large'),
  415: problem('Wrong content type'),
  422: problem('Validation failed: one violation per broken rule'),
  503: problem('Unavailable for a moment: the tenant is being moved to another database (`tenant-moving`, with Retry-After)'),
} as const;

const rateHeaders = {
  'RateLimit-Policy': { description: 'The policy that limits this request: `"<name>";q=<requests>;w=<seconds>` (draft-ietf-httpapi-ratelimit-headers)', schema: { type: 'string' as const } },
  RateLimit: { description: 'What is left of it: `"<name>";r=<requests>;t=<seconds to the end of the window>`', schema: { type: 'string' as const } },
};

/** The answer of a limited route whose limit was reached (docs/decisions.md, Rate limits). */
const TOO_MANY = {
  ...problem(
    "Too many requests (`rate-limited`): the API key's plan, or on public routes the client address, allows no more in this window. Nothing was done; retry after Retry-After seconds.",
  ),
  headers: { 'Retry-After': { description: 'Seconds until the window ends', schema: { type: 'integer' as const } }, ...rateHeaders },
};

/** Every router of the API: validation failures become problem+json with one violation per rule. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (result.success) return;
      const violations = zodViolations(result.error);
      if (result.target === 'json') throw ApiError.validation(violations);
      throw ApiError.badRequest(`Invalid ${result.target === 'param' ? 'path' : result.target} parameters.`, violations);
    },
  });
}

type Access = Permission | 'public' | 'admin';

/**
 * Validation and handler run in the tenant's request scope (its time zone reads offsetless
 * date-times). Only a date-time in a body or in the query reads it, so a GET or DELETE whose query
 * holds nothing like one (no `YYYY-MM-DDT`, nothing percent-encoded) skips it: an AsyncLocalStorage
 * scope per request cost a simple read a few percent of its CPU.
 */
const tenantScope: MiddlewareHandler<AppEnv> = (c, next) => {
  const tenant = c.var.tenant;
  if (!tenant) return next();
  if (BODILESS.has(c.req.method)) {
    const url = c.req.url;
    const q = url.indexOf('?');
    if (q < 0 || !DATE_TIME_LIKE.test(url.slice(q))) return next();
  }
  return runInRequestScope({ timeZone: tenant.timeZone }, next);
};
const DATE_TIME_LIKE = /\d{4}-\d{2}-\d{2}[Tt]|%/;
const BODILESS = new Set(['GET', 'HEAD', 'DELETE']);

/**
 * Refuses query parameters the route does not declare (400), so a misspelt or unsupported filter
 * never silently returns the unfiltered list. Keys are compared as decoded, so a route accepts
 * `customerGroup[name]` by declaring that key in its query object, whether the client sends the
 * brackets plain or percent-encoded (docs/decisions.md, HTTP conventions).
 */
function knownQueryOnly(query: unknown): MiddlewareHandler<AppEnv> {
  if (query !== undefined && !(query instanceof z.ZodObject)) throw new Error('A route query must be a z.object, so its parameters are known.');
  const known = new Set(query ? Object.keys(query.shape) : []);
  return async (c, next) => {
    if (!c.req.url.includes('?')) return next();
    const unknown = Object.keys(c.req.queries()).filter((name) => !known.has(name));
    if (unknown.length) {
      throw ApiError.badRequest(
        `Unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`,
        unknown.map((name) => ({ propertyPath: name, message: 'This query parameter is not supported here.', code: 'unknown_parameter' })),
      );
    }
    return next();
  };
}

/**
 * Declares a route with its access rule. Authorization, the rate limit (and, for POST and PUT, the
 * Idempotency-Key handling) are attached here, so no route can be registered without them.
 * `rateLimit`: public routes count per client address as `public` unless they declare
 * `public-create` (they make state) or `false` (never limited); API keys count against their
 * tenant's plan, the admin token against nothing (docs/decisions.md, Rate limits).
 */
export function defineRoute<const R extends Omit<RouteConfig, 'middleware' | 'security'>>(
  config: R & { access: Access; customerSelf?: string; customerScoped?: boolean; rateLimit?: RateLimitRule },
) {
  const { access, customerSelf, customerScoped, rateLimit: limitRule = 'public', ...rest } = config;
  const limited = access !== 'admin' && limitRule !== false;
  const middleware: MiddlewareHandler<AppEnv>[] = [
    authorize({ access, customerSelf, customerScoped }),
    ...(limited ? [rateLimit(limitRule)] : []),
    tenantScope,
    knownQueryOnly(rest.request?.query),
  ];
  if (rest.method === 'post' || rest.method === 'put') middleware.push(idempotency);
  const route = {
    ...rest,
    middleware,
    security: access === 'public' ? [] : [{ bearerAuth: [] }],
    'x-permission': access,
    // What the route counts against: the caller's plan, or (public routes) the client address.
    ...(limited ? { 'x-rate-limit': access === 'public' ? limitRule : 'plan' } : {}),
    ...(customerSelf ? { 'x-customer-access': 'self' } : customerScoped ? { 'x-customer-access': 'own records' } : {}),
    responses: { ...ERROR_RESPONSES, ...(limited ? { 429: TOO_MANY } : {}), ...rest.responses },
  };
  return createRoute(route as unknown as R & { middleware: MiddlewareHandler<AppEnv>[]; path: R['path'] }) as unknown as R & {
    getRoutingPath(): string;
  };
}

export const jsonBody = <T extends z.ZodTypeAny>(schema: T, description?: string) => ({
  required: true,
  description,
  content: { 'application/json': { schema } },
});

/** A merge patch (RFC 7396), accepted under its own media type and as plain JSON (the n8n node). */
export const mergePatchBody = <T extends z.ZodTypeAny>(schema: T, description?: string) => ({
  required: true,
  description,
  content: { 'application/merge-patch+json': { schema }, 'application/json': { schema } },
});

export const jsonResponse = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

export const noContent = { description: 'Done; no body' } as const;

/**
 * An answer of type T whose JSON text was written earlier (a cart's view, as its object holds it),
 * sent as it is instead of being parsed and written again. The route's response schema still
 * describes it; the test client checks every answer against that schema.
 */
export function jsonText<T, S extends ContentfulStatusCode>(c: Context, text: string, status: S): TypedResponse<T, S, 'json'> {
  return c.body(text, status, { 'Content-Type': 'application/json' }) as unknown as TypedResponse<T, S, 'json'>;
}
