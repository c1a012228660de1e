// The last step of a confirm: the first invoice (billed by billing itself, finalized, collected at
// once on session), a charge that waits for the buyer's authentication, and the cart completed.
import { and, eq } from 'drizzle-orm';
import { currencyScale, formatDecimal, fromMinorUnits } from '../../billing/money';
import { invoices } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { logError } from '../../lib/log';
import type { ConfirmCartResult } from '../../schemas/checkout';
import { commitComposed } from '../billing/commit';
import { composeDue } from '../billing/compose';
import type { ServiceContext } from '../context';
import { afterFinalization } from '../invoices/after-finalization';
import { effectiveStatus } from '../invoices/status';
import { collectInvoice } from '../payments/collection';
import { sendOrderConfirmation } from './confirmation-mail';
import { storeChange, type CartState } from './state';

/** What a confirm answers: where the buyer goes next, and the cart's status. */
export function result(state: CartState): ConfirmCartResult {
  const a = state.afterCheckout;
  const action = a.action === 'redirect' && a.url ? 'redirect' : a.action === 'confirmation_message' ? 'confirmation_message' : 'none';
  return { action, confirmationMessage: a.confirmationMessage, redirectUrl: action === 'redirect' ? a.url : null, status: state.status };
}

/**
 * Collects the first invoice at once. A charge the gateway declines does not complete the cart: it
 * is open again without a payment method, keeping its customer, subscription and invoice, and the
 * buyer is asked for another method (422 at newPaymentMethod); the next confirm charges that one.
 * A buyer who leaves has an active subscription with an unpaid invoice: retries and dunning follow.
 */
async function collectAtCheckout(ctx: ServiceContext, state: CartState, invoiceId: string): Promise<'done' | 'waiting'> {
  // On session: the buyer is on the page, so a card that wants 3-D Secure waits for them.
  const collected = await collectInvoice(ctx, invoiceId, { onSession: true });
  if (collected.outcome === 'action_required' || (collected.outcome === 'waiting' && collected.transaction.status === 'action_required')) return 'waiting';
  if (collected.outcome !== 'failed') return 'done';
  await storeChange(ctx, state, { status: 'open', lockedAt: null, paymentMethodId: null });
  const reason = collected.transaction.failReason;
  throw ApiError.violation('newPaymentMethod', `The payment was declined${reason ? ` (${reason})` : ''}. Choose another payment method and confirm again.`, 'payment_declined');
}

/** The first invoice (billed by billing, marked as the cart's), its collection, and the cart completed. */
export async function finish(ctx: ServiceContext, given: CartState): Promise<ConfirmCartResult> {
  let state = given;
  let invoiceId = state.invoiceId;
  if (!invoiceId) {
    const composed = await composeDue(ctx, state.subscriptionId!, ctx.now, null);
    if (composed && !composed.skipOnly) {
      const billed = await commitComposed(ctx, { ...composed, row: { ...composed.row, sourceType: 'cart' } }, ctx.now);
      invoiceId = billed.invoiceId;
      // Recorded at once: billing bills a period once, so a confirm that continues after a failure
      // from here on would find nothing due and lose the invoice's reference.
      if (invoiceId) state = await storeChange(ctx, state, { invoiceId });
      if (billed.invoiceId && billed.finalized) {
        const collected = await collectAtCheckout(ctx, state, billed.invoiceId);
        // Collected here, on session; a collection job as well would charge again off session
        // once the buyer's attempt failed (the retry schedule and the sweeper take it from there).
        ctx.waitUntil(afterFinalization(ctx.env, ctx.tenant.id, [billed.invoiceId], { collect: [] }));
        if (collected === 'waiting') return waitForAuthentication(ctx, state, billed.invoiceId);
      }
    }
  } else {
    // A confirm after a declined payment: the first invoice is collected again, with the new method.
    if ((await collectAtCheckout(ctx, state, invoiceId)) === 'waiting') return waitForAuthentication(ctx, state, invoiceId);
  }
  const invoice = invoiceId ? await ctx.db.select().from(invoices).where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.id, invoiceId))).get() : undefined;
  const paid = invoice !== undefined && effectiveStatus(invoice) === 'STATUS_PAID';
  const details = [`subscription:${state.subscriptionId}`, ...(invoice ? [`invoice:${invoice.number ?? invoice.id}`] : [])];
  const completedAt = ctx.now.toISOString();
  const data = { cartId: state.id, checkoutLink: state.linkId, customer: state.customerId, subscription: state.subscriptionId, invoice: invoiceId };
  const completion = completionOf(state, invoice, paid);
  const done = await storeChange(
    ctx,
    state,
    { status: paid ? 'paid' : 'completed', invoiceId, completedAt, completionDetails: details, completion },
    [{ type: 'cart.completed', data }, ...(paid ? [{ type: 'cart.paid' as const, data }] : [])],
  );
  if (completion.email) ctx.waitUntil(sendOrderConfirmation(ctx, done, completion).catch((err) => logError({ job: 'cart-confirmation-mail', tenantId: ctx.tenant.id }, err)));
  return result(done);
}

type InvoiceRow = typeof invoices.$inferSelect;

function completionOf(state: CartState, invoice: InvoiceRow | undefined, paid: boolean): NonNullable<CartState['completion']> {
  return {
    invoiceNumber: invoice?.number ?? null,
    amount: invoice ? formatDecimal(fromMinorUnits(invoice.grossAmount, invoice.currencyCode), currencyScale(invoice.currencyCode)) : state.view.price.amountDue,
    currencyCode: invoice?.currencyCode ?? state.currency,
    paid,
    email: state.email,
  };
}

/**
 * The first invoice's charge waits for the buyer to authenticate it (3-D Secure): the cart waits
 * too (`redirect_to_payment`, locked), with the invoice's number and amount, until the charge
 * succeeds (the gateway's webhook or the page after the authentication: the cart completes, paid)
 * or fails (open again for another method). The page asks prepare-stripe for the client secret.
 */
async function waitForAuthentication(ctx: ServiceContext, state: CartState, invoiceId: string): Promise<ConfirmCartResult> {
  const invoice = await ctx.db.select().from(invoices).where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.id, invoiceId))).get();
  const details = [`subscription:${state.subscriptionId}`, ...(invoice ? [`invoice:${invoice.number ?? invoice.id}`] : [])];
  const waiting = await storeChange(ctx, state, { status: 'redirect_to_payment', lockedAt: null, invoiceId, completionDetails: details, completion: completionOf(state, invoice, false) });
  return { ...result(waiting), action: 'none', redirectUrl: null };
}
