import { describe, expect, it } from 'vitest';
import { api, unique, violations, dbOf } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';

// The HTTP conventions every route shares (src/http): problem+json errors, pagination,
// Idempotency-Key, and the OpenAPI document and docs.

describe('problem+json errors', () => {
  it('400 for malformed JSON, with a request id in the body and the header', async () => {
    const t = await createTenant();
    const res = await api('/customers', { token: t.key, rawBody: '{"email": ', contentType: 'application/json', headers: { 'X-Request-Id': 'req-123' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    expect(res.body).toMatchObject({ type: '/problems/bad-request', title: 'Bad Request', status: 400, requestId: 'req-123' });
    expect(res.headers.get('X-Request-Id')).toBe('req-123');
  });

  it('generates a request id when none (or a hostile one) is sent', async () => {
    const a = await api('/health');
    const b = await api('/health', { headers: { 'X-Request-Id': 'bad id with spaces <script>' } });
    expect(a.headers.get('X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers.get('X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('401 without or with a wrong key, with WWW-Authenticate', async () => {
    for (const token of [null, 'sk_test_nope', 'a.b.c']) {
      const res = await api('/customers', { token });
      expect(res.status).toBe(401);
      expect(res.body.type).toBe('/problems/unauthorized');
      expect(res.headers.get('WWW-Authenticate')).toBe('Bearer');
    }
  });

  it('404 for unknown routes and unknown ids', async () => {
    const t = await createTenant();
    expect((await api('/nope', { token: t.key })).status).toBe(404);
    const res = await api('/customers/does-not-exist', { token: t.key });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 404, type: '/problems/not-found' });
  });

  it('413 for bodies over 1 MiB, before anything is stored', async () => {
    const t = await createTenant();
    const res = await api('/customers', { token: t.key, body: { email: 'big@example.com', countryCode: 'DE', firstName: 'x'.repeat(1024 * 1024) } });
    expect(res.status).toBe(413);
    expect((await api('/customers', { token: t.key })).body.meta.pagination.totalItems).toBe(0);
  });

  it.each([
    ['POST with text/plain', 'POST', '/customers', 'text/plain'],
    ['POST without content type', 'POST', '/customers', undefined],
    ['PATCH with text/plain', 'PATCH', '/settings', 'text/plain'],
    ['PUT with form encoding', 'PUT', '/test-clock', 'application/x-www-form-urlencoded'],
  ])('415 for %s', async (_name, method, path, contentType) => {
    const t = await createTenant();
    const res = await api(path, { method, token: t.key, rawBody: '{"a":1}', contentType });
    expect(res.status).toBe(415);
    expect(res.body.type).toBe('/problems/unsupported-media-type');
  });

  it('422 lists one violation per broken rule', async () => {
    const t = await createTenant();
    const res = await api('/customers', { token: t.key, body: { email: 'not-an-email', countryCode: 'XX', language: 'fr', firstName: 'A', extra: true } });
    expect(res.status).toBe(422);
    expect(violations(res).sort()).toEqual(
      ['countryCode: invalid_country_code', 'email: invalid_format', 'extra: unknown_field', 'firstName: too_small', 'language: invalid_value'].sort(),
    );
    for (const v of res.body.violations) expect(v.message).toEqual(expect.any(String));
  });

  it('never answers 500 for hostile bodies', async () => {
    const t = await createTenant();
    const bodies = ['[]', '"str"', '42', 'null', '{"email":{"$gt":""},"countryCode":["DE"]}', '{"customFields":"x","email":"a@b.co","countryCode":"DE"}'];
    for (const raw of bodies) {
      const res = await api('/customers', { token: t.key, rawBody: raw, contentType: 'application/json' });
      expect(res.status, raw).toBeGreaterThanOrEqual(400);
      expect(res.status, raw).toBeLessThan(500);
    }
  });
});

describe('pagination', () => {
  it('returns meta.pagination and honours page and limit', async () => {
    const t = await createTenant();
    for (let i = 0; i < 5; i++) await createCustomer(t);
    const res = await api('/customers?limit=2&page=3', { token: t.key });
    expect(res.status).toBe(200);
    expect(res.body.meta.pagination).toEqual({ totalItems: 5, itemsPerPage: 2, currentPage: 3, lastPage: 3, pageTotalItems: 1 });
    expect(res.body.data).toHaveLength(1);
    const zero = await api('/customers?limit=0', { token: t.key });
    expect(zero.body.meta.pagination).toEqual({ totalItems: 5, itemsPerPage: 0, currentPage: 1, lastPage: 1, pageTotalItems: 0 });
    const dflt = await api('/customers', { token: t.key });
    expect(dflt.body.meta.pagination.itemsPerPage).toBe(30);
  });

  it.each(['limit=101', 'limit=-1', 'limit=abc', 'limit=1.5', 'page=-1', 'page=x'])('400 for %s', async (query) => {
    const t = await createTenant();
    const res = await api(`/customers?${query}`, { token: t.key });
    expect(res.status).toBe(400);
    expect(res.body.violations[0].propertyPath).toBe(query.split('=')[0]);
  });
});

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and payload', async () => {
    const t = await createTenant();
    const body = { email: `${unique()}@example.com`, countryCode: 'DE' };
    const first = await api('/customers', { token: t.key, body, headers: { 'Idempotency-Key': 'k-1' } });
    const again = await api('/customers', { token: t.key, body, headers: { 'Idempotency-Key': 'k-1' } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await api('/customers', { token: t.key })).body.meta.pagination.totalItems).toBe(1);
  });

  it('refuses the same key with another payload (422) and keeps keys per tenant', async () => {
    const t = await createTenant();
    const other = await createTenant();
    const key = { 'Idempotency-Key': 'shared-key' };
    expect((await api('/customers', { token: t.key, body: { email: 'a@example.com', countryCode: 'DE' }, headers: key })).status).toBe(201);
    const reused = await api('/customers', { token: t.key, body: { email: 'b@example.com', countryCode: 'DE' }, headers: key });
    expect(reused.status).toBe(422);
    expect(violations(reused)).toEqual(['Idempotency-Key: idempotency_key_reused']);
    const otherTenant = await api('/customers', { token: other.key, body: { email: 'b@example.com', countryCode: 'DE' }, headers: key });
    expect(otherTenant.status).toBe(201);
    expect(otherTenant.headers.get('Idempotent-Replayed')).toBeNull();
  });

  it('answers 409 while the same key is in flight', async () => {
    const t = await createTenant();
    const now = new Date().toISOString();
    const body = JSON.stringify({ email: 'inflight@example.com', countryCode: 'DE' });
    // A claim made a moment ago by a request of the same key that is still running.
    const { sha256Hex } = await import('../../src/lib/crypto');
    const keyId = (await (await dbOf(t)).prepare('SELECT id FROM api_keys WHERE tenant_id = ?').bind(t.id).first<{ id: string }>())!.id;
    await (await dbOf(t)).prepare(
      `INSERT INTO idempotency_keys (tenant_id, key, request_hash, state, created_at, expires_at) VALUES (?, ?, ?, 'in_flight', ?, ?)`,
    )
      .bind(t.id, `key:${keyId} busy`, await sha256Hex(`POST /customers\n${body}`), now, new Date(Date.now() + 86_400_000).toISOString())
      .run();
    const res = await api('/customers', { token: t.key, rawBody: body, contentType: 'application/json', headers: { 'Idempotency-Key': 'busy' } });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('/problems/idempotency-in-flight');
  });

  it('lets exactly one of concurrent requests with one key do the work', async () => {
    const t = await createTenant();
    const body = { email: `${unique()}@example.com`, countryCode: 'DE' };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api('/customers', { token: t.key, body, headers: { 'Idempotency-Key': 'race' } })),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of results) expect([201, 409]).toContain(r.status);
    expect(created.filter((r) => r.headers.get('Idempotent-Replayed') !== 'true')).toHaveLength(1);
    expect((await api('/customers', { token: t.key })).body.meta.pagination.totalItems).toBe(1);
  });

  it('keeps a record for at least 24 hours', async () => {
    const t = await createTenant();
    await api('/customers', { token: t.key, body: { email: `${unique()}@example.com`, countryCode: 'DE' }, headers: { 'Idempotency-Key': 'ttl' } });
    const row = await (await dbOf(t)).prepare(`SELECT created_at, expires_at FROM idempotency_keys WHERE tenant_id = ? AND key LIKE '% ttl'`).bind(t.id).first<{
      created_at: string;
      expires_at: string;
    }>();
    expect(Date.parse(row!.expires_at) - Date.parse(row!.created_at)).toBeGreaterThanOrEqual(24 * 3600 * 1000);
  });

  it('does not store failures of ours (5xx) — validation failures are replayed', async () => {
    const t = await createTenant();
    const bad = await api('/customers', { token: t.key, body: { countryCode: 'DE' }, headers: { 'Idempotency-Key': 'v' } });
    const again = await api('/customers', { token: t.key, body: { countryCode: 'DE' }, headers: { 'Idempotency-Key': 'v' } });
    expect(bad.status).toBe(422);
    expect(again.status).toBe(422);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
  });
});

describe('OpenAPI and docs', () => {
  it('serves an OpenAPI 3.1 document generated from the schemas', async () => {
    const res = await api('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/customers'].post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/CustomerCreate');
    expect(res.body.paths['/customers/{id}'].patch.requestBody.content['application/merge-patch+json']).toBeDefined();
    expect(res.body.components.schemas.Problem).toBeDefined();
  });

  it('declares an access rule for every operation', async () => {
    const doc = (await api('/openapi.json')).body;
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, op })),
    );
    expect(operations.length).toBeGreaterThan(30);
    for (const { path, method, op } of operations) {
      expect(op['x-permission'], `${method} ${path}`).toMatch(/^(public|admin|[a-z-]+:(read|write))$/);
    }
  });

  it('serves interactive docs and /health', async () => {
    const docs = await api('/docs');
    expect(docs.status).toBe(200);
    expect(String(docs.body)).toContain('/openapi.json');
    expect((await api('/health')).body).toEqual({ status: 'ok' });
  });
});
