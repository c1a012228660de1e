import type { Context } from 'hono';
import type { Db, Tenant } from '../db/client';
import type { Env } from '../env';
import { createServiceContext, type ServiceContext } from '../services/context';

export type Principal =
  | { kind: 'api_key'; keyId: string; permissions: readonly string[] }
  | { kind: 'customer'; customerId: string }
  | { kind: 'admin' };

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    db: Db;
    principal: Principal;
    tenant: Tenant;
    now: Date;
    rawBody: string | undefined;
  };
}

export type AppContext = Context<AppEnv>;

/** A request's service context: the authenticated tenant at its now (see createServiceContext). */
export function serviceContext(c: AppContext): ServiceContext {
  return createServiceContext({
    env: c.env,
    db: c.var.db,
    tenant: c.var.tenant,
    now: c.var.now,
    origin: new URL(c.req.url).origin,
    waitUntil: (p) => {
      try {
        c.executionCtx.waitUntil(p);
      } catch {
        // No execution context (e.g. app.request in a unit test): let the promise run on its own.
        void p.catch(() => undefined);
      }
    },
  });
}
