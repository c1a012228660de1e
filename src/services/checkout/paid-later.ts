import { sql } from 'drizzle-orm';
import { rawStatement } from '../../db/client';
import type { BatchItem } from 'drizzle-orm/batch';
import { EVENT_VERSION } from '../../events/catalogue';
import { newId } from '../../lib/ids';
import type { ServiceContext } from '../context';

/**
 * What a payment that settles a cart's first invoice after the cart completed or while it waited
 * for the buyer to authenticate the charge (a SEPA debit, a bank
 * transfer) does to the cart: `cart.paid` with the data `cart.completed` had, and the cart's D1
 * record `paid`, in the payment's batch. A cart still confirming is left alone: its completion sees
 * the paid invoice and says so itself. The cart's object keeps showing `completed` (docs/decisions.md,
 * Checkout).
 */
export function cartPaidStatements(ctx: ServiceContext, invoiceId: string): BatchItem<'sqlite'>[] {
  const t = ctx.tenant.id;
  const now = ctx.now.toISOString();
  const event = (type: string, statuses: string[]) =>
    rawStatement(ctx.db, sql`INSERT INTO events (id, tenant_id, type, version, resource_id, data, created_at)
      SELECT ${newId()}, tenant_id, ${type}, ${EVENT_VERSION}, id,
        json_object('cartId', id, 'checkoutLink', checkout_link_id, 'customer', customer_id, 'subscription', subscription_id, 'invoice', invoice_id), ${now}
      FROM carts WHERE tenant_id = ${t} AND invoice_id = ${invoiceId} AND status IN (SELECT value FROM json_each(${JSON.stringify(statuses)}))`);
  return [
    // A cart waiting for its buyer to authenticate the charge (3-D Secure) completes with it.
    event('cart.completed', ['redirect_to_payment']),
    event('cart.paid', ['completed', 'redirect_to_payment']),
    rawStatement(ctx.db, sql`UPDATE carts SET status = 'paid', state = json_set(state, '$.status', 'paid', '$.view.status', 'paid'), updated_at = ${now}
      WHERE tenant_id = ${t} AND invoice_id = ${invoiceId} AND status = 'completed'`),
    // Its object shows it too: the record's version moves on, and the next read of the cart (which
    // asks D1 while a cart waits) puts the record into the object.
    rawStatement(ctx.db, sql`UPDATE carts SET status = 'paid', version = version + 1, completed_at = ${now}, updated_at = ${now},
        state = json_set(state, '$.status', 'paid', '$.view.status', 'paid', '$.version', version + 1, '$.completedAt', ${now}, '$.updatedAt', ${now},
          '$.lockedAt', NULL, '$.completion.paid', json('true'), '$.view.completion.paid', json('true'))
      WHERE tenant_id = ${t} AND invoice_id = ${invoiceId} AND status = 'redirect_to_payment'`),
  ];
}

/**
 * A charge a cart waits for failed (its authentication was refused or abandoned): the cart is open
 * again without a payment method, keeping its customer, subscription and invoice, as after a
 * declined charge at confirm, so the buyer can choose another method (docs/decisions.md, Checkout).
 */
export function cartPaymentFailedStatements(ctx: ServiceContext, invoiceId: string): BatchItem<'sqlite'>[] {
  const now = ctx.now.toISOString();
  return [
    rawStatement(ctx.db, sql`UPDATE carts SET status = 'open', version = version + 1, payment_method_id = NULL, updated_at = ${now},
        state = json_set(state, '$.status', 'open', '$.view.status', 'open', '$.version', version + 1, '$.updatedAt', ${now}, '$.lockedAt', NULL,
          '$.paymentMethodId', NULL, '$.view.paymentMethod', NULL, '$.completion', NULL, '$.view.completion', NULL)
      WHERE tenant_id = ${ctx.tenant.id} AND invoice_id = ${invoiceId} AND status = 'redirect_to_payment'`),
  ];
}
