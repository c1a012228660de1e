import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, countRows, del, expectProblem, expectStatus, get, patch, post, put, query, violations, type TestTenant, dbOf } from '../support/api';
import { created, createCustomer, createTenant, eventTypes, flatMonthlyFee, ok } from '../support/builders';
import { paymentMethod } from '../subscriptions/builders';
import { createGroup } from './builders';
import { backgroundSettled } from '../../src/lib/background';

// Deleting a customer, a customer group or an address never leaves rows pointing at nothing: what
// is referenced is refused with 409, also when the reference is written concurrently (the guard is
// inside the deleting batch, and the writers check in theirs that the customer still exists).

async function draftSubscription(t: TestTenant, customerId: string, extra: Record<string, unknown> = {}) {
  const { product, price } = await flatMonthlyFee(t, '10.00', 'Pro');
  return created(post(t, '/subscriptions', { customer: customerId, items: [{ product: product.id, pricePlan: price.id, quantity: '1' }], ...extra }));
}

/** Rows of `table` whose customer_id names no customer of the tenant. */
async function orphans(t: TestTenant, table: string) {
  const [row] = await query<{ n: number }>(
    t,
    `SELECT count(*) AS n FROM ${table} x WHERE x.tenant_id = ? AND NOT EXISTS (SELECT 1 FROM customers c WHERE c.tenant_id = x.tenant_id AND c.id = x.customer_id)`,
    t.id,
  );
  return row!.n;
}

describe('DELETE /customers/{id} with references', () => {
  it.each(['draft', 'active'])('409 for a customer with a %s subscription; the subscriptions stay readable', async (status) => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const sub = await draftSubscription(t, c.id);
    if (status === 'active') await ok(put(t, `/subscriptions/${sub.id}/activate`, {}));
    const res = await del(t, `/customers/${c.id}`);
    expectProblem(res, 409, '/problems/has-subscriptions');
    expectStatus(await get(t, `/customers/${c.id}`), 200);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
    // What answered 500 once the customer was gone.
    expect((await ok(get(t, '/subscriptions'))).data.map((s: any) => s.id)).toEqual([sub.id]);
    expect((await ok(get(t, `/subscriptions/${sub.id}`))).customer.id).toBe(c.id);
    expect(await orphans(t, 'subscriptions')).toBe(0);
  });

  it('deletes the customer once its draft subscription is gone, with its payment methods, sessions and codes', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const sub = await draftSubscription(t, c.id);
    await paymentMethod(t, c.id, 'card', true);
    expectStatus(await post(t, `/customers/${c.id}/authenticate`), 201);
    expectStatus(await api('/public/customer/request-otp', { token: t.key, body: { email: c.email } }), 200);
    await backgroundSettled(); // the code is stored after the answer
    expectProblem(await del(t, `/customers/${c.id}`), 409);
    expectStatus(await del(t, `/subscriptions/${sub.id}`), 204);
    expectStatus(await del(t, `/customers/${c.id}`), 204);
    for (const table of ['customer_addresses', 'customer_email_addresses', 'payment_methods', 'customer_sessions', 'customer_otp_codes']) {
      expect(await countRows(table, t, 'AND customer_id = ?', c.id), table).toBe(0);
    }
  });

  it('409 while a price plan is reserved for the customer', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const { product } = await flatMonthlyFee(t, '10.00', 'Pro');
    const custom = await created(
      post(t, '/price-plans', { product: product.id, calculationType: 'flat_fee', currencyCode: 'EUR', price: { amount: '5.00' }, billingInterval: '1M', custom: true, customer: c.id }),
    );
    expectProblem(await del(t, `/customers/${c.id}`), 409, '/problems/has-price-plans');
    expectStatus(await del(t, `/price-plans/${custom.id}`), 204);
    expectStatus(await del(t, `/customers/${c.id}`), 204);
  });

  it('409 for the partner of other customers', async () => {
    const t = await createTenant();
    const partner = await createCustomer(t, { isPartner: true });
    const client = await createCustomer(t);
    expectStatus(await put(t, `/customers/${client.id}/partner`, { partner: partner.id }), 200);
    expectProblem(await del(t, `/customers/${partner.id}`), 409, '/problems/partner-in-use');
  });

  it('never leaves a subscription without its customer when both happen at once', async () => {
    const t = await createTenant();
    const { product, price } = await flatMonthlyFee(t, '10.00', 'Pro');
    for (let round = 0; round < 6; round++) {
      const c = await createCustomer(t);
      const [sub, gone] = await Promise.all([
        api('/subscriptions', { token: t.key, body: { customer: c.id, items: [{ product: product.id, pricePlan: price.id, quantity: '1' }] } }),
        del(t, `/customers/${c.id}`),
      ]);
      // Exactly one of the two wins: a subscription of a kept customer, or a deleted customer and no subscription.
      if (sub.status === 201) expectProblem(gone, 409, '/problems/has-subscriptions');
      else {
        expectStatus(gone, 204);
        expectProblem(sub, 422);
      }
    }
    expect(await orphans(t, 'subscriptions')).toBe(0);
    expectStatus(await get(t, '/subscriptions'), 200);
  });

  it('never leaves an invoice without its customer when both happen at once', async () => {
    const t = await createTenant();
    for (let round = 0; round < 4; round++) {
      const c = await createCustomer(t);
      const [invoice, gone] = await Promise.all([
        api('/invoices', { token: t.key, body: { customer: c.id, positions: [{ name: 'Service', unitPrice: '10.00', quantity: '1', taxRate: '19' }] } }),
        del(t, `/customers/${c.id}`),
      ]);
      if (invoice.status === 201) expectProblem(gone, 409, '/problems/has-documents');
      else expectStatus(gone, 204);
    }
    expect(await orphans(t, 'invoices')).toBe(0);
  });
});

