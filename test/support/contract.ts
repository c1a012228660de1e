import type { z } from 'zod';
import { app } from '../../src/app';

// The API's responses checked against the routes' declared schemas, so a renderer and its schema
// cannot drift apart unnoticed. The schemas are the zod schemas the routes registered (the same ones
// that make /openapi.json), not a copy. The check is strict: zod objects drop unknown keys when
// parsing, so every object is also walked for keys its schema does not declare; only schemas that
// are deliberately open (z.record, passthrough/loose objects, z.unknown) accept any key.

interface ResponseConfig {
  content?: Record<string, { schema?: unknown }>;
}

interface RouteDefinition {
  method: string;
  path: string;
  pattern: RegExp;
  params: number;
  responses: Record<string, ResponseConfig>;
}

let routes: RouteDefinition[] | undefined;

function registeredRoutes(): RouteDefinition[] {
  routes ??= app.openAPIRegistry.definitions.flatMap((d) => {
    if (d.type !== 'route') return [];
    const { method, path, responses } = d.route;
    const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return [{ method: method.toUpperCase(), path, pattern, params: (path.match(/\{/g) ?? []).length, responses: responses as Record<string, ResponseConfig> }];
  });
  return routes;
}

/** The route serving a request path (query string ignored); a static segment beats a parameter. */
export function findRoute(method: string, requestPath: string): RouteDefinition | undefined {
  const path = requestPath.split('?')[0]!;
  const matches = registeredRoutes().filter((r) => r.method === method.toUpperCase() && r.pattern.test(path));
  return matches.sort((a, b) => a.params - b.params)[0];
}

export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  /** The parsed JSON body (only looked at for JSON media types). */
  body: unknown;
}

const isJson = (contentType: string | null) => contentType !== null && /^application\/(problem\+)?json\b/.test(contentType);

/**
 * What is wrong with a response against its route's contract; empty when it conforms or when no
 * route of the registry serves the request (unknown paths, /openapi.json, /docs).
 */
export function contractViolations(res: ObservedResponse): string[] {
  const route = findRoute(res.method, res.path);
  if (!route) return [];
  const where = `${route.method} ${route.path} → ${res.status}`;
  const declared = route.responses[String(res.status)];
  if (!declared) return [`${where}: status not declared (declared: ${Object.keys(route.responses).join(', ')})`];
  // A response without content (a file download) declares no body shape.
  if (!declared.content || !isJson(res.contentType)) return [];
  const mediaType = res.contentType!.split(';')[0]!.trim();
  const schema = declared.content[mediaType]?.schema as z.ZodType | undefined;
  if (!schema) return [`${where}: ${mediaType} not declared (declared: ${Object.keys(declared.content).join(', ')})`];
  const parsed = schema.safeParse(res.body);
  if (!parsed.success) return parsed.error.issues.map((i) => `${where}: ${['body', ...i.path].join('.')}: ${i.message}`);
  return undeclaredKeys(schema, res.body, 'body').map((p) => `${where}: ${p} is not declared by the schema`);
}

/** Throws when a response breaks its route's contract. */
export function checkContract(res: ObservedResponse): void {
  const problems = contractViolations(res);
  if (problems.length) throw new Error(`Response does not match the OpenAPI contract:\n  ${problems.join('\n  ')}\nBody: ${JSON.stringify(res.body)}`);
}

type Def = { type: string } & Record<string, unknown>;
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** Paths of object keys in `value` that `schema` does not declare (value already parsed successfully). */
function undeclaredKeys(schema: unknown, value: unknown, path: string): string[] {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return value === undefined || value === null ? [] : undeclaredKeys(def.innerType, value, path);
    case 'pipe':
      return undeclaredKeys(def.in, value, path);
    case 'lazy':
      return undeclaredKeys((def.getter as () => unknown)(), value, path);
    case 'array':
      return Array.isArray(value) ? value.flatMap((v, i) => undeclaredKeys(def.element, v, `${path}[${i}]`)) : [];
    case 'tuple': {
      if (!Array.isArray(value)) return [];
      const items = def.items as unknown[];
      return value.flatMap((v, i) => (i < items.length ? undeclaredKeys(items[i], v, `${path}[${i}]`) : def.rest ? undeclaredKeys(def.rest, v, `${path}[${i}]`) : []));
    }
    case 'record':
      // Open by design: any key, each value checked against the value schema.
      return isObject(value) ? Object.entries(value).flatMap(([k, v]) => undeclaredKeys(def.valueType, v, `${path}.${k}`)) : [];
    case 'object': {
      if (!isObject(value)) return [];
      const shape = def.shape as Record<string, unknown>;
      // A catchall (passthrough/loose: unknown) makes the object open; strict (never) fails parsing already.
      const open = def.catchall !== undefined && defOf(def.catchall).type !== 'never';
      return Object.entries(value).flatMap(([k, v]) => {
        if (k in shape) return undeclaredKeys(shape[k], v, `${path}.${k}`);
        return open ? undeclaredKeys(def.catchall, v, `${path}.${k}`) : [`${path}.${k}`];
      });
    }
    case 'union': {
      // The value must fit one option exactly; report the closest option's extra keys otherwise.
      const fitting = (def.options as z.ZodType[]).filter((o) => o.safeParse(value).success).map((o) => undeclaredKeys(o, value, path));
      return fitting.find((extra) => extra.length === 0) ?? fitting.sort((a, b) => a.length - b.length)[0] ?? [];
    }
    case 'intersection': {
      const left = undeclaredKeys(def.left, value, path);
      const right = new Set(undeclaredKeys(def.right, value, path));
      return left.filter((p) => right.has(p));
    }
    default:
      return [];
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
