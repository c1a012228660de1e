import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './context';

/**
 * Reads JSON numbers of the named fields exactly: the body is parsed again from its raw text and
 * each such number replaced by the text it was written as (`"amount": 12.10` → "12.10"), which the
 * validators then check like a decimal string. Mounted with `router.use` before the route.
 */
export function exactNumbers(...keys: string[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const raw = c.var.rawBody;
    if (raw !== undefined) {
      const parsed: unknown = JSON.parse(raw, (key, value, context?: { source?: string }) =>
        typeof value === 'number' && keys.includes(key) && context?.source !== undefined ? context.source : value,
      );
      // The validators read the body through `c.req.json()`, which parses the cached text.
      // (Hono keeps promises there; its type names the resolved values.)
      (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(JSON.stringify(parsed));
    }
    await next();
  };
}

