import { describe, expect, it } from 'vitest';
import { api, countRows, expectProblem, get, patch, violations } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { draft, line } from '../invoices/builders';

// The body guard every route shares (src/http/request.ts): media types, bodiless requests as real
// clients send them (the n8n node), nesting depth and Unicode.

async function operations(method: string): Promise<string[]> {
  const doc = (await api('/openapi.json')).body;
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .filter(([, ops]) => method in ops)
    // A gateway is named by one of a fixed set (an unknown name is a 400 path problem); ids are free.
    .map(([path]) => path.replace('{gateway}', 'card_provider').replace(/\{[^}]+\}/g, 'no-such-id'));
}

const deep = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('PATCH with application/json', () => {
  it('is a merge patch like application/merge-patch+json', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Ada', lastName: 'Lovelace' });
    const res = await api(`/customers/${c.id}`, { method: 'PATCH', token: t.key, body: { firstName: 'Grace', lastName: null }, contentType: 'application/json' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ firstName: 'Grace', lastName: null });
    expect((await patch(t, `/customers/${c.id}`, { firstName: 'Edith' })).body.firstName).toBe('Edith');
  });

  it('is accepted on every PATCH route (never 415)', async () => {
    const t = await createTenant();
    const paths = await operations('patch');
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) {
      const res = await api(path, { method: 'PATCH', token: t.key, rawBody: '{}', contentType: 'application/json; charset=utf-8' });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).not.toBe(415);
      expect(res.status, path).toBeLessThan(500);
    }
  });
});

describe('bodiless requests with Content-Type: application/json', () => {
  it('read an empty body as {} on every POST, PUT and PATCH route: never 400 malformed JSON', async () => {
    const t = await createTenant();
    for (const method of ['post', 'put', 'patch'] as const) {
      for (const path of await operations(method)) {
        const res = await api(path, { method: method.toUpperCase(), token: t.key, rawBody: '', contentType: 'application/json', headers: { 'Content-Length': '0' } });
        // A gateway webhook is verified by its signature before anything is parsed: 400 is its answer to any unsigned request.
        if (path.startsWith('/gateway-webhooks/')) expect(res.body.type).toBe('/problems/webhook-not-verified');
        else expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).not.toBe(400);
        expect(res.status, `${method} ${path}`).toBeLessThan(500);
      }
    }
  });

  it('runs a bodiless action (archive), and reports required fields as 422 violations', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const archived = await api(`/customers/${c.id}/archive`, { method: 'PUT', token: t.key, rawBody: '', contentType: 'application/json' });
    expect(archived.status, JSON.stringify(archived.body)).toBe(200);
    expect(archived.body.status).toBe('STATUS_ARCHIVED');
    const clock = await api('/test-clock', { method: 'PUT', token: t.key, rawBody: '', contentType: 'application/json' });
    expectProblem(clock, 422, '/problems/validation-failed');
    expect(violations(clock)).toEqual(['now: invalid_type']);
    const customer = await api('/customers', { method: 'POST', token: t.key, rawBody: '', contentType: 'application/json' });
    // The country defaults to the tenant's (the n8n node can create a customer from an e-mail alone).
    expect(violations(customer)).toEqual(['email: invalid_type']);
  });

  it('accepts the Content-Type on GET and DELETE without a body', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    expect((await api(`/customers/${c.id}`, { token: t.key, contentType: 'application/json' })).status).toBe(200);
    expect((await api('/customers?limit=1', { token: t.key, contentType: 'application/json' })).status).toBe(200);
    expect((await api(`/customers/${c.id}`, { method: 'DELETE', token: t.key, contentType: 'application/json' })).status).toBe(204);
  });
});

// How clients send an action without fields: nothing at all (curl -X POST, fetch without a body),
// an empty body with a length or a type, or `{}`. Every action route answers them alike.
const BODILESS: { name: string; opts: { rawBody?: string; contentType?: string; headers?: Record<string, string> } }[] = [
  { name: 'no body, no Content-Type', opts: {} },
  { name: 'no body with Content-Length: 0', opts: { headers: { 'Content-Length': '0' } } },
  { name: 'an empty body as application/json', opts: { rawBody: '', contentType: 'application/json' } },
  { name: 'an empty form post (curl -d "")', opts: { rawBody: '', contentType: 'application/x-www-form-urlencoded' } },
  { name: '{} as application/json', opts: { rawBody: '{}', contentType: 'application/json' } },
];

/** POST and PUT routes that act on a resource (`/…/{id}/verb`) and need no body. */
async function actionRoutes(): Promise<{ method: string; path: string }[]> {
  const doc = (await api('/openapi.json')).body;
  return Object.entries(doc.paths as Record<string, Record<string, { requestBody?: { required?: boolean } }>>).flatMap(([path, ops]) =>
    (['post', 'put'] as const)
      .filter((m) => ops[m] && /\}\/[a-z-]+$/.test(path) && !path.startsWith('/gateway-webhooks/') && ops[m]!.requestBody?.required !== true)
      .map((m) => ({ method: m.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'no-such-id') })),
  );
}

