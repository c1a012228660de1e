import { describe, expect, it } from 'vitest';
import { api, countRows, del, eventsOf, expectProblem, expectStatus, get, ids, patch, paths, post, put, violations } from '../support/api';
import { created, createCustomer, ok, refusedUnchanged, setClock } from '../support/builders';
import { activeSubscription, coupon, customField, DEFAULT_NOW, defaultAddress, draft, expectRefused, item, itemRows, nonBillingEventTypes, paymentMethod, setup, storedSubscription, subscriptionRow } from './builders';

// Subscriptions once they exist (spec §2.4, §4.2): list, get, replace and delete, invoice address,
// payment method and comments. Storage is shared by every test file, so every test works in a fresh
// tenant of its own with its test clock set first.

describe('GET /subscriptions', () => {
  // Four subscriptions of three customers, made on different days so every order is decidable:
  //   s1  A (partner P), pro monthly, 12M contract, activated 01-06 with a 30-day trial → active
  //   s2  B, storage with B's SEPA method, 1M contract, activated 01-07 with a 3-day trial, paused
  //   s3  C, pro yearly + API calls, open-ended → draft
  //   s4  A, pro monthly, 24M contract, activated 01-05 without trial, terminated 01-08
  async function scenario() {
    const f = await setup('2030-01-01T00:00:00.000Z');
    const { t, c } = f;
    const partner = await createCustomer(t, { isPartner: true, companyName: 'Reseller GmbH' });
    const a = f.customer;
    await ok(put(t, `/customers/${a.id}/partner`, { partner: partner.id }));
    const b = await createCustomer(t);
    const cc = await createCustomer(t);
    await paymentMethod(t, a.id, 'card', true);
    const sepa = await paymentMethod(t, b.id, 'sepa_debit');
    await paymentMethod(t, b.id, 'card', true);

    const s1 = await draft(f, { customer: a.id, periods: { contractPeriod: '12M' } });
    await setClock(t, '2030-01-02T00:00:00.000Z');
    const s2 = await draft(f, { customer: b.id, items: [item(c.storage, c.storageMonthly)], paymentMethod: sepa, periods: { contractPeriod: '1M' } });
    await setClock(t, '2030-01-03T00:00:00.000Z');
    const s3 = await draft(f, { customer: cc.id, items: [item(c.pro, c.proYearly), item(c.api, c.apiMetered)] });
    await setClock(t, '2030-01-04T00:00:00.000Z');
    const s4 = await draft(f, { customer: a.id, periods: { contractPeriod: '24M' } });
    await setClock(t, '2030-01-05T00:00:00.000Z');
    await ok(put(t, `/subscriptions/${s4.id}/activate`, {}));
    await setClock(t, '2030-01-06T00:00:00.000Z');
    await ok(put(t, `/subscriptions/${s1.id}/activate`, { trialDays: 30 }));
    await setClock(t, '2030-01-07T00:00:00.000Z');
    await ok(put(t, `/subscriptions/${s2.id}/activate`, { trialDays: 3 }));
    await ok(put(t, `/subscriptions/${s2.id}/pause`));
    await setClock(t, '2030-01-08T00:00:00.000Z');
    await ok(put(t, `/subscriptions/${s4.id}/terminate`));
    return { ...f, partner, a, b, cc, s1: s1.id, s2: s2.id, s3: s3.id, s4: s4.id };
  }

  it('filters by every parameter of spec §4.2, alone and combined', async () => {
    const s = await scenario();
    const { t, c } = s;
    const cases: [string, string[]][] = [
      ['', [s.s4, s.s3, s.s2, s.s1]],
      [`id=${s.s1}`, [s.s1]],
      [`id[]=${s.s1}&id[]=${s.s3}`, [s.s3, s.s1]],
      [`customer=${s.a.id}`, [s.s4, s.s1]],
      [`customer[]=${s.b.id}&customer[]=${s.cc.id}`, [s.s3, s.s2]],
      ['number=S-00000002', [s.s2]],
      ['status=active', [s.s1]],
      ['status=draft', [s.s3]],
      ['status[]=paused&status[]=terminated', [s.s4, s.s2]],
      ['status=cancelled', []],
      // A's subscriptions use A's default card; s2 names B's SEPA method although B's default is a card.
      ['paymentMethod.type=card', [s.s4, s.s1]],
      ['paymentMethod.type=sepa_debit', [s.s2]],
      ['paymentMethod.type[]=sepa_debit&paymentMethod.type[]=card', [s.s4, s.s2, s.s1]],
      ['paymentMethod.type=wallet', []],
      [`items.product.id=${c.storage.id}`, [s.s2]],
      [`items.product.id[]=${c.api.id}&items.product.id[]=${c.storage.id}`, [s.s3, s.s2]],
      [`items.product.id=${c.pro.id}`, [s.s4, s.s3, s.s1]],
      [`partner=${s.partner.id}`, [s.s4, s.s1]],
      [`partner=${s.b.id}`, []],
      [`customer=${s.a.id}&status=terminated`, [s.s4]],
      [`items.product.id=${c.pro.id}&paymentMethod.type=card&status[]=active&status[]=draft`, [s.s1]],
      // The bracket forms clients send for nested filters (axios encodes the brackets).
      ['paymentMethod%5Btype%5D=card', [s.s4, s.s1]],
      ['paymentMethod[type]=sepa_debit', [s.s2]],
      ['paymentMethod%5Btype%5D%5B%5D=sepa_debit&paymentMethod%5Btype%5D%5B%5D=card', [s.s4, s.s2, s.s1]],
      [`items%5Bproduct%5D%5Bid%5D=${c.storage.id}`, [s.s2]],
      [`items[product][id][]=${c.api.id}&items[product][id][]=${c.storage.id}`, [s.s3, s.s2]],
      // An empty filter (a form's blank field) filters nothing.
      ['status=', [s.s4, s.s3, s.s2, s.s1]],
      ['status=&customer=', [s.s4, s.s3, s.s2, s.s1]],
    ];
    for (const [q, expected] of cases) {
      const res = await get(t, `/subscriptions?${q}`);
      expectStatus(res, 200);
      expect(ids(res), q).toEqual(expected);
      expect(res.body.meta.pagination.totalItems, q).toBe(expected.length);
    }
    const one = (await ok(get(t, `/subscriptions?id=${s.s1}`))).data[0];
    expect(one).toEqual(await ok(get(t, `/subscriptions/${s.s1}`)));
    expect(one.partner).toMatchObject({ id: s.partner.id, number: s.partner.customerNumber });
  });

  it('sorts by order[status], order[createdAt], order[activatedAt] and order[trialEndsOn], ascending and descending', async () => {
    const s = await scenario();
    const { t } = s;
    const cases: [string, string[]][] = [
      ['order[status]=asc', [s.s1, s.s3, s.s2, s.s4]],
      ['order[status]=desc', [s.s4, s.s2, s.s3, s.s1]],
      ['order[createdAt]=asc', [s.s1, s.s2, s.s3, s.s4]],
      ['order[createdAt]=desc', [s.s4, s.s3, s.s2, s.s1]],
      // Never activated (null) sorts first ascending.
      ['order[activatedAt]=asc', [s.s3, s.s4, s.s1, s.s2]],
      ['order[activatedAt]=desc', [s.s2, s.s1, s.s4, s.s3]],
      // Without a trial (null) first ascending; ties by newest first.
      ['order[trialEndsOn]=asc', [s.s4, s.s3, s.s2, s.s1]],
      ['order[trialEndsOn]=desc', [s.s1, s.s2, s.s4, s.s3]],
      ['order[status]=asc&order[createdAt]=asc&status[]=active&status[]=terminated', [s.s1, s.s4]],
      // Encoded brackets, as on the wire.
      ['order%5BactivatedAt%5D=desc', [s.s2, s.s1, s.s4, s.s3]],
      ['order%5BtrialEndsOn%5D=asc', [s.s4, s.s3, s.s2, s.s1]],
    ];
    for (const [q, expected] of cases) {
      const res = await get(t, `/subscriptions?${q}`);
      expectStatus(res, 200);
      expect(ids(res), q).toEqual(expected);
    }
  });

  it('sorts by order[contractDetails.contractEnd]: the contract end each subscription shows', async () => {
    const s = await scenario();
    const { t } = s;
    const shown = Object.fromEntries(
      await Promise.all([s.s1, s.s2, s.s3, s.s4].map(async (id) => [id, await ok(get(t, `/subscriptions/${id}`))] as const)),
    );
    expect(shown[s.s1].contractDetails.contractEnd).toBe('2031-01-06T00:00:00.000Z');
    expect(shown[s.s2].contractDetails.contractEnd).toBe('2030-02-07T00:00:00.000Z');
    expect(shown[s.s3].contractDetails.contractEnd).toBeNull();
    expect(shown[s.s4].contractDetails.contractEnd).toBe('2032-01-05T00:00:00.000Z');
    const cases: [string, string[]][] = [
      // Open-ended (null: never ends) last ascending. Note the contract starts are in another order
      // (s4 01-05, s1 01-06, s2 01-07): the end depends on the period too.
      ['order[contractDetails.contractEnd]=asc', [s.s2, s.s1, s.s4, s.s3]],
      ['order[contractDetails.contractEnd]=desc', [s.s3, s.s4, s.s1, s.s2]],
      // The bracket form the n8n node sends (lodash splits the dot inside the brackets).
      ['order%5BcontractDetails%5D%5BcontractEnd%5D=asc', [s.s2, s.s1, s.s4, s.s3]],
      ['order[contractDetails][contractEnd]=desc', [s.s3, s.s4, s.s1, s.s2]],
    ];
    for (const [q, expected] of cases) {
      const res = await get(t, `/subscriptions?${q}`);
      expectStatus(res, 200);
      expect(ids(res), q).toEqual(expected);
    }
  });

  it('pages with meta.pagination and refuses malformed paging and order parameters with 400', async () => {
    const s = await scenario();
    const { t } = s;
    const page2 = await ok(get(t, '/subscriptions?limit=3&page=2&order[createdAt]=asc'));
    expect(page2.data.map((x: any) => x.id)).toEqual([s.s4]);
    expect(page2.meta.pagination).toEqual({ totalItems: 4, itemsPerPage: 3, currentPage: 2, lastPage: 2, pageTotalItems: 1 });
    const first = await ok(get(t, '/subscriptions?limit=2'));
    expect(first.meta.pagination).toEqual({ totalItems: 4, itemsPerPage: 2, currentPage: 1, lastPage: 2, pageTotalItems: 2 });
    const beyond = await ok(get(t, '/subscriptions?limit=2&page=5'));
    expect(beyond.data).toEqual([]);
    expect(beyond.meta.pagination).toMatchObject({ totalItems: 4, currentPage: 5, pageTotalItems: 0 });

    for (const q of ['limit=101', 'page=-1', 'order[status]=up']) {
      expectProblem(await get(t, `/subscriptions?${q}`), 400);
    }
  });

  it('refuses an unknown query parameter with a 400 naming it, instead of ignoring it', async () => {
    const f = await setup();
    for (const [q, param] of [
      ['colour=red', 'colour'],
      ['paymentMethod[kind]=card', 'paymentMethod[kind]'],
      ['order[number]=asc', 'order[number]'],
      ['statuses=active', 'statuses'],
    ]) {
      const res = await get(f.t, `/subscriptions?${q}`);
      expectProblem(res, 400);
      expect(violations(res), q).toEqual([`${param}: unknown_parameter`]);
    }
  });

  it('searches number, name, external id and the customer: name, company, number and e-mail (case-insensitive)', async () => {
    const f = await setup();
    const { t } = f;
    const grace = await createCustomer(t, { firstName: 'Grace', lastName: 'Hopper', companyName: 'Navy Labs GmbH', email: 'grace@navy.example', customerNumber: 'K-4711' });
    const s1 = await draft(f, { name: 'Team plan', externalId: 'crm-100' });
    const s2 = await draft(f, { customer: grace.id, externalId: 'crm-200' });
    const cases: [string, string[]][] = [
      ['lovelace', [s1.id]],
      ['Ada%20Lovelace', [s1.id]],
      ['navy+labs', [s2.id]],
      ['GRACE%40NAVY', [s2.id]],
      ['k-4711', [s2.id]],
      ['crm-', [s2.id, s1.id]],
      ['team', [s1.id]],
      [s2.number, [s2.id]],
      // LIKE wildcards are matched literally.
      ['%25', []],
      ['_', []],
      ['nobody', []],
      ['', [s2.id, s1.id]],
    ];
    for (const [q, expected] of cases) {
      const res = await get(t, `/subscriptions?search=${q}`);
      expectStatus(res, 200);
      expect(ids(res), q).toEqual(expected);
    }
    expect(ids(await get(t, `/subscriptions?search=crm&customer=${grace.id}`))).toEqual([s2.id]);
  });

  it('refuses an unknown status filter value with a 400 problem naming the parameter', async () => {
    const f = await setup();
    for (const q of ['status=bogus', 'status[]=active&status[]=bogus']) {
      const bad = await get(f.t, `/subscriptions?${q}`);
      expectProblem(bad, 400);
      expect(paths(bad), q).toEqual([q.startsWith('status[]') ? 'status[]' : 'status']);
    }
  });
});

