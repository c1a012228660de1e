import type { Context } from 'hono';
import type { Db, Tenant } from '../db/client';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Env } from '../env';
import type { FinalizeRequest, FinalizeResult } from '../objects/tenant-object';

export type Principal =
  | { kind: 'api_key'; keyId: string; permissions: string[] }
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

/** What services get: no Hono, just data access, the tenant and its notion of now. */
export interface ServiceContext {
  db: Db;
  env: Env;
  tenant: Tenant;
  now: Date;
  waitUntil(promise: Promise<unknown>): void;
  /**
   * Inside the TenantObject only: finalizes a document in one batch with `leading` statements
   * (the number is allocated as the batch commits). Elsewhere finalization goes through the stub.
   */
  finalizeWith?(req: FinalizeRequest, leading: BatchItem<'sqlite'>[]): Promise<FinalizeResult>;
}

export function serviceContext(c: AppContext): ServiceContext {
  return {
    db: c.var.db,
    env: c.env,
    tenant: c.var.tenant,
    now: c.var.now,
    waitUntil: (p) => {
      try {
        c.executionCtx.waitUntil(p);
      } catch {
        // No execution context (e.g. app.request in a unit test): let the promise run on its own.
        void p.catch(() => undefined);
      }
    },
  };
}
