import type { Tenant } from '../db/client';

/**
 * The one place that decides what "now" is for a tenant: the frozen test clock of a test-mode
 * tenant once it has been set, otherwise the real clock.
 */
export function tenantNow(tenant: Pick<Tenant, 'mode' | 'testClockNow'>): Date {
  if (tenant.mode === 'test' && tenant.testClockNow) return new Date(tenant.testClockNow);
  return new Date();
}

/** Wall-clock time for infrastructure (key expiry, idempotency retention), never for billing. */
export function systemNow(): Date {
  return new Date();
}