describe('GET, PUT, DELETE /subscriptions/{id}', () => {
  it('GET returns the subscription; unknown ids are 404', async () => {
    const f = await setup();
    const sub = await draft(f);
    expect(await ok(get(f.t, `/subscriptions/${sub.id}`))).toEqual(sub);
    expectProblem(await get(f.t, '/subscriptions/nope'), 404, '/problems/not-found');
  });

  it('PUT on a draft replaces everything, items included', async () => {
    const f = await setup();
    const { t, c } = f;
    await customField(t, 'region', 'string');
    const sub = await draft(f, { items: [item(c.pro, c.proMonthly, '3'), item(c.api, c.apiMetered)], name: 'Old' });
    const oldItemIds = sub.items.map((i: any) => i.id);
    const other = await createCustomer(t, { firstName: 'Grace' });
    const pm = await paymentMethod(t, other.id, 'sepa_debit');
    const group = await created(post(t, '/billing-groups', { name: 'Month end', type: 'end_of_month' }));
    await setClock(t, '2030-01-16T10:00:00.000Z');

    const body = {
      customer: other.id,
      plan: c.plan.id,
      items: [item(c.pro, c.proYearly, '2'), item(c.storage, c.storageMonthly, '1')],
      name: 'New name',
      number: 'S-CUSTOM',
      externalId: 'ext-2',
      contractDetails: { contractStart: '2030-03-01T00:00:00Z' },
      periods: { contractPeriod: '24M', cancellationPeriod: '1M' },
      billingGroup: group.id,
      trialDays: 30,
      paymentMethod: pm,
      invoiceAddress: defaultAddress(other).id,
      poNumber: 'PO-9',
      customFields: { region: 'US' },
    };
    const updated = await ok(put(t, `/subscriptions/${sub.id}`, body));
    expect(updated).toMatchObject({
      id: sub.id,
      status: 'draft',
      number: 'S-CUSTOM',
      name: 'New name',
      externalId: 'ext-2',
      customer: { id: other.id, firstName: 'Grace' },
      plan: { id: c.plan.id },
      billingGroup: { id: group.id, type: 'end_of_month' },
      periods: [{ contractPeriod: '24M', cancellationPeriod: '1M' }],
      paymentMethod: { id: pm, type: 'sepa_debit' },
      invoiceAddress: { id: defaultAddress(other).id },
      contractDetails: { contractStart: '2030-03-01T00:00:00.000Z', contractEnd: '2032-03-01T00:00:00.000Z' },
      trialDays: 30,
      poNumber: 'PO-9',
      customFields: { region: 'US' },
      createdAt: DEFAULT_NOW,
      updatedAt: '2030-01-16T10:00:00.000Z',
    });
    expect(updated.items.map((i: any) => [i.product.id, i.pricePlan.id, i.quantity, i.status])).toEqual([
      [c.pro.id, c.proYearly.id, '2', 'pending'],
      [c.storage.id, c.storageMonthly.id, '1', 'pending'],
    ]);
    const rows = await itemRows(t, sub.id);
    expect(rows.map((r) => r.id).sort()).toEqual(updated.items.map((i: any) => i.id).sort());
    expect(rows.some((r) => oldItemIds.includes(r.id))).toBe(false);
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ customer_id: other.id, number: 'S-CUSTOM', trial_days: 30, billing_group_id: group.id });
    expect(await ok(get(t, `/subscriptions/${sub.id}`))).toEqual(updated);
    expect(await nonBillingEventTypes(t, sub.id)).toEqual(['subscription.created', 'subscription.updated']);

    // The same rules as on create, and coupons only at creation.
    const bad = await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}`, { ...body, items: [item(c.pro, c.storageMonthly)], billingGroup: 'nope' }));
    expect(violations(bad).sort()).toEqual(['billingGroup: not_found', 'items[0].pricePlan: product_mismatch']);
    const welcome = await coupon(t);
    const withCoupon = await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}`, { ...body, coupons: [welcome.code] }));
    expect(violations(withCoupon)).toEqual(['coupons: not_allowed']);
  });

  it('PUT on an active subscription changes only name, externalId, poNumber and customFields; anything else is 409', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    await customField(t, 'region', 'string');
    const sub = await activeSubscription(f, { periods: { contractPeriod: '12M' } });
    await setClock(t, '2030-01-20T00:00:00.000Z');
    const same = { customer: customer.id, items: [item(c.pro, c.proMonthly)] };
    const updated = await ok(put(t, `/subscriptions/${sub.id}`, { ...same, name: 'Renamed', externalId: 'crm-1', poNumber: 'PO-1', customFields: { region: 'EU' } }));
    expect(updated).toMatchObject({ status: 'active', name: 'Renamed', externalId: 'crm-1', poNumber: 'PO-1', customFields: { region: 'EU' }, updatedAt: '2030-01-20T00:00:00.000Z' });
    expect(updated.items.map((i: any) => i.id)).toEqual(sub.items.map((i: any) => i.id));
    expect(updated.contractDetails).toEqual(sub.contractDetails);
    expect(await subscriptionRow(t, sub.id)).toMatchObject({ name: 'Renamed', external_id: 'crm-1', po_number: 'PO-1' });

    const other = await createCustomer(t);
    const group = await created(post(t, '/billing-groups', { name: 'Start', type: 'start_of_month' }));
    const refused: [string, Record<string, unknown>][] = [
      ['quantity', { items: [item(c.pro, c.proMonthly, '2')] }],
      ['another item', { items: [item(c.pro, c.proMonthly), item(c.storage, c.storageMonthly)] }],
      ['customer', { customer: other.id }],
      ['billing group', { billingGroup: group.id }],
      ['trial days', { trialDays: 5 }],
      ['contract period', { periods: { contractPeriod: '24M' } }],
      ['plan', { plan: c.plan.id }],
      ['invoice address', { invoiceAddress: defaultAddress(customer).id }],
    ];
    for (const [name, overrides] of refused) {
      const res = await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}`, { ...same, name: 'Renamed', ...overrides }));
      expect(res.status, name).toBe(409);
      expectRefused(res, 'active');
    }
    expect(await nonBillingEventTypes(t, sub.id)).toEqual(['subscription.created', 'subscription.activated', 'entitlement.state.updated', 'subscription.updated']);
  });

  it('PUT on an active subscription refuses a changed number or contract start with 409 instead of ignoring them', async () => {
    const f = await setup();
    const { t, c, customer } = f;
    const sub = await activeSubscription(f, { periods: { contractPeriod: '12M' } });
    const same = { customer: customer.id, items: [item(c.pro, c.proMonthly)] };
    // Omitted, they stay as they are.
    expect(await ok(put(t, `/subscriptions/${sub.id}`, { ...same, name: 'Renamed' }))).toMatchObject({ number: sub.number, contractDetails: sub.contractDetails });
    const refused: [string, Record<string, unknown>][] = [
      ['number', { number: 'S-NEW' }],
      ['contract start', { contractDetails: { contractStart: '2030-06-01T00:00:00Z' } }],
    ];
    for (const [name, overrides] of refused) {
      const res = await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}`, { ...same, name: 'Renamed', ...overrides }));
      expect(res.status, name).toBe(409);
      expectRefused(res, 'active');
    }
  });

  it('DELETE removes a draft with its items and comments; other statuses are 409', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await draft(f);
    await created(post(t, `/subscriptions/${sub.id}/comments`, { text: 'Call back on Monday' }));
    const res = await del(t, `/subscriptions/${sub.id}`);
    expectStatus(res, 204);
    expectProblem(await get(t, `/subscriptions/${sub.id}`), 404);
    expect(await subscriptionRow(t, sub.id)).toBeUndefined();
    expect(await itemRows(t, sub.id)).toEqual([]);
    expect(await countRows('subscription_comments', t)).toBe(0);
    const events = await eventsOf(t, sub.id);
    expect(events.map((e) => e.type)).toEqual(['subscription.created', 'subscription.deleted']);
    expect(events[1]!.data).toEqual({ id: sub.id, number: sub.number });
    expectProblem(await del(t, `/subscriptions/${sub.id}`), 404);

    const active = await activeSubscription(f);
    expectRefused(await refusedUnchanged(t, storedSubscription(t, active.id), () => del(t, `/subscriptions/${active.id}`)), 'active');
    expect(await itemRows(t, active.id)).toHaveLength(1);
  });
});

