// Confirming a cart: checks everything the buyer sent before anything is written, locks the cart
// (open → confirming, guarded by its version: of two concurrent confirms exactly one gets the
// lock), then makes the customer (or uses the logged-in one), its payment method, the active
// subscription with the link's trial and the first invoice (billed by billing itself, finalized,
// collected at once through the collection path), recording each step on the cart so that a
// confirm that failed half-way continues where it stopped instead of doing anything twice.
import { and, eq } from 'drizzle-orm';
import { isSEPACountry } from 'ibantools';
import { tenantRowsById } from '../../db/client';
import { secretBox } from '../../lib/secret-box';
import { customers, paymentMethods, pricePlans } from '../../db/schema';
import { loadTaxGroups } from '../billing/inputs';
import { customerCartAddress } from './open';
import { Checker } from '../../documents/sepa/rules';
import { ApiError, Violations } from '../../http/errors';
import type { ConfirmCartInput, ConfirmCartResult, NewPaymentMethodInput } from '../../schemas/checkout';
import type { ServiceContext } from '../context';
import { createCustomer, customerInput } from '../customers/create';
import { checkAccountHolder, createPaymentMethod } from '../payments/methods-create';
import { requestOtp } from '../platform/customer-otp';
import { isTestingToken, TESTING_TOKENS } from '../ports/gateways/testing';
import { checkItems, createSubscription } from '../subscriptions/create';
import { activateSubscription } from '../subscriptions/lifecycle';
import { checkAddress, checkEmail, checkPhone } from './buyer';
import { customerHasAddress } from './customer-lists';
import { cartCoupon } from './cart-coupons';
import { loadCart, storeChange, type CartState } from './state';
import { finish } from './completion-invoice';
import { setPaymentMethod as setInvoicePaymentMethod } from '../invoices/operations';
import { setPaymentMethod as setSubscriptionPaymentMethod } from '../subscriptions/details';

/** A confirm left in `confirming` this long (its worker died) may be taken over by a new one. */
const STALE_CONFIRM_MS = 2 * 60 * 1000;

interface Checked {
  email: string | null;
  phone: string | null;
  address: CartState['invoiceAddress'];
  addressId: string | null;
  method: NewPaymentMethodInput | null;
  methodId: string | null;
  /** An existing customer of this tenant has this e-mail: the buyer proves it with a one-time code. */
  existingCustomerId: string | null;
  /** The cart's coupon as it is now (checked still valid), or null. */
  coupon: CartState['coupon'];
  /** The acceptance of the tenant's terms this confirm carries (null when the tenant has none). */
  termsAcceptance: CartState['termsAcceptance'];
}

function checkNewMethod(ctx: ServiceContext, m: NewPaymentMethodInput, v: Violations) {
  const at = 'newPaymentMethod';
  switch (m.type) {
    case 'fake_provider':
      if (m.token && !isTestingToken(m.token)) v.add(`${at}.token`, `Must be one of the testing tokens: ${Object.keys(TESTING_TOKENS).join(', ')}.`, 'unknown_token');
      if (ctx.tenant.mode !== 'test') v.add(`${at}.type`, 'The testing gateway is for test tenants only.', 'not_allowed');
      return;
    case 'sepa_debit': {
      const s = m.sepaDebit;
      if (!s) return void v.add(`${at}.sepaDebit`, 'Required for a sepa_debit method.', 'required');
      // The file writer's rules (src/documents/sepa/rules.ts), as POST /payment-methods applies them.
      const checker = new Checker();
      const iban = checker.iban(`${at}.sepaDebit.iban`, s.iban ?? '');
      if (checker.violations.length === 0 && !isSEPACountry(iban.slice(0, 2))) v.add(`${at}.sepaDebit.iban`, 'Must be an IBAN of a country of the SEPA scheme.', 'not_sepa');
      checker.bic(`${at}.sepaDebit.bic`, s.bic ?? undefined);
      checkAccountHolder(checker, v, `${at}.sepaDebit.accountHolder`, s.accountHolder?.trim() ?? '');
      for (const p of checker.violations) v.add(p.path, p.message, p.rule);
      return;
    }
    case 'bank_transfer':
      return;
    case 'card':
      if (!m.token) v.add(`${at}.token`, "Required for a card: the card gateway's payment method id (e.g. pm_…).", 'required');
      return;
    default:
      v.add(`${at}.type`, 'Must be fake_provider, sepa_debit, bank_transfer or card.', 'invalid_choice');
  }
}

