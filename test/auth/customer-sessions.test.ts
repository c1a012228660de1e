import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, type TestTenant } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';

// Customer sessions: JWTs that reach only the customer's own records, and refresh tokens.

describe('customer sessions', () => {
  async function session(t: TestTenant, customerId: string) {
    const res = await api(`/customers/${customerId}/authenticate`, { method: 'POST', token: t.key });
    expect(res.status).toBe(201);
    return res.body.data as { accessToken: string; refreshToken: string; customerAreaLink: string };
  }

  it('issues a JWT that reaches only the customer\'s own records', async () => {
    const t = await createTenant();
    const me = await createCustomer(t);
    const other = await createCustomer(t);
    const s = await session(t, me.id);
    expect(s.accessToken.split('.')).toHaveLength(3);
    expect(s.customerAreaLink).toContain(s.accessToken);
    const own = await api(`/customers/${me.id}`, { token: s.accessToken });
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(me.id);
    expect((await api(`/customers/${me.id}/addresses`, { token: s.accessToken })).status).toBe(200);
    expect((await api(`/customers/${other.id}`, { token: s.accessToken })).status).toBe(404);
    expect((await api(`/customers/${other.id}/addresses`, { token: s.accessToken })).status).toBe(404);
    for (const [method, path] of [
      ['GET', '/customers'],
      ['GET', '/settings'],
      ['GET', '/api-keys'],
      ['PUT', `/customers/${me.id}/archive`],
      ['DELETE', `/customers/${me.id}`],
    ]) {
      const res = await api(path!, { method, token: s.accessToken });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
  });

  it('stops an access token at once when its customer is archived or deleted (not 15 minutes later)', async () => {
    const t = await createTenant();
    const me = await createCustomer(t);
    const s = await session(t, me.id);
    expect((await api(`/customers/${me.id}`, { token: s.accessToken })).status).toBe(200);
    expect((await api(`/customers/${me.id}/archive`, { method: 'PUT', token: t.key })).status).toBe(200);
    const archived = await api(`/customers/${me.id}`, { token: s.accessToken });
    expect(archived.status).toBe(401);
    expect(archived.body.detail).toMatch(/not active/);
    expect((await api('/invoices', { token: s.accessToken })).status).toBe(401);
    expect((await api(`/customers/${me.id}/unarchive`, { method: 'PUT', token: t.key })).status).toBe(200);
    expect((await api(`/customers/${me.id}`, { token: s.accessToken })).status).toBe(200);
    const gone = await createCustomer(t);
    const s2 = await session(t, gone.id);
    expect((await api(`/customers/${gone.id}`, { method: 'DELETE', token: t.key })).status).toBe(204);
    expect((await api(`/customers/${gone.id}`, { token: s2.accessToken })).status).toBe(401);
  });

  it('rotates refresh tokens and closes the session when a spent one is replayed', async () => {
    const t = await createTenant();
    const me = await createCustomer(t);
    const s = await session(t, me.id);
    const first = await api('/auth/refresh', { body: { refreshToken: s.refreshToken } });
    expect(first.status).toBe(200);
    expect(first.body.data.refreshToken).not.toBe(s.refreshToken);
    expect((await api(`/customers/${me.id}`, { token: first.body.data.accessToken })).status).toBe(200);
    // Replaying the spent token revokes its successor too.
    expect((await api('/auth/refresh', { body: { refreshToken: s.refreshToken } })).status).toBe(401);
    expect((await api('/auth/refresh', { body: { refreshToken: first.body.data.refreshToken } })).status).toBe(401);
    expect((await api('/auth/refresh', { body: { refreshToken: 'rt_unknown' } })).status).toBe(401);
  });

  it('refuses tampered, foreign and expired tokens', async () => {
    const t = await createTenant();
    const me = await createCustomer(t);
    const s = await session(t, me.id);
    const [h, p, sig] = s.accessToken.split('.');
    const claims = JSON.parse(atob(p!.replace(/-/g, '+').replace(/_/g, '/')));
    const forged = btoa(JSON.stringify({ ...claims, sub: 'someone-else' })).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
    expect((await api(`/customers/${me.id}`, { token: `${h}.${forged}.${sig}` })).status).toBe(401);
    const { SignJWT } = await import('jose');
    const expired = await new SignJWT({ tid: t.id, role: 'customer' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(me.id)
      .setIssuer('edge-billing')
      .setAudience('edge-billing:customer')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
      .sign(new TextEncoder().encode(env.JWT_SECRET));
    expect((await api(`/customers/${me.id}`, { token: expired })).status).toBe(401);
    const otherSecret = await new SignJWT({ tid: t.id, role: 'customer' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(me.id)
      .setIssuer('edge-billing')
      .setAudience('edge-billing:customer')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('another-secret-another-secret-another-secret'));
    expect((await api(`/customers/${me.id}`, { token: otherSecret })).status).toBe(401);
  });

  it('does not open sessions for archived customers', async () => {
    const t = await createTenant();
    const me = await createCustomer(t);
    await api(`/customers/${me.id}/archive`, { method: 'PUT', token: t.key });
    expect((await api(`/customers/${me.id}/authenticate`, { method: 'POST', token: t.key })).status).toBe(409);
  });
});
