// The logged-in buyer's stored invoice addresses and payment methods, for the checkout form
// (GET /public/checkout/cart/{id}/invoice-addresses and …/payment-methods). Only the customer the
// cart belongs to, by a session of that customer in the cart's tenant.
import { and, eq } from 'drizzle-orm';
import { customerAddresses } from '../../db/schema';
import type { Env } from '../../env';
import { ApiError } from '../../http/errors';
import type { Page } from '../../http/pagination';
import type { ServiceContext } from '../context';
import { listAddresses } from '../customers/addresses';
import { listPaymentMethods } from '../payments/methods';
import { customerOfToken } from './open';
import { cartContext, loadCart } from './state';

export async function customerHasAddress(ctx: ServiceContext, customerId: string, addressId: string): Promise<boolean> {
  const row = await ctx.db
    .select({ id: customerAddresses.id })
    .from(customerAddresses)
    .where(and(eq(customerAddresses.tenantId, ctx.tenant.id), eq(customerAddresses.customerId, customerId), eq(customerAddresses.id, addressId)))
    .get();
  return row !== undefined;
}

/** The cart's customer, proved by its session token; a cart of someone else is 404 like an unknown one. */
async function cartCustomer(env: Env, cartId: string, token: string | null) {
  if (!token) throw ApiError.unauthorized('Log in as the customer (a customer session token) to see stored addresses and payment methods.');
  const state = await loadCart(env, cartId);
  const ctx = await cartContext(env, state.tenantId);
  const customer = await customerOfToken(ctx, token);
  if (state.customerId !== customer.id) throw ApiError.notFound('Cart');
  return { ctx, customerId: customer.id };
}

export async function cartInvoiceAddresses(env: Env, cartId: string, token: string | null, page: Page) {
  const { ctx, customerId } = await cartCustomer(env, cartId, token);
  return listAddresses(ctx, customerId, page);
}

export async function cartPaymentMethods(env: Env, cartId: string, token: string | null, page: Page) {
  const { ctx, customerId } = await cartCustomer(env, cartId, token);
  return listPaymentMethods(ctx, { ...page, enabled: 'true', status: 'active' }, customerId);
}
