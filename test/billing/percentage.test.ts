import { describe, expect, it } from 'vitest';
import { get, post, put } from '../support/api';
import { created, createCustomer, ok, tick } from '../support/builders';
import { anyNumber, draft, expectInvoices, I, invoicesOf, L, local, product, tenantAt, type Catalogue } from './scenario';
import type { TestTenant } from '../support/api';

// Billing scenarios: a percentage price plan takes its share of the subscription's other lines
// (docs/decisions.md, Invoices and billing). Before the one billing path, the same subscription
// estimated fine as a draft but made `estimated-amount` answer 500 and billing runs end `failed`.
// Every expected figure is written out by hand; scenario.ts has the conventions.

async function platformWithFee(t: TestTenant, c: Catalogue) {
  const platform = await product(t, c, 'Platform');
  const fee = await product(t, c, 'Service fee');
  const flat = await created(post(t, '/price-plans', { product: platform.id, calculationType: 'flat_fee', currencyCode: 'EUR', price: { amount: '199.90' }, billingInterval: '1M' }));
  const percent = await created(post(t, '/price-plans', { product: fee.id, calculationType: 'percentage', currencyCode: 'EUR', percentage: '2.5', billingInterval: '1M' }));
  return [
    { product: platform.id, pricePlan: flat.id, quantity: '1' },
    { product: fee.id, pricePlan: percent.id, quantity: '1' },
  ];
}

describe('percentage price plans', () => {
  it('bill 2.5 % of a 199.90 flat fee: 204.90 net, the same as estimated before and after activation', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const items = await platformWithFee(t, c);
    const customer = await createCustomer(t);
    const d = await draft(t, customer.id, items, { name: 'Platform' });
    // 199.90 + 2.5 % × 199.90 = 199.90 + 4.9975 (→ 5.00) = 204.90
    expect(await ok(get(t, `/subscriptions/${d.id}/estimated-amount`))).toEqual({ amount: '204.90', currencyCode: 'EUR', netAmount: '204.90 €' });
    const sub = await ok(put(t, `/subscriptions/${d.id}/activate`, {}));
    expect(await ok(get(t, `/subscriptions/${sub.id}/estimated-amount`))).toEqual({ amount: '204.90', currencyCode: 'EUR', netAmount: '204.90 €' });
    expect(await ok(get(t, `/subscriptions/${sub.id}/estimated-invoice`))).toMatchObject({
      netAmount: { amount: '204.90' },
      taxAmount: { amount: '38.93' },
      grossAmount: { amount: '243.83' },
    });
    for (const day of ['2025-01-01', '2025-02-01']) await tick(t, local(day));

    // Each month: 199.90 + 5.00 = 204.90 net; × 19 % = 38.931 → 38.93; gross 243.83.
    const month = (from: string, to: string) =>
      I({
        number: anyNumber(2025),
        at: local(from),
        groups: [['Platform', [L('Platform', local(from), local(to), '1', '199.90'), L('Service fee', local(from), local(to), '1', '5.00')]]],
        taxes: [['19', 'S', '204.90', '38.93']],
        net: '204.90',
        tax: '38.93',
        gross: '243.83',
      });
    expectInvoices(await invoicesOf(t, sub.id), [month('2025-01-01', '2025-02-01'), month('2025-02-01', '2025-03-01')]);
    // Every run (the clock set three times) completed without an error.
    const runs = (await ok(get(t, '/billing-runs'))).data;
    expect(runs.map((r: any) => [r.status, r.errors, r.lastError])).toEqual(runs.map(() => ['completed', 0, null]));
  });

  it('take their share of a prorated first period, and are not prorated again', async () => {
    const { t, c } = await tenantAt(local('2025-01-10'));
    const items = await platformWithFee(t, c);
    const group = await created(post(t, '/billing-groups', { name: 'On the 1st', type: 'start_of_month' }));
    const customer = await createCustomer(t);
    const d = await draft(t, customer.id, items, { name: 'Platform', billingGroup: group.id });
    const sub = await ok(put(t, `/subscriptions/${d.id}/activate`, {}));
    await tick(t, local('2025-01-10'));

    // 10 Jan → 1 Feb is 22 of January's 31 days: 199.90 × 22/31 = 141.8645… → 141.86;
    // the fee: 2.5 % of 141.8645… = 3.5466… → 3.55; net 145.41; × 19 % = 27.6279 → 27.63; gross 173.04.
    expectInvoices(await invoicesOf(t, sub.id), [
      I({
        number: anyNumber(2025),
        at: local('2025-01-10'),
        groups: [['Platform', [L('Platform', local('2025-01-10'), local('2025-02-01'), '1', '141.86'), L('Service fee', local('2025-01-10'), local('2025-02-01'), '1', '3.55')]]],
        taxes: [['19', 'S', '145.41', '27.63']],
        net: '145.41',
        tax: '27.63',
        gross: '173.04',
      }),
    ]);
    const [invoice] = await invoicesOf(t, sub.id);
    const fee = invoice.positions.find((p: any) => p.name === 'Service fee');
    expect(fee.description).toBeNull(); // no "22/31 days": its base is prorated already
  });
});
