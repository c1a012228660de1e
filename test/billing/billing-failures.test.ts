import { describe, expect, it } from 'vitest';
import { eventsOf, expectProblem, get, post } from '../support/api';
import { created, createCustomer, ok, tick } from '../support/builders';
import { expectInvoices, I, insertRates, invoicesOf, item, L, local, offer, product, subscribe, tenantAt } from './scenario';

// Billing failures are not silent (docs/decisions.md, Invoices and billing): a subscription that cannot be billed shows why
// (lastBillingError), the tenant gets subscription.billing_failed once per cause, and the next run
// tries again. No other test uses ARS, so it has no ECB rate until this test inserts one.

describe('billing failures', () => {
  it('are shown on the subscription, sent once per cause, retried by the next run and cleared when it bills', async () => {
    const { t, c } = await tenantAt(local('2031-01-05'));
    // Priced in Argentine pesos, billed to a customer in the tenant's EUR.
    const pro = await offer(t, c, 'Pro', '12500.00', '1M', { currencyCode: 'ARS' });
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Pro ARS' });
    await tick(t, local('2031-01-05'));

    // No ARS rate: nothing billed, the reason on the subscription, one event.
    expect(await invoicesOf(t, sub.id)).toEqual([]);
    const failing = await ok(get(t, `/subscriptions/${sub.id}`));
    expect(failing.lastBillingError).toEqual({ at: local('2031-01-05'), code: 'no_exchange_rate', message: 'No ECB rate for ARS/EUR on 2031-01-05.' });
    const failures = async () => (await eventsOf(t, sub.id)).filter((e) => e.type === 'subscription.billing_failed');
    expect(await failures()).toEqual([
      {
        type: 'subscription.billing_failed',
        resourceId: sub.id,
        data: {
          subscriptionId: sub.id,
          number: sub.number,
          billingRunId: expect.any(String),
          asOf: local('2031-01-05'),
          error: { at: local('2031-01-05'), code: 'no_exchange_rate', message: 'No ECB rate for ARS/EUR on 2031-01-05.' },
        },
      },
    ]);
    const [run] = (await ok(get(t, '/billing-runs'))).data;
    expect(run).toMatchObject({ status: 'failed', errors: 1, invoicesCreated: 0, lastError: `${sub.id}: No ECB rate for ARS/EUR on 2031-01-05.` });
    // The estimate cannot be made either: 409 with the reason, not a 500.
    const estimate = await get(t, `/subscriptions/${sub.id}/estimated-amount`);
    expectProblem(estimate, 409, '/problems/not-billable');
    expect(estimate.body.detail).toContain('No ECB rate for ARS/EUR');

    // The next run tries again and fails for the same cause: the time moves, no second event.
    await tick(t, local('2031-01-06'));
    expect((await ok(get(t, `/subscriptions/${sub.id}`))).lastBillingError).toEqual({
      at: local('2031-01-06'),
      code: 'no_exchange_rate',
      message: 'No ECB rate for ARS/EUR on 2031-01-06.',
    });
    expect(await failures()).toHaveLength(1);

    // A rate arrives (1 EUR = 1250 ARS, published 5 January); the next run bills the first period at
    // the rate in force on its invoice date (7 January: the 5 January publication), and the error is gone.
    await insertRates([['2031-01-05', '1250']], 'ARS');
    await tick(t, local('2031-01-07'));
    const invoices = await invoicesOf(t, sub.id);
    // 12500.00 ARS / 1250 = 10.00 EUR; × 19 % = 1.90; gross 11.90.
    expectInvoices(invoices, [
      I({
        number: expect.any(String),
        at: local('2031-01-07'),
        groups: [['Pro ARS', [L('Pro', local('2031-01-05'), local('2031-02-05'), '1', '10.00')]]],
        taxes: [['19', 'S', '10.00', '1.90']],
        net: '10.00',
        tax: '1.90',
        gross: '11.90',
      }),
    ]);
    expect(invoices[0].applicatedExchangeRates).toEqual([{ sourceCurrencyCode: 'ARS', destinationCurrencyCode: 'EUR', exchangeRate: '0.0008', exchangeRateDate: '2031-01-05' }]);
    expect((await ok(get(t, `/subscriptions/${sub.id}`))).lastBillingError).toBeNull();
    expect(await failures()).toHaveLength(1);
    const [last] = (await ok(get(t, '/billing-runs'))).data;
    expect(last).toMatchObject({ status: 'completed', errors: 0, invoicesCreated: 1 });
  });

  it('instant usage that cannot be billed at once is stored, left to the next run, and shown there', async () => {
    // COP has no ECB rate in any test.
    const { t, c } = await tenantAt(local('2031-02-01'));
    const unit = await created(post(t, '/units', { name: 'Message', code: 'sms' }));
    const sms = await created(post(t, '/measurements', { unit: unit.id, code: 'sms', aggregationType: 'last_value', type: 'instant_metered' }));
    const text = await product(t, c, 'SMS', sms);
    const perSms = await created(post(t, '/price-plans', { product: text.id, calculationType: 'per_unit', currencyCode: 'COP', price: { amount: '350.00' } }));
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [{ product: text.id, pricePlan: perSms.id, quantity: '1' }], { name: 'Messaging' });
    await tick(t, local('2031-02-01'));
    // Before, the push answered 500 once its events were stored.
    expect(await ok(post(t, '/subscriptions/measurements', { events: [{ id: 'sms-1', subscriptionItem: sub.items[0].id, quantity: '10' }] }))).toMatchObject({ accepted: 1, rejected: [] });
    await tick(t, local('2031-02-02'));
    expect(await invoicesOf(t, sub.id)).toEqual([]);
    expect((await ok(get(t, `/subscriptions/${sub.id}`))).lastBillingError).toEqual({ at: local('2031-02-02'), code: 'no_exchange_rate', message: 'No ECB rate for COP/EUR on 2031-02-02.' });
  });
});
