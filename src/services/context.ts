import type { Db, Tenant } from '../db/client';
import { openTenant } from '../db/directory';
import type { Env } from '../env';
import { tenantNow } from '../lib/clock';
import { gatewayDirectory } from './ports/gateways';
import type { GatewayDirectory } from './ports/gateways/port';
import { mailer, type Mailer } from './ports/mailer';
import { openBankingProvider, type OpenBankingProvider } from './ports/open-banking';
import { stubNumbering, type Numbering } from './ports/numbering';
import { rateSource, type RateSource } from './ports/rate-source';
import { vatChecker, type VatChecker } from './ports/vat-checker';

/** The outside world as services see it; each adapter is chosen once, in `createServiceContext`. */
export interface Ports {
  vatChecker: VatChecker;
  rateSource: RateSource;
  mailer: Mailer;
  numbering: Numbering;
  /** The tenant's payment gateways (testing, fake_provider, card_provider once configured). */
  gateways: GatewayDirectory;
  /** The open-banking provider that links bank accounts and pulls their transactions. */
  openBanking: OpenBankingProvider;
}

/** What services get: no Hono, just data access, the tenant, its notion of now, and the ports. */
export interface ServiceContext extends Ports {
  db: Db;
  env: Env;
  tenant: Tenant;
  now: Date;
  /** The API's public origin for absolute URLs in resources; null outside a request without PUBLIC_BASE_URL. */
  publicBaseUrl: string | null;
  waitUntil(promise: Promise<unknown>): void;
}

export interface ContextInit {
  env: Env;
  tenant: Tenant;
  /** Default: the tenant's now (its test clock, or the real clock). */
  now?: Date;
  /** The tenant's database, from the one door (`tenantDb`/`openTenant`, src/db/directory.ts): its shard. */
  db: Db;
  waitUntil?(promise: Promise<unknown>): void;
  /** The request's origin (HTTP); PUBLIC_BASE_URL, when set, wins. */
  origin?: string;
  /** Default: through the TenantObject's stub; the object passes its own, in-object numbering. */
  numbering?: Numbering;
}

/** Adapters that need no tenant (the nightly rate import uses them too). */
export function platformPorts(env: Env): Pick<Ports, 'vatChecker' | 'rateSource'> {
  return { vatChecker: vatChecker(env), rateSource: rateSource(env) };
}

/** The one factory: HTTP requests, the TenantObject, cron jobs and the test clock all build their context here. */
export function createServiceContext(init: ContextInit): ServiceContext {
  const db = init.db;
  const now = init.now ?? tenantNow(init.tenant);
  return {
    db,
    env: init.env,
    tenant: init.tenant,
    now,
    publicBaseUrl: init.env.PUBLIC_BASE_URL?.replace(/\/+$/, '') || init.origin || null,
    // Without an execution context (cron loops, unit tests) the promise runs on its own.
    waitUntil: init.waitUntil ?? ((p) => void p.catch(() => undefined)),
    ...platformPorts(init.env),
    mailer: mailer(init.env, db, now),
    numbering: init.numbering ?? stubNumbering(init.env, db),
    gateways: gatewayDirectory(init.env, db, init.tenant.id),
    openBanking: openBankingProvider(init.env),
  };
}

/**
 * The context of a tenant known by its id, through the one door to its database (its shard): what
 * queue consumers, cron, public routes and the TenantObject start from. Undefined for an unknown tenant.
 */
export async function openTenantContext(env: Env, tenantId: string, init: Omit<ContextInit, 'env' | 'tenant' | 'db'> = {}): Promise<ServiceContext | undefined> {
  const found = await openTenant(env, tenantId);
  return found && createServiceContext({ ...init, env, db: found.db, tenant: found.tenant });
}

/** The same context at another instant (billing at a period end, the test clock after it moved). */
export function at(ctx: ServiceContext, now: Date, tenant: Tenant = ctx.tenant): ServiceContext {
  const gateways = tenant.id === ctx.tenant.id ? ctx.gateways : gatewayDirectory(ctx.env, ctx.db, tenant.id);
  return { ...ctx, now, tenant, mailer: mailer(ctx.env, ctx.db, now), gateways };
}