describe('action routes take no body', () => {
  it.each(BODILESS)('every action route reads $name as {}: never 415 or 400', async ({ opts }) => {
    const t = await createTenant();
    const routes = await actionRoutes();
    expect(routes.map((r) => r.path)).toEqual(expect.arrayContaining(['/invoices/no-such-id/finalize', '/invoices/no-such-id/cancel', '/subscriptions/no-such-id/activate']));
    for (const { method, path } of routes) {
      const res = await api(path, { method, token: t.key, ...opts });
      expect([400, 415], `${method} ${path}: ${JSON.stringify(res.body)}`).not.toContain(res.status);
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
    }
  });

  it.each(BODILESS)('finalizes and cancels an invoice with $name', async ({ opts }) => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const d = await draft(t, c.id, [line('10.00')]);
    const fin = await api(`/invoices/${d.id}/finalize`, { method: 'POST', token: t.key, ...opts });
    expect(fin.status, JSON.stringify(fin.body)).toBe(201);
    expect(fin.body.number).toMatch(/^RE-/);
    const cancel = await api(`/invoices/${d.id}/cancel`, { method: 'POST', token: t.key, ...opts });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(cancel.body.status).toBe('STATUS_CANCELLED');
  });

  it('still refuses a body in another media type (415), and a finalize body is still validated', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const d = await draft(t, c.id, [line('10.00')]);
    expectProblem(await api(`/invoices/${d.id}/finalize`, { method: 'POST', token: t.key, rawBody: '{"dueDate":null}', contentType: 'text/plain' }), 415);
    expect(violations(await api(`/invoices/${d.id}/finalize`, { method: 'POST', token: t.key, body: { due: 1 } }))).toEqual(['due: unknown_field']);
    expect((await get(t, `/invoices/${d.id}`)).body.status).toBe('STATUS_DRAFT');
  });
});

describe('deeply nested bodies', () => {
  it('refuses a merge patch 10,000 objects deep with 400 on every PATCH route, before anything runs', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Ada' });
    const body = deep(10_000);
    for (const path of [...(await operations('patch')), `/customers/${c.id}`]) {
      const res = await api(path, { method: 'PATCH', token: t.key, rawBody: body, contentType: 'application/merge-patch+json' });
      expectProblem(res, 400, '/problems/bad-request');
      expect(res.body.detail, path).toMatch(/deeper than 64 levels/);
    }
    expect((await get(t, `/customers/${c.id}`)).body.firstName).toBe('Ada');
  });

  it('refuses deep POST bodies and deep arrays with 400; a body at the limit is validated as usual', async () => {
    const t = await createTenant();
    expectProblem(await api('/customers', { token: t.key, rawBody: deep(65), contentType: 'application/json' }), 400);
    expectProblem(await api('/customers', { token: t.key, rawBody: '['.repeat(50_000) + ']'.repeat(50_000), contentType: 'application/json' }), 400);
    // Brackets inside strings are text, not nesting.
    const res = await api('/customers', { token: t.key, body: { email: 'x@example.com', countryCode: 'DE', firstName: '{['.repeat(200) } });
    expect(violations(res)).toEqual(['firstName: too_big']);
    expect(violations(await api('/customers', { token: t.key, rawBody: deep(64), contentType: 'application/json' }))).toContain('a: unknown_field');
  });
});

describe('Unicode', () => {
  it('refuses a lone UTF-16 surrogate with 422 instead of storing replacement characters', async () => {
    const t = await createTenant();
    const res = await api('/customers', { token: t.key, body: { email: 'lone@example.com', countryCode: 'DE', firstName: 'a\udc00b' } });
    expectProblem(res, 422, '/problems/validation-failed');
    expect(violations(res)).toEqual(['firstName: invalid_unicode']);
    expect(await countRows('customers', t)).toBe(0);
    const unit = await api('/units', { token: t.key, body: { name: 'x\ud800', code: 'u' } });
    expect(violations(unit)).toEqual(['name: invalid_unicode']);
    const nested = await api('/customers', { token: t.key, body: { email: 'n@example.com', countryCode: 'DE', customFields: { ['k\udfff']: 1 } } });
    expect(violations(nested)).toEqual(['customFields.k\udfff: invalid_unicode']);
  });

  it('stores and shows characters outside the BMP (surrogate pairs) exactly as sent', async () => {
    const t = await createTenant();
    const res = await api('/units', { token: t.key, body: { name: 'Stück 📦 \ud83d\ude00', code: 'box' } });
    expect(res.status).toBe(201);
    expect((await get(t, `/units/${res.body.id}`)).body.name).toBe('Stück 📦 😀');
  });
});
