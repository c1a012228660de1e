import { logError } from './log';

// Work that runs after the response (ctx.waitUntil), for answers that must not depend on it: its
// failures are logged, never thrown at a caller that is gone. The running set lets a caller that
// shares the isolate wait for it (the workerd tests, before they read what it wrote).

const running = new Set<Promise<void>>();

/** Hands `work` to `waitUntil`, its errors logged with `fields` (no addresses, no secrets). */
export function inBackground(waitUntil: (p: Promise<unknown>) => void, fields: Record<string, unknown>, work: () => Promise<unknown>): void {
  const p: Promise<void> = Promise.resolve()
    .then(work)
    .then(
      () => undefined,
      (err) => logError(fields, err),
    )
    .finally(() => running.delete(p));
  running.add(p);
  waitUntil(p);
}

/** Resolves once no background work started in this isolate is running. */
export async function backgroundSettled(): Promise<void> {
  while (running.size) await Promise.allSettled([...running]);
}
