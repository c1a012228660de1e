// A cart's state and where it lives: the cart's Durable Object answers reads (no D1), every change
// is written to D1 first (guarded by the version read, the durable record and the one place that
// decides which of two concurrent changes wins) and then to the object (compare-and-set on the same
// version), so the buyer reads its own write once the change returned.
import { and, eq } from 'drizzle-orm';
import type { TaxGroupInput } from '../../billing/compose';
import type { CouponInput } from '../../billing/discounts';
import { toMinorUnitsSafe } from '../../billing/money';
import { findOnAnyShard, tenantDb } from '../../db/directory';
import { commitGuarded, nextUpdatedAt, type ChangeEvent } from '../../db/commit';
import { carts, type CheckoutLinkAfterCheckout, type CheckoutLinkOptions, type pricePlans } from '../../db/schema';
import type { Env } from '../../env';
import { ApiError } from '../../http/errors';
import type { CartAddress, PublicCart } from '../../schemas/checkout';
import { openTenantContext, type ServiceContext } from '../context';
import { priceCart } from './pricing';
import { renewalOf, sellerView, type CartSellerState } from './trust';

/** A cart lives 24 hours after its last change (wall clock, like other infrastructure time); then it is 404. */
export const CART_TTL_MS = 24 * 3600 * 1000;

/** Cart ids are 32 URL-safe characters: 192 random bits (docs/decisions.md, Checkout: public ids are unguessable). */
export const CART_ID_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export interface CartItemState {
  id: string;
  productId: string;
  planId: string | null;
  name: string;
  description: string | null;
  quantity: number;
  minQuantity: number;
  maxQuantity: number | null;
  unit: string | null;
  aggregationType: string;
  measurementDescription: string | null;
  taxGroupId: string | null;
  /** The price plan as it was when the cart was opened. */
  price: typeof pricePlans.$inferSelect;
  contractPeriod: string | null;
  cancellationPeriod: string | null;
}

export interface CartState {
  id: string;
  tenantId: string;
  linkId: string;
  linkSlug: string;
  /** `redirect_to_payment`: the first invoice's charge waits for the buyer to authenticate it (3-D Secure). */
  status: 'open' | 'confirming' | 'redirect_to_payment' | 'completed' | 'paid';
  version: number;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  currency: string;
  sellerCountry: string;
  /** The tenant is in test mode: the testing gateway is offered. */
  testMode: boolean;
  /** The tenant has a card gateway (when the cart was opened): cards are offered. */
  offersCard?: boolean;
  timeZone: string;
  planId: string | null;
  planName: string | null;
  /** Carts opened before these were kept have none (undefined). */
  planDescription?: string | null;
  seller?: CartSellerState | null;
  /** The buyer accepted the tenant's terms (at confirm): when, and the terms' URL then. */
  termsAcceptance?: { acceptedAt: string; termsUrl: string } | null;
  /** What the buyer is told once the cart completed: the first invoice and where the confirmation went. */
  completion?: PublicCart['completion'];
  options: CheckoutLinkOptions;
  afterCheckout: CheckoutLinkAfterCheckout;
  taxGroups: Record<string, TaxGroupInput>;
  items: CartItemState[];
  /** The logged-in customer (attached when opened) or the customer completion made or found. */
  customerId: string | null;
  loggedIn: boolean;
  email: string | null;
  phone: string | null;
  invoiceAddress: CartAddress | null;
  prefill: Record<string, string>;
  coupon: { id: string; code: string; name: string; input: Omit<CouponInput, 'id' | 'appliedIntervals'> } | null;
  /** A confirm that waits for the one-time code sent to an existing customer's e-mail. */
  /** `confirm` is the confirm body sealed (it may hold an IBAN): see completion.ts. */
  pendingOtp: { email: string; customerId: string; confirm: string } | null;
  paymentMethodId: string | null;
  subscriptionId: string | null;
  invoiceId: string | null;
  completionDetails: string[] | null;
  completedAt: string | null;
  /** Wall-clock time (ms) a confirm took the lock; a lock older than a few minutes was left by a dead worker. */
  lockedAt?: number | null;
  view: PublicCart;
}

