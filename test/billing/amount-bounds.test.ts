import { describe, expect, it } from 'vitest';
import { expectProblem, get, post, put, violations, dbOf } from '../support/api';
import { created, createCustomer, ok, tick } from '../support/builders';
import { expectInvoices, I, invoicesOf, item, L, local, offer, product, subscribe, tenantAt } from './scenario';

// What is accepted can be billed (docs/decisions.md, Invoices and billing, amount bounds): one
// invoice line bills at most a tenth of what a document may hold (100,000,000,000 EUR, JPY or KWD),
// the items of a request together at most a document. Prices beyond it are refused on the price
// plan, quantities whose amount is beyond it where the quantity is given. Before,
// `999999999999999.9999999999` × `999999999999999` was accepted with 201, then estimated-amount
// answered 500 and billing runs skipped it silently.

describe('amount bounds', () => {
  it('refuses prices beyond what a line may bill, per currency, at the field that holds them', async () => {
    const { t, c } = await tenantAt(local('2032-01-05'));
    const p = await product(t, c, 'Pro');
    const plan = (body: Record<string, unknown>) => post(t, '/price-plans', { product: p.id, calculationType: 'per_unit', currencyCode: 'EUR', billingInterval: '1M', ...body });
    expect(violations(await plan({ price: { amount: '999999999999999.9999999999' } }))).toEqual(['price.amount: too_large']);
    expect(violations(await plan({ price: { amount: '100000000000.0000000001' } }))).toEqual(['price.amount: too_large']);
    expect((await plan({ price: { amount: '100000000000' } })).status).toBe(201);
    expect(violations(await plan({ calculationType: 'flat_fee', price: { amount: '100000000000.01' } }))).toEqual(['price.amount: too_large']);
    // The bound is in major units for every currency of up to three decimals: 10^11 yen too
    // (10^13 yen, as a bound in minor units would allow, is beyond what a document may hold).
    expect((await plan({ currencyCode: 'JPY', price: { amount: '100000000000' } })).status).toBe(201);
    expect(violations(await plan({ currencyCode: 'JPY', price: { amount: '100000000001' } }))).toEqual(['price.amount: too_large']);
    const tiers = [
      { upTo: '10', unitPrice: '1.00', flatPrice: '100000000000.01' },
      { upTo: null, unitPrice: '999999999999999', flatPrice: '0' },
    ];
    expect(violations(await plan({ calculationType: 'tiered', price: null, tiers })).sort()).toEqual(['tiers[0].flatPrice: too_large', 'tiers[1].unitPrice: too_large']);
  });

  it('refuses a quantity whose period amount is beyond a line, wherever the quantity is given; the bound itself bills', async () => {
    const { t, c } = await tenantAt(local('2032-01-05'));
    const pro = await offer(t, c, 'Pro', '10.00');
    const customer = await createCustomer(t);
    // 999999999999999 × 10.00 = 9999999999999990.00 EUR: far beyond 100000000000.00.
    expect(violations(await post(t, '/subscriptions', { customer: customer.id, items: [item(pro, '999999999999999')] }))).toEqual(['items[0].quantity: amount_too_large']);
    // 10000000000.0001 × 10.00 = 100000000000.001: just beyond.
    expect(violations(await post(t, '/subscriptions', { customer: customer.id, items: [item(pro, '10000000000.0001')] }))).toEqual(['items[0].quantity: amount_too_large']);
    const small = await subscribe(t, customer.id, [item(pro, '1')], { name: 'Small' });
    const itemId = small.items[0].id;
    expect(violations(await put(t, `/subscription-items/${itemId}/quantity`, { quantity: '10000000001' }))).toEqual(['quantity: amount_too_large']);
    expect(violations(await post(t, `/subscriptions/${small.id}/products`, { products: [item(pro, '20000000000')] }))).toEqual(['products[0].quantity: amount_too_large']);
    // Moving 20000000000 units to a dearer price plan: 20000000000 × 10.00 fits, × 100.00 does not.
    const big = await subscribe(t, customer.id, [item(pro, '10000000000')], { name: 'Big' });
    const dear = await created(post(t, '/price-plans', { product: pro.product.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '100.00' }, billingInterval: '1M' }));
    expect(violations(await put(t, `/subscription-items/${big.items[0].id}/price-plan`, { pricePlan: dear.id }))).toEqual(['pricePlan: amount_too_large']);

    // At the bound: 10000000000 × 10.00 = 100000000000.00 EUR, estimated and billed to the cent.
    expect(await ok(get(t, `/subscriptions/${big.id}/estimated-amount`))).toEqual({ amount: '100000000000.00', currencyCode: 'EUR', netAmount: '100000000000.00 €' });
    await tick(t, local('2032-01-05'));
    // × 19 % = 19000000000.00; gross 119000000000.00.
    expectInvoices(await invoicesOf(t, big.id), [
      I({
        number: expect.any(String),
        at: local('2032-01-05'),
        groups: [['Big', [L('Pro', local('2032-01-05'), local('2032-02-05'), '10000000000', '100000000000.00')]]],
        taxes: [['19', 'S', '100000000000.00', '19000000000.00']],
        net: '100000000000.00',
        tax: '19000000000.00',
        gross: '119000000000.00',
      }),
    ]);
    expect((await ok(get(t, '/billing-runs'))).data[0]).toMatchObject({ status: 'completed', errors: 0 });
  });

  it('refuses items that each fit a line but together bill beyond what one invoice may hold', async () => {
    const { t, c } = await tenantAt(local('2032-01-05'));
    const pro = await offer(t, c, 'Pro', '10.00');
    const customer = await createCustomer(t);
    // A period's items together at most half of what a document may hold (the net with any tax up
    // to 100 % still fits one invoice): five items at the line bound, 5 × 100000000000.00 EUR, fit;
    // a sixth does not.
    const six = Array.from({ length: 6 }, () => item(pro, '10000000000'));
    expect(violations(await post(t, '/subscriptions', { customer: customer.id, items: six }))).toEqual(['items: amount_too_large']);
    expect((await post(t, '/subscriptions', { customer: customer.id, items: six.slice(0, 5) })).status).toBe(201);
  });

  it('refuses a usage event whose quantity alone bills beyond a line', async () => {
    const { t, c } = await tenantAt(local('2032-01-05'));
    const calls = await product(t, c, 'Calls', c.calls);
    const perCall = await created(post(t, '/price-plans', { product: calls.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '1000.00' }, billingInterval: '1M' }));
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [{ product: calls.id, pricePlan: perCall.id, quantity: '1' }], { name: 'Calls' });
    const itemId = sub.items[0].id;
    const res = await ok(
      post(t, '/subscriptions/measurements', {
        events: [
          // 100000000 × 1000.00 = 100000000000.00: the bound.
          { id: 'ok', subscriptionItem: itemId, quantity: '100000000' },
          // 100000000.000001 × 1000.00 = 100000000000.001: beyond.
          { id: 'over', subscriptionItem: itemId, quantity: '100000000.000001' },
          // The same quantities again in the batch: each event is judged alike.
          { id: 'ok-again', subscriptionItem: itemId, quantity: '100000000' },
          { id: 'over-again', subscriptionItem: itemId, quantity: '100000000.000001' },
        ],
      }),
    );
    expect(res).toMatchObject({
      received: 4,
      accepted: 2,
      rejected: [
        { index: 1, id: 'over', violations: [{ propertyPath: 'events[1].quantity', code: 'amount_too_large' }] },
        { index: 3, id: 'over-again', violations: [{ propertyPath: 'events[3].quantity', code: 'amount_too_large' }] },
      ],
    });
  });

  it('a subscription stored before the bounds: the estimate is 409 and billing reports amount_out_of_range, never a 500', async () => {
    const { t, c } = await tenantAt(local('2032-01-05'));
    const pro = await offer(t, c, 'Pro', '10.00');
    const customer = await createCustomer(t);
    const d = await subscribe(t, customer.id, [item(pro, '1')], { name: 'Legacy' });
    // As the API accepted it before: 999999999999999.9999999999 × 999999999999999.
    await (await dbOf(t)).batch([
      (await dbOf(t)).prepare('UPDATE price_plans SET price_amount = ? WHERE tenant_id = ? AND id = ?').bind('999999999999999.9999999999', t.id, pro.price.id),
      (await dbOf(t)).prepare('UPDATE subscription_items SET quantity = ? WHERE tenant_id = ? AND subscription_id = ?').bind('999999999999999', t.id, d.id),
    ]);
    const estimate = await get(t, `/subscriptions/${d.id}/estimated-amount`);
    expectProblem(estimate, 409, '/problems/not-billable');
    expectProblem(await get(t, `/subscriptions/${d.id}/estimated-invoice`), 409, '/problems/not-billable');
    await tick(t, local('2032-01-05'));
    expect(await invoicesOf(t, d.id)).toEqual([]);
    expect((await ok(get(t, `/subscriptions/${d.id}`))).lastBillingError).toMatchObject({ code: 'amount_out_of_range', message: expect.stringContaining('exceeds the largest amount a line may bill') });
  });
});
