import { describe, expect, it } from 'vitest';
import { post } from '../support/api';
import { created, createCustomer, ok, tick } from '../support/builders';
import { expectInvoices, I, invoicesOf, item, L, local, product, subscribe, tenantAt, type Offer } from './scenario';

// Billing scenarios: metered usage, billed in arrears. Every expected invoice is written out by
// hand; scenario.ts has the builders and the conventions the expectations rely on.

describe('usage (metered, billed in arrears)', () => {
  it('tiered, volume and stair_step usage and free units, reset every period', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const tiers = [
      { upTo: '100', unitPrice: '0.10', flatPrice: '0' },
      { upTo: '1000', unitPrice: '0.08', flatPrice: '5.00' },
      { upTo: null, unitPrice: '0.05', flatPrice: '0' },
    ];
    const stairs = [
      { upTo: '100', unitPrice: '0', flatPrice: '9.00' },
      { upTo: '1000', unitPrice: '0', flatPrice: '49.00' },
      { upTo: null, unitPrice: '0', flatPrice: '99.00' },
    ];
    const usagePrice = async (name: string, body: Record<string, unknown>) => {
      const p = await product(t, c, name, c.calls);
      const pp = await created(post(t, '/price-plans', { product: p.id, currencyCode: 'EUR', billingInterval: '1M', ...body }));
      return { product: p, price: pp };
    };
    const tiered = await usagePrice('Tiered calls', { calculationType: 'tiered', tiers });
    const volume = await usagePrice('Volume calls', { calculationType: 'volume', tiers });
    const stair = await usagePrice('Stair calls', { calculationType: 'stair_step', tiers: stairs });
    const free = await usagePrice('Free calls', { calculationType: 'per_unit', price: { amount: '0.0125' }, freeUnits: '1000' });
    expect(tiered.price.type).toBe('metered');
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(tiered), item(volume), item(stair), item(free)], { name: 'API usage' });
    const itemOf = (o: Offer) => sub.items.find((i: any) => i.product.id === o.product.id).id;
    const usage = async (events: [Offer, string, string][]) => {
      const res = await ok(
        post(t, '/subscriptions/measurements', {
          events: events.map(([o, quantity, at], k) => ({ id: `${at}-${o.product.id}-${k}`, subscriptionItem: itemOf(o), quantity, measuredAt: at })),
        }),
      );
      expect(res).toMatchObject({ accepted: events.length, rejected: [] });
    };

    await tick(t, local('2025-01-01'));
    await tick(t, local('2025-01-20'));
    expect(await invoicesOf(t, sub.id)).toEqual([]);
    await usage([
      [tiered, '1000', local('2025-01-05')],
      [tiered, '250', local('2025-01-18')],
      [volume, '1000', local('2025-01-05')],
      [volume, '250', local('2025-01-18')],
      [stair, '1000', local('2025-01-05')],
      [stair, '250', local('2025-01-18')],
      [free, '1000', local('2025-01-05')],
      [free, '234', local('2025-01-18')],
    ]);
    await tick(t, local('2025-02-01'));
    await tick(t, local('2025-02-20'));
    await usage([
      [tiered, '80', local('2025-02-10')],
      [volume, '80', local('2025-02-10')],
      [stair, '80', local('2025-02-10')],
      [free, '1500', local('2025-02-10')],
    ]);
    await tick(t, local('2025-03-01'));

    const jan: [string, string] = [local('2025-01-01'), local('2025-02-01')];
    const feb: [string, string] = [local('2025-02-01'), local('2025-03-01')];
    expectInvoices(await invoicesOf(t, sub.id), [
      // January, 1,250 calls (1,234 on the free-units item):
      //   tiered  100 × 0.10 = 10.00; 900 × 0.08 = 72.00 + 5.00 flat; 250 × 0.05 = 12.50 → 99.50
      //   volume  1,250 in the last tier: 1,250 × 0.05 = 62.50
      //   stair   1,250 in the last step: 99.00
      //   free    (1,234 − 1,000) × 0.0125 = 2.925 → 2.93
      //   net 99.50 + 62.50 + 99.00 + 2.93 = 263.93; × 19 % = 50.1467 → 50.15; gross 314.08
      I({
        number: 'RE-0000000001',
        at: local('2025-02-01'),
        groups: [
          [
            'API usage',
            [
              L('Tiered calls', ...jan, '1250', '99.50'),
              L('Volume calls', ...jan, '1250', '62.50'),
              L('Stair calls', ...jan, '1250', '99.00'),
              L('Free calls', ...jan, '1234', '2.93'),
            ],
          ],
        ],
        taxes: [['19', 'S', '263.93', '50.15']],
        net: '263.93',
        tax: '50.15',
        gross: '314.08',
      }),
      // February, 80 calls (1,500 on the free-units item), counted from zero again:
      //   tiered 80 × 0.10 = 8.00; volume 80 × 0.10 = 8.00; stair first step 9.00;
      //   free (1,500 − 1,000) × 0.0125 = 6.25
      //   net 8.00 + 8.00 + 9.00 + 6.25 = 31.25; × 19 % = 5.9375 → 5.94; gross 37.19
      I({
        number: 'RE-0000000002',
        at: local('2025-03-01'),
        groups: [
          [
            'API usage',
            [L('Tiered calls', ...feb, '80', '8.00'), L('Volume calls', ...feb, '80', '8.00'), L('Stair calls', ...feb, '80', '9.00'), L('Free calls', ...feb, '1500', '6.25')],
          ],
        ],
        taxes: [['19', 'S', '31.25', '5.94']],
        net: '31.25',
        tax: '5.94',
        gross: '37.19',
      }),
    ]);
  });
});
