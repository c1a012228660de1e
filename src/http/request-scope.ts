import { AsyncLocalStorage } from 'node:async_hooks';

// What request validation needs to know about the authenticated caller, without a Hono context:
// the shared field schemas (src/http/schemas.ts) run inside zod, where only this scope reaches.

export interface RequestScope {
  /** The tenant's IANA time zone: date-times sent without an offset are read in it. */
  timeZone: string;
}

const storage = new AsyncLocalStorage<RequestScope>();

/** Runs `fn` (the rest of the request: validation and handler) inside `scope`. */
export function runInRequestScope<R>(scope: RequestScope, fn: () => R): R {
  return storage.run(scope, fn);
}

/** The scope of the running request; undefined outside one (public routes, cron, tests in Node). */
export function currentRequestScope(): RequestScope | undefined {
  return storage.getStore();
}
