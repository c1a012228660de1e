import type { Context, MiddlewareHandler } from 'hono';
import type { Env } from '../env';
import { systemNow } from '../lib/clock';
import { logError } from '../lib/log';
import type { AppEnv } from './context';
import { ApiError } from './errors';

// Rate limits (docs/decisions.md, Rate limits): an API key (or a customer session) counts against
// its tenant's plan, a public route against the client's address. Cloudflare's rate limiting
// binding decides; the figures a client is told come from the configuration next to it.

/** What a public route counts as: `public-create` for what makes state (a cart, a one-time code), else `public`. */
export type PublicLimit = 'public' | 'public-create';
/** A route's rule: a public class, or `false` for the few routes that are never limited (health, gateway webhooks). */
export type RateLimitRule = PublicLimit | false;

export interface RatePolicy {
  /** The name clients see in the RateLimit headers: the plan, `public` or `public-create`. */
  name: string;
  /** The rate limiting binding that enforces it. */
  binding: `LIMITER_${string}`;
  limit: number;
  /** Seconds; the binding knows only 10 and 60. */
  period: 10 | 60;
}

interface Policies {
  plans: Map<string, RatePolicy>;
  defaultPlan: string;
  public: RatePolicy | undefined;
  publicCreate: RatePolicy | undefined;
}

const PLAN_NAME = /^[a-z][a-z0-9-]{0,31}$/;
const FIGURES = /^(\d{1,9})\/(10|60)$/;

function figures(varName: string, text: string): { limit: number; period: 10 | 60 } {
  const m = FIGURES.exec(text.trim());
  if (!m || Number(m[1]) < 1) throw new Error(`${varName}: "${text}" is not <limit>/<period> with a period of 10 or 60 seconds`);
  return { limit: Number(m[1]), period: Number(m[2]) as 10 | 60 };
}

/** The binding of a plan: `free` → LIMITER_PLAN_FREE, `pay-as-you-go` → LIMITER_PLAN_PAY_AS_YOU_GO. */
export const planBinding = (plan: string): `LIMITER_${string}` => `LIMITER_PLAN_${plan.toUpperCase().replace(/-/g, '_')}`;

const parsed = new Map<string, Policies>();

/** The configured policies, parsed once per isolate (and per configuration). A malformed value throws, naming the var. */
function policies(env: Env): Policies {
  const id = [env.RATE_LIMIT_PLANS, env.DEFAULT_TENANT_PLAN, env.RATE_LIMIT_PUBLIC, env.RATE_LIMIT_PUBLIC_CREATE].join('\n');
  let p = parsed.get(id);
  if (p) return p;
  const plans = new Map<string, RatePolicy>();
  for (const entry of (env.RATE_LIMIT_PLANS ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name = '', value = ''] = entry.split(':', 2);
    if (!PLAN_NAME.test(name)) throw new Error(`RATE_LIMIT_PLANS: "${name}" is not a plan name (${PLAN_NAME.source})`);
    plans.set(name, { name, binding: planBinding(name), ...figures('RATE_LIMIT_PLANS', value) });
  }
  const defaultPlan = env.DEFAULT_TENANT_PLAN ?? 'standard';
  if (plans.size && !plans.has(defaultPlan)) throw new Error(`DEFAULT_TENANT_PLAN "${defaultPlan}" is not one of RATE_LIMIT_PLANS`);
  p = {
    plans,
    defaultPlan,
    public: env.RATE_LIMIT_PUBLIC ? { name: 'public', binding: 'LIMITER_PUBLIC', ...figures('RATE_LIMIT_PUBLIC', env.RATE_LIMIT_PUBLIC) } : undefined,
    publicCreate: env.RATE_LIMIT_PUBLIC_CREATE
      ? { name: 'public-create', binding: 'LIMITER_PUBLIC_CREATE', ...figures('RATE_LIMIT_PUBLIC_CREATE', env.RATE_LIMIT_PUBLIC_CREATE) }
      : undefined,
  };
  parsed.set(id, p);
  return p;
}

/** Every configured policy: the plans', then the public ones. */
export function configuredPolicies(env: Env): RatePolicy[] {
  const p = policies(env);
  return [...p.plans.values(), ...(p.public ? [p.public] : []), ...(p.publicCreate ? [p.publicCreate] : [])];
}

