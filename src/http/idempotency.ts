import { and, eq, lt, or, sql } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import { idempotencyKeys } from '../db/schema';
import { openSealed, seal, sha256Hex } from '../lib/crypto';
import { systemNow } from '../lib/clock';
import { ApiError } from './errors';
import type { AppEnv, Principal } from './context';

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** An in-flight claim older than this belongs to a request that died; the key may be claimed again. */
const IN_FLIGHT_TIMEOUT_MS = 60 * 1000;
/** HKDF purpose of the key that encrypts stored replies. */
const REPLY_KEY_PURPOSE = 'idempotency-replies';

/**
 * Whose key it is: an API key or a customer session. Keys never cross principals, so one principal
 * cannot replay (or block) another's request, even within a tenant.
 */
export function idempotencyScope(principal: Principal): string | undefined {
  if (principal.kind === 'api_key') return `key:${principal.keyId}`;
  if (principal.kind === 'customer') return `customer:${principal.customerId}`;
  return undefined;
}

/**
 * Idempotency-Key for POST and PUT (docs/decisions.md, HTTP conventions). The key is claimed with a UNIQUE insert before any
 * work happens, so two concurrent requests with one key never both run. A key belongs to the
 * principal that sent it (stored as `<scope> <key>`) and matches only the same method, path, query
 * and body. Stored replies are encrypted: they may hold secrets shown once (API keys, tokens, links).
 */
export const idempotency: MiddlewareHandler<AppEnv> = async (c, next) => {
  const clientKey = c.req.header('Idempotency-Key');
  const scope = c.var.principal ? idempotencyScope(c.var.principal) : undefined;
  if (clientKey === undefined || !c.var.tenant || !scope) return next();
  if (!/^[\x21-\x7e]{1,255}$/.test(clientKey)) {
    throw ApiError.badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters.');
  }
  const db = c.var.db;
  const tenantId = c.var.tenant.id;
  const key = `${scope} ${clientKey}`;
  const now = systemNow();
  const url = new URL(c.req.url);
  const requestHash = await sha256Hex(`${c.req.method} ${url.pathname}${url.search}\n${c.var.rawBody ?? ''}`);
  const staleBefore = new Date(now.getTime() - IN_FLIGHT_TIMEOUT_MS).toISOString();
  // The ciphertext is bound to its row, so a stored reply cannot be moved to another key.
  const context = `${tenantId}\n${key}\n${requestHash}`;

  const claimed = await db
    .insert(idempotencyKeys)
    .values({
      tenantId,
      key,
      requestHash,
      state: 'in_flight',
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS).toISOString(),
    })
    .onConflictDoUpdate({
      target: [idempotencyKeys.tenantId, idempotencyKeys.key],
      set: {
        requestHash,
        state: 'in_flight',
        responseStatus: null,
        responseBody: null,
        responseContentType: null,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS).toISOString(),
      },
      // Only an expired record, or a claim abandoned by a dead request with the same payload, is taken over.
      setWhere: or(
        lt(idempotencyKeys.expiresAt, now.toISOString()),
        and(eq(idempotencyKeys.state, 'in_flight'), lt(idempotencyKeys.createdAt, staleBefore), eq(idempotencyKeys.requestHash, requestHash)),
      ),
    })
    .returning({ key: idempotencyKeys.key })
    .get();

  if (!claimed) {
    const existing = await db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.tenantId, tenantId), eq(idempotencyKeys.key, key)))
      .get();
    if (!existing) throw ApiError.conflict('The idempotency key is being processed; retry shortly.', 'idempotency-in-flight');
    if (existing.requestHash !== requestHash) {
      throw ApiError.violation('Idempotency-Key', 'This key was already used with a different request (method, path, query or body).', 'idempotency_key_reused');
    }
    if (existing.state === 'in_flight') {
      throw ApiError.conflict('A request with this idempotency key is still in progress.', 'idempotency-in-flight');
    }
    let body: string | null = null;
    if (existing.responseBody !== null) {
      try {
        body = await openSealed(c.env.JWT_SECRET, REPLY_KEY_PURPOSE, existing.responseBody, context);
      } catch {
        // Sealed under another server secret (rotated since): the reply is gone, the key stays used.
        throw ApiError.conflict('The stored reply of this idempotency key can no longer be read; use a new key.', 'idempotency-reply-unavailable');
      }
    }
    return new Response(body, {
      status: existing.responseStatus ?? 200,
      headers: {
        'Content-Type': existing.responseContentType ?? 'application/json',
        'Idempotent-Replayed': 'true',
      },
    });
  }

  await next();

  const res = c.res;
  const where = and(eq(idempotencyKeys.tenantId, tenantId), eq(idempotencyKeys.key, key));
  if (res.status >= 500) {
    // A failure of ours is not a result: release the key so the client can retry.
    await db.delete(idempotencyKeys).where(where);
    return;
  }
  const text = await res.clone().text();
  const body = text === '' ? null : await seal(c.env.JWT_SECRET, REPLY_KEY_PURPOSE, text, context);
  await db
    .update(idempotencyKeys)
    .set({ state: 'done', responseStatus: res.status, responseBody: body, responseContentType: res.headers.get('Content-Type') })
    .where(and(where, sql`${idempotencyKeys.state} = 'in_flight'`));
};
