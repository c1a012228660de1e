// The public cart service: the contract the hosted checkout page and the public JSON routes use.
// Every function takes the Worker env and throws ApiError: 404 for an unknown or disabled link and
// an unknown or expired cart, 409 `cart-locked` while a cart is confirming or after it completed,
// 422 with violations for bad input. Reads come from the cart's Durable Object without touching
// D1; every change is priced again by the billing code and written to D1 and to the object before
// it returns, so the next read shows it.
import type { Env } from '../../env';
import { ApiError, Violations } from '../../http/errors';
import type { CardPreparation, ConfirmCartInput, ConfirmCartResult, NewInvoiceAddressInput, PublicCart } from '../../schemas/checkout';
import { loadGatewayCredentials } from '../payments/gateway-credentials';
import { loadDocumentSettings } from '../documents/settings';
import { loadMedia } from '../documents/media';
import { loginWithOtp } from '../platform/customer-otp';
import { checkAddress, checkEmail, checkPhone } from './buyer';
import { cartCoupon } from './cart-coupons';
import { settleWaitingCart, waitingCardPreparation } from './authentication';
import { confirm, confirmAsCustomer } from './completion';
import { openCart as open } from './open';
import { cartContext, loadCart, loadView, loadViewJson, requireOpen, storeChange, type CartState } from './state';

export type { CardPreparation, ConfirmCartInput, ConfirmCartResult, NewInvoiceAddressInput, PublicCart };

export interface OpenCartInput {
  tenantSlug: string;
  linkSlug: string;
  /** Query parameters of the link (customerPrefill): e-mail, names, address fields; others are dropped. */
  prefill: Record<string, string>;
  /** A customer session's access token: the cart is attached to that customer (401 when invalid). */
  customerToken?: string | null;
}

export interface BuyerDetailsInput {
  email?: string | null;
  phone?: string | null;
  invoiceAddress?: NewInvoiceAddressInput | null;
}

/** Opens the tenant's enabled link `linkSlug` (the tenant named by its public slug or its id): a new cart, 201 worth. */
export function openCart(env: Env, input: OpenCartInput): Promise<PublicCart> {
  return open(env, input);
}

/** The cart as its object holds it: no D1 query while the cart is known to its object. */
export async function readCart(env: Env, cartId: string): Promise<PublicCart> {
  return loadView(env, cartId);
}

/** The same read as JSON text, passed through as the object holds it (the public JSON route's answer). */
export function readCartJson(env: Env, cartId: string): Promise<string> {
  return loadViewJson(env, cartId);
}

/** A change of an open cart, priced again and stored; 409 cart-locked once it is confirming or done. */
async function change(env: Env, cartId: string, make: (state: CartState, ctx: Awaited<ReturnType<typeof cartContext>>) => Promise<Partial<CartState>>): Promise<PublicCart> {
  for (let attempt = 1; ; attempt++) {
    const state = await loadCart(env, cartId);
    requireOpen(state);
    const ctx = await cartContext(env, state.tenantId);
    try {
      return (await storeChange(ctx, state, await make(state, ctx))).view;
    } catch (err) {
      // Another change landed between the read and the write (the page saving the address while
      // the quantity changes): every change here says what to set, not what to add, so made again
      // on the cart as it is now it means the same. A locked cart is refused as before.
      if (err instanceof ApiError && err.type === 'concurrent-update' && attempt < 3) continue;
      throw err;
    }
  }
}

export function changeQuantity(env: Env, cartId: string, input: { cartItemId: string; quantity: number }): Promise<PublicCart> {
  return change(env, cartId, async (state) => {
    const item = state.items.find((i) => i.id === input.cartItemId);
    if (!item) throw ApiError.violation('cartItemId', 'No such item in this cart.', 'not_found');
    if (!state.options.quantityEditable) throw ApiError.violation('quantity', 'The quantity of this checkout cannot be changed.', 'not_editable');
    const q = input.quantity;
    if (!Number.isInteger(q)) throw ApiError.violation('quantity', 'Must be a whole number.', 'invalid_type');
    if (q < item.minQuantity || (item.maxQuantity !== null && q > item.maxQuantity)) {
      throw ApiError.violation('quantity', `Must be between ${item.minQuantity} and ${item.maxQuantity ?? 'unlimited'}.`, 'out_of_range');
    }
    return { items: state.items.map((i) => (i.id === item.id ? { ...i, quantity: q } : i)) };
  });
}

export function applyCoupon(env: Env, cartId: string, input: { code: string }): Promise<PublicCart> {
  return change(env, cartId, async (state, ctx) => ({ coupon: await cartCoupon(ctx, state, input.code, 'code') }));
}

export function removeCoupon(env: Env, cartId: string): Promise<PublicCart> {
  return change(env, cartId, async () => ({ coupon: null }));
}

/**
 * E-mail, phone and the invoice address as the buyer types them: the taxes follow the country at
 * once, and a VAT id the registry confirms makes a cross-border business sale reverse charge. A
 * logged-in customer's e-mail stays theirs.
 */
