import { describe, expect, it } from 'vitest';
import { countRows, eventsOf, expectProblem, expectStatus, get, post, put, unique, violations } from '../support/api';
import { created, createCustomer, ok, refusedUnchanged, setClock } from '../support/builders';
import { activeSubscription, addDays, coupon, customField, DEFAULT_NOW, defaultAddress, draft, draftBody, item, itemRows, nonBillingEventTypes, paymentMethod, setup, subscriptionRow } from './builders';

// Creating subscriptions (spec §2.4): POST /subscriptions and POST /subscriptions/from-plan.
// Storage is shared by every test file, so every test works in a fresh tenant of its own with its
// test clock set first.

describe('POST /subscriptions', () => {
  it('creates a draft from every body field, numbered S-00000001, S-00000002 per tenant', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    await customField(t, 'region', 'string');
    const group = await created(post(t, '/billing-groups', { name: 'Monthly on the 1st', type: 'start_of_month' }));
    const pm = await paymentMethod(t, customer.id, 'card');
    const address = defaultAddress(customer);

    const sub = await draft(f, {
      items: [item(c.pro, c.proMonthly, '3'), item(c.storage, c.storageMonthly, '2')],
      name: 'Team',
      externalId: 'ext-1',
      contractDetails: { contractStart: '2030-02-01T00:00:00+01:00' },
      periods: { contractPeriod: '12M', cancellationPeriod: '3M' },
      billingGroup: group.id,
      trialDays: 14,
      paymentMethod: pm,
      invoiceAddress: address.id,
      poNumber: 'PO-7',
      customFields: { region: 'EU' },
    });
    expect(sub).toMatchObject({
      number: 'S-00000001',
      status: 'draft',
      name: 'Team',
      externalId: 'ext-1',
      poNumber: 'PO-7',
      customer: { id: customer.id, customerNumber: customer.customerNumber, timeZone: 'Europe/Berlin', firstName: 'Ada', lastName: 'Lovelace', status: 'STATUS_ACTIVE' },
      plan: null,
      billingGroup: { id: group.id, type: 'start_of_month' },
      periods: [{ contractPeriod: '12M', cancellationPeriod: '3M' }],
      paymentMethod: { id: pm, type: 'card' },
      defaultPaymentMethod: false,
      invoiceAddress: { id: address.id },
      defaultInvoiceAddress: false,
      contractDetails: { contractStart: '2030-01-31T23:00:00.000Z', contractEnd: '2031-01-31T23:00:00.000Z' },
      trialDays: 14,
      trialEndsOn: null,
      activatedAt: null,
      cancellationDate: null,
      cancelledAt: null,
      isCancellationPending: false,
      nextPossibleCancellationDate: [],
      appliedDiscounts: [],
      partner: null,
      customFields: { region: 'EU' },
      createdAt: DEFAULT_NOW,
      updatedAt: DEFAULT_NOW,
    });
    expect(sub.items).toHaveLength(2);
    expect(sub.items[0]).toMatchObject({
      subscriptionId: sub.id,
      parent: null,
      type: 'item',
      status: 'pending',
      product: { id: c.pro.id, name: 'Pro' },
      pricePlan: { id: c.proMonthly.id, type: 'recurring', billingInterval: '1M', payInAdvance: true },
      quantity: '3',
      name: 'Pro',
      activatedAt: null,
      billing: { lastBilledAt: null, lastBilledFrom: null, lastBilledTo: null, nextBillingAt: null, billingInterval: '1M' },
    });
    expect(sub.items[1]).toMatchObject({ product: { id: c.storage.id }, quantity: '2', status: 'pending' });

    expect(await ok(get(t, `/subscriptions/${sub.id}`))).toEqual(sub);
    const row = await subscriptionRow(t, sub.id);
    expect(row).toMatchObject({ number: 'S-00000001', status: 'draft', customer_id: customer.id, trial_days: 14, contract_period: '12M', billing_anchor: null });
    expect(await itemRows(t, sub.id)).toHaveLength(2);
    const events = await eventsOf(t, sub.id);
    expect(events.map((e) => e.type)).toEqual(['subscription.created']);
    expect(events[0]!.data).toMatchObject({ id: sub.id, number: 'S-00000001', status: 'draft' });

    const second = await draft(f);
    expect(second.number).toBe('S-00000002');
    expect(second.name).toBe('Pro');
    expect(second).toMatchObject({ paymentMethod: null, defaultPaymentMethod: true, invoiceAddress: null, defaultInvoiceAddress: true, contractDetails: { contractStart: DEFAULT_NOW, contractEnd: null } });
    const own = await draft(f, { number: 'CUSTOM-1' });
    expect(own.number).toBe('CUSTOM-1');

    // Numbers are per tenant.
    const other = await setup();
    expect((await draft(other)).number).toBe('S-00000001');
  });

  it('embeds the customer default payment method when the subscription has none', async () => {
    const f = await setup();
    const pm = await paymentMethod(f.t, f.customer.id, 'sepa_debit', true);
    const sub = await draft(f);
    expect(sub).toMatchObject({ paymentMethod: { id: pm, type: 'sepa_debit', default: true }, defaultPaymentMethod: true });
  });

  it('takes many items (the schema allows 100; here 12) in one subscription', async () => {
    const f = await setup();
    const { t, c } = f;
    const items = Array.from({ length: 12 }, (_, i) => item(c.pro, c.proMonthly, String(i + 1)));
    const res = await post(t, '/subscriptions', draftBody(f, { items }));
    expectStatus(res, 201);
    expect(res.body.items.map((i: any) => i.quantity)).toEqual(items.map((i) => i.quantity));
    expect(await itemRows(t, res.body.id)).toHaveLength(12);
  });

  it('refuses every broken rule with 422 naming the property, storing nothing', async () => {
    const f = await setup();
    const { t, c } = f;
    await customField(t, 'region', 'string', true);
    await customField(t, 'cap', 'number');
    const base = { customFields: { region: 'EU' } };

    const archivedCustomer = await createCustomer(t);
    await ok(put(t, `/customers/${archivedCustomer.id}/archive`));
    const otherCustomer = await createCustomer(t);
    const otherPm = await paymentMethod(t, otherCustomer.id, 'card', true);
    const legacy = await created(post(t, '/catalogue/products', { name: 'Legacy', type: 'product', productFamilies: [c.family.id], measurement: c.seats.id, taxGroup: c.taxGroup.id }));
    const legacyPrice = await created(post(t, '/price-plans', { product: legacy.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '1' }, billingInterval: '1M' }));
    await ok(put(t, `/catalogue/products/${legacy.id}/archive`));
    const inactivePrice = await created(
      post(t, '/price-plans', { product: c.pro.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '9' }, billingInterval: '1M', status: 'inactive' }),
    );
    const archivedPrice = await created(post(t, '/price-plans', { product: c.pro.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '8' }, billingInterval: '1M' }));
    await ok(put(t, `/price-plans/${archivedPrice.id}/archive`));
    const draftPlan = await created(post(t, '/plans', { family: c.family.id, code: unique('draft-plan'), name: 'Draft', items: [item(c.pro, c.proMonthly)] }));
    const inactivePlan = await created(post(t, '/plans', { family: c.family.id, code: unique('old-plan'), name: 'Old', items: [item(c.pro, c.proMonthly)] }));
    await ok(put(t, `/plans/${inactivePlan.id}/activate`));
    await ok(put(t, `/plans/${inactivePlan.id}/deactivate`));
    await draft(f, { ...base, number: 'SUB-1' });

    const unknownCoupon = 'NO-SUCH-CODE';
    const disabled = await coupon(t, { isEnabled: false });
    const expiring = await coupon(t, { expiresAt: addDays(DEFAULT_NOW, 1) });
    const single = await coupon(t, { maxRedemptions: 1 });
    const perCustomer = await coupon(t, { maxRedemptionsPerCustomer: 1 });
    const otherPlanOnly = await coupon(t, { limitedToPlans: [c.plan.id] });
    // Redeem the limited coupons (activation records the redemption), then let the expiring one expire.
    await activeSubscription(f, { ...base, coupons: [single.code, perCustomer.code] });
    await setClock(t, addDays(DEFAULT_NOW, 2));

    const cases: [string, Record<string, unknown>, string[]][] = [
      ['unknown customer', { customer: 'nope' }, ['customer: not_found']],
      ['archived customer', { customer: archivedCustomer.id }, ['customer: not_active']],
      ['archived product', { items: [item(legacy, legacyPrice)] }, ['items[0].product: archived']],
      ['unknown product and price plan', { items: [{ product: 'nope', pricePlan: 'nope' }] }, ['items[0].product: not_found', 'items[0].pricePlan: not_found']],
      ['inactive price plan', { items: [item(c.pro, inactivePrice)] }, ['items[0].pricePlan: not_active']],
      ['archived price plan', { items: [item(c.pro, archivedPrice)] }, ['items[0].pricePlan: not_active']],
      ['price plan of another product', { items: [item(c.pro, c.storageMonthly)] }, ['items[0].pricePlan: product_mismatch']],
      ['mixed currencies', { items: [item(c.pro, c.proUsd), item(c.storage, c.storageMonthly)] }, ['items: mixed_currencies']],
      ['draft plan', { plan: draftPlan.id }, ['plan: not_active']],
      ['inactive plan', { plan: inactivePlan.id }, ['plan: not_active']],
      ['unknown plan', { plan: 'nope' }, ['plan: not_found']],
      ['unknown billing group', { billingGroup: 'nope' }, ['billingGroup: not_found']],
      ['unknown payment method', { paymentMethod: 'nope' }, ['paymentMethod: not_found']],
      ["another customer's payment method", { paymentMethod: otherPm }, ['paymentMethod: not_found']],
      ["another customer's invoice address", { invoiceAddress: defaultAddress(otherCustomer).id }, ['invoiceAddress: not_found']],
      ['missing required custom field', { customFields: {} }, ['customFields.region: custom_field_required']],
      ['unknown custom field', { customFields: { region: 'EU', nope: 'x' } }, ['customFields.nope: unknown_custom_field']],
      ['custom field of the wrong type', { customFields: { region: 'EU', cap: 'many' } }, ['customFields.cap: invalid_custom_field_value']],
      ['duplicate number', { number: 'SUB-1' }, ['number: not_unique']],
      ['bad durations', { periods: { contractPeriod: '12X', cancellationPeriod: 'soon' } }, ['periods.cancellationPeriod: invalid_duration', 'periods.contractPeriod: invalid_duration']],
      ['zero duration', { periods: { contractPeriod: '0M' } }, ['periods.contractPeriod: invalid_duration']],
      ['negative trial', { trialDays: -1 }, ['trialDays: too_small']],
      ['no items', { items: [] }, ['items: too_small']],
      ['zero quantity', { items: [item(c.pro, c.proMonthly, '0')] }, ['items[0].quantity: too_small']],
      ['unknown field', { colour: 'red' }, ['colour: unknown_field']],
      ['unknown coupon', { coupons: [unknownCoupon] }, ['coupons[0]: not_found']],
      ['disabled coupon', { coupons: [disabled.code] }, ['coupons[0]: disabled']],
      ['expired coupon', { coupons: [expiring.code] }, ['coupons[0]: expired']],
      ['used-up coupon', { coupons: [single.code] }, ['coupons[0]: exhausted']],
      ['coupon used up by this customer', { coupons: [perCustomer.code] }, ['coupons[0]: exhausted_for_customer']],
      ['coupon for another plan', { coupons: [otherPlanOnly.code] }, ['coupons[0]: not_applicable']],
    ];
    const subscriptionsBefore = await countRows('subscriptions', t);
    for (const [name, overrides, expected] of cases) {
      const res = await refusedUnchanged(t, null, () => post(t, '/subscriptions', draftBody(f, { ...base, ...overrides })));
      expectProblem(res, 422, '/problems/validation-failed');
      expect(violations(res).sort(), name).toEqual([...expected].sort());
    }
    expect(await countRows('subscriptions', t)).toBe(subscriptionsBefore);
    // The coupon restricted to the plan is fine for that plan.
    expect((await draft(f, { ...base, plan: c.plan.id, coupons: [otherPlanOnly.code] })).appliedDiscounts).toHaveLength(1);
  });
});

