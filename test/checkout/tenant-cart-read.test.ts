import { describe, expect, it } from 'vitest';
import { dbOf, expectProblem, expectStatus, get } from '../support/api';
import { createTenant } from '../support/builders';
import { cartGet, cartPut, checkoutCatalogue, GERMAN_ADDRESS, openCart } from './builders';

// GET /checkout/carts/{id}: the tenant's read of one of its carts (Fynn's "retrieve a cart by id"),
// the cart as its buyer sees it (spec §2.6), also once completed or expired.

describe('GET /checkout/carts/{id}', () => {
  it('answers the cart as the public read shows it, after each change, and once it is paid', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    const read = await get(t, `/checkout/carts/${cart.id}`);
    expectStatus(read, 200);
    expect(read.body).toEqual(cart);

    await cartPut(cart.id, 'change-quantity', { cartItemId: cart.items[0].id, quantity: 3 });
    const changed = (await get(t, `/checkout/carts/${cart.id}`)).body;
    expect(changed.items[0].quantity).toBe(3);
    expect(changed).toEqual((await cartGet(cart.id)).body);

    const done = await cartPut(cart.id, 'confirm', { email: 'ada@example.com', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: { type: 'fake_provider', token: 'testing_succeeds' } });
    expectStatus(done, 200);
    const paid = (await get(t, `/checkout/carts/${cart.id}`)).body;
    expect(paid).toMatchObject({ status: 'paid', email: 'ada@example.com', subscription: expect.any(String), invoice: expect.any(String) });
    expect(paid).toEqual((await cartGet(cart.id)).body);
  });

  it('shows an open cart past its expiry as expired, where the public read has forgotten it', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    await (await dbOf(t)).prepare('UPDATE carts SET expires_at = ? WHERE tenant_id = ? AND id = ?').bind('2000-01-01T00:00:00.000Z', t.id, cart.id).run();
    expect((await get(t, `/checkout/carts/${cart.id}`)).body).toEqual({ ...cart, status: 'expired' });
  });

  it("is 404 for another tenant's cart and for unknown ids", async () => {
    const a = await createTenant();
    await checkoutCatalogue(a);
    const cart = (await openCart(a)).body;
    const b = await createTenant();
    expectProblem(await get(b, `/checkout/carts/${cart.id}`), 404);
    expectProblem(await get(a, `/checkout/carts/${'B'.repeat(32)}`), 404);
  });
});