export function setBuyerDetails(env: Env, cartId: string, input: BuyerDetailsInput): Promise<PublicCart> {
  return change(env, cartId, async (state, ctx) => {
    const v = new Violations();
    const next: Partial<CartState> = {};
    if (input.email !== undefined && !state.loggedIn) next.email = checkEmail(input.email, 'email', v, false);
    if (input.phone !== undefined) next.phone = checkPhone(input.phone, 'phone', v);
    if (input.invoiceAddress) next.invoiceAddress = await checkAddress(ctx, input.invoiceAddress, 'invoiceAddress', v, state.options.forceCompany);
    else if (input.invoiceAddress === null) next.invoiceAddress = null;
    v.throwIfAny();
    return next;
  });
}

/** Fynn's confirm: completes the cart exactly once, or asks for the one-time code of an existing customer's e-mail. */
export async function confirmCart(env: Env, cartId: string, input: ConfirmCartInput): Promise<ConfirmCartResult> {
  for (let attempt = 1; ; attempt++) {
    const state = await loadCart(env, cartId);
    const ctx = await cartContext(env, state.tenantId);
    try {
      return await confirm(ctx, state, input);
    } catch (err) {
      // Another change of the cart landed between the read and the lock (the page saving the
      // buyer's address a moment before the order was sent): the cart is still open, so the confirm
      // starts again from the cart as it is now. A cart someone else is confirming is 409 as before.
      const raced = err instanceof ApiError && err.status === 409 && err.type !== 'price-changed' && attempt < 3;
      if (raced && (await loadCart(env, cartId)).status === 'open') continue;
      throw err;
    }
  }
}

/**
 * Fynn's confirm-otp: the code sent to an existing customer's e-mail by confirm; a right one
 * completes the pending confirm for that customer and answers the cart. Wrong or expired: 401.
 */
export async function confirmCartOtp(env: Env, cartId: string, input: { email: string; otp: string }): Promise<PublicCart> {
  const state = await loadCart(env, cartId);
  requireOpen(state);
  const pending = state.pendingOtp;
  if (!pending || pending.email.toLowerCase() !== input.email.trim().toLowerCase()) {
    throw ApiError.violation('email', 'No one-time code was asked for this e-mail address in this cart; confirm the cart first.', 'no_pending_code');
  }
  const ctx = await cartContext(env, state.tenantId);
  // The OTP login checks the code (tries counted, spent once); the session it makes is not handed out.
  await loginWithOtp(ctx, pending.email, input.otp, '');
  await confirmAsCustomer(ctx, state, pending.customerId);
  return readCart(env, cartId);
}

/**
 * What the card gateway's client needs to collect a card for this cart: the gateway and its
 * publishable key. The client creates the payment method and confirm sends its id as
 * `newPaymentMethod: {type: 'card', token}`. No card gateway: 409 `gateway-unconfigured`.
 */
export async function prepareCard(env: Env, cartId: string): Promise<CardPreparation> {
  const state = await loadCart(env, cartId);
  if (state.status !== 'redirect_to_payment') requireOpen(state);
  const ctx = await cartContext(env, state.tenantId);
  const creds = await loadGatewayCredentials(env, ctx.db, ctx.tenant.id, 'card_provider');
  if (!creds) throw ApiError.conflict('This tenant takes no cards: no card gateway is configured.', 'gateway-unconfigured');
  // A cart whose charge waits for the buyer's authentication: its client secret, for the card client to confirm.
  if (state.status === 'redirect_to_payment') return waitingCardPreparation(ctx, state, creds.publishableKey);
  return { gateway: 'card_provider', publishableKey: creds.publishableKey, clientSecret: null, paymentIntentId: null, setupIntentId: null };
}

/**
 * After the buyer authenticated the charge in the card client (or gave up): the gateway says how
 * the charge stands, and the cart follows (paid, open again, or still waiting). The browser's word
 * is never taken for it.
 */
export async function settleCardAuthentication(env: Env, cartId: string): Promise<PublicCart> {
  const state = await loadCart(env, cartId);
  if (state.status !== 'redirect_to_payment') return state.view;
  const ctx = await cartContext(env, state.tenantId);
  return (await settleWaitingCart(ctx, state)).view;
}

/**
 * The seller's letterhead logo for a cart's page (the page's CSP allows images of its own origin
 * only): the file the documents print, or 404 when the tenant has none.
 */
export async function cartLogo(env: Env, cartId: string): Promise<{ body: ReadableStream; mimeType: string; etag: string }> {
  const state = await loadCart(env, cartId);
  const ctx = await cartContext(env, state.tenantId);
  const settings = await loadDocumentSettings(ctx.db, ctx.tenant.id);
  if (!settings.logoMediaId) throw ApiError.notFound('Logo');
  const file = await loadMedia(ctx, settings.logoMediaId);
  const object = await env.DOCUMENTS.get(file.storageFileName);
  if (!object) throw ApiError.notFound('Logo');
  return { body: object.body, mimeType: file.mimeType, etag: file.sha256 };
}
