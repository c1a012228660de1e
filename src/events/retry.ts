/** Base delays between attempts, in seconds: together more than three days (docs/decisions.md, Events and webhooks). */
export const RETRY_DELAYS_SECONDS = [30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 43_200, 86_400, 86_400, 86_400];
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/**
 * The delay before attempt `attempt + 1` after `attempt` failed attempts: exponential-ish base
 * delays with ±20 % jitter (`random` in [0, 1)), so receivers coming back are not hit in lockstep.
 * Null when no attempt is left.
 */
export function retryDelaySeconds(attempt: number, random: number): number | null {
  const base = RETRY_DELAYS_SECONDS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.8 + 0.4 * random));
}
