import { describe, expect, it } from 'vitest';
import { api, put } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';

// Signed document links are infrastructure: they expire on the wall clock, where they are checked,
// whatever a test-mode tenant's clock says.

describe('download links and the test clock', () => {
  it('expire on the real clock when the test clock stands in 2099', async () => {
    const t = await createTenant();
    expect((await put(t, '/test-clock', { now: '2099-01-01T00:00:00Z' })).status).toBe(200);
    const c = await createCustomer(t);
    const draft = await api('/invoices', { token: t.key, body: { customer: c.id, positions: [{ name: 'x', unitPrice: '10', taxRate: '19' }] } });
    expect((await api(`/invoices/${draft.body.id}/finalize`, { method: 'POST', token: t.key })).status).toBeLessThan(300);
    const before = Date.now();
    const link = await api(`/invoices/${draft.body.id}/download-link?secondsValid=60`, { method: 'PUT', token: t.key });
    expect(link.status).toBe(200);
    const expiresAt = Date.parse(link.body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 59_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 61_000);
    const expires = Number(new URL(link.body.url).searchParams.get('expires'));
    expect(expires * 1000).toBe(expiresAt);
    expect((await api(new URL(link.body.url).pathname + new URL(link.body.url).search)).status).toBe(200);
  });
});
