import { and, eq, lt, or, sql } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import { idempotencyKeys } from '../db/schema';
import { sha256Hex } from '../lib/crypto';
import { systemNow } from '../lib/clock';
import { ApiError } from './errors';
import type { AppEnv } from './context';

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** An in-flight claim older than this belongs to a request that died; the key may be claimed again. */
const IN_FLIGHT_TIMEOUT_MS = 60 * 1000;

/**
 * Idempotency-Key for POST and PUT (docs/decisions.md, HTTP conventions). The key is claimed with a UNIQUE insert before any
 * work happens, so two concurrent requests with one key never both run.
 */
export const idempotency: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = c.req.header('Idempotency-Key');
  if (key === undefined || !c.var.tenant) return next();
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw ApiError.badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters.');
  }
  const db = c.var.db;
  const tenantId = c.var.tenant.id;
  const now = systemNow();
  const requestHash = await sha256Hex(`${c.req.method} ${new URL(c.req.url).pathname}\n${c.var.rawBody ?? ''}`);
  const staleBefore = new Date(now.getTime() - IN_FLIGHT_TIMEOUT_MS).toISOString();

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
      throw ApiError.violation('Idempotency-Key', 'This key was already used with a different request.', 'idempotency_key_reused');
    }
    if (existing.state === 'in_flight') {
      throw ApiError.conflict('A request with this idempotency key is still in progress.', 'idempotency-in-flight');
    }
    return new Response(existing.responseBody, {
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
  const body = await res.clone().text();
  await db
    .update(idempotencyKeys)
    .set({ state: 'done', responseStatus: res.status, responseBody: body, responseContentType: res.headers.get('Content-Type') })
    .where(and(where, sql`${idempotencyKeys.state} = 'in_flight'`));
};
