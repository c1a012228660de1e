import { describe, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN, api, unique, violations, dbOf } from '../support/api';
import { createTenant, keyWith } from '../support/builders';

// Platform administration (tenants and their first key, behind the admin token) and API keys:
// issuing, scoping, expiry and revocation.

describe('platform administration', () => {
  it('creates a tenant with a first key holding every permission', async () => {
    const res = await api('/admin/tenants', { token: ADMIN_TOKEN, body: { name: 'Acme GmbH', countryCode: 'DE', timeZone: 'Europe/Berlin', mode: 'live' } });
    expect(res.status).toBe(201);
    expect(res.body.tenant).toMatchObject({ name: 'Acme GmbH', countryCode: 'DE', defaultCurrency: 'EUR', timeZone: 'Europe/Berlin', mode: 'live' });
    expect(res.body.apiKey).toMatchObject({ permissions: ['*'], key: expect.stringMatching(/^sk_live_/) });
    expect((await api('/customers', { token: res.body.apiKey.key })).status).toBe(200);
    const stored = await (await dbOf(res.body.tenant.id)).prepare('SELECT key_hash FROM api_keys WHERE id = ?').bind(res.body.apiKey.id).first<{ key_hash: string }>();
    expect(stored!.key_hash).not.toContain(res.body.apiKey.key);
    expect(stored!.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses the admin routes without the admin token, and validates the tenant', async () => {
    const t = await createTenant();
    expect((await api('/admin/tenants', { token: t.key, body: { name: 'x', countryCode: 'DE' } })).status).toBe(401);
    expect((await api('/admin/tenants', { token: null })).status).toBe(401);
    const bad = await api('/admin/tenants', { token: ADMIN_TOKEN, body: { name: 'A', countryCode: 'XX', defaultCurrency: 'EURO', timeZone: 'Nowhere', mode: 'prod' } });
    expect(bad.status).toBe(422);
    expect(violations(bad).map((v) => v.split(':')[0]).sort()).toEqual(['countryCode', 'defaultCurrency', 'mode', 'name', 'timeZone']);
  });
});

describe('API keys', () => {
  it('shows a new key once, lists keys without secrets, and revokes them', async () => {
    const t = await createTenant();
    const created = await api('/api-keys', { token: t.key, body: { name: 'reader', permissions: ['customer:read'] } });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sk_test_/);
    const list = await api('/api-keys', { token: t.key });
    expect(list.body.meta.pagination.totalItems).toBe(2);
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);
    expect((await api('/customers', { token: created.body.key })).status).toBe(200);
    expect((await api(`/api-keys/${created.body.id}`, { method: 'DELETE', token: t.key })).status).toBe(204);
    expect((await api('/customers', { token: created.body.key })).status).toBe(401);
    expect((await api(`/api-keys/${created.body.id}`, { method: 'DELETE', token: t.key })).status).toBe(409);
    const revoked = (await api('/api-keys', { token: t.key })).body.data.find((k: any) => k.id === created.body.id);
    expect(revoked.revokedAt).toEqual(expect.any(String));
  });

  it('refuses an expired key with 401', async () => {
    const t = await createTenant();
    const created = await api('/api-keys', { token: t.key, body: { permissions: ['*'], expiresAt: new Date(Date.now() + 60_000).toISOString() } });
    expect(created.status).toBe(201);
    expect((await api('/customers', { token: created.body.key })).status).toBe(200);
    // A minute later (the wall clock: key expiry is infrastructure time).
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
    try {
      const res = await api('/customers', { token: created.body.key });
      expect(res.status).toBe(401);
      expect(res.body.detail).toMatch(/expired/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('validates permissions and never grants more than the creator holds', async () => {
    const t = await createTenant();
    const bad = await api('/api-keys', { token: t.key, body: { permissions: ['customer:delete', 'nothing:read', 'customer'] } });
    expect(bad.status).toBe(422);
    expect(violations(bad)).toEqual(['permissions[0]: unknown_permission', 'permissions[1]: unknown_permission', 'permissions[2]: unknown_permission']);
    expect(violations(await api('/api-keys', { token: t.key, body: { permissions: [] } }))).toEqual(['permissions: too_small']);
    expect(violations(await api('/api-keys', { token: t.key, body: { permissions: ['*'], expiresAt: '2001-01-01T00:00:00Z' } }))).toEqual([
      'expiresAt: in_past',
    ]);
    const keyManager = await keyWith(t, ['api-key:write', 'customer:read']);
    const escalate = await api('/api-keys', { token: keyManager, body: { permissions: ['*'] } });
    expect(violations(escalate)).toEqual(['permissions[0]: permission_not_held']);
    const escalate2 = await api('/api-keys', { token: keyManager, body: { permissions: ['customer:write'] } });
    expect(violations(escalate2)).toEqual(['permissions[0]: permission_not_held']);
    expect((await api('/api-keys', { token: keyManager, body: { permissions: ['customer:read'] } })).status).toBe(201);
  });

  it.each([
    ['GET', '/customers', 'customer:read'],
    ['POST', '/customers', 'customer:write'],
    ['GET', '/settings', 'settings:read'],
    ['PATCH', '/settings', 'settings:write'],
    ['GET', '/api-keys', 'api-key:read'],
    ['GET', '/custom-fields', 'custom-field:read'],
    ['GET', '/customer-groups', 'customer-group:read'],
    ['GET', '/contact-persons', 'contact-person:read'],
    ['GET', '/test-clock', 'test-clock:read'],
  ])('403 for %s %s without %s, allowed with it', async (method, path, permission) => {
    const t = await createTenant();
    const body = method === 'POST' ? { email: `${unique()}@example.com`, countryCode: 'DE' } : method === 'PATCH' ? { settings: [{ key: 'dunning.enabled', value: false }] } : undefined;
    const other = permission.startsWith('customer:') ? 'settings:read' : 'customer:read';
    const denied = await api(path, { method, token: await keyWith(t, [other]), body });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toContain(permission);
    const allowed = await api(path, { method, token: await keyWith(t, [permission]), body });
    expect(allowed.status).toBeLessThan(300);
  });

  it('lets write imply read on the same resource', async () => {
    const t = await createTenant();
    expect((await api('/customers', { token: await keyWith(t, ['customer:write']) })).status).toBe(200);
  });

  it("accepts the permission scopes Fynn documents, three-part ones included, and write implies read on them", async () => {
    const t = await createTenant();
    const fynn = ['customer:invoice:read', 'customer:invoice:write', 'cart:read', 'cart:write', 'dunning-rule:read', 'dunning-document:read', 'bank-account-transaction:read', 'bank-account-transaction:write', 'payment-method:write', 'payment-method:migrate', 'customer:payment-method:change'];
    const res = await api('/api-keys', { token: t.key, body: { permissions: fynn } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.permissions).toEqual(fynn);
    expect(violations(await api('/api-keys', { token: t.key, body: { permissions: ['cart:delete', 'customer:invoice', 'customer:nothing:read'] } }))).toEqual([
      'permissions[0]: unknown_permission',
      'permissions[1]: unknown_permission',
      'permissions[2]: unknown_permission',
    ]);
    const invoiceWriter = await keyWith(t, ['api-key:write', 'customer:invoice:write']);
    expect((await api('/api-keys', { token: invoiceWriter, body: { permissions: ['customer:invoice:read'] } })).status).toBe(201);
    expect(violations(await api('/api-keys', { token: invoiceWriter, body: { permissions: ['customer:read'] } }))).toEqual(['permissions[0]: permission_not_held']);
  });
});

describe('managing keys: a key sees and revokes only keys whose permissions it holds', () => {
  it('refuses to revoke a broader key (404, as unknown) and leaves it working', async () => {
    const t = await createTenant();
    const root = await api('/api-keys', { token: t.key, body: { name: 'root', permissions: ['*'] } });
    const narrow = await keyWith(t, ['api-key:write', 'customer:read']);
    const res = await api(`/api-keys/${root.body.id}`, { method: 'DELETE', token: narrow });
    expect(res.status).toBe(404);
    expect((await api('/customers', { token: root.body.key })).status).toBe(200);
    const broader = await api('/api-keys', { token: t.key, body: { permissions: ['customer:write'] } });
    expect((await api(`/api-keys/${broader.body.id}`, { method: 'DELETE', token: narrow })).status).toBe(404);
  });

  it('lists only the keys it could manage, and revokes those', async () => {
    const t = await createTenant();
    const manager = await api('/api-keys', { token: t.key, body: { name: 'manager', permissions: ['api-key:write', 'customer:write'] } });
    const reader = await api('/api-keys', { token: t.key, body: { name: 'reader', permissions: ['customer:read', 'api-key:read'] } });
    await api('/api-keys', { token: t.key, body: { name: 'billing', permissions: ['invoice:read'] } });
    const listed = await api('/api-keys', { token: manager.body.key });
    expect(listed.body.data.map((k: any) => k.name).sort()).toEqual(['manager', 'reader']);
    expect(listed.body.meta.pagination.totalItems).toBe(2);
    expect((await api('/api-keys', { token: t.key })).body.meta.pagination.totalItems).toBe(4);
    expect((await api(`/api-keys/${reader.body.id}`, { method: 'DELETE', token: manager.body.key })).status).toBe(204);
    expect((await api('/customers', { token: reader.body.key })).status).toBe(401);
  });
});
