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

/** How long after the runtime took an answer's body work waiting for it (`answered`) may start. */
export const AFTER_ANSWER_MS = 50;

/**
 * `response` with its body as a stream, and `answered`: resolved `AFTER_ANSWER_MS` after the runtime
 * has read all of that body. Work that waits for it does not compete with the answer for the Worker
 * while the answer is on its way out (docs/decisions.md, Mail: no timing oracle). Status and headers
 * stay; the length is the stream's. Register the work (`inBackground`) before returning the response.
 */
export async function streamedAnswer<R extends Response>(response: R): Promise<{ response: R; answered: Promise<void> }> {
  const body = new Uint8Array(await response.arrayBuffer());
  let taken!: () => void;
  const answered = new Promise<void>((done) => (taken = done)).then(() => new Promise<void>((done) => setTimeout(done, AFTER_ANSWER_MS)));
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (body.length) controller.enqueue(body);
    },
    // Asked for more only once the runtime took the body: nothing is left, the answer is out.
    pull(controller) {
      controller.close();
      taken();
    },
  });
  const headers = new Headers(response.headers);
  headers.delete('Content-Length');
  // The same status, headers and bytes: a typed response (Hono's TypedResponse) stays what it says.
  return { response: new Response(stream, { status: response.status, statusText: response.statusText, headers }) as R, answered };
}
