import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expect422, expectProblem, expectStatus, get, query, dbOf, sweepOf } from '../support/api';
import { createTenant } from '../support/builders';
import { cartGet, cartPut, checkoutCatalogue, openCart } from './builders';

// Public carts: opened from a link, priced by the billing code (19 % DE VAT on 10.00 EUR a seat),
// read from the cart's Durable Object, changed by the buyer.

describe('public carts', () => {
  it('opens a cart with an unguessable id and the prices billing would charge', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const res = await openCart(t, 'team', '?email=ada%40example.com&firstName=Ada');
    expectStatus(res, 201);
    const cart = res.body;
    expect(cart.id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(cart).toMatchObject({
      status: 'open',
      customer: null,
      invoiceAddress: null,
      customerPrefill: { email: 'ada@example.com', firstName: 'Ada' },
      price: { amountDue: '23.80', netAmount: '20.00', taxAmount: '3.80', currencyCode: 'EUR', taxes: [{ netAmount: '20.00', taxAmount: '3.80', rate: '19' }] },
      items: [{ quantity: 2, price: { totalNetAmount: '20.00', taxRate: '19', recurring: { interval: 'month', intervalCount: 1, recurringAmount: '20.00' } } }],
      settings: { allowCoupons: true, forceCompany: false, paymentMethods: ['fake_provider', 'sepa_debit', 'bank_transfer'] },
    });
    expect((await cartGet(cart.id)).body).toEqual(cart);
    const [row] = await query<{ tenant_id: string; status: string; amount_due: number }>(t, 'SELECT tenant_id, status, amount_due FROM carts WHERE id = ?', cart.id);
    expect(row).toEqual({ tenant_id: t.id, status: 'open', amount_due: 2380 });
  });

  it('offers the testing gateway to test tenants only', async () => {
    const live = await createTenant({ mode: 'live' });
    await checkoutCatalogue(live);
    const cart = (await openCart(live)).body;
    expect(cart.settings.paymentMethods).toEqual(['sepa_debit', 'bank_transfer']);
  });

  it('reads a change back at once and answers reads from the cart object, not D1', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    const changed = await cartPut(cart.id, 'change-quantity', { cartItemId: 'item-1', quantity: 3 });
    expectStatus(changed, 200);
    expect(changed.body.price).toMatchObject({ netAmount: '30.00', amountDue: '35.70' });
    expect((await cartGet(cart.id)).body.price.amountDue).toBe('35.70');

    // The durable record changed behind the object's back: a read does not see it, since it never asks D1.
    await (await dbOf(t)).prepare("UPDATE carts SET state = json_set(state, '$.view.price.amountDue', '0.01') WHERE id = ?").bind(cart.id).run();
    expect((await cartGet(cart.id)).body.price.amountDue).toBe('35.70');
    // Nor does a read of an unknown id of the right shape find anything there.
    expectProblem(await cartGet('A'.repeat(32)), 404);
    expectProblem(await cartGet('not-a-cart'), 404);
  });

  it('heals an object that missed a write: the change after it is made again on the cart as D1 has it', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    expectStatus(await cartPut(cart.id, 'change-quantity', { cartItemId: 'item-1', quantity: 3 }), 200);
    // D1 took a change whose write to the object was lost (version 3, 4 seats).
    await (await dbOf(t)).prepare(
      "UPDATE carts SET version = version + 1, state = json_set(state, '$.version', version + 1, '$.items[0].quantity', 4, '$.view.items[0].quantity', 4) WHERE id = ?",
    )
      .bind(cart.id)
      .run();
    // Met at the version, the object is given D1's copy and the change made again on it.
    const again = await cartPut(cart.id, 'change-quantity', { cartItemId: 'item-1', quantity: 5 });
    expectStatus(again, 200);
    expect(again.body.price.amountDue).toBe('59.50');
    expect((await cartGet(cart.id)).body.items[0].quantity).toBe(5);
    const [row] = await (await dbOf(t)).prepare('SELECT version FROM carts WHERE id = ?').bind(cart.id).all<{ version: number }>().then((r) => r.results);
    expect(row!.version).toBe(4);
  });

  it('applies and removes a coupon, and taxes by the buyer’s country and VAT id', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    const withCoupon = await cartPut(cart.id, 'coupon', { code: 'TEAM10' });
    expectStatus(withCoupon, 200);
    expect(withCoupon.body).toMatchObject({ couponCode: 'TEAM10', price: { netAmount: '18.00', amountDue: '21.42', discountDetails: [{ code: 'TEAM10', amount: '2.00' }] } });
    const removed = await api(`/public/checkout/cart/${cart.id}/coupon`, { method: 'DELETE' });
    expect(removed.body.price.amountDue).toBe('23.80');

    // A French consumer pays French VAT (OSS); a French business with a registered VAT id: reverse charge.
    const consumer = await cartPut(cart.id, 'buyer', { email: 'marie@example.fr', invoiceAddress: { countryCode: 'FR', city: 'Paris' } });
    expect(consumer.body.price).toMatchObject({ amountDue: '24.00', taxes: [{ rate: '20', category: 'S' }] });
    const business = await cartPut(cart.id, 'buyer', { invoiceAddress: { countryCode: 'FR', companyName: 'Société SA', vatId: 'FR40303265045' } });
    expect(business.body.invoiceAddress).toMatchObject({ vatId: 'FR40303265045', vatIdValid: true });
    expect(business.body.price).toMatchObject({ amountDue: '20.00', taxAmount: '0.00', taxes: [{ rate: '0', category: 'AE' }] });
    // The registry does not know this one (FAKE_VIES_UNREGISTERED): refused, the cart as it was.
    expect422(await cartPut(cart.id, 'buyer', { invoiceAddress: { countryCode: 'DE', vatId: 'DE811907980' } }), ['invoiceAddress.vatId']);
    expect((await cartGet(cart.id)).body.price.amountDue).toBe('20.00');
  });

  it('refuses bad input with violations and leaves the cart as it was', async () => {
    const t = await createTenant();
    const { plan } = await checkoutCatalogue(t);
    const other = await createTenant();
    await checkoutCatalogue(other);
    // A coupon of another plan.
    await api('/coupons', { token: t.key, body: { code: 'OTHER', name: 'Other', type: 'percentage', percentage: 50, frequency: 'once', excludedFromPlans: [plan.id] } });
    const cart = (await openCart(t)).body;
    const cases: [string, unknown, string[]][] = [
      ['change-quantity', { cartItemId: 'item-1', quantity: 11 }, ['quantity']],
      ['change-quantity', { cartItemId: 'item-1', quantity: 0 }, ['quantity']],
      ['change-quantity', { cartItemId: 'item-9', quantity: 1 }, ['cartItemId']],
      ['coupon', { code: 'OTHER' }, ['code']],
      ['coupon', { code: 'NOPE' }, ['code']],
      ['buyer', { email: 'not-an-email', invoiceAddress: { countryCode: 'XX' } }, ['email', 'invoiceAddress.countryCode']],
      ['buyer', { invoiceAddress: { countryCode: 'DE', zip: 'z'.repeat(300) } }, ['invoiceAddress.zip']],
      ['buyer', { invoiceAddress: { city: 'Berlin' } }, ['invoiceAddress.countryCode']],
    ];
    for (const [op, body, paths] of cases) expect422(await cartPut(cart.id, op, body), paths);
    expect((await cartGet(cart.id)).body).toEqual(cart);

    // Unknown and disabled links, and another tenant's link under this tenant's name: 404.
    expectProblem(await openCart(t, 'nope'), 404);
    expectProblem(await api(`/public/checkout/links/${'0'.repeat(36)}/team/cart`, { method: 'POST' }), 404);
  });

  it('purges the records of carts abandoned more than 30 days ago, keeping completed ones', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const abandoned = (await openCart(t)).body;
    const recent = (await openCart(t)).body;
    const done = (await openCart(t)).body;
    expectStatus(await cartPut(done.id, 'confirm', { email: 'kept@example.com', newInvoiceAddress: { firstName: 'A', lastName: 'B', street: 'S', houseNumber: '1', zip: '10115', city: 'Berlin', countryCode: 'DE' }, newPaymentMethod: { type: 'bank_transfer' } }), 200);
    const longAgo = new Date(Date.now() - 31 * 86_400_000).toISOString();
    await (await dbOf(t)).prepare('UPDATE carts SET expires_at = ? WHERE id IN (?, ?)').bind(longAgo, abandoned.id, done.id).run();
    await (await dbOf(t)).prepare('UPDATE carts SET expires_at = ? WHERE id = ?').bind(new Date(Date.now() - 86_400_000).toISOString(), recent.id).run();
    const { purgeAbandonedCarts } = await import('../../src/cron/index');
    expect(await purgeAbandonedCarts(await sweepOf(t))).toBeGreaterThanOrEqual(1);
    const left = await query<{ id: string }>(t, 'SELECT id FROM carts WHERE tenant_id = ? ORDER BY created_at', t.id);
    expect(left.map((r) => r.id).sort()).toEqual([recent.id, done.id].sort());
  });

  it('forgets a cart once it expired', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    const past = new Date(Date.now() - 1000).toISOString();
    const { runInDurableObject } = await import('cloudflare:test');
    await runInDurableObject(env.CART.get(env.CART.idFromName(cart.id)), async (obj, state) => {
      const stored = (await state.storage.get<{ version: number; expiresAt: string; state: string }>('cart'))!;
      await state.storage.put('cart', { ...stored, expiresAt: past });
      // As after an eviction: the object reads its storage again.
      (obj as unknown as { cached: unknown }).cached = undefined;
    });
    await (await dbOf(t)).prepare('UPDATE carts SET expires_at = ? WHERE id = ?').bind(past, cart.id).run();
    expectProblem(await cartGet(cart.id), 404);
    expectProblem(await cartPut(cart.id, 'change-quantity', { cartItemId: 'item-1', quantity: 3 }), 404);
  });

  it('keeps carts apart between tenants', async () => {
    const a = await createTenant();
    const b = await createTenant();
    await checkoutCatalogue(a);
    await checkoutCatalogue(b);
    const cart = (await openCart(a)).body;
    expect((await get(a, '/checkout/carts')).body.data.map((c: { id: string }) => c.id)).toEqual([cart.id]);
    expect((await get(b, '/checkout/carts')).body.data).toEqual([]);
    expectStatus(await get(a, '/checkout/carts?status=completed'), 200);
    expect((await get(a, '/checkout/carts?status[]=completed&status[]=paid')).body.data).toEqual([]);
  });
});