describe('POST /subscriptions/from-plan', () => {
  it("takes the plan's items and the chosen add-ons within their min/max", async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const inside = await created(post(t, '/subscriptions/from-plan', { customer: customer.id, planCode: c.plan.code, planItemSelections: [{ product: c.storage.id, quantity: '3' }] }));
    expect(inside).toMatchObject({ status: 'draft', number: 'S-00000001', name: 'Pro plan', plan: { id: c.plan.id, code: c.plan.code, name: 'Pro plan', status: 'active' } });
    expect(inside.items.map((i: any) => [i.product.id, i.pricePlan.id, i.quantity])).toEqual([
      [c.pro.id, c.proMonthly.id, '1'],
      [c.storage.id, c.storageMonthly.id, '3'],
    ]);
    expect(await itemRows(t, inside.id)).toHaveLength(2);
    expect(await nonBillingEventTypes(t, inside.id)).toEqual(['subscription.created']);

    // An add-on with a minimum is included at its minimum when not chosen.
    const minimum = await created(post(t, '/subscriptions/from-plan', { customer: customer.id, planCode: c.plan.code, name: 'Mine', trialDays: 3 }));
    expect(minimum).toMatchObject({ name: 'Mine', trialDays: 3 });
    expect(minimum.items.map((i: any) => [i.product.id, i.quantity])).toEqual([
      [c.pro.id, '1'],
      [c.storage.id, '2'],
    ]);
    for (const [edge, quantity] of [
      ['min', '2'],
      ['max', '5'],
    ]) {
      const res = await post(t, '/subscriptions/from-plan', { customer: customer.id, planCode: c.plan.code, planItemSelections: [{ product: c.storage.id, quantity }] });
      expect(res.status, edge).toBe(201);
    }
  });

  it('refuses selections outside the add-on limits, unknown add-ons and unusable plans', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const inactive = await created(post(t, '/plans', { family: c.family.id, code: unique('draft'), name: 'Draft', items: [item(c.pro, c.proMonthly)] }));
    const body = (overrides: Record<string, unknown>) => ({ customer: customer.id, planCode: c.plan.code, ...overrides });
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['below the minimum', { planItemSelections: [{ product: c.storage.id, quantity: '1' }] }, ['planItemSelections[0].quantity: out_of_range']],
      ['above the maximum', { planItemSelections: [{ product: c.storage.id, quantity: '6' }] }, ['planItemSelections[0].quantity: out_of_range']],
      ['not an add-on', { planItemSelections: [{ product: c.api.id, quantity: '1' }] }, ['planItemSelections[0].product: not_in_plan']],
      [
        'chosen twice',
        { planItemSelections: [{ product: c.storage.id, quantity: '2' }, { product: c.storage.id, quantity: '3' }] },
        ['planItemSelections[1].product: duplicate'],
      ],
      ['unknown plan code', { planCode: 'nope' }, ['planCode: not_found']],
      ['plan not active', { planCode: inactive.code }, ['planCode: not_active']],
      ['unknown customer', { customer: 'nope' }, ['customer: not_found']],
    ];
    for (const [name, overrides, expected] of cases) {
      const res = await refusedUnchanged(t, null, () => post(t, '/subscriptions/from-plan', body(overrides)));
      expectProblem(res, 422, '/problems/validation-failed');
      expect(violations(res).sort(), name).toEqual(expected);
    }
    expect(await countRows('subscriptions', t)).toBe(0);
  });
});