/** Every rule of the confirm body, before anything is written. */
async function checkConfirm(ctx: ServiceContext, state: CartState, input: ConfirmCartInput): Promise<Checked> {
  const v = new Violations();
  const known = state.loggedIn || state.customerId !== null;
  const email = state.loggedIn ? state.email : (checkEmail(input.email ?? state.email, 'email', v, true) ?? null);
  const phone = checkPhone(input.phone ?? state.phone, 'phone', v);
  if (input.invoiceAddressId && input.newInvoiceAddress) v.add('newInvoiceAddress', 'Send invoiceAddressId or newInvoiceAddress, not both.', 'conflicting_fields');
  if (input.paymentMethodId && input.newPaymentMethod) v.add('newPaymentMethod', 'Send paymentMethodId or newPaymentMethod, not both.', 'conflicting_fields');

  let address = state.invoiceAddress;
  let addressId: string | null = null;
  if (input.newInvoiceAddress) address = await checkAddress(ctx, input.newInvoiceAddress, 'newInvoiceAddress', v, state.options.forceCompany);
  else if (input.invoiceAddressId) {
    if (!state.loggedIn) v.add('invoiceAddressId', 'Only a logged-in customer can use a stored address.', 'not_found');
    addressId = input.invoiceAddressId;
  } else if (!address && !state.loggedIn) v.add('newInvoiceAddress', 'The invoice address is required.', 'required');
  else if (address && state.options.forceCompany && !address.companyName) v.add('newInvoiceAddress.companyName', 'This checkout sells to companies only: the company name is required.', 'required');

  // The tenant's terms, when it has any, are part of the order: no order without accepting them.
  if (state.seller?.termsUrl && input.acceptTerms !== true) v.add('acceptTerms', 'Accept the terms and conditions to order.', 'required');

  let methodId: string | null = null;
  if (input.newPaymentMethod) checkNewMethod(ctx, input.newPaymentMethod, v);
  else if (input.paymentMethodId) methodId = input.paymentMethodId;
  else if (!state.paymentMethodId) v.add('newPaymentMethod', 'A payment method is required.', 'required');
  v.throwIfAny();

  // Checks that need the database, reported together.
  const d = new Violations();
  if (addressId || methodId) {
    if (!state.customerId) d.add(addressId ? 'invoiceAddressId' : 'paymentMethodId', 'Not found.', 'not_found');
  }
  if (methodId && state.customerId) {
    const m = await ctx.db
      .select()
      .from(paymentMethods)
      .where(and(eq(paymentMethods.tenantId, ctx.tenant.id), eq(paymentMethods.id, methodId), eq(paymentMethods.customerId, state.customerId)))
      .get();
    if (!m || !m.enabled || m.status !== 'active') d.add('paymentMethodId', 'No usable payment method of this customer.', 'not_found');
  }
  if (addressId && state.customerId && !(await customerHasAddress(ctx, state.customerId, addressId))) {
    d.add('invoiceAddressId', 'No such address of this customer.', 'not_found');
  }
  if (input.newPaymentMethod?.type === 'card' && !(await ctx.gateways.get('card_provider'))) {
    d.add('newPaymentMethod.type', 'This tenant takes no cards: no card gateway is configured.', 'gateway_unconfigured');
  }
  // What was sellable when the cart was opened must still be (an archived product, a retired price).
  const items = new Violations();
  await checkItems(ctx, state.customerId ?? '', state.items.map((i) => ({ product: i.productId, pricePlan: i.price.id, quantity: String(i.quantity) })), 'items', items);
  if (!items.empty) d.add('items', 'Something in the cart can no longer be bought.', 'not_available');
  let coupon: CartState['coupon'] = null;
  if (state.coupon) {
    try {
      coupon = await cartCoupon(ctx, state, state.coupon.code, 'couponCode');
    } catch (err) {
      if (!(err instanceof ApiError) || !err.violations) throw err;
      for (const x of err.violations) d.add(x.propertyPath, x.message, x.code);
    }
  }
  d.throwIfAny();

  let existingCustomerId: string | null = null;
  if (!known && email) {
    // Only this tenant's customers count: the same e-mail at another tenant is a new customer here.
    const found = await ctx.db
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.emailKey, email.toLowerCase())))
      .get();
    existingCustomerId = found?.id ?? null;
  }
  const termsAcceptance = state.seller?.termsUrl ? { acceptedAt: ctx.now.toISOString(), termsUrl: state.seller.termsUrl } : null;
  return { email, phone, address, addressId, method: input.newPaymentMethod ?? null, methodId, existingCustomerId, coupon, termsAcceptance };
}

/** Open, or confirming under a lock its worker left behind; otherwise 409 cart-locked. */
function requireConfirmable(state: CartState): void {
  const stale = state.status === 'confirming' && Date.now() - (state.lockedAt ?? 0) > STALE_CONFIRM_MS;
  if (state.status !== 'open' && !stale) {
    throw ApiError.conflict(state.status === 'confirming' ? 'The cart is being confirmed.' : 'The cart is already completed.', 'cart-locked');
  }
}

