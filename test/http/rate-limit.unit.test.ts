// Rate limits (docs/decisions.md, Rate limits): the client address partition, and the figures of
// every wrangler environment — a binding enforces a limit, the vars tell clients the same one.
import { unstable_readConfig } from 'wrangler';
import { describe, expect, it } from 'vitest';
import type { Env } from '../../src/env';
import { addressPartition, configuredPolicies, defaultPlan, planNames } from '../../src/http/rate-limit';

describe('addressPartition', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:abcd:0:0:99', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
  ])('%s counts as %s', (ip, partition) => {
    expect(addressPartition(ip)).toBe(partition);
  });
});

/** A [[ratelimits]] binding of a wrangler environment. */
interface LimitBinding {
  name: string;
  namespace_id: string;
  simple: { limit: number; period: number };
}

function readEnvironment(name: string | undefined): { vars: Env; ratelimits: LimitBinding[] } {
  const config = unstable_readConfig({ config: 'wrangler.toml', env: name }, { hideWarnings: true });
  return { vars: config.vars as unknown as Env, ratelimits: config.ratelimits as unknown as LimitBinding[] };
}

describe('the rate limits of wrangler.toml', () => {
  it.each([['(local development)', undefined], ['staging', 'staging'], ['production', 'production']])('%s: every policy has its binding with the same figures', (_, name) => {
    const config = readEnvironment(name);
    const env = config.vars;
    const policies = configuredPolicies(env);
    expect(planNames(env)).toEqual(['free', 'standard', 'enterprise']);
    expect(planNames(env)).toContain(defaultPlan(env));
    expect(policies.map((p) => p.name)).toEqual(['free', 'standard', 'enterprise', 'public', 'public-create']);
    const bindings = new Map(config.ratelimits.map((r) => [r.name, r]));
    for (const p of policies) {
      expect(bindings.get(p.binding)?.simple, p.binding).toEqual({ limit: p.limit, period: p.period });
    }
    expect([...bindings.keys()].sort()).toEqual(policies.map((p) => p.binding).sort());
    // Public limits stricter where state is made; namespaces of their own in every environment.
    const [read, create] = policies.slice(-2);
    expect(create!.limit / create!.period).toBeLessThan(read!.limit / read!.period);
    expect(new Set(config.ratelimits.map((r) => r.namespace_id)).size).toBe(config.ratelimits.length);
  });

  it('gives each environment namespaces of its own', () => {
    const ids = [undefined, 'staging', 'production'].flatMap((name) => readEnvironment(name).ratelimits.map((r) => r.namespace_id));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
