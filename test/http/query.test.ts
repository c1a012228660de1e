import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, api, expectProblem, ids } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';

// Query parameters every route shares: page 0 (n8n's "Return All"), and refusing what a route
// does not declare (src/http/openapi.ts, knownQueryOnly).

describe('page=0', () => {
  it('is the first page, so n8n "Return All" (page=0, then page=100) reads every item once', async () => {
    const t = await createTenant();
    for (let i = 0; i < 3; i++) await createCustomer(t);
    const first = await api('/customers?limit=100&page=0', { token: t.key, contentType: 'application/json' });
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(3);
    expect(first.body.meta.pagination).toMatchObject({ currentPage: 1, totalItems: 3 });
    expect(ids(first)).toEqual(ids(await api('/customers?limit=100&page=1', { token: t.key })));
    expect((await api('/customers?limit=100&page=100', { token: t.key })).body.data).toEqual([]);
    const doc = (await api('/openapi.json')).body;
    expect(doc.paths['/customers'].get.parameters.find((p: any) => p.name === 'page').schema.minimum).toBe(0);
  });
});

describe('unknown query parameters', () => {
  it('are 400 on every list route, naming the parameter', async () => {
    const t = await createTenant();
    const doc = (await api('/openapi.json')).body;
    const lists = Object.entries(doc.paths as Record<string, any>)
      .filter(([, ops]) => ops.get?.parameters?.some((p: any) => p.name === 'page'))
      .map(([path, ops]) => ({ path: path.replace(/\{[^}]+\}/g, 'no-such-id'), token: ops.get['x-permission'] === 'admin' ? ADMIN_TOKEN : t.key }));
    expect(lists.length).toBeGreaterThan(20);
    for (const { path, token } of lists) {
      const res = await api(`${path}?limit=1&colour=red`, { token });
      expectProblem(res, 400, '/problems/bad-request');
      expect(res.body.violations, path).toEqual([{ propertyPath: 'colour', message: expect.any(String), code: 'unknown_parameter' }]);
    }
  });

  it('are 400 on routes without a query too, and misspelt filters are never ignored', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    expectProblem(await api(`/customers/${c.id}?expand=all`, { token: t.key }), 400);
    const typo = await api('/customers?serach=x&order[createdAt]=asc&order[colour]=asc', { token: t.key });
    expect(typo.body.violations.map((v: any) => v.propertyPath)).toEqual(['serach', 'order[colour]']);
    expect((await api('/customers?search=x&order[createdAt]=asc', { token: t.key })).status).toBe(200);
  });

  it('accepts declared bracket names whether the brackets are sent plain or percent-encoded (axios)', async () => {
    const t = await createTenant();
    const a = await createCustomer(t);
    const b = await createCustomer(t);
    const plain = await api('/customers?order[createdAt]=desc', { token: t.key });
    const encoded = await api('/customers?order%5BcreatedAt%5D=desc', { token: t.key });
    expect(ids(plain)).toEqual([b.id, a.id]);
    expect(ids(encoded)).toEqual([b.id, a.id]);
    expect((await api('/customers?order%5Bcolour%5D=desc', { token: t.key })).body.violations[0].propertyPath).toBe('order[colour]');
  });
});
