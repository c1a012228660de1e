import { describe, expect, it } from 'vitest';
import { createTenant } from '../support/builders';
import { cartGet, cartPut, checkoutCatalogue, GERMAN_ADDRESS, openCart } from './builders';

// Changes of one cart that arrive together (the page saving the address while the quantity
// changes): each says what to set, so each is made on the cart as the other left it, and both
// are kept; none is refused for having met the other at the cart's version.

describe('concurrent changes of an open cart', () => {
  it('keeps the address and the last quantity when both are sent at once', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    const answers = await Promise.all([
      cartPut(cart.id, 'buyer', { email: 'both@example.com', invoiceAddress: GERMAN_ADDRESS }),
      cartPut(cart.id, 'change-quantity', { cartItemId: 'item-1', quantity: 3 }),
      cartPut(cart.id, 'coupon', { code: 'TEAM10' }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const after = (await cartGet(cart.id)).body;
    expect(after.email).toBe('both@example.com');
    expect(after.invoiceAddress).toMatchObject({ street: 'Hauptstr.', city: 'Berlin' });
    expect(after.items[0].quantity).toBe(3);
    expect(after.couponCode).toBe('TEAM10');
    // 3 seats × 10.00 − 10 % = 27.00 net, 19 % VAT.
    expect(after.price.amountDue).toBe('32.13');
  });
});
