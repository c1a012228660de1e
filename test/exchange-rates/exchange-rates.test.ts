import { describe, expect, it } from 'vitest';
import { api, violations } from '../support/api';
import { createTenant } from '../support/builders';

// ECB euro reference rates: importing a feed (POST /admin/exchange-rates) and the rates in force on
// a date (GET /exchange-rates).

describe('exchange rates', () => {
  it('imports an ECB feed and answers the rates in force on a date', async () => {
    const t = await createTenant();
    const { ecb90DayHistory } = await import('../fixtures/feeds');
    const imported = await api('/admin/exchange-rates', { token: 'test-admin-token', body: { xml: ecb90DayHistory } });
    expect(imported.body.imported).toBeGreaterThan(1000);
    // 2014-06-14 is a Saturday: the rates of Friday 2014-06-13 are in force.
    const rates = await api('/exchange-rates?date=2014-06-14', { token: t.key });
    expect(rates.body.data.find((r: any) => r.currency === 'USD')).toEqual({ currency: 'USD', rate: '1.3534', date: '2014-06-13', base: 'EUR' });
    expect((await api('/exchange-rates?date=2014-06-10', { token: t.key })).body.data.find((r: any) => r.currency === 'USD').date).toBe('2014-06-10');
    expect((await api('/exchange-rates?date=June', { token: t.key })).status).toBe(400);
    expect(violations(await api('/admin/exchange-rates', { token: 'test-admin-token', body: { xml: '<nope/>' } }))).toEqual(['xml: invalid_feed']);
    expect((await api('/admin/exchange-rates', { token: t.key, body: { xml: ecb90DayHistory } })).status).toBe(401);
  });
});
