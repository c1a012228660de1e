import { describe, expect, it } from 'vitest';
import { contractViolations, findRoute } from '../support/contract';
import { api } from '../support/api';
import { createTenant } from '../support/builders';

// The test client checks every response against its route's schema (test/contract.ts); these tests
// show that the check catches drift.

const unit = { id: 'u1', name: 'Hour', code: 'h', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' };
const ok = (path: string, body: unknown, status = 200, method = 'GET') =>
  contractViolations({ method, path, status, contentType: 'application/json; charset=UTF-8', body });

describe('response contract', () => {
  it('finds routes by their literal path, a static segment before a parameter', () => {
    expect(findRoute('PUT', '/subscriptions/abc/cancel')?.path).toBe('/subscriptions/{id}/cancel');
    expect(findRoute('POST', '/subscriptions/measurements?x=1')?.path).toBe('/subscriptions/measurements');
    expect(findRoute('GET', '/subscriptions/abc')?.path).toBe('/subscriptions/{id}');
    expect(findRoute('GET', '/openapi.json')).toBeUndefined();
  });

  it('accepts a body that matches its schema', () => {
    expect(ok('/units/u1', unit)).toEqual([]);
    expect(ok('/units', { data: [unit], meta: { pagination: { totalItems: 1, itemsPerPage: 30, currentPage: 1, lastPage: 1, pageTotalItems: 1 } } })).toEqual([]);
  });

  it('refuses a key the schema does not declare, also nested in arrays', () => {
    expect(ok('/units/u1', { ...unit, colour: 'red' })).toEqual(['GET /units/{id} → 200: body.colour is not declared by the schema']);
    const page = { data: [unit, { ...unit, extra: 1 }], meta: { pagination: { totalItems: 2, itemsPerPage: 30, currentPage: 1, lastPage: 1, pageTotalItems: 2 } } };
    expect(ok('/units', page)).toEqual(['GET /units → 200: body.data[1].extra is not declared by the schema']);
  });

  it('refuses a wrong type and a missing field', () => {
    expect(ok('/units/u1', { ...unit, name: 42 })).toEqual([expect.stringMatching(/^GET \/units\/\{id\} → 200: body\.name: /)]);
    const { code: _code, ...withoutCode } = unit;
    expect(ok('/units/u1', withoutCode)).toEqual([expect.stringMatching(/body\.code: /)]);
  });

  it('refuses a status the route does not declare, and an undeclared media type', () => {
    expect(ok('/units/u1', unit, 418)).toEqual([expect.stringMatching(/^GET \/units\/\{id\} → 418: status not declared/)]);
    expect(contractViolations({ method: 'GET', path: '/units/u1', status: 404, contentType: 'application/json', body: {} })).toEqual([
      expect.stringMatching(/application\/json not declared/),
    ]);
  });

  it('checks problem+json bodies against the Problem schema', () => {
    const problem = { type: '/problems/not-found', title: 'Not Found', status: 404, detail: 'Unit not found.', requestId: 'r1' };
    const check = (body: unknown) => contractViolations({ method: 'GET', path: '/units/u1', status: 404, contentType: 'application/problem+json', body });
    expect(check(problem)).toEqual([]);
    expect(check({ ...problem, stack: 'at …' })).toEqual(['GET /units/{id} → 404: body.stack is not declared by the schema']);
  });

  it('lets deliberately open schemas (records) carry any key', () => {
    const customFields = { anything: 'goes', nested: { deep: true } };
    const product = {
      ...{ id: 'p1', name: 'P', description: null, internalName: null, number: null, type: 'product', productFamilies: [{ id: 'f1' }] },
      ...{ measurement: { id: 'm1' }, taxGroup: { id: 't1' }, invoiceVisibility: 'always', costCentre: null, isArchived: false, customFields },
      ...{ createdAt: unit.createdAt, updatedAt: unit.updatedAt },
    };
    expect(ok('/catalogue/products/p1', product)).toEqual([]);
    expect(ok('/catalogue/products/p1', { ...product, measurement: { id: 'm1', colour: 'red' } })).toEqual([
      'GET /catalogue/products/{id} → 200: body.measurement.colour is not declared by the schema',
    ]);
  });

  it('runs on every response of the test client', async () => {
    const t = await createTenant();
    // A real response passes; the client would have thrown otherwise.
    const res = await api('/units', { token: t.key, body: { name: 'Hour', code: 'h' } });
    expect(res.status).toBe(201);
    expect(ok('/units', res.body, 201, 'POST')).toEqual([]);
    expect(ok('/units', { ...res.body, tenantId: t.id }, 201, 'POST')).toEqual(['POST /units → 201: body.tenantId is not declared by the schema']);
  });
});