/** The plans an operator may give a tenant, in configured order. */
export const planNames = (env: Env): string[] => [...policies(env).plans.keys()];
/** The plan of a new tenant when the operator names none. */
export const defaultPlan = (env: Env): string => policies(env).defaultPlan;

/** A tenant's policy; a plan no longer configured counts as the default plan. */
function planPolicy(env: Env, plan: string): RatePolicy | undefined {
  const p = policies(env);
  return p.plans.get(plan) ?? p.plans.get(p.defaultPlan);
}

/**
 * The partition of a client address: IPv4 as it is, IPv6 by its /64 (one subscriber's prefix: a
 * client that rotates addresses inside it stays one client), an IPv4-mapped IPv6 as IPv4.
 */
export function addressPartition(ip: string): string {
  const v = ip.trim().toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(v);
  if (mapped) return mapped[1]!;
  if (!v.includes(':')) return v.slice(0, 64);
  const [head = '', tail] = v.split('::', 2);
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return `${groups
    .slice(0, 4)
    .map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16).toString(16) : '0'))
    .join(':')}::/64`;
}

/** Whom a request counts as, under which policy; undefined when it is not limited. */
function subject(c: Context<AppEnv>, rule: RateLimitRule): { policy: RatePolicy; key: string } | undefined {
  if (rule === false) return undefined;
  const principal = c.var.principal;
  if (principal?.kind === 'admin') return undefined;
  if (principal) {
    const policy = planPolicy(c.env, c.var.tenant.plan);
    if (!policy) return undefined;
    return { policy, key: principal.kind === 'api_key' ? `key:${principal.keyId}` : `customer:${c.var.tenant.id}:${principal.customerId}` };
  }
  // Cloudflare's edge sets this on every request from the internet, replacing any a client sent;
  // a request without it came from no client (a service binding, the test harness): nothing to limit.
  const ip = c.req.header('CF-Connecting-IP');
  if (!ip) return undefined;
  const p = policies(c.env);
  const policy = rule === 'public-create' ? p.publicCreate : p.public;
  return policy && { policy, key: `ip:${addressPartition(ip)}` };
}

export interface RateDecision {
  policy: RatePolicy;
  allowed: boolean;
  /** The limit less what this isolate counted for the key in the window (RateLimit `r`): exact in one isolate, else an upper bound. */
  remaining: number;
  /** Seconds to the end of the window (RateLimit `t`, and Retry-After on a 429). */
  reset: number;
}

/**
 * What this isolate counted per policy and key in the current window, and whether the binding
 * refused the key in it. Windows are taken as aligned to the wall clock, as the local simulation
 * runs them (docs/decisions.md, Rate limits).
 */
interface Counter {
  window: number;
  used: number;
  refused: boolean;
}
const counters = new Map<string, Counter>();
const MAX_COUNTERS = 10_000;
const missing = new Set<string>();

function counterOf(policy: RatePolicy, key: string, nowMs: number): Counter {
  const window = Math.floor(nowMs / (policy.period * 1000));
  const id = `${policy.binding} ${key}`;
  let counter = counters.get(id);
  if (!counter || counter.window !== window) {
    if (counters.size >= MAX_COUNTERS) counters.clear();
    counter = { window, used: 0, refused: false };
    counters.set(id, counter);
  }
  return counter;
}

function decision(policy: RatePolicy, counter: Counter, allowed: boolean, nowMs: number): RateDecision {
  const periodMs = policy.period * 1000;
  const reset = Math.max(1, Math.ceil(((counter.window + 1) * periodMs - nowMs) / 1000));
  return { policy, allowed, remaining: allowed ? Math.max(0, policy.limit - counter.used) : 0, reset };
}

/** The binding's verdict; undefined when it failed (logged): the limiter protects the API, it never takes it down. */
async function ask(limiter: RateLimit, policy: RatePolicy, key: string): Promise<boolean | undefined> {
  try {
    return (await limiter.limit({ key })).success;
  } catch (err) {
    logError({ rateLimit: policy.name }, err);
    return undefined;
  }
}

