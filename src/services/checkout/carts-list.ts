import { and, asc, desc, eq } from 'drizzle-orm';
import { formatDecimal, fromMinorUnits, currencyScale } from '../../billing/money';
import { inJson } from '../../db/client';
import { fetchPage } from '../../db/paging';
import { carts } from '../../db/schema';
import { filterValues, type Page } from '../../http/pagination';
import { ApiError } from '../../http/errors';
import type { CartSummary, PublicCart } from '../../schemas/checkout';
import type { ServiceContext } from '../context';
import type { CartState } from './state';
import { systemNow } from '../../lib/clock';

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

/**
 * GET /checkout/carts/{id}: one of the tenant's carts as the buyer sees it (spec §2.6), from its D1
 * record, which every change writes first. Unlike the public read it answers for completed and
 * expired carts while their record is kept; an open cart past its expiry shows `expired`.
 */
export async function getCart(ctx: ServiceContext, id: string): Promise<PublicCart> {
  const row = await ctx.db.select().from(carts).where(and(eq(carts.tenantId, ctx.tenant.id), eq(carts.id, id))).get();
  if (!row) throw ApiError.notFound('Cart');
  const { view } = row.state as CartState;
  // Carts expire by the wall clock, like the public read (docs/decisions.md, Public carts).
  const expired = (view.status === 'open' || view.status === 'confirming') && Date.parse(row.expiresAt) <= systemNow().getTime();
  return expired ? { ...view, status: 'expired' } : view;
}