/** Takes the lock: open → confirming (or a stale confirming taken over), guarded by the version read. */
async function lock(ctx: ServiceContext, state: CartState, change: Partial<CartState>): Promise<CartState> {
  requireConfirmable(state);
  try {
    return await storeChange(ctx, state, { ...change, status: 'confirming', lockedAt: Date.now() });
  } catch (err) {
    if (err instanceof ApiError && err.type === 'concurrent-update') throw ApiError.conflict('The cart is being confirmed.', 'cart-locked');
    throw err;
  }
}

/**
 * A confirm that waits for the one-time code is kept in the cart sealed under PAYMENT_SECRETS_KEY
 * (AES-256-GCM, bound to the cart): its body may carry an IBAN, which the cart's stored state (D1
 * and the cart's object) must not hold in clear.
 */
const pendingContext = (cartId: string) => `cart-pending-confirm\n${cartId}`;
const sealConfirm = (ctx: ServiceContext, cartId: string, input: ConfirmCartInput) => secretBox(ctx.env.PAYMENT_SECRETS_KEY).seal(JSON.stringify(input), pendingContext(cartId));
const openConfirm = async (ctx: ServiceContext, cartId: string, sealed: string) => JSON.parse(await secretBox(ctx.env.PAYMENT_SECRETS_KEY).open(sealed, pendingContext(cartId))) as ConfirmCartInput;

/** The part of the cart's view a buyer agrees to: what is due now and what recurs. */
const agreed = (view: CartState['view']) => JSON.stringify([view.price, view.items.map((i) => i.price)]);

/**
 * What completion bills is the catalogue as it is now and, for a known customer, the customer's
 * stored address and VAT id (billing taxes by them), not what the cart's snapshot or the typed
 * address said. Before anything is written the cart is brought up to date (the coupon as the checks
 * found it, and `extra`, changes the
 * caller makes anyway); if that moves its price, the buyer sees the new one first: 409
 * `price-changed`, and the cart shows it (docs/decisions.md, Checkout).
 */
async function upToDate(ctx: ServiceContext, state: CartState, checked: Checked, extra: Partial<CartState> = {}): Promise<CartState> {
  const current: CartState = { ...state, ...extra };
  const changes: Partial<CartState> = { ...extra };
  const live = await ctx.db.select().from(pricePlans).where(tenantRowsById(pricePlans, ctx.tenant.id, current.items.map((i) => i.price.id)));
  const items = current.items.map((i) => {
    const row = live.find((p) => p.id === i.price.id);
    return row && JSON.stringify(row) !== JSON.stringify(i.price) ? { ...i, price: row } : i;
  });
  if (items.some((i, n) => i !== current.items[n])) changes.items = items;
  const taxGroups = Object.fromEntries((await loadTaxGroups(ctx)).entries());
  if (JSON.stringify(taxGroups) !== JSON.stringify(current.taxGroups)) changes.taxGroups = taxGroups;
  if (current.coupon && JSON.stringify(checked.coupon) !== JSON.stringify(current.coupon)) changes.coupon = checked.coupon;
  if (current.customerId) {
    const customer = await ctx.db.select().from(customers).where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, current.customerId))).get();
    if (customer) {
      const address = await customerCartAddress(ctx, customer);
      if (JSON.stringify(address) !== JSON.stringify(current.invoiceAddress)) changes.invoiceAddress = address;
      if (customer.email !== current.email) changes.email = customer.email;
    }
  }
  if (Object.keys(changes).length === 0) return state;
  const next = await storeChange(ctx, state, changes);
  if (agreed(next.view) !== agreed(state.view)) {
    throw ApiError.conflict('The price changed since the cart was shown (the catalogue, or the customer’s stored address and VAT id). The cart shows the new price; confirm again to accept it.', 'price-changed');
  }
  return next;
}

export async function confirm(ctx: ServiceContext, given: CartState, input: ConfirmCartInput): Promise<ConfirmCartResult> {
  requireConfirmable(given);
  const checked = await checkConfirm(ctx, given, input);
  const state = await upToDate(ctx, given, checked);
  if (checked.existingCustomerId) {
    // An existing customer's e-mail: nothing is made until the buyer proves the address is theirs.
    await requestOtp(ctx, checked.email!);
    await storeChange(ctx, state, { pendingOtp: { email: checked.email!, customerId: checked.existingCustomerId, confirm: await sealConfirm(ctx, state.id, input) }, email: checked.email });
    return { action: 'otp_required', confirmationMessage: null, redirectUrl: null, status: 'open' };
  }
  // A known customer is billed by its stored address (upToDate put it in the cart); a new one by what it typed.
  const known = state.customerId !== null;
  const locked = await lock(ctx, state, {
    email: known ? state.email : checked.email,
    phone: checked.phone,
    invoiceAddress: known ? state.invoiceAddress : checked.address,
    pendingOtp: null,
    termsAcceptance: checked.termsAcceptance,
  });
  return complete(ctx, locked, checked);
}

