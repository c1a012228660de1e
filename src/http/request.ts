import type { MiddlewareHandler } from 'hono';
import { sha256Hex } from '../lib/crypto';
import { newId } from '../lib/ids';
import { BOOKMARK_HEADER, responseBookmark, runWithD1Scope } from '../db/shards';
import { ApiError, propertyPath } from './errors';
import { illFormedString, MAX_JSON_DEPTH, nestedDeeperThan } from './json';
import type { AppEnv } from './context';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Echoes a sane X-Request-Id or makes one, and runs the request in its D1 scope: the database is
 * only opened once the tenant is known (its shard), reads go through a session that honours the
 * client's `x-d1-bookmark`, and the response carries the bookmark to send next time, errors
 * included (docs/decisions.md, Tenancy and shards).
 */
export const requestSetup: MiddlewareHandler<AppEnv> = async (c, next) => {
  const given = c.req.header('X-Request-Id');
  const requestId = given && /^[A-Za-z0-9._:\-]{1,128}$/.test(given) ? given : newId();
  c.set('requestId', requestId);
  await runWithD1Scope(c.req.method, c.req.header(BOOKMARK_HEADER), async () => {
    await next();
    const bookmark = await responseBookmark().catch(() => undefined);
    if (bookmark) c.res.headers.set(BOOKMARK_HEADER, bookmark);
  });
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
 * Routes that take a document as their body besides JSON: a bank statement (camt XML). The body is
 * read as bytes (a statement may be ISO-8859-1, which text would garble) and stands for itself in
 * the idempotency layer by its SHA-256; JSON on these routes (the file as base64) may be as large.
 */
const DOCUMENT_BODIES: { method: string; path: string; types: RegExp; maxBytes: number }[] = [
  { method: 'POST', path: '/payment/bank-account-transactions/import', types: /^(application|text)\/xml\s*(;.*)?$/i, maxBytes: 20 * 1024 * 1024 },
];

const documentBody = (method: string, path: string) => DOCUMENT_BODIES.find((d) => d.method === method && path.endsWith(d.path));

/**
 * JSON bodies that may be larger than MAX_BODY_BYTES: a usage batch of up to 10,000 events (about
 * 500 bytes each at most; docs/decisions.md, Subscriptions, usage, entitlements).
 */
const LARGE_JSON_BODIES: { method: string; path: string; maxBytes: number }[] = [{ method: 'POST', path: '/subscriptions/measurements', maxBytes: 5 * 1024 * 1024 }];

function maxBodyBytes(method: string, path: string, document: (typeof DOCUMENT_BODIES)[number] | undefined): number {
  // base64 of a document is 4/3 of its size.
  if (document) return Math.ceil((document.maxBytes * 4) / 3) + 1024;
  return LARGE_JSON_BODIES.find((b) => b.method === method && b.path === path)?.maxBytes ?? MAX_BODY_BYTES;
}

/** The same request with the body `{}` sent as application/json (its other headers kept). */
function asEmptyJson(raw: Request): Request {
  const headers = new Headers(raw.headers);
  headers.set('Content-Type', 'application/json');
  headers.delete('Content-Length');
  headers.delete('Transfer-Encoding');
  return new Request(raw.url, { method: raw.method, headers, body: '{}' });
}

/**
 * Reads and checks the body once for every route: size (413), media type (415), nesting depth and
 * JSON syntax (400), Unicode (422), so validators only ever see well-formed JSON and the
 * idempotency layer sees the raw text.
 */
export const bodyGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  const method = c.req.method;
  const expected = BODY_TYPES[method];
  if (!expected) return next();
  const document = documentBody(method, c.req.path);
  const maxBytes = maxBodyBytes(method, c.req.path, document);
  const declared = Number(c.req.header('Content-Length') ?? '0');
  if (declared > maxBytes) throw new ApiError(413, 'body-too-large', `The body exceeds ${maxBytes} bytes.`);
  if (document && document.types.test(c.req.header('Content-Type') ?? '')) {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (bytes.byteLength > document.maxBytes) throw new ApiError(413, 'body-too-large', `The document exceeds ${document.maxBytes} bytes.`);
    c.set('rawBody', `sha256:${await sha256Hex(bytes)}`);
    return next();
  }
  const text = await c.req.text();
  // A UTF-16 unit is at most 3 bytes of UTF-8: only a text that could be too large is encoded to know.
  if (text.length * 3 > maxBytes && new TextEncoder().encode(text).length > maxBytes) {
    throw new ApiError(413, 'body-too-large', `The body exceeds ${maxBytes} bytes.`);
  }
  if (text.trim() === '') {
    // No body is an empty object, whatever the Content-Type says: clients (the n8n node) send
    // bodiless actions (pause, archive) with `Content-Type: application/json`, and the validators
    // would otherwise try to parse the empty text. A route with required fields reports them as
    // 422 violations. The request itself becomes a JSON `{}` too: the route validators judge the
    // media type by the header (a missing one with `Content-Length: 0`, or an empty form post, was
    // a 415 there), so every route sees one and the same empty request (docs/decisions.md, HTTP
    // conventions, "No body is {}"). Hono keeps the read body in `bodyCache` and parses JSON from it.
    c.req.raw = asEmptyJson(c.req.raw);
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve('{}');
    c.set('rawBody', undefined);
    return next();
  }
  const contentType = c.req.header('Content-Type') ?? '';
  if (!expected.test(contentType)) {
    const wanted = method === 'PATCH' ? 'application/merge-patch+json or application/json' : document ? 'application/json or application/xml' : 'application/json';
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
