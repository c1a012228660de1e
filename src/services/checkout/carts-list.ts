import { and, asc, desc, eq } from 'drizzle-orm';
import { formatDecimal, fromMinorUnits, currencyScale } from '../../billing/money';
import { inJson } from '../../db/client';
import { fetchPage } from '../../db/paging';
import { carts } from '../../db/schema';
import { filterValues, type Page } from '../../http/pagination';
import type { CartSummary } from '../../schemas/checkout';
import type { ServiceContext } from '../context';
import type { CartState } from './state';

type CartRow = typeof carts.$inferSelect;

export function renderCartSummary(r: CartRow): CartSummary {
  return {
    id: r.id,
    status: r.status,
    checkoutLink: r.checkoutLinkId,
    customer: r.customerId,
    email: r.email,
    subscription: r.subscriptionId,
    invoice: r.invoiceId,
    amountDue: formatDecimal(fromMinorUnits(r.amountDue, r.currencyCode), currencyScale(r.currencyCode)),
    currencyCode: r.currencyCode,
    completedAt: r.completedAt,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    // The record of the buyer's acceptance of the tenant's terms, kept with the cart's state.
    termsAcceptance: (r.state as CartState).termsAcceptance ?? null,
  };
}

export interface CartListQuery extends Page {
  status?: string | string[];
  'status[]'?: string | string[];
  checkoutLink?: string;
}

/** GET /checkout/carts: the tenant's carts (from their D1 record), newest first, by status (completed carts: `status[]=completed&status[]=paid`). */
export async function listCarts(ctx: ServiceContext, q: CartListQuery) {
  const statuses = filterValues(q.status, q['status[]']);
  const where = and(
    eq(carts.tenantId, ctx.tenant.id),
    statuses ? inJson(carts.status, statuses) : undefined,
    q.checkoutLink ? eq(carts.checkoutLinkId, q.checkoutLink) : undefined,
  );
  return fetchPage(ctx.db, carts, where, [desc(carts.createdAt), asc(carts.id)], q, renderCartSummary);
}
