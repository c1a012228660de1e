import { objectWrote } from '../db/shards';
import type { Env } from '../env';
import type { TenantObjectApi } from './tenant-object-api';

/**
 * The tenant's TenantObject. The object writes to D1 in its own invocation, on the primary, so a
 * request that called it must read what it wrote: once a call returns, the request's D1 sessions
 * start again at the primary (docs/decisions.md, Tenancy and shards). Outside a request this is
 * the plain stub.
 */
export function tenantObject(env: Env, tenantId: string): DurableObjectStub<TenantObjectApi> {
  const stub = env.TENANT.getByName(tenantId);
  return new Proxy(stub, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => Promise.resolve(Reflect.apply(value, target, args)).finally(objectWrote);
    },
  });
}
