import { describe, expect, it } from 'vitest';
import { api, countRows, eventsOf, expect422, expectProblem, expectStatus, get, query, type TestTenant } from '../support/api';
import { countedStatus, createCustomer, createTenant } from '../support/builders';
import { cartGet, cartPut, checkoutCatalogue, GERMAN_ADDRESS, openCart } from './builders';

// Completing a cart: customer, payment method, active subscription, first invoice (billed by
// billing, sourceType cart) and its collection, exactly once.

const testingCard = { type: 'fake_provider', token: 'testing_succeeds' };

async function rows(t: TestTenant) {
  return {
    customers: await countRows('customers', t),
    methods: await countRows('payment_methods', t),
    subscriptions: await countRows('subscriptions', t),
    invoices: await countRows('invoices', t),
  };
}

describe('PUT /public/checkout/cart/{id}/confirm', () => {
  it('makes the customer, an active subscription and a paid first invoice, and says what comes next', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    await cartPut(cart.id, 'coupon', { code: 'TEAM10' });
    const res = await cartPut(cart.id, 'confirm', { email: 'ada@example.com', phone: '+49 30 1234', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: testingCard });
    expectStatus(res, 200);
    expect(res.body).toEqual({ action: 'confirmation_message', confirmationMessage: 'Thank you!', redirectUrl: null, status: 'paid' });

    const done = (await cartGet(cart.id)).body;
    expect(done).toMatchObject({ status: 'paid', email: 'ada@example.com', customer: expect.any(String), subscription: expect.any(String), invoice: expect.any(String), paymentMethod: expect.any(String) });
    const customer = (await get(t, `/customers/${done.customer}`)).body;
    expect(customer).toMatchObject({ email: 'ada@example.com', firstName: 'Ada', countryCode: 'DE' });
    const subscription = (await get(t, `/subscriptions/${done.subscription}`)).body;
    expect(subscription).toMatchObject({ status: 'active', customer: { id: done.customer } });
    expect(subscription.items[0]).toMatchObject({ quantity: '2' });
    const invoice = (await get(t, `/invoices/${done.invoice}`)).body;
    // 2 seats × 10.00 − 10 % + 19 % VAT, to the cent, as the cart showed it.
    expect(invoice).toMatchObject({ status: 'STATUS_PAID', sourceType: 'cart', customer: { id: done.customer } });
    expect(done.price.amountDue).toBe('21.42');
    const [stored] = await query<{ gross_amount: number }>(t, 'SELECT gross_amount FROM invoices WHERE id = ?', done.invoice);
    expect(stored!.gross_amount).toBe(2142);
    expect(await countRows('transactions', t, "AND invoice_id = ? AND status = 'succeeded'", done.invoice)).toBe(1);
    const cartEvents = (await eventsOf(t, cart.id)).map((e) => e.type);
    expect(cartEvents.filter((e) => e.startsWith('cart.'))).toEqual(['cart.completed', 'cart.paid']);

    expect((await get(t, '/checkout/carts?status=paid')).body.data).toMatchObject([{ id: cart.id, status: 'paid', amountDue: '21.42', customer: done.customer }]);
    // Done is done: no more changes, no second completion.
    expectProblem(await cartPut(cart.id, 'change-quantity', { cartItemId: 'item-1', quantity: 3 }), 409, '/problems/cart-locked');
    expectProblem(await cartPut(cart.id, 'confirm', { email: 'ada@example.com', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: testingCard }), 409, '/problems/cart-locked');
  });

  it('is paid later when its first invoice is paid by bank transfer after completion', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    const res = await cartPut(cart.id, 'confirm', { email: 'later@example.com', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: { type: 'bank_transfer' } });
    expectStatus(res, 200);
    expect(res.body.status).toBe('completed');
    const done = (await cartGet(cart.id)).body;
    expect((await eventsOf(t, cart.id)).map((e) => e.type)).toEqual(['cart.completed']);
    expectStatus(await api(`/invoices/${done.invoice}/payments`, { token: t.key, body: { amount: '23.80' } }), 201);
    const events = (await eventsOf(t, cart.id)).filter((e) => e.type.startsWith('cart.'));
    expect(events.map((e) => e.type)).toEqual(['cart.completed', 'cart.paid']);
    expect(events[1]!.data).toEqual(events[0]!.data);
    expect((await get(t, '/checkout/carts?status=paid')).body.data).toMatchObject([{ id: cart.id, status: 'paid' }]);
  });

  it('asks for another payment method when the first is declined, and completes once with it', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    const body = { email: 'declined@example.com', newInvoiceAddress: GERMAN_ADDRESS };
    const declined = await cartPut(cart.id, 'confirm', { ...body, newPaymentMethod: { type: 'fake_provider', token: 'testing_declined' } });
    expect422(declined, ['newPaymentMethod']);
    expect(declined.body.violations[0].code).toBe('payment_declined');
    const reopened = (await cartGet(cart.id)).body;
    expect(reopened).toMatchObject({ status: 'open', paymentMethod: null, customer: expect.any(String), subscription: expect.any(String), invoice: expect.any(String) });
    expect(countedStatus((await get(t, `/invoices/${reopened.invoice}`)).body)).toBe('STATUS_UNPAID');

    const paid = await cartPut(cart.id, 'confirm', { newPaymentMethod: testingCard });
    expectStatus(paid, 200);
    expect(paid.body.status).toBe('paid');
    const done = (await cartGet(cart.id)).body;
    expect(await rows(t)).toEqual({ customers: 1, methods: 2, subscriptions: 1, invoices: 1 });
    expect((await get(t, `/invoices/${done.invoice}`)).body).toMatchObject({ status: 'STATUS_PAID', paymentMethod: { id: done.paymentMethod } });
    expect((await get(t, `/subscriptions/${done.subscription}`)).body.paymentMethod).toMatchObject({ id: done.paymentMethod });
    const attempts = (await get(t, `/transactions?invoice=${done.invoice}`)).body.data.map((x: any) => [x.attempt, x.status]);
    expect(attempts).toEqual([
      [2, 'succeeded'],
      [1, 'failed'],
    ]);
    expect((await eventsOf(t, cart.id)).map((e) => e.type).filter((e) => e.startsWith('cart.'))).toEqual(['cart.completed', 'cart.paid']);
  });

  it('confirms even when the buyer\'s details are saved at the same moment (the page saving the address as the order is sent)', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    for (let round = 0; round < 4; round++) {
      const cart = (await openCart(t)).body;
      const [saved, confirmed] = await Promise.all([
        cartPut(cart.id, 'buyer', { invoiceAddress: GERMAN_ADDRESS }),
        cartPut(cart.id, 'confirm', { email: `race-${round}@example.com`, newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: testingCard }),
      ]);
      expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
      // The save either landed first or found the cart being confirmed.
      expect([200, 409]).toContain(saved.status);
    }
    expect((await rows(t)).subscriptions).toBe(4);
  });

  it('completes exactly once when confirmed twice at the same time', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    const body = { email: 'twice@example.com', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: testingCard };
    const answers = await Promise.all([cartPut(cart.id, 'confirm', body), cartPut(cart.id, 'confirm', body)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(await rows(t)).toEqual({ customers: 1, methods: 1, subscriptions: 1, invoices: 1 });
    expect((await eventsOf(t, cart.id)).filter((e) => e.type === 'cart.completed')).toHaveLength(1);
  });

  it('starts a trial without an invoice, with a SEPA mandate or a bank transfer', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t, { slug: 'trial', options: { trialDays: 14, allowCoupons: false, quantityEditable: false, forceCompany: false } });
    const sepaCart = (await openCart(t, 'trial')).body;
    expect(sepaCart.price.amountDue).toBe('0.00');
    expect(sepaCart.items[0].price.recurring).toMatchObject({ trialPeriodDays: 14, recurringAmount: '20.00' });
    const res = await cartPut(sepaCart.id, 'confirm', {
      email: 'sepa@example.com',
      newInvoiceAddress: GERMAN_ADDRESS,
      newPaymentMethod: { type: 'sepa_debit', sepaDebit: { iban: 'DE89 3704 0044 0532 0130 00', accountHolder: 'Ada Lovelace' } },
    });
    expect(res.body).toMatchObject({ status: 'completed' });
    const done = (await cartGet(sepaCart.id)).body;
    expect(done.invoice).toBeNull();
    expect((await get(t, `/subscriptions/${done.subscription}`)).body).toMatchObject({ status: 'active', trialEndsOn: expect.any(String) });
    const method = (await get(t, `/payment-methods/${done.paymentMethod}`)).body;
    expect(method).toMatchObject({ type: 'sepa_debit', source: 'checkout', sepaDebit: { iban: 'DE89**************3000' } });
    expect((await eventsOf(t, sepaCart.id)).map((e) => e.type)).toContain('cart.completed');
    expect((await eventsOf(t, sepaCart.id)).map((e) => e.type)).not.toContain('cart.paid');

    const transferCart = (await openCart(t, 'trial')).body;
    expect((await cartPut(transferCart.id, 'confirm', { email: 'transfer@example.com', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: { type: 'bank_transfer' } })).body.status).toBe('completed');
  });

  it('asks an existing customer of the tenant for a one-time code, and treats another tenant’s customer as new', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const existing = await createCustomer(t, { email: 'known@example.com' });
    const other = await createTenant();
    await createCustomer(other, { email: 'elsewhere@example.com' });

    const cart = (await openCart(t)).body;
    const before = await rows(t);
    const asked = await cartPut(cart.id, 'confirm', { email: 'Known@example.com', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: testingCard });
    expect(asked.body).toEqual({ action: 'otp_required', confirmationMessage: null, redirectUrl: null, status: 'open' });
    expect(await rows(t)).toEqual(before);
    const [mail] = await query<{ body: string }>(t, 'SELECT body FROM outgoing_mails WHERE tenant_id = ? AND "to" = ?', t.id, 'known@example.com');
    const code = /\b(\d{6})\b/.exec(mail!.body)![1]!;
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    expectProblem(await cartPut(cart.id, 'confirm-otp', { email: 'known@example.com', otp: wrong }), 401);
    const confirmed = await cartPut(cart.id, 'confirm-otp', { email: 'known@example.com', otp: code });
    expectStatus(confirmed, 200);
    expect(confirmed.body).toMatchObject({ status: 'paid', customer: existing.id });
    expect(await countRows('customers', t)).toBe(before.customers);

    // A confirm waiting for its code keeps its IBAN sealed: not in the cart's stored state.
    const sepaCart = (await openCart(t)).body;
    const sepa = { type: 'sepa_debit', sepaDebit: { iban: 'DE89370400440532013000', accountHolder: 'Known Buyer' } };
    expect((await cartPut(sepaCart.id, 'confirm', { email: 'known@example.com', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: sepa })).body.action).toBe('otp_required');
    expect(await countRows('carts', t, "AND id = ? AND state LIKE '%370400440532013000%'", sepaCart.id)).toBe(0);
    const mails = await query<{ body: string }>(t, 'SELECT body FROM outgoing_mails WHERE tenant_id = ? AND "to" = ? ORDER BY created_at DESC', t.id, 'known@example.com');
    const second = /\b(\d{6})\b/.exec(mails[0]!.body)![1]!;
    expect((await cartPut(sepaCart.id, 'confirm-otp', { email: 'known@example.com', otp: second })).body).toMatchObject({ status: 'completed', customer: existing.id });
    const methods = (await get(t, `/customers/${existing.id}/payment-methods`)).body.data;
    expect(methods.some((m: any) => m.type === 'sepa_debit')).toBe(true);

    // The same e-mail at another tenant is nobody here: a new customer of this tenant.
    const fresh = (await openCart(t)).body;
    const res = await cartPut(fresh.id, 'confirm', { email: 'elsewhere@example.com', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: testingCard });
    expect(res.body.status).toBe('paid');
    expect(await countRows('customers', t, 'AND email = ?', 'elsewhere@example.com')).toBe(1);
    expect(await countRows('customers', other, 'AND email = ?', 'elsewhere@example.com')).toBe(1);
  });

  it('refuses bad input before anything is made', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t, { slug: 'b2b', options: { forceCompany: true } });
    const cart = (await openCart(t, 'b2b')).body;
    const cases: [unknown, string[]][] = [
      [{ newPaymentMethod: testingCard }, ['email', 'newInvoiceAddress']],
      [{ email: 'x@example.com', newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: testingCard }, ['newInvoiceAddress.companyName']],
      [{ email: 'x@example.com', newInvoiceAddress: { ...GERMAN_ADDRESS, companyName: 'ACME', countryCode: 'XX' }, newPaymentMethod: testingCard }, ['newInvoiceAddress.countryCode']],
      [
        { email: 'x@example.com', newInvoiceAddress: { ...GERMAN_ADDRESS, companyName: 'ACME' }, newPaymentMethod: { type: 'sepa_debit', sepaDebit: { iban: 'DE00123', accountHolder: 'ACME' } } },
        ['newPaymentMethod.sepaDebit.iban'],
      ],
      [{ email: 'x@example.com', newInvoiceAddress: { ...GERMAN_ADDRESS, companyName: 'ACME' }, newPaymentMethod: { type: 'fake_provider', token: 'tok_visa' } }, ['newPaymentMethod.token']],
      [{ email: 'x@example.com', newInvoiceAddress: { ...GERMAN_ADDRESS, companyName: 'ACME' }, newPaymentMethod: { type: 'card', token: 'pm_card_visa' } }, ['newPaymentMethod.type']],
      [{ email: 'x@example.com', newInvoiceAddress: { ...GERMAN_ADDRESS, companyName: 'ACME' } }, ['newPaymentMethod']],
    ];
    for (const [body, paths] of cases) expect422(await cartPut(cart.id, 'confirm', body), paths);
    expect(await rows(t)).toEqual({ customers: 0, methods: 0, subscriptions: 0, invoices: 0 });
    expect((await cartGet(cart.id)).body.status).toBe('open');
    // No card gateway: nothing to prepare for a card client.
    expectProblem(await cartPut(cart.id, 'prepare-stripe'), 409, '/problems/gateway-unconfigured');
    expectProblem(await api(`/public/checkout/cart/${cart.id}/payment-methods`), 401);
  });

  it('attaches a cart to a logged-in customer, who pays with a stored method', async () => {
    const t = await createTenant();
    await checkoutCatalogue(t);
    const customer = await createCustomer(t, { email: 'member@example.com', street: 'Hauptstr.', houseNumber: '1', zip: '10115', city: 'Berlin' });
    const method = (await api('/payment-methods', { token: t.key, body: { customer: customer.id, type: 'fake_provider', token: 'testing_succeeds' } })).body;
    const session = (await api(`/customers/${customer.id}/authenticate`, { token: t.key, method: 'POST' })).body;
    const intruder = await createCustomer(t);
    const intruderSession = (await api(`/customers/${intruder.id}/authenticate`, { token: t.key, method: 'POST' })).body;

    const cart = (await openCart(t, 'team', '', session.data.accessToken)).body;
    expect(cart).toMatchObject({ customer: customer.id, email: 'member@example.com', invoiceAddress: { countryCode: 'DE', city: 'Berlin' } });
    const methods = await api(`/public/checkout/cart/${cart.id}/payment-methods`, { token: session.data.accessToken });
    expect(methods.body.data.map((m: { id: string }) => m.id)).toEqual([method.id]);
    expect((await api(`/public/checkout/cart/${cart.id}/invoice-addresses`, { token: session.data.accessToken })).body.data).toMatchObject([{ city: 'Berlin' }]);
    expectProblem(await api(`/public/checkout/cart/${cart.id}/payment-methods`, { token: intruderSession.data.accessToken }), 404);

    const before = await countRows('customers', t);
    const res = await cartPut(cart.id, 'confirm', { paymentMethodId: method.id });
    expect(res.body.status).toBe('paid');
    const done = (await cartGet(cart.id)).body;
    expect(done).toMatchObject({ customer: customer.id, paymentMethod: method.id });
    expect(await countRows('customers', t)).toBe(before);
    expect((await get(t, `/subscriptions/${done.subscription}`)).body).toMatchObject({ status: 'active', customer: { id: customer.id } });
  });
});
