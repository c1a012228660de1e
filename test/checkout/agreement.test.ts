import { describe, expect, it } from 'vitest';
import { api, countRows, expect422, expectProblem, expectStatus, get, post } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { cartGet, cartPut, checkoutCatalogue, GERMAN_ADDRESS, openCart } from './builders';

// What the buyer was shown is what is billed: a catalogue change or a known customer's stored tax
// data that moves the price is shown before anything is made (409 price-changed), and inputs that
// cannot be billed are refused before any write.

const testing = { type: 'fake_provider', token: 'testing_succeeds' };
const AUSTRIAN_COMPANY = { companyName: 'Wiener GmbH', street: 'Ring', houseNumber: '1', zip: '1010', city: 'Wien', countryCode: 'AT', vatId: 'ATU13585627' };

describe('what the buyer agreed is what is billed', () => {
  it('shows a price changed in the catalogue before confirming, and bills the price then shown', async () => {
    const t = await createTenant();
    const { product } = await checkoutCatalogue(t);
    const dearer = await post(t, '/price-plans', { product: product.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '10.00' }, billingInterval: '1M' });
    expectStatus(dearer, 201);
    expectStatus(await post(t, '/checkout-links', { slug: 'solo', items: [{ product: product.id, pricePlan: dearer.body.id, quantity: 2 }] }), 201);
    const cart = (await openCart(t, 'solo')).body;
    expect(cart.price.amountDue).toBe('23.80');
    const changed = await api(`/price-plans/${dearer.body.id}`, { token: t.key, method: 'PATCH', body: { price: { amount: '12.00' } } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);

    const first = await cartPut(cart.id, 'confirm', { email: 'ada@example.com', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: testing });
    expectProblem(first, 409, '/problems/price-changed');
    expect(await countRows('customers', t)).toBe(0);
    const shown = (await cartGet(cart.id)).body;
    // 2 × 12.00 = 24.00 net + 19 % = 28.56.
    expect(shown).toMatchObject({ status: 'open', price: { amountDue: '28.56' } });
    const second = await cartPut(cart.id, 'confirm', { email: 'ada@example.com', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: testing });
    expectStatus(second, 200);
    const invoice = (await get(t, `/invoices/${(await cartGet(cart.id)).body.invoice}`)).body;
    expect(invoice.grossAmount).toEqual({ amount: '28.56', currencyCode: 'EUR' });
  });

  it('prices a known customer by its stored address and VAT id, not by one typed into the cart', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const customer = await createCustomer(t, { email: 'member@example.com', street: 'Hauptstr.', houseNumber: '1', zip: '10115', city: 'Berlin' });
    const session = (await api(`/customers/${customer.id}/authenticate`, { token: t.key, method: 'POST' })).body.data.accessToken;
    const cart = (await openCart(t, 'team', '', session)).body;
    const typed = await cartPut(cart.id, 'buyer', { invoiceAddress: AUSTRIAN_COMPANY });
    expectStatus(typed, 200);
    expect(typed.body.price.amountDue).toBe('20.00');
    expectProblem(await cartPut(cart.id, 'confirm', { newPaymentMethod: testing }), 409, '/problems/price-changed');
    expect((await cartGet(cart.id)).body).toMatchObject({ price: { amountDue: '23.80' }, invoiceAddress: { countryCode: 'DE' } });
    expectStatus(await cartPut(cart.id, 'confirm', { newPaymentMethod: testing }), 200);
    const done = (await cartGet(cart.id)).body;
    expect((await get(t, `/invoices/${done.invoice}`)).body.grossAmount.amount).toBe(done.price.amountDue);
  });

  it('refuses before any write what could not be billed: a SEPA holder outside the character set, a quantity too large, a redirect that is no web address', async () => {
    const t = await createTenant();
    const { product } = await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    const holder = await cartPut(cart.id, 'confirm', {
      email: 'ada@example.com',
      newInvoiceAddress: GERMAN_ADDRESS,
      newPaymentMethod: { type: 'sepa_debit', sepaDebit: { iban: 'DE89370400440532013000', accountHolder: 'Ada @ Home' } },
    });
    expect422(holder, ['newPaymentMethod.sepaDebit.accountHolder']);
    expect(await countRows('customers', t)).toBe(0);

    const huge = await post(t, '/price-plans', { product: product.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '99999999.99' }, billingInterval: '1M' });
    expectStatus(await post(t, '/checkout-links', { slug: 'huge', options: { quantityEditable: true }, items: [{ product: product.id, pricePlan: huge.body.id, quantity: 1 }] }), 201);
    const big = (await openCart(t, 'huge')).body;
    expect422(await cartPut(big.id, 'change-quantity', { cartItemId: big.items[0].id, quantity: 999_999_999 }), ['quantity']);

    for (const url of ['javascript:alert(1)', 'data:text/html,hi']) {
      expect422(await post(t, '/checkout-links', { slug: 'evil', afterCheckout: { action: 'redirect', url }, items: [{ product: product.id, pricePlan: huge.body.id, quantity: 1 }] }), ['afterCheckout.url']);
    }
  });
});