/**
 * Counts a request of `key` under `policy`. Refused at once, without asking the binding, when this
 * isolate alone has counted the limit in this window or the binding refused the key in it (at
 * least that many were made). Otherwise the binding decides; with `background`, the request does
 * not wait for it (a read): the binding is asked alongside, and a refusal applies to the key's
 * next request here.
 */
async function decide(env: Env, policy: RatePolicy, key: string, background?: (work: Promise<unknown>) => void): Promise<RateDecision | undefined> {
  const limiter = env[policy.binding];
  if (typeof limiter?.limit !== 'function') {
    // A policy without its binding is a deployment mistake: the API stays up, unlimited, and says so once.
    if (!missing.has(policy.binding)) logError({ rateLimit: policy.name }, new Error(`rate limit binding ${policy.binding} is not bound`));
    missing.add(policy.binding);
    return undefined;
  }
  const before = systemNow().getTime();
  const counter = counterOf(policy, key, before);
  if (counter.refused || counter.used >= policy.limit) return decision(policy, counter, false, before);
  if (background) {
    counter.used += 1;
    background(ask(limiter, policy, key).then((ok) => void (ok === false && (counter.refused = true))));
    return decision(policy, counter, true, before);
  }
  const ok = await ask(limiter, policy, key);
  // The clock after the call: when a window ends while the call is under way, the request is
  // counted here in the next window, so `r` errs towards less, never more, than the binding has left.
  const after = systemNow().getTime();
  const current = counterOf(policy, key, after);
  if (ok === false) {
    current.refused = true;
    return decision(policy, current, false, after);
  }
  current.used += 1;
  return decision(policy, current, true, after);
}

/** Reads answer without waiting for the binding; what changes state, and opening a cart (a GET), waits. */
const waitsForVerdict = (c: Context<AppEnv>, rule: RateLimitRule) => rule === 'public-create' || (c.req.method !== 'GET' && c.req.method !== 'HEAD');

/** The decision for a request under a route's rule (undefined: not limited), counting it. */
export async function rateDecision(c: Context<AppEnv>, rule: RateLimitRule): Promise<RateDecision | undefined> {
  const s = subject(c, rule);
  if (!s) return undefined;
  if (waitsForVerdict(c, rule)) return decide(c.env, s.policy, s.key);
  return decide(c.env, s.policy, s.key, (work) => {
    try {
      c.executionCtx.waitUntil(work);
    } catch {
      // No execution context (app.request in a unit test): the call runs on its own.
    }
  });
}

/** The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers), plus Retry-After when refused. */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  const { name, limit, period } = d.policy;
  return {
    'RateLimit-Policy': `"${name}";q=${limit};w=${period}`,
    RateLimit: `"${name}";r=${d.remaining};t=${d.reset}`,
    ...(d.allowed ? {} : { 'Retry-After': String(d.reset) }),
  };
}

/** The response with the decision's headers (a copy when its headers cannot be changed, e.g. a fetched one). */
export function withRateLimitHeaders(res: Response, d: RateDecision): Response {
  const headers = rateLimitHeaders(d);
  try {
    for (const [k, v] of Object.entries(headers)) res.headers.set(k, v);
    return res;
  } catch {
    const copy = new Response(res.body, res);
    for (const [k, v] of Object.entries(headers)) copy.headers.set(k, v);
    return copy;
  }
}

/** 429 problem+json of a refused request. */
export function rateLimited(d: RateDecision): ApiError {
  const who = d.policy.name.startsWith('public') ? 'this client address' : `this API key (plan "${d.policy.name}")`;
  return new ApiError(
    429,
    'rate-limited',
    `Too many requests: ${who} may make ${d.policy.limit} in ${d.policy.period} seconds. Try again in ${d.reset} seconds.`,
    undefined,
    rateLimitHeaders(d),
  );
}

/**
 * The limiter of `defineRoute` routes, after authorization (it needs the key and its tenant's plan)
 * and before the idempotency layer, so a refused request is never run, stored or replayed.
 */
export function rateLimit(rule: RateLimitRule): MiddlewareHandler<AppEnv> {
  if (rule === false) return (_c, next) => next();
  return async (c, next) => {
    const decision = await rateDecision(c, rule);
    if (!decision) return next();
    if (!decision.allowed) throw rateLimited(decision);
    await next();
    const res = withRateLimitHeaders(c.res, decision);
    if (res !== c.res) c.res = res;
  };
}
