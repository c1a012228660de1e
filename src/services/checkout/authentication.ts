// A cart whose first charge waits for the buyer to authenticate it (3-D Secure, docs/decisions.md,
// Hosted checkout page): the client secret the card client needs, and settling the cart once the
// charge is decided. The charge itself moves through the collection path (applyChargeOutcome), whose
// batch also moves the cart's record; this makes sure the cart follows even when the charge was
// decided before the cart started waiting.
import { and, desc, eq } from 'drizzle-orm';
import { invoices, transactions } from '../../db/schema';
import { ApiError } from '../../http/errors';
import type { CardPreparation } from '../../schemas/checkout';
import type { ServiceContext } from '../context';
import { applyChargeOutcome } from '../payments/collection';
import { loadCart, storeChange, type CartState } from './state';

const WAITING_CHARGE = ['pending', 'processing', 'action_required'];

/** The cart's latest charge of its first invoice. */
async function latestCharge(ctx: ServiceContext, invoiceId: string) {
  return ctx.db
    .select()
    .from(transactions)
    .where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.invoiceId, invoiceId), eq(transactions.type, 'payment')))
    .orderBy(desc(transactions.attempt))
    .get();
}

/** prepare-stripe for a waiting cart: the publishable key and the waiting charge's client secret. */
export async function waitingCardPreparation(ctx: ServiceContext, state: CartState, publishableKey: string | null): Promise<CardPreparation> {
  const tx = state.invoiceId ? await latestCharge(ctx, state.invoiceId) : undefined;
  const gateway = tx ? await ctx.gateways.get(tx.gateway) : null;
  const auth = tx?.status === 'action_required' && tx.referenceId && gateway?.chargeAuthentication ? await gateway.chargeAuthentication(tx.referenceId) : null;
  return { gateway: 'card_provider', publishableKey, clientSecret: auth?.clientSecret ?? null, paymentIntentId: auth?.referenceId ?? null, setupIntentId: null };
}

/**
 * After the buyer's authentication (or to see where it stands): the gateway is asked about the
 * waiting charge, its answer applied once, and the cart follows: paid and completed, open again
 * for another method, or still waiting. Answers the cart as it is then.
 */
export async function settleWaitingCart(ctx: ServiceContext, given: CartState): Promise<CartState> {
  if (given.status !== 'redirect_to_payment' || !given.invoiceId) return given;
  const tx = await latestCharge(ctx, given.invoiceId);
  if (tx && WAITING_CHARGE.includes(tx.status) && tx.referenceId) {
    const gateway = await ctx.gateways.get(tx.gateway);
    if (gateway) await applyChargeOutcome(ctx, tx, await gateway.chargeStatus(tx.referenceId));
  }
  const state = await loadCart(ctx.env, given.id);
  if (state.status !== 'redirect_to_payment') return state;
  // Decided before the cart started waiting (its batch found no waiting cart): the cart follows here.
  const after = await latestCharge(ctx, given.invoiceId);
  const invoice = await ctx.db.select().from(invoices).where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.id, given.invoiceId))).get();
  const data = { cartId: state.id, checkoutLink: state.linkId, customer: state.customerId, subscription: state.subscriptionId, invoice: state.invoiceId };
  try {
    if (invoice?.status === 'STATUS_PAID') {
      return await storeChange(ctx, state, { status: 'paid', completedAt: ctx.now.toISOString(), completion: state.completion ? { ...state.completion, paid: true } : null }, [
        { type: 'cart.completed', data },
        { type: 'cart.paid', data },
      ]);
    }
    if (after && !WAITING_CHARGE.includes(after.status)) {
      return await storeChange(ctx, state, { status: 'open', paymentMethodId: null, completion: null });
    }
  } catch (err) {
    // The payment's own batch moved the cart meanwhile.
    if (err instanceof ApiError && err.type === 'concurrent-update') return loadCart(ctx.env, given.id);
    throw err;
  }
  return state;
}
