import { OpenAPIHono, createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { authorize } from './auth';
import type { Permission } from './permissions';
import type { AppEnv } from './context';
import { ApiError, zodViolations } from './errors';
import { idempotency } from './idempotency';
import { ProblemSchema } from '../schemas/problems';

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ProblemSchema } } });

const ERROR_RESPONSES = {
  400: problem('Malformed JSON or query parameters'),
  401: problem('Missing or invalid credentials'),
  403: problem('Missing permission'),
  404: problem('Unknown id (ids of other tenants included)'),
  409: problem('State conflict or idempotency key in flight'),
  413: problem('Body too large'),
  415: problem('Wrong content type'),
  422: problem('Validation failed: one violation per broken rule'),
} as const;

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
 * Declares a route with its access rule. Authorization (and, for POST and PUT, the
 * Idempotency-Key handling) is attached here, so no route can be registered without it.
 */
export function defineRoute<const R extends Omit<RouteConfig, 'middleware' | 'security'>>(
  config: R & { access: Access; customerSelf?: string; customerScoped?: boolean },
) {
  const { access, customerSelf, customerScoped, ...rest } = config;
  const middleware: MiddlewareHandler<AppEnv>[] = [authorize({ access, customerSelf, customerScoped })];
  if (rest.method === 'post' || rest.method === 'put') middleware.push(idempotency);
  const route = {
    ...rest,
    middleware,
    security: access === 'public' ? [] : [{ bearerAuth: [] }],
    'x-permission': access,
    ...(customerSelf ? { 'x-customer-access': 'self' } : customerScoped ? { 'x-customer-access': 'own records' } : {}),
    responses: { ...ERROR_RESPONSES, ...rest.responses },
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

export const mergePatchBody = <T extends z.ZodTypeAny>(schema: T, description?: string) => ({
  required: true,
  description,
  content: { 'application/merge-patch+json': { schema } },
});

export const jsonResponse = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

export const noContent = { description: 'Done; no body' } as const;
