import { describe, expect, it } from 'vitest';
import { post } from '../support/api';
import { created, createCustomer, tick } from '../support/builders';
import { I, invoicesOf, invoicesOfCustomer, item, L, local, offer, shape, subscribe, tenantAt, type Shape } from './scenario';

// Billing scenarios: billing groups put the subscriptions of a customer on one invoice. Every
// expected invoice is written out by hand; scenario.ts has the builders and the conventions the
// expectations rely on.

describe('billing groups', () => {
  it('a start_of_month billing group puts every subscription of a customer due on the group day on one invoice', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '24.99');
    const storage = await offer(t, c, 'Storage', '5.00');
    const group = await created(post(t, '/billing-groups', { name: 'On the 1st', type: 'start_of_month' }));
    const customer = await createCustomer(t);
    const s1 = await subscribe(t, customer.id, [item(pro)], { name: 'Workspace', billingGroup: group.id });
    const s2 = await subscribe(t, customer.id, [item(storage, '2')], { name: 'Archive', billingGroup: group.id });
    for (const m of ['2025-01', '2025-02']) await tick(t, local(`${m}-01`));

    // Each month one invoice, positions grouped under the subscription names:
    //   Workspace: 1 × 24.99 = 24.99; Archive: 2 × 5.00 = 10.00
    //   net 34.99; × 19 % = 6.6481 → 6.65; gross 41.64
    const month = (n: number, from: string, to: string) =>
      I({
        number: `RE-000000000${n}`,
        at: local(from),
        groups: [
          ['Archive', [L('Storage', local(from), local(to), '2', '10.00')]],
          ['Workspace', [L('Pro', local(from), local(to), '1', '24.99')]],
        ],
        taxes: [['19', 'S', '34.99', '6.65']],
        net: '34.99',
        tax: '6.65',
        gross: '41.64',
      });
    const byName = (s: Shape) => ({ ...s, groups: [...s.groups].sort((x, y) => x.name.localeCompare(y.name)) });
    const invoices = await invoicesOfCustomer(t, customer.id);
    expect(invoices.map((i) => byName(shape(i)))).toEqual([month(1, '2025-01-01', '2025-02-01'), month(2, '2025-02-01', '2025-03-01')]);
    // Both subscriptions find the invoices that bill them.
    expect((await invoicesOf(t, s1.id)).map((i) => i.id)).toEqual(invoices.map((i) => i.id));
    expect((await invoicesOf(t, s2.id)).map((i) => i.id)).toEqual(invoices.map((i) => i.id));
  });
});
