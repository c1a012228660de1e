import { and, eq, isNull } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { isGuardFailure, requireCondition, requirePreviousChange } from '../../db/client';
import { tenantDb } from '../../db/directory';
import { customers, customerSessions } from '../../db/schema';
import type { Env } from '../../env';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import { systemNow } from '../../lib/clock';
import { sha256Hex } from '../../lib/crypto';
import { newId, randomToken } from '../../lib/ids';
import type { CustomerSession, CustomerTokens } from '../../schemas/platform';
import { customerExists } from '../customers/guards';

export const JWT_ISSUER = 'edge-billing';
export const JWT_AUDIENCE = 'edge-billing:customer';

export function jwtKey(env: Pick<Env, 'JWT_SECRET'>): Uint8Array {
  if (!env.JWT_SECRET || env.JWT_SECRET.length < 32) throw new Error('JWT_SECRET must be set to at least 32 characters.');
  return new TextEncoder().encode(env.JWT_SECRET);
}

function ttl(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

async function issueTokens(env: Env, tenantId: string, customerId: string, familyId: string) {
  const now = systemNow();
  const accessTtl = ttl(env.ACCESS_TOKEN_TTL_SECONDS, 900);
  const refreshTtl = ttl(env.REFRESH_TOKEN_TTL_SECONDS, 30 * 24 * 3600);
  const accessToken = await new SignJWT({ tid: tenantId, role: 'customer' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(customerId)
    .setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE)
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .setExpirationTime(Math.floor(now.getTime() / 1000) + accessTtl)
    .setJti(newId())
    .sign(jwtKey(env));
  // The token names its tenant: refreshing it comes without credentials, and the tenant says which
  // shard holds the session (docs/decisions.md, Tenancy and shards). The random part is the secret.
  const refreshToken = `rt_${tenantId}.${randomToken(32)}`;
  const session = {
    id: newId(),
    tenantId,
    customerId,
    familyId,
    refreshTokenHash: await sha256Hex(refreshToken),
    expiresAt: new Date(now.getTime() + refreshTtl * 1000).toISOString(),
    revokedAt: null,
    createdAt: now.toISOString(),
  };
  return { accessToken, refreshToken, expiresIn: accessTtl, session };
}

/**
 * A new session of a customer: the response (a short-lived JWT, a rotating refresh token and the
 * customer-area link) and the session row to insert with it. Shared by POST /customers/{id}/authenticate
 * and the OTP login.
 */
export async function newCustomerSession(env: Env, tenantId: string, customerId: string, origin: string) {
  const tokens = await issueTokens(env, tenantId, customerId, newId());
  const response: CustomerSession = {
    data: {
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      expiresIn: tokens.expiresIn,
      tokenType: 'Bearer' as const,
      // The customer area reads the token from the fragment, which browsers never send to servers.
      customerAreaLink: `${origin}/customer-area#accessToken=${tokens.accessToken}`,
    },
  };
  return { response, row: tokens.session };
}

/** Opens a customer session for the customer-facing area: a short-lived JWT and a rotating refresh token. */
export async function authenticateCustomer(ctx: ServiceContext, customerId: string, origin: string): Promise<CustomerSession> {
  const customer = await ctx.db
    .select({ id: customers.id, status: customers.status })
    .from(customers)
    .where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, customerId)))
    .get();
  if (!customer) throw ApiError.notFound('Customer');
  if (customer.status !== 'STATUS_ACTIVE') throw ApiError.conflict('Only active customers can sign in.');
  const session = await newCustomerSession(ctx.env, ctx.tenant.id, customerId, origin);
  // The customer must still exist when the session is written (a concurrent delete would orphan it).
  try {
    await ctx.db.batch([ctx.db.insert(customerSessions).values(session.row), requireCondition(ctx.db, customerExists(ctx.tenant.id, customerId))]);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.notFound('Customer');
    throw err;
  }
  return session.response;
}

/**
 * Exchanges a refresh token for a new pair. Tokens rotate: each is good once, and presenting a
 * spent one revokes the whole family, since it means the token was copied.
 */
export async function refreshCustomerSession(env: Env, refreshToken: string): Promise<CustomerTokens> {
  const tenantId = /^rt_([^.]{1,64})\./.exec(refreshToken)?.[1];
  const db = tenantId === undefined ? undefined : await tenantDb(env, tenantId);
  if (!db) throw ApiError.unauthorized('Unknown refresh token.');
  const hash = await sha256Hex(refreshToken);
  const session = await db.select().from(customerSessions).where(and(eq(customerSessions.tenantId, tenantId!), eq(customerSessions.refreshTokenHash, hash))).get();
  const now = systemNow().toISOString();
  if (!session) throw ApiError.unauthorized('Unknown refresh token.');
  if (session.revokedAt) {
    await db.update(customerSessions).set({ revokedAt: now }).where(and(eq(customerSessions.familyId, session.familyId), isNull(customerSessions.revokedAt)));
    throw ApiError.unauthorized('The refresh token was already used; the session is closed.');
  }
  if (session.expiresAt <= now) throw ApiError.unauthorized('The refresh token has expired.');
  const customer = await db
    .select({ status: customers.status })
    .from(customers)
    .where(and(eq(customers.tenantId, session.tenantId), eq(customers.id, session.customerId)))
    .get();
  if (!customer || customer.status !== 'STATUS_ACTIVE') throw ApiError.unauthorized('The customer can no longer sign in.');
  const tokens = await issueTokens(env, session.tenantId, session.customerId, session.familyId);
  // The guarded revoke is what makes a token single-use under concurrent refreshes: if another
  // request spent it first, the guard fails and the batch (with the new session) rolls back.
  try {
    await db.batch([
      db.update(customerSessions).set({ revokedAt: now }).where(and(eq(customerSessions.id, session.id), isNull(customerSessions.revokedAt))),
      requirePreviousChange(db),
      db.insert(customerSessions).values(tokens.session),
    ]);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.unauthorized('The refresh token was already used.');
    throw err;
  }
  return { data: { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresIn: tokens.expiresIn, tokenType: 'Bearer' as const } };
}
