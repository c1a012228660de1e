import type { ServiceContext } from '../context';

const caches = new WeakMap<ServiceContext, Map<string, Promise<unknown>>>();

/**
 * Reads that stay the same for one context (a request, or a whole billing run): tenant settings,
 * tax groups and their rates. A billing run bills thousands of subscriptions with one context, so
 * these are read once instead of once per subscription.
 */
export function memo<T>(ctx: ServiceContext, key: string, load: () => PromiseLike<T>): Promise<T> {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new Map()));
  // A Drizzle query is a thenable that runs again on every await: settle it once, keep the promise.
  if (!cache.has(key)) cache.set(key, Promise.resolve(load()));
  return cache.get(key) as Promise<T>;
}
