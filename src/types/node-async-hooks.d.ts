// The part of node:async_hooks the worker uses (workerd provides it with nodejs_compat); the
// project does not pull in the whole of @types/node for one class.
declare module 'node:async_hooks' {
  export class AsyncLocalStorage<T> {
    run<R>(store: T, callback: () => R): R;
    getStore(): T | undefined;
  }
}
