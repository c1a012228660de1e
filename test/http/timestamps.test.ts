import { describe, expect, it } from 'vitest';
import { api, get, post, put, violations, dbOf } from '../support/api';
import { createCustomer, createTenant, created } from '../support/builders';

// Date-times on input (src/http/schemas.ts, `timestamp`): normalized to UTC, the one form stored
// and compared as text; without an offset (n8n's date picker) read in the tenant's time zone.

/** An instant written with a +14:00 offset, as the Line Islands would. */
function plus14(instant: Date): string {
  return new Date(instant.getTime() + 14 * 3600_000).toISOString().replace(/\.\d{3}Z$/, '+14:00');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('date-times without an offset', () => {
  it("are read in the tenant's time zone, winter and summer, and stored in UTC", async () => {
    const t = await createTenant({ timeZone: 'Europe/Berlin' });
    expect((await put(t, '/test-clock', { now: '2030-01-15T10:00:00' })).body.now).toBe('2030-01-15T09:00:00.000Z');
    expect((await put(t, '/test-clock', { now: '2030-07-15T10:00' })).body.now).toBe('2030-07-15T08:00:00.000Z');
    // 02:30 does not exist on 30 March 2031 in Berlin: it moves forward by the gap, to 03:30 CEST.
    expect((await put(t, '/test-clock', { now: '2031-03-30T02:30:00.250' })).body.now).toBe('2031-03-30T01:30:00.250Z');

    const ny = await createTenant({ timeZone: 'America/New_York' });
    const coupon = await created(post(ny, '/coupons', { code: 'SUMMER', name: 'Summer', type: 'percentage', percentage: 10, frequency: 'once', expiresAt: '2030-07-01T12:00:00' }));
    expect(coupon.expiresAt).toBe('2030-07-01T16:00:00.000Z');
  });

  it('work in query filters too', async () => {
    const t = await createTenant({ timeZone: 'Europe/Berlin' });
    const c = await createCustomer(t);
    await created(post(t, '/invoices', { customer: c.id, positions: [{ name: 'x', unitPrice: '1', taxRate: '19' }] }));
    expect((await get(t, '/invoices?creationDate[after]=2000-01-01T00:00:00')).body.data).toHaveLength(1);
    expect((await get(t, '/invoices?creationDate[after]=2999-01-01T00:00:00')).body.data).toHaveLength(0);
  });

  it('are refused when they are no date-time (422), as are impossible dates', async () => {
    const t = await createTenant();
    for (const now of ['2030-02-30T10:00:00', '2030-01-15 10:00:00', '2030-01-15', '2030-01-15T25:00:00', '2030-01-15T10:00:00+01']) {
      expect(violations(await put(t, '/test-clock', { now })), now).toEqual(['now: invalid_format']);
    }
  });
});

describe('date-times with an offset', () => {
  it('are normalized to UTC before they are stored (coupons, API keys)', async () => {
    const t = await createTenant();
    const coupon = await created(post(t, '/coupons', { code: 'LATE', name: 'Late', type: 'percentage', percentage: 10, frequency: 'once', expiresAt: '2030-07-01T12:00:00+14:00' }));
    expect(coupon.expiresAt).toBe('2030-06-30T22:00:00.000Z');
    const expiresAt = new Date(Date.now() + 3600_000);
    const key = await created(post(t, '/api-keys', { permissions: ['customer:read'], expiresAt: plus14(expiresAt) }));
    const stored = await (await dbOf(t)).prepare('SELECT expires_at FROM api_keys WHERE id = ?').bind(key.id).first<{ expires_at: string }>();
    expect(stored!.expires_at).toBe(new Date(Math.floor(expiresAt.getTime() / 1000) * 1000).toISOString());
    expect(key.expiresAt).toBe(stored!.expires_at);
  });

  it('let an API key expire at the instant it was given (not 14 hours later)', async () => {
    const t = await createTenant();
    const expiresAt = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000);
    const key = await created(post(t, '/api-keys', { permissions: ['customer:read'], expiresAt: plus14(expiresAt) }));
    expect((await api('/customers', { token: key.key })).status).toBe(200);
    await sleep(expiresAt.getTime() - Date.now() + 50);
    expect((await api('/customers', { token: key.key })).status).toBe(401);
  });
});
