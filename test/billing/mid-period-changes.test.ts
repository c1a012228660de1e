import { describe, expect, it } from 'vitest';
import { post, put } from '../support/api';
import { created, createCustomer, ok, tick } from '../support/builders';
import { anyNumber, duplicateLedgerRows, expectInvoices, I, invoicesOf, item, L, local, offer, price, product, subscribe, tenantAt } from './scenario';

// Billing scenarios: quantity and price plan changes in the middle of a period. Every expected
// invoice is written out by hand; scenario.ts has the builders and the conventions the expectations
// rely on.

describe('mid-period changes', () => {
  it('quantity change mid-period: credit for the rest at the old quantity, charge at the new one', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const seat = await offer(t, c, 'Seat', '20.00');
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(seat, '2')], { name: 'Seats' });
    await tick(t, local('2025-01-01'));
    await tick(t, local('2025-01-11'));
    await ok(put(t, `/subscription-items/${sub.items[0].id}/quantity`, { quantity: '5' }));
    await tick(t, local('2025-02-01'));

    // January in advance: 2 × 20.00 = 40.00; × 19 % = 7.60; gross 47.60.
    // From 11 January (21 of January's 31 days left) 5 instead of 2 seats, settled by 1 February
    // at the latest, together with February:
    //   credit 2 × 20.00 × 21/31 = 27.0967… → −27.10
    //   charge 5 × 20.00 × 21/31 = 67.7419… →  67.74
    //   February 5 × 20.00 = 100.00
    //   net −27.10 + 67.74 + 100.00 = 140.64; × 19 % = 26.7216 → 26.72; gross 167.36
    expectInvoices(await invoicesOf(t, sub.id), [
      I({
        number: 'RE-0000000001',
        at: local('2025-01-01'),
        groups: [['Seats', [L('Seat', local('2025-01-01'), local('2025-02-01'), '2', '40.00')]]],
        taxes: [['19', 'S', '40.00', '7.60']],
        net: '40.00',
        tax: '7.60',
        gross: '47.60',
      }),
      I({
        number: 'RE-0000000002',
        at: local('2025-02-01'),
        groups: [
          [
            'Seats',
            [
              L(expect.stringContaining('Seat'), local('2025-01-11'), local('2025-02-01'), expect.stringMatching(/^-?2$/), '-27.10'),
              L(expect.stringContaining('Seat'), local('2025-01-11'), local('2025-02-01'), '5', '67.74'),
              L('Seat', local('2025-02-01'), local('2025-03-01'), '5', '100.00'),
            ],
          ],
        ],
        taxes: [['19', 'S', '140.64', '26.72']],
        net: '140.64',
        tax: '26.72',
        gross: '167.36',
      }),
    ]);
  });

  it('upgrade and downgrade mid-period (PUT /subscription-items/{id}/price-plan): at once with credit and charge, or at the end of the period', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const workspace = await product(t, c, 'Workspace');
    const basic = await price(t, workspace.id, '10.00', '1M');
    const standard = await price(t, workspace.id, '20.00', '1M');
    const premium = await price(t, workspace.id, '30.00', '1M');
    const plan = async (code: string, changeApplyBehaviour: string, pp: any) => {
      const p = await created(
        post(t, '/plans', { family: c.family.id, code, name: code, changeApplyBehaviour, items: [{ product: workspace.id, pricePlan: pp.id, quantity: '1' }] }),
      );
      return ok(put(t, `/plans/${p.id}/activate`));
    };
    const flexible = await plan('flexible', 'immediately', standard);
    const committed = await plan('committed', 'end_of_period', premium);
    const customer = await createCustomer(t);
    const a = await subscribe(t, customer.id, [{ product: workspace.id, pricePlan: standard.id, quantity: '1' }], { name: 'Flexible', plan: flexible.id });
    const b = await subscribe(t, customer.id, [{ product: workspace.id, pricePlan: premium.id, quantity: '1' }], { name: 'Committed', plan: committed.id });
    const change = (sub: any, pp: any) => ok(put(t, `/subscription-items/${sub.items[0].id}/price-plan`, { pricePlan: pp.id }));
    await tick(t, local('2025-01-01'));
    await tick(t, local('2025-01-11'));
    await change(a, premium); // upgrade, applies at once
    await change(b, basic); // downgrade, waits for 1 February
    await tick(t, local('2025-02-01'));
    await tick(t, local('2025-02-11'));
    await change(a, standard); // downgrade, applies at once
    await tick(t, local('2025-03-01'));

    const plain = (name: string, from: string, to: string, net: string, tax: string, gross: string) =>
      I({ number: anyNumber(2025), at: local(from), groups: [[name, [L('Workspace', local(from), local(to), '1', net)]]], taxes: [['19', 'S', net, tax]], net, tax, gross });
    expectInvoices(await invoicesOf(t, a.id), [
      // January, Standard: 20.00; × 19 % = 3.80; gross 23.80.
      plain('Flexible', '2025-01-01', '2025-02-01', '20.00', '3.80', '23.80'),
      // Upgrade on 11 January (21 of 31 days left), settled with February:
      //   credit Standard 20.00 × 21/31 = 13.5483… → −13.55; charge Premium 30.00 × 21/31 = 20.3225… → 20.32;
      //   February Premium 30.00; net −13.55 + 20.32 + 30.00 = 36.77; × 19 % = 6.9863 → 6.99; gross 43.76.
      I({
        number: anyNumber(2025),
        at: local('2025-02-01'),
        groups: [
          [
            'Flexible',
            [
              L(expect.stringContaining('Workspace'), local('2025-01-11'), local('2025-02-01'), expect.stringMatching(/^-?1$/), '-13.55'),
              L(expect.stringContaining('Workspace'), local('2025-01-11'), local('2025-02-01'), '1', '20.32'),
              L('Workspace', local('2025-02-01'), local('2025-03-01'), '1', '30.00'),
            ],
          ],
        ],
        taxes: [['19', 'S', '36.77', '6.99']],
        net: '36.77',
        tax: '6.99',
        gross: '43.76',
      }),
      // Downgrade on 11 February (18 of February's 28 days left), settled with March:
      //   credit Premium 30.00 × 18/28 = 19.2857… → −19.29; charge Standard 20.00 × 18/28 = 12.8571… → 12.86;
      //   March Standard 20.00; net −19.29 + 12.86 + 20.00 = 13.57; × 19 % = 2.5783 → 2.58; gross 16.15.
      I({
        number: anyNumber(2025),
        at: local('2025-03-01'),
        groups: [
          [
            'Flexible',
            [
              L(expect.stringContaining('Workspace'), local('2025-02-11'), local('2025-03-01'), expect.stringMatching(/^-?1$/), '-19.29'),
              L(expect.stringContaining('Workspace'), local('2025-02-11'), local('2025-03-01'), '1', '12.86'),
              L('Workspace', local('2025-03-01'), local('2025-04-01'), '1', '20.00'),
            ],
          ],
        ],
        taxes: [['19', 'S', '13.57', '2.58']],
        net: '13.57',
        tax: '2.58',
        gross: '16.15',
      }),
    ]);
    // changeApplyBehaviour end_of_period: January stays Premium (30.00; 5.70; 35.70); the downgrade
    // takes effect on 1 February without a credit: Basic 10.00; × 19 % = 1.90; gross 11.90.
    expectInvoices(await invoicesOf(t, b.id), [
      plain('Committed', '2025-01-01', '2025-02-01', '30.00', '5.70', '35.70'),
      plain('Committed', '2025-02-01', '2025-03-01', '10.00', '1.90', '11.90'),
      plain('Committed', '2025-03-01', '2025-04-01', '10.00', '1.90', '11.90'),
    ]);
    expect(await duplicateLedgerRows(t)).toBe(0);
  });
});
