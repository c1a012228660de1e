// Rate limits (docs/decisions.md, Rate limits): per API key by its tenant's plan, per client address
// on public routes. The test configuration (vitest.workers.config.ts) gives the plans `free` and
// `standard` and the public policies a few requests per 10-second window; tenants of other tests
// are on `enterprise`, and requests without CF-Connecting-IP are not limited per address.
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, api, countRows, expectProblem, expectStatus, get, post, unique, type ApiResponse, type TestTenant } from '../support/api';
import { createTenant, keyWith } from '../support/builders';
import { checkoutCatalogue } from '../checkout/builders';
import { addRecipient, linkOf, offerCatalogue, offerSubscription } from '../offers/builders';

interface Figures {
  q: number;
  w: number;
}

/** A plan's figures as the test configuration gives them (RATE_LIMIT_PLANS). */
function planFigures(plan: string): Figures {
  const entry = env.RATE_LIMIT_PLANS!.split(',').find((e) => e.startsWith(`${plan}:`))!;
  const [q, w] = entry.slice(plan.length + 1).split('/').map(Number);
  return { q: q!, w: w! };
}
const figures = (value: string): Figures => {
  const [q, w] = value.split('/').map(Number);
  return { q: q!, w: w! };
};

const FREE = planFigures('free');
const STANDARD = planFigures('standard');
const PUBLIC = figures(env.RATE_LIMIT_PUBLIC!);
const CREATE = figures(env.RATE_LIMIT_PUBLIC_CREATE!);

