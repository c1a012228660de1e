import { describe, expect, it } from 'vitest';
import { api, violations } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';

// The test clock of a test-mode tenant (GET/PUT /test-clock).

describe('test clock', () => {
  it('is set freely once, then moves only forward, and drives every timestamp', async () => {
    const t = await createTenant({ mode: 'test' });
    const initial = await api('/test-clock', { token: t.key });
    expect(initial.body.frozen).toBe(false);
    const set = await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2025-01-31T10:00:00Z' } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ now: '2025-01-31T10:00:00.000Z', frozen: true });
    const c = await createCustomer(t);
    expect(c.createdAt).toBe('2025-01-31T10:00:00.000Z');
    const back = await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2025-01-30T10:00:00Z' } });
    expect(back.status).toBe(422);
    expect(violations(back)).toEqual(['now: clock_backwards']);
    expect((await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2025-03-01T00:00:00+01:00' } })).body.now).toBe('2025-02-28T23:00:00.000Z');
    const patched = await api(`/customers/${c.id}`, { method: 'PATCH', token: t.key, body: { firstName: 'Later' } });
    expect(patched.body.updatedAt).toBe('2025-02-28T23:00:00.000Z');
    expect(violations(await api('/test-clock', { method: 'PUT', token: t.key, body: { now: 'tomorrow' } }))).toEqual(['now: invalid_format']);
  });

  it('does not exist for live tenants', async () => {
    const t = await createTenant({ mode: 'live' });
    expect((await api('/test-clock', { token: t.key })).status).toBe(409);
    expect((await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2030-01-01T00:00:00Z' } })).status).toBe(409);
  });
});
