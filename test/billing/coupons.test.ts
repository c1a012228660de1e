import { describe, expect, it } from 'vitest';
import { get, post } from '../support/api';
import { created, createCustomer, ok, tick } from '../support/builders';
import { anyNumber, expectInvoices, I, invoicesOf, item, L, local, offer, subscribe, tenantAt } from './scenario';

// Billing scenarios: coupons (item price → coupon discount → tax). Every expected invoice is
// written out by hand; scenario.ts has the builders and the conventions the expectations rely on.

describe('coupons (item price → coupon discount → tax)', () => {
  it('once and lifetime percentage, limited(3) fixed amount, counted per period', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '39.90');
    const customer = await createCustomer(t);
    const once = await created(post(t, '/coupons', { code: 'WELCOME25', name: '25 % once', type: 'percentage', percentage: 25, frequency: 'once' }));
    const limited = await created(
      post(t, '/coupons', { code: 'FIVE-OFF-3', name: '5 EUR for 3 months', type: 'fixed_amount', fixedAmount: { amount: '5.00', currencyCode: 'EUR' }, frequency: 'limited', frequencyInterval: 3 }),
    );
    const lifetime = await created(post(t, '/coupons', { code: 'FRIEND10', name: '10 % forever', type: 'percentage', percentage: 10, frequency: 'lifetime' }));
    const s1 = await subscribe(t, customer.id, [item(pro)], { name: 'Once', coupons: [once.code] });
    const s2 = await subscribe(t, customer.id, [item(pro)], { name: 'Limited', coupons: [limited.code] });
    const s3 = await subscribe(t, customer.id, [item(pro)], { name: 'Lifetime', coupons: [lifetime.code] });
    const months = ['2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06'];
    for (const m of months.slice(0, 5)) await tick(t, local(`${m}-01`));

    const month = (name: string, i: number, net: string, discount: string, tax: string, gross: string) =>
      I({
        number: anyNumber(2025),
        at: local(`${months[i]}-01`),
        groups: [[name, [L('Pro', local(`${months[i]}-01`), local(`${months[i + 1]}-01`), '1', net, { discount })]]],
        taxes: [['19', 'S', net, tax]],
        net,
        tax,
        gross,
        discount,
      });
    // Full price: 39.90 net; × 19 % = 7.581 → 7.58; gross 47.48.
    const full = (name: string, i: number) => month(name, i, '39.90', '0.00', '7.58', '47.48');
    // once 25 %: 39.90 × 25 % = 9.975 → 9.98 off; net 29.92; × 19 % = 5.6848 → 5.68; gross 35.60.
    expectInvoices(await invoicesOf(t, s1.id), [month('Once', 0, '29.92', '9.98', '5.68', '35.60'), full('Once', 1), full('Once', 2), full('Once', 3), full('Once', 4)]);
    // limited(3) fixed 5.00: net 34.90; × 19 % = 6.631 → 6.63; gross 41.53 for three periods, then full price.
    const fiveOff = (i: number) => month('Limited', i, '34.90', '5.00', '6.63', '41.53');
    expectInvoices(await invoicesOf(t, s2.id), [fiveOff(0), fiveOff(1), fiveOff(2), full('Limited', 3), full('Limited', 4)]);
    // lifetime 10 %: 3.99 off; net 35.91; × 19 % = 6.8229 → 6.82; gross 42.73, every period.
    const tenOff = (i: number) => month('Lifetime', i, '35.91', '3.99', '6.82', '42.73');
    expectInvoices(await invoicesOf(t, s3.id), [tenOff(0), tenOff(1), tenOff(2), tenOff(3), tenOff(4)]);

    const applied = async (id: string) => (await ok(get(t, `/subscriptions/${id}`))).appliedDiscounts.map((d: any) => d.appliedIntervals);
    expect(await applied(s1.id)).toEqual([1]);
    expect(await applied(s2.id)).toEqual([3]);
    expect(await applied(s3.id)).toEqual([5]);
  });
});