describe('invoice address and payment method', () => {
  it('PUT /invoice-address sets an address of the customer, or null for the default', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f);
    const address = defaultAddress(f.customer);
    const set = await ok(put(t, `/subscriptions/${sub.id}/invoice-address`, { invoiceAddress: address.id }));
    expect(set).toMatchObject({ invoiceAddress: { id: address.id, type: 'TYPE_DEFAULT' }, defaultInvoiceAddress: false });
    expect((await subscriptionRow(t, sub.id))!.invoice_address_id).toBe(address.id);
    const cleared = await ok(put(t, `/subscriptions/${sub.id}/invoice-address`, { invoiceAddress: null }));
    expect(cleared).toMatchObject({ invoiceAddress: null, defaultInvoiceAddress: true });

    const other = await createCustomer(t);
    expect(violations(await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}/invoice-address`, { invoiceAddress: defaultAddress(other).id })))).toEqual([
      'invoiceAddress: not_found',
    ]);
    expect(paths(await refusedUnchanged(t, storedSubscription(t, sub.id), () => put(t, `/subscriptions/${sub.id}/invoice-address`, {})))).toEqual(['invoiceAddress']);
    const events = await eventsOf(t, sub.id);
    expect(events.slice(3).map((e) => e.type)).toEqual(['subscription.invoice_address.updated', 'subscription.invoice_address.updated']);
    expect(events[3]!.data.invoiceAddress.id).toBe(address.id);
  });

  it('PATCH /payment-method takes application/merge-patch+json', async () => {
    const f = await setup();
    const { t, customer } = f;
    const card = await paymentMethod(t, customer.id, 'card', true);
    const sepa = await paymentMethod(t, customer.id, 'sepa_debit');
    const sub = await activeSubscription(f);
    expect(sub).toMatchObject({ paymentMethod: { id: card }, defaultPaymentMethod: true });
    const set = await ok(patch(t, `/subscriptions/${sub.id}/payment-method`, { paymentMethodId: sepa }));
    expect(set).toMatchObject({ paymentMethod: { id: sepa, type: 'sepa_debit', gatewayName: 'sepa_debit', status: 'active', default: false, enabled: true }, defaultPaymentMethod: false });
    expect((await subscriptionRow(t, sub.id))!.payment_method_id).toBe(sepa);
    expect(await ok(get(t, `/subscriptions?paymentMethod.type=sepa_debit`))).toMatchObject({ data: [{ id: sub.id }] });
    const back = await ok(patch(t, `/subscriptions/${sub.id}/payment-method`, { paymentMethodId: null }));
    expect(back).toMatchObject({ paymentMethod: { id: card }, defaultPaymentMethod: true });

    const other = await createCustomer(t);
    const foreign = await paymentMethod(t, other.id, 'card');
    expect(violations(await refusedUnchanged(t, storedSubscription(t, sub.id), () => patch(t, `/subscriptions/${sub.id}/payment-method`, { paymentMethodId: foreign })))).toEqual([
      'paymentMethodId: not_found',
    ]);
    expectProblem(
      await refusedUnchanged(t, storedSubscription(t, sub.id), () => api(`/subscriptions/${sub.id}/payment-method`, { token: t.key, method: 'PATCH', rawBody: JSON.stringify({ paymentMethodId: sepa }), contentType: 'text/plain' })),
      415,
    );
    expect(paths(await refusedUnchanged(t, storedSubscription(t, sub.id), () => patch(t, `/subscriptions/${sub.id}/payment-method`, { paymentMethodId: sepa, colour: 'red' })))).toEqual(['colour']);
    expect((await nonBillingEventTypes(t, sub.id)).slice(3)).toEqual(['subscription.payment_method.updated', 'subscription.payment_method.updated']);
  });
});

describe('comments', () => {
  it('POST and GET /subscriptions/{id}/comments', async () => {
    const f = await setup();
    const { t } = f;
    const sub = await activeSubscription(f);
    const first = await created(post(t, `/subscriptions/${sub.id}/comments`, { text: 'Called the customer', author: 'Bob' }));
    expect(first).toEqual({ id: expect.any(String), text: 'Called the customer', author: 'Bob', createdAt: DEFAULT_NOW });
    await setClock(t, '2030-01-16T00:00:00.000Z');
    const second = await created(post(t, `/subscriptions/${sub.id}/comments`, { text: 'Sent the offer' }));
    expect(second.author).toBeNull();
    const list = await ok(get(t, `/subscriptions/${sub.id}/comments`));
    expect(list.data).toEqual([first, second]);
    expect(list.meta.pagination).toEqual({ totalItems: 2, itemsPerPage: 30, currentPage: 1, lastPage: 1, pageTotalItems: 2 });
    expect((await ok(get(t, `/subscriptions/${sub.id}/comments?limit=1&page=2`))).data).toEqual([second]);
    expect(paths(await post(t, `/subscriptions/${sub.id}/comments`, { text: '   ' }))).toEqual(['text']);
    expectProblem(await post(t, '/subscriptions/nope/comments', { text: 'x' }), 404);
    expectProblem(await get(t, '/subscriptions/nope/comments'), 404);
    expect(await countRows('subscription_comments', t)).toBe(2);
  });
});