/** The cart as the public read shows it, priced at `now` (the tenant's now). */
export function renderCart(state: Omit<CartState, 'view'>, now: Date): { view: PublicCart; amountDueMinor: number } {
  const priced = priceCart(state, now);
  const back = state.afterCheckout.backToProviderUrl;
  return {
    amountDueMinor: priced.amountDueMinor,
    view: {
      id: state.id,
      status: state.status,
      customer: state.customerId,
      email: state.email,
      phone: state.phone,
      invoiceAddress: state.invoiceAddress,
      customerPrefill: state.prefill,
      paymentMethod: state.paymentMethodId,
      couponCode: state.coupon?.code ?? null,
      price: priced.price,
      items: priced.items,
      completionDetails: state.completionDetails,
      subscription: state.subscriptionId,
      invoice: state.invoiceId,
      settings: {
        allowCoupons: state.options.allowCoupons,
        forceCompany: state.options.forceCompany,
        quantityEditable: state.options.quantityEditable,
        backButton: back ? { url: back, label: 'Back' } : null,
        paymentMethods: [...(state.testMode ? (['fake_provider'] as const) : []), 'sepa_debit', 'bank_transfer', ...(state.offersCard ? (['card'] as const) : [])],
      },
      expiresAt: state.expiresAt,
      plan: state.planName ? { name: state.planName, description: state.planDescription ?? null } : null,
      seller: sellerView(state.id, state.seller),
      renewal: renewalOf(priced.items, state.currency, { contractPeriod: state.items[0]?.contractPeriod ?? null, cancellationPeriod: state.items[0]?.cancellationPeriod ?? null }),
      termsAcceptance: state.termsAcceptance ?? null,
      completion: state.completion ?? null,
    },
  };
}

function stub(env: Env, cartId: string) {
  return env.CART.get(env.CART.idFromName(cartId));
}

type CartRow = typeof carts.$inferSelect;

function rowOf(state: CartState, amountDueMinor: number): CartRow {
  return {
    id: state.id,
    tenantId: state.tenantId,
    checkoutLinkId: state.linkId,
    status: state.status,
    version: state.version,
    customerId: state.customerId,
    email: state.email,
    paymentMethodId: state.paymentMethodId,
    subscriptionId: state.subscriptionId,
    invoiceId: state.invoiceId,
    currencyCode: state.currency,
    amountDue: amountDueMinor,
    state,
    expiresAt: state.expiresAt,
    completedAt: state.completedAt,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
  };
}

/** What the cart's object keeps: the state and, ready to hand out, its view. */
const stored_ = (state: CartState) => ({ version: state.version, expiresAt: state.expiresAt, state: JSON.stringify(state), view: JSON.stringify(state.view) });

/** The public view of a cart, or 404; the object answers it without a D1 query. */
export async function loadView(env: Env, cartId: string): Promise<PublicCart> {
  return JSON.parse(await loadViewJson(env, cartId)) as PublicCart;
}

/** The cart's view as the JSON text its object holds: what the public read answers, unparsed. */
export async function loadViewJson(env: Env, cartId: string): Promise<string> {
  if (!CART_ID_PATTERN.test(cartId)) throw ApiError.notFound('Cart');
  const view = await stub(env, cartId).readView(Date.now());
  // A cart waiting for its charge's authentication is settled by the payment's batch in D1 (a
  // webhook, the page): while it waits, reads ask the record.
  if (view && !view.includes(WAITING)) return view;
  return JSON.stringify((await loadCart(env, cartId)).view);
}

/** How a waiting cart's view starts (`id`, then `status`): a cheap test on the object's text. */
const WAITING = '"status":"redirect_to_payment"';

const amountOf = (state: CartState) => toMinorUnitsSafe(state.view.price.amountDue, state.currency);

