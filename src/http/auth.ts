import { and, eq } from 'drizzle-orm';
import { jwtVerify } from 'jose';
import type { MiddlewareHandler } from 'hono';
import type { Tenant } from '../db/client';
import { openTenant, tenantDb } from '../db/directory';
import { customers, tenants } from '../db/schema';
import { sha256Hex, timingSafeEqual } from '../lib/crypto';
import { systemNow, tenantNow } from '../lib/clock';
import { ApiError } from './errors';
import { hasPermission } from './permissions';
import type { AppEnv, Principal } from './context';
import { principalCache, type CachedPrincipal } from './principal-cache';
import { jwtKey, JWT_AUDIENCE, JWT_ISSUER } from '../services/platform/customer-sessions';
import { lookupApiKey } from './api-key-lookup';

/** `public`: no credentials; `admin`: the platform operator's ADMIN_TOKEN; otherwise `<resource>:<read|write>`. */
export type Access = 'public' | 'admin' | `${string}:${'read' | 'write'}`;

export interface AccessRule {
  access: Access;
  /** Route parameter naming a customer: a customer principal may use the route for itself only. */
  customerSelf?: string;
  /** A customer principal may use the route; the handler restricts it to the customer's own records. */
  customerScoped?: boolean;
}

function bearer(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}


/** The key and its tenant from the directory and the tenant's shard, on a miss of the isolate's principal cache. */
async function lookUpApiKey(c: Parameters<MiddlewareHandler<AppEnv>>[0], hash: string): Promise<CachedPrincipal | undefined> {
  const mark = principalCache.mark();
  const row = await lookupApiKey(c.env, hash);
  if (!row) return undefined;
  const entry: CachedPrincipal = { keyId: row.key.id, permissions: row.key.permissions, expiresAt: row.key.expiresAt, revokedAt: row.key.revokedAt, tenant: row.tenant };
  principalCache.set(hash, entry, mark);
  return entry;
}

async function authenticateApiKey(c: Parameters<MiddlewareHandler<AppEnv>>[0], key: string): Promise<Principal> {
  const hash = await sha256Hex(key);
  const entry = principalCache.get(hash) ?? (await lookUpApiKey(c, hash));
  if (!entry || entry.revokedAt) throw ApiError.unauthorized();
  // Expiry against the clock on every request: a remembered key is not a key known to be valid.
  if (entry.expiresAt && entry.expiresAt <= systemNow().toISOString()) throw ApiError.unauthorized('The API key has expired.');
  c.set('tenant', entry.tenant);
  return { kind: 'api_key', keyId: entry.keyId, permissions: entry.permissions };
}

async function authenticateCustomerToken(c: Parameters<MiddlewareHandler<AppEnv>>[0], token: string): Promise<Principal> {
  let claims;
  try {
    ({ payload: claims } = await jwtVerify(token, jwtKey(c.env), { issuer: JWT_ISSUER, audience: JWT_AUDIENCE, algorithms: ['HS256'] }));
  } catch {
    throw ApiError.unauthorized('The access token is invalid or has expired.');
  }
  if (claims.role !== 'customer' || typeof claims.tid !== 'string' || typeof claims.sub !== 'string') throw ApiError.unauthorized();
  // The customer is checked on every use: a token of a customer archived (or deleted) since it was
  // issued stops working at once instead of when it expires.
  const db = await tenantDb(c.env, claims.tid);
  if (!db) throw ApiError.unauthorized();
  const row = await db
    .select({ tenant: tenants, status: customers.status })
    .from(tenants)
    .leftJoin(customers, and(eq(customers.tenantId, tenants.id), eq(customers.id, claims.sub)))
    .where(eq(tenants.id, claims.tid))
    .get();
  if (!row) throw ApiError.unauthorized();
  if (row.status !== 'STATUS_ACTIVE') throw ApiError.unauthorized('The customer of this access token is not active.');
  const tenant = row.tenant;
  c.set('tenant', tenant);
  return { kind: 'customer', customerId: claims.sub };
}

/** An API key or a customer access token: sets the principal, its tenant and the tenant's now. */
async function authenticateBearer(c: Parameters<MiddlewareHandler<AppEnv>>[0], token: string): Promise<Principal> {
  const principal = token.split('.').length === 3 ? await authenticateCustomerToken(c, token) : await authenticateApiKey(c, token);
  c.set('principal', principal);
  await useTenant(c, c.var.tenant);
  return principal;
}

/** The request's tenant from here on: its database (the one door: its shard, docs/decisions.md, Tenancy and shards) and its now. */
async function useTenant(c: Parameters<MiddlewareHandler<AppEnv>>[0], tenant: Tenant): Promise<void> {
  const db = await tenantDb(c.env, tenant.id);
  if (!db) throw ApiError.unauthorized();
  c.set('tenant', tenant);
  c.set('db', db);
  c.set('now', tenantNow(tenant));
}

/**
 * The tenant a public route serves (the customer OTP login): the tenant of the Bearer credential
 * when one is sent (the n8n node sends its API key everywhere; a bad one is 401, never ignored),
 * else the tenant named by the `X-Tenant-Id` header (a browser on a checkout page holds no key).
 * No permission is needed: the credential only names the tenant. See docs/decisions.md, Auth and tenancy.
 */
export async function identifyPublicTenant(c: Parameters<MiddlewareHandler<AppEnv>>[0]): Promise<void> {
  const header = c.req.header('Authorization');
  if (header !== undefined) {
    const token = bearer(header);
    if (!token) throw ApiError.unauthorized();
    await authenticateBearer(c, token);
    return;
  }
  const tenantId = c.req.header('X-Tenant-Id')?.trim();
  if (!tenantId) throw ApiError.badRequest('Name the tenant: send an API key as Bearer token, or the tenant id in the X-Tenant-Id header.');
  const found = await openTenant(c.env, tenantId);
  if (!found) throw ApiError.badRequest('Unknown tenant.', [{ propertyPath: 'X-Tenant-Id', message: 'No such tenant.', code: 'not_found' }]);
  await useTenant(c, found.tenant);
}

/** Authenticates the caller and checks the route's declared access rule. */
export function authorize(rule: AccessRule): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (rule.access === 'public') return next();
    const token = bearer(c.req.header('Authorization'));
    if (!token) throw ApiError.unauthorized();

    if (rule.access === 'admin') {
      if (!c.env.ADMIN_TOKEN || !timingSafeEqual(token, c.env.ADMIN_TOKEN)) throw ApiError.unauthorized();
      c.set('principal', { kind: 'admin' });
      return next();
    }

    const principal = await authenticateBearer(c, token);

    if (principal.kind === 'api_key') {
      if (!hasPermission(principal.permissions, rule.access)) {
        throw ApiError.forbidden(`This API key lacks the permission "${rule.access}".`);
      }
    } else if (principal.kind === 'customer') {
      if (rule.customerScoped) return next();
      if (!rule.customerSelf) throw ApiError.forbidden('This operation is not available to customer sessions.');
      // Another customer's id is reported like an unknown one, so ids cannot be probed.
      if (c.req.param(rule.customerSelf) !== principal.customerId) throw ApiError.notFound();
    }
    return next();
  };
}

export function requireTenantPrincipal(principal: Principal): asserts principal is Extract<Principal, { kind: 'api_key' }> {
  if (principal.kind !== 'api_key') throw ApiError.forbidden('This operation needs an API key.');
}

