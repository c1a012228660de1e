import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS, retryDelaySeconds } from '../../src/events/retry';

describe('webhook retry schedule', () => {
  it.each([
    [1, 0.5, 30],
    [1, 0, 24],
    [1, 0.999999, 36],
    [2, 0.5, 120],
    [5, 0.5, 3600],
    [9, 0.5, 43_200],
    [12, 0.5, 86_400],
  ])('after %i failed attempt(s), random %f → %i s', (attempt, random, expected) => {
    expect(retryDelaySeconds(attempt, random)).toBe(expected);
  });

  it('stops after the last attempt', () => {
    expect(MAX_ATTEMPTS).toBe(13);
    expect(retryDelaySeconds(13, 0.5)).toBeNull();
  });

  it('keeps retrying for at least three days, even with the shortest jitter', () => {
    const shortest = RETRY_DELAYS_SECONDS.reduce((sum, d) => sum + d * 0.8, 0);
    expect(shortest).toBeGreaterThan(3 * 86_400);
  });
});
