/**
 * Lets the isolate answer requests in the middle of long work (a billing run's chunks). Local
 * workerd runs D1 on the same thread and polls for new connections only when nothing else is ready
 * to run; a run's back-to-back D1 calls keep something ready all the time, so without a pause the
 * API would not answer until the run's invocation ended. A timer makes the loop wait for a moment
 * (docs/decisions.md, Invoices and billing: billing runs in bulk). It costs about a millisecond.
 */
export const yieldToRequests = () => new Promise<void>((resolve) => setTimeout(resolve, 1));