/** The RateLimit fields of an answer, parsed (draft-ietf-httpapi-ratelimit-headers structured fields). */
function limitOf(res: ApiResponse | { headers: Headers }) {
  const policy = /^"([a-z-]+)";q=(\d+);w=(\d+)$/.exec(res.headers.get('RateLimit-Policy') ?? '');
  const state = /^"([a-z-]+)";r=(\d+);t=(\d+)$/.exec(res.headers.get('RateLimit') ?? '');
  if (!policy || !state) return undefined;
  return { name: policy[1]!, q: Number(policy[2]), w: Number(policy[3]), stateName: state[1]!, r: Number(state[2]), t: Number(state[3]) };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Waits for a fresh window when less than `marginMs` of the current one is left, so a burst falls
 * into one window. The test binding counts in windows aligned to the wall clock (miniflare's
 * simulation; docs/decisions.md, Rate limits).
 */
async function roomInWindow(w: number, marginMs = 4000): Promise<void> {
  const left = w * 1000 - (Date.now() % (w * 1000));
  if (left < marginMs) await sleep(left + 50);
}

/** A client address of its own: every test starts with untouched counters. */
let hosts = 0;
const address = () => `198.51.100.${(hosts = (hosts % 250) + 1)}`;
const v6Prefix = () => `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`;

async function setPlan(t: TestTenant, plan: string): Promise<ApiResponse> {
  return api(`/admin/tenants/${t.id}/plan`, { token: ADMIN_TOKEN, method: 'PUT', body: { plan } });
}

/** Requests with the key until the first 429 (at most `max`): the answers. */
async function untilRefused(key: string, max: number): Promise<ApiResponse[]> {
  const answers: ApiResponse[] = [];
  for (let i = 0; i < max; i++) {
    const res = await api('/customers', { token: key });
    answers.push(res);
    if (res.status === 429) break;
  }
  return answers;
}

describe('Rate limits per API key', () => {
  it('refuses a burst over the plan with 429 problem+json, Retry-After and the RateLimit fields, and writes nothing', async () => {
    const t = await createTenant({ plan: 'free' });
    await roomInWindow(FREE.w);
    for (let i = 1; i <= FREE.q; i++) {
      const res = await get(t, '/customers');
      expectStatus(res, 200);
      expect(limitOf(res)).toMatchObject({ name: 'free', q: FREE.q, w: FREE.w, stateName: 'free', r: FREE.q - i });
      expect(limitOf(res)!.t).toBeGreaterThanOrEqual(1);
      expect(limitOf(res)!.t).toBeLessThanOrEqual(FREE.w);
    }

    const idempotencyKey = unique('idem');
    const body = { email: `${unique('c')}@example.com`, countryCode: 'DE' };
    const refused = await api('/customers', { token: t.key, body, headers: { 'Idempotency-Key': idempotencyKey } });
    expectProblem(refused, 429, '/problems/rate-limited');
    const retryAfter = Number(refused.headers.get('Retry-After'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(FREE.w);
    expect(limitOf(refused)).toMatchObject({ name: 'free', q: FREE.q, w: FREE.w, r: 0, t: retryAfter });
    expect(refused.body.detail).toContain(`${FREE.q} in ${FREE.w} seconds`);
    // Refused before the idempotency layer: no customer, no claimed key, no event.
    expect(await countRows('customers', t)).toBe(0);
    expect(await countRows('idempotency_keys', t)).toBe(0);
    expect(await countRows('events', t)).toBe(0);

    // After Retry-After the same request, with the same key, runs for the first time.
    await sleep(retryAfter * 1000);
    const retried = await api('/customers', { token: t.key, body, headers: { 'Idempotency-Key': idempotencyKey } });
    expectStatus(retried, 201);
    expect(retried.headers.get('Idempotent-Replayed')).toBeNull();
    expect(limitOf(retried)).toMatchObject({ name: 'free', r: FREE.q - 1 });
    expect(await countRows('customers', t)).toBe(1);
  });

  it("honours the binding's verdict on a key used up elsewhere: a write at once, a read from the next request", async () => {
    const made = async () => {
      const res = await api('/admin/tenants', { token: ADMIN_TOKEN, body: { name: 'Elsewhere', countryCode: 'DE', mode: 'test', plan: 'free' } });
      expectStatus(res, 201);
      return { t: { id: res.body.tenant.id, key: res.body.apiKey.key } as TestTenant, keyId: res.body.apiKey.id as string };
    };
    const [writer, reader] = [await made(), await made()];
    await roomInWindow(FREE.w);
    // Other isolates, or other machines of the location, used the keys up: the binding counted
    // those requests, this isolate did not.
    for (const { keyId } of [writer, reader]) {
      for (let i = 0; i < FREE.q; i++) expect((await env.LIMITER_PLAN_FREE!.limit({ key: `key:${keyId}` })).success).toBe(true);
    }

    const write = await api('/customers', { token: writer.t.key, body: { email: `${unique('c')}@example.com`, countryCode: 'DE' } });
    expectProblem(write, 429, '/problems/rate-limited');
    expect(limitOf(write)).toMatchObject({ name: 'free', r: 0 });
    expect(await countRows('customers', writer.t)).toBe(0);

    // A read is answered without waiting for the binding; its refusal reaches the next request.
    const first = await get(reader.t, '/customers');
    expectStatus(first, 200);
    let refused: ApiResponse | undefined;
    for (let i = 0; i < 20 && !refused; i++) {
      const next = await get(reader.t, '/customers');
      if (next.status === 429) refused = next;
      else await sleep(25);
    }
    expectProblem(refused!, 429, '/problems/rate-limited');
  });

  it('never refuses a client that keeps to the RateLimit fields, across window boundaries', async () => {
    const t = await createTenant({ plan: 'free' });
    await roomInWindow(FREE.w);
    let waits = 0;
    const requests = 2 * FREE.q;
    for (let i = 1; i <= requests; i++) {
      const res = await get(t, '/customers');
      expectStatus(res, 200);
      const limit = limitOf(res)!;
      if (limit.r === 0 && i < requests) {
        waits += 1;
        await sleep(limit.t * 1000);
      }
    }
    // It used up a window, waited as told, and went on in the next.
    expect(waits).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('limits two keys of one tenant, and two tenants, independently', async () => {
    const a = await createTenant({ plan: 'free' });
    const b = await createTenant({ plan: 'free' });
    const second = await keyWith(a, ['customer:read']);
    await roomInWindow(FREE.w);
    const burst = await untilRefused(a.key, FREE.q + 2);
    expect(burst.at(-1)!.status).toBe(429);

    const otherKey = await api('/customers', { token: second });
    expectStatus(otherKey, 200);
    expect(limitOf(otherKey)).toMatchObject({ name: 'free', r: FREE.q - 1 });
    const otherTenant = await get(b, '/customers');
    expectStatus(otherTenant, 200);
    expect(limitOf(otherTenant)).toMatchObject({ name: 'free', r: FREE.q - 1 });
    // The first key stays refused for the rest of its window.
    expectProblem(await get(a, '/customers'), 429, '/problems/rate-limited');
  });

  it("applies the tenant's plan: moved to another plan, its keys get that plan's limit", async () => {
    const t = await createTenant({ plan: 'free' });
    // A key not used before the move: nothing an isolate remembers of it can predate the new plan.
    const later = await keyWith(t, ['customer:read']);
    await roomInWindow(FREE.w);
    const onFree = await untilRefused(t.key, FREE.q + 2);
    expect(onFree.filter((r) => r.status === 200).length).toBeLessThanOrEqual(FREE.q);
    expect(limitOf(onFree.at(-1)!)).toMatchObject({ name: 'free', q: FREE.q });

    const moved = await setPlan(t, 'standard');
    expectStatus(moved, 200);
    expect(moved.body).toMatchObject({ id: t.id, plan: 'standard' });

    await roomInWindow(STANDARD.w);
    const onStandard = await untilRefused(later, STANDARD.q + 2);
    expect(onStandard.slice(0, STANDARD.q).every((r) => r.status === 200)).toBe(true);
    expect(limitOf(onStandard[0]!)).toMatchObject({ name: 'standard', q: STANDARD.q, w: STANDARD.w, r: STANDARD.q - 1 });
    expectProblem(onStandard[STANDARD.q]!, 429, '/problems/rate-limited');
    expect(limitOf(onStandard[STANDARD.q]!)).toMatchObject({ name: 'standard', r: 0 });

    const listed = await api('/admin/tenants?limit=100', { token: ADMIN_TOKEN });
    expect(listed.body.data.find((x: { id: string }) => x.id === t.id)).toMatchObject({ plan: 'standard' });
  });

  it('gives new tenants the configured default plan and refuses plans the deployment does not have', async () => {
    const t = await createTenant();
    const listed = await api('/admin/tenants?limit=100', { token: ADMIN_TOKEN });
    expect(listed.body.data.find((x: { id: string }) => x.id === t.id)).toMatchObject({ plan: env.DEFAULT_TENANT_PLAN });
    expect(limitOf(await get(t, '/customers'))).toMatchObject({ name: env.DEFAULT_TENANT_PLAN });

    const unknown = await setPlan(t, 'platinum');
    expectProblem(unknown, 422, '/problems/validation-failed');
    expect(unknown.body.violations).toEqual([expect.objectContaining({ propertyPath: 'plan', code: 'unknown_plan' })]);
    const created = await api('/admin/tenants', {
      token: ADMIN_TOKEN,
      body: { name: 'Platinum', countryCode: 'DE', mode: 'test', plan: 'platinum' },
    });
    expectProblem(created, 422, '/problems/validation-failed');
    expectProblem(await api('/admin/tenants/no-such-tenant/plan', { token: ADMIN_TOKEN, method: 'PUT', body: { plan: 'free' } }), 404);
    expectProblem(await api(`/admin/tenants/${t.id}/plan`, { token: t.key, method: 'PUT', body: { plan: 'enterprise' } }), 401);
  });

  it('never limits the admin token and GET /health', async () => {
    const ip = address();
    for (let i = 0; i < PUBLIC.q + 2; i++) {
      const health = await api('/health', { headers: { 'CF-Connecting-IP': ip } });
      expectStatus(health, 200);
      expect(health.headers.get('RateLimit')).toBeNull();
      const admin = await api('/admin/tenants?limit=1', { token: ADMIN_TOKEN, headers: { 'CF-Connecting-IP': ip } });
      expectStatus(admin, 200);
      expect(admin.headers.get('RateLimit')).toBeNull();
    }
  });

  it('documents 429 on limited routes only', async () => {
    const doc = (await api('/openapi.json')).body;
    const tooMany = doc.paths['/customers'].get.responses['429'];
    expect(tooMany.content['application/problem+json']).toBeDefined();
    expect(Object.keys(tooMany.headers).sort()).toEqual(['RateLimit', 'RateLimit-Policy', 'Retry-After']);
    expect(doc.paths['/public/checkout/cart/{id}'].get.responses['429']).toBeDefined();
    expect(doc.paths['/health'].get.responses['429']).toBeUndefined();
    expect(doc.paths['/admin/tenants'].get.responses['429']).toBeUndefined();
    expect(doc.paths['/gateway-webhooks/{gateway}/{tenant}'].post.responses['429']).toBeUndefined();
  });
});

describe('Rate limits per client address on public routes', () => {
  it('refuses a burst of cart openings from one address, not from another, and writes no cart for a refused one', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const [ip, other] = [address(), address()];
    const open = (from: string) => api(`/public/checkout/links/${t.id}/team/cart`, { method: 'POST', headers: { 'CF-Connecting-IP': from } });
    await roomInWindow(CREATE.w);
    for (let i = 1; i <= CREATE.q; i++) {
      const res = await open(ip);
      expectStatus(res, 201);
      expect(limitOf(res)).toMatchObject({ name: 'public-create', q: CREATE.q, w: CREATE.w, r: CREATE.q - i });
    }
    const refused = await open(ip);
    expectProblem(refused, 429, '/problems/rate-limited');
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    expect(limitOf(refused)).toMatchObject({ name: 'public-create', r: 0 });
    expect(await countRows('carts', t)).toBe(CREATE.q);

    const elsewhere = await open(other);
    expectStatus(elsewhere, 201);
    expect(await countRows('carts', t)).toBe(CREATE.q + 1);

    // Reading a cart is limited apart from making one, and less strictly.
    await roomInWindow(PUBLIC.w);
    const reads = [];
    for (let i = 0; i < PUBLIC.q + 1; i++) reads.push(await api(`/public/checkout/cart/${elsewhere.body.id}`, { headers: { 'CF-Connecting-IP': ip } }));
    expect(reads.slice(0, PUBLIC.q).map((r) => r.status)).toEqual(Array(PUBLIC.q).fill(200));
    expect(limitOf(reads[0]!)).toMatchObject({ name: 'public', q: PUBLIC.q, w: PUBLIC.w, r: PUBLIC.q - 1 });
    expectProblem(reads[PUBLIC.q]!, 429, '/problems/rate-limited');
  });

  it('counts an IPv6 client by its /64', async () => {
    const t = await createTenant();
    const [prefix, other] = [v6Prefix(), v6Prefix()];
    const ask = (ip: string) => api('/public/customer/request-otp', { headers: { 'CF-Connecting-IP': ip, 'X-Tenant-Id': t.id }, body: { email: 'nobody@example.com' } });
    await roomInWindow(CREATE.w);
    for (let i = 1; i <= CREATE.q; i++) expectStatus(await ask(`${prefix}:0:0:0:${i.toString(16)}`), 200);
    expectProblem(await ask(`${prefix}::abcd`), 429, '/problems/rate-limited');
    expectStatus(await ask(`${other}::1`), 200);
  });

  it('answers a refused checkout page with a 429 page that says when to try again', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const ip = address();
    const page = (path: string, from = ip) => exportsFetch(path, { 'CF-Connecting-IP': from });
    await roomInWindow(CREATE.w);
    const opened = [];
    for (let i = 0; i < CREATE.q; i++) {
      const res = await page(`/checkout/${t.id}/team`);
      expect(res.status).toBe(303);
      expect(limitOf(res)).toMatchObject({ name: 'public-create' });
      opened.push(res.headers.get('Location')!);
    }
    const refused = await page(`/checkout/${t.id}/team?lang=en`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('Content-Type')).toMatch(/^text\/html/);
    const retryAfter = Number(refused.headers.get('Retry-After'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(limitOf(refused)).toMatchObject({ name: 'public-create', r: 0, t: retryAfter });
    const text = await refused.text();
    expect(text).toContain('Too many requests');
    expect(text).toContain(`try again in ${retryAfter} second`);
    expect(await countRows('carts', t)).toBe(CREATE.q);

    // The cart page itself is a read, limited on its own.
    const cartPage = await page(opened[0]!);
    expect(cartPage.status).toBe(200);
    expect(limitOf(cartPage)).toMatchObject({ name: 'public', q: PUBLIC.q });
  });

  it("limits an offer's page and routes per address: asking for a signing code counts as making state", async () => {
    const t = await createTenant();
    const c = await offerCatalogue(t);
    const customer = await post(t, '/customers', { email: `${unique('buyer')}@example.com`, countryCode: 'DE' });
    const offer = await post(t, '/offers', { customer: customer.body.id, name: 'Limits', subscription: offerSubscription(c) });
    expectStatus(offer, 201);
    await addRecipient(t, offer.body.id, { email: 'signer@example.com', firstName: 'Sina', lastName: 'Signer', role: 'sign' });
    const token = await linkOf(t, offer.body.id, 'signer@example.com');
    const ip = address();
    const code = await api(`/public/offers/${token}/signing-code`, { method: 'POST', headers: { 'CF-Connecting-IP': ip } });
    expectStatus(code, 200);
    expect(limitOf(code)).toMatchObject({ name: 'public-create', q: CREATE.q });
    await roomInWindow(PUBLIC.w);
    for (let i = 0; i < PUBLIC.q; i++) {
      const res = await exportsFetch(`/offer/${token}`, { 'CF-Connecting-IP': ip });
      expect(res.status).toBe(200);
      expect(limitOf(res)).toMatchObject({ name: 'public' });
    }
    const refused = await exportsFetch(`/offer/${token}?lang=en`, { 'CF-Connecting-IP': ip });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    expect(await refused.text()).toContain('Too many requests');
    // Another address reads on.
    expect((await exportsFetch(`/offer/${token}`, { 'CF-Connecting-IP': address() })).status).toBe(200);
  });
});

/** A page request (HTML, redirects not followed) as a browser would send it. */
const exportsFetch = (path: string, headers: Record<string, string>) =>
  exports.default.fetch(new Request(`http://billing.test${path}`, { headers, redirect: 'manual' }));