describe('other deletes that customers refer to', () => {
  it('an address a subscription bills to cannot be deleted (409), but can be archived', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { invoiceAddress: { street: 'Rechnungsweg', city: 'Bonn', zip: '53111' } });
    const invoiceAddress = c.addresses.find((a: any) => a.type === 'TYPE_INVOICE');
    await draftSubscription(t, c.id, { invoiceAddress: invoiceAddress.id });
    expectProblem(await del(t, `/customers/${c.id}/addresses/${invoiceAddress.id}`), 409, '/problems/address-in-use');
    expect(await countRows('customer_addresses', t, 'AND id = ?', invoiceAddress.id)).toBe(1);
    expectStatus(await put(t, `/customers/${c.id}/addresses/${invoiceAddress.id}`, { status: 'archived', default: false }), 200);
  });

  it('never leaves a subscription billing to an address deleted at the same time', async () => {
    const t = await createTenant();
    const { product, price } = await flatMonthlyFee(t, '10.00', 'Pro');
    const c = await createCustomer(t);
    for (let round = 0; round < 6; round++) {
      const address = await created(post(t, `/customers/${c.id}/addresses`, { type: 'TYPE_INVOICE', street: `Weg ${round}`, zip: '53111', city: 'Bonn', countryCode: 'DE', default: false }));
      const [sub, gone] = await Promise.all([
        api('/subscriptions', { token: t.key, body: { customer: c.id, invoiceAddress: address.id, items: [{ product: product.id, pricePlan: price.id, quantity: '1' }] } }),
        del(t, `/customers/${c.id}/addresses/${address.id}`),
      ]);
      if (sub.status === 201) expectProblem(gone, 409, '/problems/address-in-use');
      else {
        expectStatus(gone, 204);
        expect(violations(sub)).toEqual(['invoiceAddress: not_found']);
      }
    }
    const [dangling] = await query<{ n: number }>(
      t,
      `SELECT count(*) AS n FROM subscriptions s WHERE s.tenant_id = ? AND s.invoice_address_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM customer_addresses a WHERE a.tenant_id = s.tenant_id AND a.id = s.invoice_address_id)`,
      t.id,
    );
    expect(dangling!.n).toBe(0);
  });

  it('never writes a price plan reserved for a customer deleted between its check and its write', async () => {
    const t = await createTenant();
    const { product } = await flatMonthlyFee(t, '10.00', 'Pro');
    const c = await createCustomer(t);
    const { openTenant } = await import('../../src/db/directory');
    const { createServiceContext } = await import('../../src/services/context');
    const { pricePlanService } = await import('../../src/services/catalogue/price-plans');
    // The tenant's row and database, through the one door to its shard.
    const { db, tenant } = (await openTenant(env, t.id))!;
    // The race made deterministic: the customer goes away right before the creating batch runs.
    const racing = new Proxy(db, {
      get: (target, prop, receiver) =>
        prop === 'batch'
          ? async (statements: Parameters<typeof db.batch>[0]) => {
              await (await dbOf(t)).prepare('DELETE FROM customers WHERE tenant_id = ? AND id = ?').bind(t.id, c.id).run();
              return target.batch(statements);
            }
          : Reflect.get(target, prop, receiver),
    });
    const ctx = createServiceContext({ env, db: racing, tenant });
    const input = {
      product: product.id,
      internalName: null,
      status: 'active' as const,
      type: null,
      calculationType: 'flat_fee' as const,
      currencyCode: 'EUR',
      price: { amount: '5.00' },
      percentage: null,
      tiers: null,
      freeUnits: '0',
      billingInterval: '1M',
      showPricePerInterval: null,
      applyTrial: false,
      payInAdvance: null,
      proRata: true,
      custom: true,
      customer: c.id,
      salesChannel: null,
    };
    const { ApiError } = await import('../../src/http/errors');
    const err = await pricePlanService.create(ctx, input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as InstanceType<typeof ApiError>).violations?.map((v) => `${v.propertyPath}: ${v.code}`)).toEqual(['customer: not_found']);
    expect(await countRows('price_plans', t, 'AND customer_id = ?', c.id)).toBe(0);
  });

  it('a customer group or contact person is never deleted under a customer assigned to it at the same time', async () => {
    const t = await createTenant();
    for (let round = 0; round < 5; round++) {
      const group = await createGroup(t, `G${round}`);
      const contact = await created(post(t, '/contact-persons', { firstName: 'Carla', lastName: 'Contact', email: 'carla@example.com' }));
      const c = await createCustomer(t);
      await Promise.all([
        patch(t, `/customers/${c.id}`, { customerGroup: group.id, contactPerson: contact.id }),
        del(t, `/customer-groups/${group.id}`),
        del(t, `/contact-persons/${contact.id}`),
      ]);
    }
    const [dangling] = await query<{ n: number }>(
      t,
      `SELECT count(*) AS n FROM customers c WHERE c.tenant_id = ? AND (
         (c.customer_group_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM customer_groups g WHERE g.tenant_id = c.tenant_id AND g.id = c.customer_group_id))
         OR (c.contact_person_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM contact_persons p WHERE p.tenant_id = c.tenant_id AND p.id = c.contact_person_id)))`,
      t.id,
    );
    expect(dangling!.n).toBe(0);
  });

  it('a partner is never deleted or unmarked under a client assigned to it at the same time', async () => {
    const t = await createTenant();
    for (let round = 0; round < 5; round++) {
      const partner = await createCustomer(t, { isPartner: true });
      const client = await createCustomer(t);
      await Promise.all([round % 2 ? del(t, `/customers/${partner.id}`) : patch(t, `/customers/${partner.id}`, { isPartner: false }), put(t, `/customers/${client.id}/partner`, { partner: partner.id })]);
    }
    const [dangling] = await query<{ n: number }>(
      t,
      `SELECT count(*) AS n FROM customers c WHERE c.tenant_id = ? AND c.partner_id IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM customers p WHERE p.tenant_id = c.tenant_id AND p.id = c.partner_id AND p.is_partner = 1)`,
      t.id,
    );
    expect(dangling!.n).toBe(0);
  });
});
