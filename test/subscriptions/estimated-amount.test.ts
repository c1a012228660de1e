import { describe, expect, it } from 'vitest';
import { countRows, expectProblem, get, post, put } from '../support/api';
import { ok, setClock } from '../support/builders';
import { coupon, draft, item, setup } from './builders';

// GET /subscriptions/{id}/estimated-amount. Storage is shared by every test file, so every test
// works in a fresh tenant of its own with its test clock set first.

describe('GET /subscriptions/{id}/estimated-amount', () => {
  it('prices quantities, a percentage and a fixed coupon and the usage so far, to the cent', async () => {
    const f = await setup();
    const { t, c } = f;
    const percent = await coupon(t, { type: 'percentage', percentage: 10, frequency: 'once' });
    const fixed = await coupon(t, { type: 'fixed_amount', fixedAmount: { amount: '5.00', currencyCode: 'EUR' }, frequency: 'lifetime' });
    const items = [item(c.pro, c.proMonthly, '3'), item(c.storage, c.storageMonthly, '2'), item(c.api, c.apiMetered)];
    const plain = await draft(f, { items });
    // 3 × 10.00 + 2 × 5.00 + no usage = 40.00
    expect(await ok(get(t, `/subscriptions/${plain.id}/estimated-amount`))).toEqual({ amount: '40.00', currencyCode: 'EUR', netAmount: '40.00 €' });

    const d = await draft(f, { items, coupons: [percent.code, fixed.code] });
    expect(d.appliedDiscounts.map((a: any) => [a.coupon.code, a.discount.type, a.status, a.appliedIntervals])).toEqual([
      [percent.code, 'percentage', 'active', 0],
      [fixed.code, 'fixed_amount', 'active', 0],
    ]);
    // 40.00 − 10 % (4.00) − 5.00 = 31.00
    expect(await ok(get(t, `/subscriptions/${d.id}/estimated-amount`))).toEqual({ amount: '31.00', currencyCode: 'EUR', netAmount: '31.00 €' });
    const sub = await ok(put(t, `/subscriptions/${d.id}/activate`, {}));
    expect(await countRows('coupon_redemptions', t, 'AND subscription_id = ?', sub.id)).toBe(2);
    const apiItem = sub.items[2].id;
    // Live: the invoice due next (now, the first period in advance; usage is billed at the period end):
    // 3 × 10.00 + 2 × 5.00 = 40.00; 10 % → 36.00; − 5.00 → 31.00.
    expect(await ok(get(t, `/subscriptions/${sub.id}/estimated-amount`))).toEqual({ amount: '31.00', currencyCode: 'EUR', netAmount: '31.00 €' });

    // Moving the clock bills that first period, which uses up the `once` coupon; the lifetime one stays.
    await setClock(t, '2030-01-20T10:00:00.000Z');
    const billed = await ok(get(t, `/subscriptions/${sub.id}`));
    expect(billed.appliedDiscounts.map((a: any) => [a.coupon.code, a.appliedIntervals])).toEqual([
      [percent.code, 1],
      [fixed.code, 1],
    ]);
    expect(billed.nextBillingDate).toBe('2030-02-15T10:00:00.000Z');

    // Usage inside the period that started at activation (15 Jan 10:00): 1234 + 566.5 calls.
    // The call on 10 January lies before the period and does not count.
    expect(
      await ok(
        post(t, '/subscriptions/measurements', {
          events: [
            { id: 'u1', subscriptionItem: apiItem, quantity: '1234' },
            { id: 'u2', subscriptionItem: apiItem, quantity: '566.5', measuredAt: '2030-01-15T10:00:00Z' },
            { id: 'u0', subscriptionItem: apiItem, quantity: '1000', measuredAt: '2030-01-10T00:00:00Z' },
          ],
        }),
      ),
    ).toMatchObject({ received: 3, rejected: [] });
    expect((await ok(get(t, `/subscription-items/${apiItem}/current-measurement-value`))).quantity).toBe('1800.5');
    // The next invoice (15 February): the second period in advance, 30.00 + 10.00, and the usage of the
    // first, 1800.5 × 0.0125 = 22.50625 → 22.51; total 62.51. The once coupon is used up; − 5.00 → 57.51.
    expect(await ok(get(t, `/subscriptions/${sub.id}/estimated-amount`))).toEqual({ amount: '57.51', currencyCode: 'EUR', netAmount: '57.51 €' });

    // Other currencies: 2 × 12.00 USD.
    const usd = await draft(f, { items: [item(c.pro, c.proUsd, '2')] });
    expect(await ok(get(t, `/subscriptions/${usd.id}/estimated-amount`))).toEqual({ amount: '24.00', currencyCode: 'USD', netAmount: '24.00 $' });
    // A fixed coupon never takes the total below zero: 1 × 5.00 − 5.00 = 0.00.
    const small = await draft(f, { items: [item(c.storage, c.storageMonthly)], coupons: [fixed.code] });
    expect(await ok(get(t, `/subscriptions/${small.id}/estimated-amount`))).toEqual({ amount: '0.00', currencyCode: 'EUR', netAmount: '0.00 €' });
    expectProblem(await get(t, '/subscriptions/nope/estimated-amount'), 404);
  });
});
