import { describe, expect, it } from 'vitest';
import { post, put } from '../support/api';
import { created, createCustomer, ok, tick } from '../support/builders';
import { expectInvoices, I, invoicesOf, L, local, price, product, shape, subscribe, tenantAt } from './scenario';

// Billing scenarios: a composition with a negative total becomes a credit note, and instant_metered
// usage is billed at once, one invoice per push (docs/decisions.md, Invoices and billing).
// Every expected invoice is written out by hand; scenario.ts has the builders and the conventions
// the expectations rely on.

describe('credit notes from billing and instant_metered billed at once', () => {
  it('a downgrade whose credit exceeds the charge becomes a finalized credit note, not a draft invoice', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const suite = await product(t, c, 'Suite');
    const premium = await price(t, suite.id, '1200.00', '1Y');
    const basic = await price(t, suite.id, '120.00', '1Y');
    const plan = await created(
      post(t, '/plans', { family: c.family.id, code: 'suite', name: 'Suite', changeApplyBehaviour: 'immediately', items: [{ product: suite.id, pricePlan: premium.id, quantity: '1' }] }),
    );
    await ok(put(t, `/plans/${plan.id}/activate`));
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [{ product: suite.id, pricePlan: premium.id, quantity: '1' }], { name: 'Suite yearly', plan: plan.id });
    await tick(t, local('2025-01-01'));
    await tick(t, local('2025-07-01'));
    await ok(put(t, `/subscription-items/${sub.items[0].id}/price-plan`, { pricePlan: basic.id }));
    await tick(t, local('2025-07-01'));

    const docs = await invoicesOf(t, sub.id);
    expect(docs.map((d) => d.type)).toEqual(['TYPE_INVOICE', 'TYPE_CREDIT']);
    // 1 January: 1,200.00; × 19 % = 228.00; gross 1,428.00.
    // 1 July, 184 of 365 days left (Jul 31 + Aug 31 + Sep 30 + Oct 31 + Nov 30 + Dec 31):
    //   credit 1,200.00 × 184/365 = 604.9315… → −604.93; charge 120.00 × 184/365 = 60.4931… → 60.49
    //   net −544.44; × 19 % = −103.4436 → −103.44; gross −647.88: a credit note (own number range).
    expectInvoices(docs, [
      I({
        number: 'RE-0000000001',
        at: local('2025-01-01'),
        groups: [['Suite yearly', [L('Suite', local('2025-01-01'), local('2026-01-01'), '1', '1200.00')]]],
        taxes: [['19', 'S', '1200.00', '228.00']],
        net: '1200.00',
        tax: '228.00',
        gross: '1428.00',
      }),
      I({
        number: 'GS-0000000001',
        status: expect.stringMatching(/^STATUS_(PAID|UNPAID)$/) as never,
        at: local('2025-07-01'),
        groups: [
          [
            'Suite yearly',
            [
              L(expect.stringContaining('Suite'), local('2025-07-01'), local('2026-01-01'), expect.stringMatching(/^-?1$/), '-604.93'),
              L(expect.stringContaining('Suite'), local('2025-07-01'), local('2026-01-01'), '1', '60.49'),
            ],
          ],
        ],
        taxes: [['19', 'S', '-544.44', '-103.44']],
        net: '-544.44',
        tax: '-103.44',
        gross: '-647.88',
      }),
    ]);
  });

  it('instant_metered usage is billed at once, each push on its own invoice', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const unit = await created(post(t, '/units', { name: 'Message', code: 'sms' }));
    const sms = await created(post(t, '/measurements', { unit: unit.id, code: 'sms', aggregationType: 'last_value', type: 'instant_metered' }));
    const text = await product(t, c, 'SMS', sms);
    const perSms = await created(post(t, '/price-plans', { product: text.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '0.09' } }));
    expect(perSms.type).toBe('instant_metered');
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [{ product: text.id, pricePlan: perSms.id, quantity: '1' }], { name: 'Messaging' });
    const push = async (id: string, quantity: string, at: string) => {
      await tick(t, at);
      expect(await ok(post(t, '/subscriptions/measurements', { events: [{ id, subscriptionItem: sub.items[0].id, quantity, measuredAt: at }] }))).toMatchObject({ accepted: 1 });
      await tick(t, at);
    };
    await tick(t, local('2025-01-01'));
    await push('sms-1', '100', local('2025-01-10'));
    await push('sms-2', '40', local('2025-01-20'));
    await tick(t, local('2025-02-01'));

    // 100 × 0.09 = 9.00; × 19 % = 1.71; gross 10.71. Then 40 × 0.09 = 3.60; × 19 % = 0.684 → 0.68; gross 4.28.
    // Nothing more at the end of the month.
    const invoices = await invoicesOf(t, sub.id);
    expect(
      invoices.map((i) => {
        const s = shape(i);
        return { at: s.creationDate, lines: s.groups.flatMap((g) => g.lines.map((l) => [l.quantity, l.net])), net: s.net, tax: s.tax, gross: s.gross };
      }),
    ).toEqual([
      { at: local('2025-01-10'), lines: [['100', '9.00']], net: '9.00', tax: '1.71', gross: '10.71' },
      { at: local('2025-01-20'), lines: [['40', '3.60']], net: '3.60', tax: '0.68', gross: '4.28' },
    ]);
  });
});
