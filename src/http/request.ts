import type { MiddlewareHandler } from 'hono';
import { newId } from '../lib/ids';
import { createDb } from '../db/client';
import { ApiError, propertyPath } from './errors';
import { illFormedString, MAX_JSON_DEPTH, nestedDeeperThan } from './json';
import type { AppEnv } from './context';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Echoes a sane X-Request-Id or makes one, and opens the database handle for the request. */
export const requestSetup: MiddlewareHandler<AppEnv> = async (c, next) => {
  const given = c.req.header('X-Request-Id');
  const requestId = given && /^[A-Za-z0-9._:\-]{1,128}$/.test(given) ? given : newId();
  c.set('requestId', requestId);
  c.set('db', createDb(c.env.DB));
  await next();
  c.res.headers.set('X-Request-Id', requestId);
};

const JSON_TYPE = /^application\/json\s*(;.*)?$/i;
// PATCH is a JSON merge patch whichever of the two is declared: clients such as the n8n node send
// every body as application/json (docs/decisions.md, HTTP conventions).
const BODY_TYPES: Record<string, RegExp> = {
  POST: JSON_TYPE,
  PUT: JSON_TYPE,
  PATCH: /^application\/(merge-patch\+)?json\s*(;.*)?$/i,
};

/**
 * Reads and checks the body once for every route: size (413), media type (415), nesting depth and
 * JSON syntax (400), Unicode (422), so validators only ever see well-formed JSON and the
 * idempotency layer sees the raw text.
 */
export const bodyGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  const method = c.req.method;
  const expected = BODY_TYPES[method];
  if (!expected) return next();
  const declared = Number(c.req.header('Content-Length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw new ApiError(413, 'body-too-large', `The body exceeds ${MAX_BODY_BYTES} bytes.`);
  const text = await c.req.text();
  if (new TextEncoder().encode(text).length > MAX_BODY_BYTES) {
    throw new ApiError(413, 'body-too-large', `The body exceeds ${MAX_BODY_BYTES} bytes.`);
  }
  if (text.trim() === '') {
    // No body is an empty object, whatever the Content-Type says: clients (the n8n node) send
    // bodiless actions (pause, archive) with `Content-Type: application/json`, and the validators
    // would otherwise try to parse the empty text. A route with required fields reports them as
    // 422 violations. Hono keeps the read body as a promise in `bodyCache` and parses JSON from it.
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve('{}');
    c.set('rawBody', undefined);
    return next();
  }
  const contentType = c.req.header('Content-Type') ?? '';
  if (!expected.test(contentType)) {
    const wanted = method === 'PATCH' ? 'application/merge-patch+json or application/json' : 'application/json';
    throw new ApiError(415, 'unsupported-media-type', `${method} bodies must be sent as ${wanted}.`);
  }
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) throw ApiError.badRequest(`The body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw ApiError.badRequest('The body is not valid JSON.');
  }
  const badText = illFormedString(parsed, []);
  if (badText) throw ApiError.violation(propertyPath(badText), 'Must be valid Unicode text (a lone UTF-16 surrogate such as \\udc00 cannot be stored).', 'invalid_unicode');
  c.set('rawBody', text);
  return next();
};
