import { sql } from 'drizzle-orm';
import { rawStatement } from '../../db/client';
import type { BatchItem } from 'drizzle-orm/batch';
import { EVENT_VERSION } from '../../events/catalogue';
import { newId } from '../../lib/ids';
import type { ServiceContext } from '../context';

/**
 * What a payment that settles a cart's first invoice after the cart completed (a SEPA debit, a bank
 * transfer) does to the cart: `cart.paid` with the data `cart.completed` had, and the cart's D1
 * record `paid`, in the payment's batch. A cart still confirming is left alone: its completion sees
 * the paid invoice and says so itself. The cart's object keeps showing `completed` (docs/decisions.md,
 * Checkout).
 */
export function cartPaidStatements(ctx: ServiceContext, invoiceId: string): BatchItem<'sqlite'>[] {
  const t = ctx.tenant.id;
  const now = ctx.now.toISOString();
  return [
    rawStatement(ctx.db, sql`INSERT INTO events (id, tenant_id, type, version, resource_id, data, created_at)
      SELECT ${newId()}, tenant_id, 'cart.paid', ${EVENT_VERSION}, id,
        json_object('cartId', id, 'checkoutLink', checkout_link_id, 'customer', customer_id, 'subscription', subscription_id, 'invoice', invoice_id), ${now}
      FROM carts WHERE tenant_id = ${t} AND invoice_id = ${invoiceId} AND status = 'completed'`),
    rawStatement(ctx.db, sql`UPDATE carts SET status = 'paid', state = json_set(state, '$.status', 'paid', '$.view.status', 'paid'), updated_at = ${now}
      WHERE tenant_id = ${t} AND invoice_id = ${invoiceId} AND status = 'completed'`),
  ];
}
