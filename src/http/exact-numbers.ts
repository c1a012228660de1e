import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './context';

/**
 * Reads the JSON numbers at the given paths exactly: each is replaced by the text it was written as
 * (`"amount": 12.10` → "12.10"), which the validators then check like a decimal string, so a number
 * never passes through a float. Paths name fields from the body's root, `*` standing for any array
 * index: `amount`, `positions.*.quantity`, `positions.*.children.*.quantity`. Numbers elsewhere
 * (custom field values, say) stay numbers. Mounted with `router.use` before the route.
 */
export function exactNumbers(...paths: string[]): MiddlewareHandler<AppEnv> {
  const patterns = paths.map((p) => p.split('.'));
  return async (c, next) => {
    const raw = c.var.rawBody;
    if (raw !== undefined && raw.trim() !== '') {
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return next(); // malformed JSON is the body guard's to refuse
      }
      // Most clients send these fields as strings: then there is nothing to read again (a reviver
      // parse and a new text cost a 1,000-event usage batch more than its validation).
      if (!patterns.some((pattern) => hasNumberAt(body, pattern))) return next();
      // The same document with every number as its source text (JSON.parse source text access).
      const sources: unknown = JSON.parse(raw, (_key, value, context?: { source?: string }) => (typeof value === 'number' && context?.source !== undefined ? context.source : value));
      for (const pattern of patterns) replaceAt(body, sources, pattern);
      // The validators read the body through `c.req.json()`, which parses the cached text.
      // (Hono keeps promises there; its type names the resolved values.)
      (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(JSON.stringify(body));
    }
    await next();
  };
}

/** Whether a number stands at `path` (same patterns as replaceAt) anywhere in `target`. */
function hasNumberAt(target: unknown, path: string[]): boolean {
  if (target === null || typeof target !== 'object') return false;
  const [head, ...rest] = path;
  if (head === undefined) return false;
  const t = target as Record<string, unknown>;
  const keys = head === '*' ? (Array.isArray(target) ? Object.keys(target) : []) : [head];
  for (const key of keys) {
    if (!Object.hasOwn(t, key)) continue;
    if (rest.length ? hasNumberAt(t[key], rest) : typeof t[key] === 'number') return true;
  }
  return false;
}

function replaceAt(target: unknown, source: unknown, path: string[]): void {
  if (target === null || typeof target !== 'object' || source === null || typeof source !== 'object') return;
  const [head, ...rest] = path;
  if (head === undefined) return;
  const t = target as Record<string, unknown>;
  const s = source as Record<string, unknown>;
  const keys = head === '*' ? (Array.isArray(target) ? Object.keys(target) : []) : [head];
  for (const key of keys) {
    if (!Object.hasOwn(t, key)) continue;
    if (rest.length) replaceAt(t[key], s[key], rest);
    else if (typeof t[key] === 'number' && typeof s[key] === 'string') t[key] = s[key];
  }
}