/** The stored cart (the object's copy; the D1 record when the object lost it), or 404 when unknown or expired. */
export async function loadCart(env: Env, cartId: string): Promise<CartState> {
  if (!CART_ID_PATTERN.test(cartId)) throw ApiError.notFound('Cart');
  const nowMs = Date.now();
  const stored = await stub(env, cartId).read(nowMs);
  if (stored) {
    const state = JSON.parse(stored.state) as CartState;
    return state.status === 'redirect_to_payment' ? refreshWaiting(env, state) : state;
  }
  // The object answers for every cart it ever stored until the cart expires; an empty object is an
  // unknown id, an expired cart, or (rarely) an object whose write did not happen after D1's.
  // Its id names no tenant, so every shard is asked (docs/decisions.md, Tenancy and shards).
  const row = await findOnAnyShard(env, (db) => db.select().from(carts).where(eq(carts.id, cartId)).get());
  if (!row || Date.parse(row.expiresAt) <= nowMs) throw ApiError.notFound('Cart');
  const restored = await stub(env, cartId).restore(stored_(row.state as CartState));
  return JSON.parse(restored.state) as CartState;
}

/** A waiting cart as its D1 record has it now (the payment's batch moves the record, not the object). */
async function refreshWaiting(env: Env, state: CartState): Promise<CartState> {
  const db = await tenantDb(env, state.tenantId);
  const row = db ? await db.select().from(carts).where(and(eq(carts.tenantId, state.tenantId), eq(carts.id, state.id))).get() : undefined;
  if (!row || row.version <= state.version) return state;
  const restored = await stub(env, state.id).restore(stored_(row.state as CartState));
  return JSON.parse(restored.state) as CartState;
}

/** A cart's tenant and its service context at the tenant's now. */
export async function cartContext(env: Env, tenantId: string): Promise<ServiceContext> {
  const ctx = await openTenantContext(env, tenantId);
  if (!ctx) throw ApiError.notFound('Cart');
  return ctx;
}

/** A new cart: its D1 record, then its object. */
export async function storeNewCart(ctx: ServiceContext, state: Omit<CartState, 'view'>): Promise<PublicCart> {
  const { view, amountDueMinor } = renderCart(state, ctx.now);
  const next: CartState = { ...state, view };
  await ctx.db.insert(carts).values(rowOf(next, amountDueMinor));
  await stub(ctx.env, next.id).write(null, stored_(next));
  return view;
}

/**
 * Stores a change computed from `before`: the D1 record through the guarded write (409
 * `concurrent-update` when another change got there first), then the object. `events` go in the
 * same batch as the record.
 */
export async function storeChange(ctx: ServiceContext, before: CartState, change: Partial<CartState>, events: ChangeEvent[] = []): Promise<CartState> {
  const draft: CartState = {
    ...before,
    ...change,
    version: before.version + 1,
    // commitGuarded writes this same updatedAt (nextUpdatedAt of the row as read), so the state
    // stored in the record and in the object carries it too.
    updatedAt: nextUpdatedAt(ctx.now, before.updatedAt),
    expiresAt: new Date(Date.now() + CART_TTL_MS).toISOString(),
  };
  const { view, amountDueMinor } = renderCart(draft, ctx.now);
  const next: CartState = { ...draft, view };
  try {
    await commitGuarded(ctx, {
      table: carts,
      current: rowOf(before, amountOf(before)),
      changes: rowOf(next, amountDueMinor),
      where: eq(carts.version, before.version),
      events,
      conflict: 'The cart was changed concurrently; reload it and try again.',
    });
  } catch (err) {
    // D1 is ahead of what the object gave us (a write of the object failed after D1's): the object
    // gets D1's version, so the next try starts from it instead of failing the same way forever.
    if (err instanceof ApiError && err.type === 'concurrent-update') {
      const row = await ctx.db.select().from(carts).where(eq(carts.id, before.id)).get();
      if (row && row.version > before.version) await stub(ctx.env, before.id).restore(stored_(row.state as CartState));
    }
    throw err;
  }
  const written = await stub(ctx.env, next.id).write(before.version, stored_(next));
  if (!written.ok) throw ApiError.conflict('The cart was changed concurrently; reload it and try again.', 'concurrent-update');
  return next;
}

/** Edits only while open: a confirming or completed cart is locked (409 cart-locked). */
export function requireOpen(state: CartState): void {
  if (state.status !== 'open') {
    throw ApiError.conflict(state.status === 'confirming' ? 'The cart is being confirmed and cannot be changed.' : 'The cart is completed and cannot be changed.', 'cart-locked');
  }
}