/** After the one-time code proved the e-mail: the pending confirm runs for that customer. */
export async function confirmAsCustomer(ctx: ServiceContext, given: CartState, customerId: string): Promise<CartState> {
  const pending = given.pendingOtp!;
  const owned: CartState = { ...given, customerId, pendingOtp: null };
  const checked = await checkConfirm(ctx, owned, await openConfirm(ctx, given.id, pending.confirm));
  // The cart is the customer's from now on, whatever the price check says.
  const state = await upToDate(ctx, given, checked, { customerId, pendingOtp: null });
  const locked = await lock(ctx, state, { email: state.email, phone: checked.phone, invoiceAddress: state.invoiceAddress, termsAcceptance: checked.termsAcceptance });
  await complete(ctx, locked, { ...checked, existingCustomerId: null });
  return locked;
}

async function complete(ctx: ServiceContext, locked: CartState, checked: Checked): Promise<ConfirmCartResult> {
  let state = locked;
  try {
    if (!state.customerId) {
      const a = checked.address!;
      const customer = await createCustomer(
        ctx,
        customerInput({
          email: checked.email!,
          countryCode: a.countryCode,
          currencyCode: state.currency,
          timeZone: state.timeZone,
          firstName: a.firstName,
          lastName: a.lastName,
          vatId: a.vatId,
          companyName: a.companyName,
          phone: checked.phone,
          street: a.street,
          houseNumber: a.houseNumber,
          zip: a.zip,
          city: a.city,
          addition: a.addition,
        }),
      );
      state = await storeChange(ctx, state, { customerId: customer.id });
    }
    const replacing = !state.paymentMethodId && state.subscriptionId !== null;
    if (!state.paymentMethodId) {
      let methodId = checked.methodId;
      if (!methodId) {
        const m = checked.method!;
        const method = await createPaymentMethod(ctx, {
          customer: state.customerId!,
          type: m.type,
          gatewayName: m.type === 'fake_provider' ? 'testing' : null,
          default: true,
          source: 'checkout',
          sepaDebit: m.type === 'sepa_debit' ? { iban: m.sepaDebit.iban, bic: m.sepaDebit.bic ?? null, accountHolder: m.sepaDebit.accountHolder } : null,
          token: m.type === 'fake_provider' ? (m.token ?? 'testing_succeeds') : m.type === 'card' ? m.token : null,
        });
        methodId = method.id;
      }
      state = await storeChange(ctx, state, { paymentMethodId: methodId });
      if (replacing) {
        // The first method was declined: the subscription and its first invoice are paid by this one.
        await setSubscriptionPaymentMethod(ctx, state.subscriptionId!, methodId);
        if (state.invoiceId) await setInvoicePaymentMethod(ctx, state.invoiceId, methodId);
      }
    }
    if (!state.subscriptionId) {
      const first = state.items[0]!;
      const subscription = await createSubscription(ctx, {
        customer: state.customerId!,
        plan: state.planId,
        items: state.items.map((i) => ({ product: i.productId, pricePlan: i.price.id, quantity: String(i.quantity) })),
        name: null,
        number: null,
        externalId: null,
        contractStart: null,
        contractPeriod: first.contractPeriod,
        cancellationPeriod: first.cancellationPeriod,
        billingGroup: null,
        trialDays: state.options.trialDays,
        paymentMethod: state.paymentMethodId,
        invoiceAddress: checked.addressId,
        poNumber: null,
        customFields: null,
        coupons: state.coupon ? [state.coupon.code] : [],
      });
      state = await storeChange(ctx, state, { subscriptionId: subscription.id });
    }
    try {
      await activateSubscription(ctx, state.subscriptionId!, null);
    } catch (err) {
      // Activated by an earlier confirm that stopped after it.
      if (!(err instanceof ApiError && err.type === 'invalid-transition')) throw err;
    }
    return await finish(ctx, state);
  } catch (err) {
    // Unlocked again with what was made so far (as stored now: a step may have recorded more than
    // this function saw): a new confirm continues from there.
    const latest = await loadCart(ctx.env, state.id).catch(() => state);
    if (latest.status === 'confirming') await storeChange(ctx, latest, { status: 'open', lockedAt: null }).catch(() => undefined);
    throw err;
  }
}
