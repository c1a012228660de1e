/**
 * Whether a queue's name is `base`, or `base` with an environment's suffix (`edge-billing-documents-staging`):
 * wrangler environments need queues of their own, and the consumer tells its queues apart by name
 * (docs/deploy.md, wrangler environments).
 */
export function isQueue(name: string, base: string): boolean {
  return name === base || name.startsWith(`${base}-`);
}
