// Opening a checkout link: a new cart with a snapshot of what it sells (price plans, products,
// units, the plan, tax groups), so that pricing it again after a change reads no catalogue.
import { loadGatewayCredentials } from '../payments/gateway-credentials';
import { and, eq, inArray } from 'drizzle-orm';
import { jwtVerify } from 'jose';
import { tenantRowsById } from '../../db/client';
import { customerAddresses, customers, measurements, plans, pricePlans, products, units } from '../../db/schema';
import type { Env } from '../../env';
import { ApiError } from '../../http/errors';
import { randomToken } from '../../lib/ids';
import type { CartAddress, PublicCart } from '../../schemas/checkout';
import { loadTaxGroups } from '../billing/inputs';
import { openTenantContext, type ServiceContext } from '../context';
import { chooseBillingAddress } from '../invoices/drafts';
import { JWT_AUDIENCE, JWT_ISSUER, jwtKey } from '../platform/customer-sessions';
import { cleanPrefill } from './buyer';
import { findOpenableLink } from './links';
import { CART_TTL_MS, storeNewCart, type CartItemState, type CartState } from './state';
import { sellerOf } from './trust';
import { tenantIdOfPath } from '../platform/tenant-slug';

/** The tenant a link's public URL names (its public slug, or its id), as a service context; 404 when unknown. */
export async function tenantBySlug(env: Env, tenantSlug: string): Promise<ServiceContext> {
  const ctx = await openTenantContext(env, await tenantIdOfPath(env, tenantSlug));
  if (!ctx) throw ApiError.notFound('Checkout link');
  return ctx;
}

/** The active customer a customer session's token names, within this tenant; 401 otherwise. */
export async function customerOfToken(ctx: ServiceContext, token: string) {
  let claims;
  try {
    ({ payload: claims } = await jwtVerify(token, jwtKey(ctx.env), { issuer: JWT_ISSUER, audience: JWT_AUDIENCE, algorithms: ['HS256'] }));
  } catch {
    throw ApiError.unauthorized('The access token is invalid or has expired.');
  }
  // A session of another tenant's customer is no session here.
  if (claims.role !== 'customer' || claims.tid !== ctx.tenant.id || typeof claims.sub !== 'string') throw ApiError.unauthorized();
  const customer = await ctx.db
    .select()
    .from(customers)
    .where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, claims.sub)))
    .get();
  if (!customer || customer.status !== 'STATUS_ACTIVE') throw ApiError.unauthorized('The customer of this access token is not active.');
  return customer;
}

/** A customer's address as a cart shows it; the tax fields come from the customer, which billing taxes by. */
export async function customerCartAddress(ctx: ServiceContext, customer: typeof customers.$inferSelect): Promise<CartAddress> {
  const rows = await ctx.db
    .select()
    .from(customerAddresses)
    .where(and(eq(customerAddresses.tenantId, ctx.tenant.id), eq(customerAddresses.customerId, customer.id), eq(customerAddresses.isDefault, true)));
  const a = chooseBillingAddress(rows) as Record<string, string | null> | null;
  return {
    id: a?.id ?? null,
    vatId: customer.vatId,
    vatIdValid: customer.isVatIdValid,
    companyName: customer.companyName,
    salutation: (a?.salutation as CartAddress['salutation']) ?? null,
    firstName: customer.firstName,
    lastName: customer.lastName,
    street: a?.street ?? '',
    houseNumber: a?.houseNumber ?? '',
    zip: a?.zip ?? '',
    city: a?.city ?? '',
    addition: a?.addition ?? '',
    countryCode: customer.countryCode,
    costCentre: a?.costCentre ?? null,
  };
}

export async function openCart(env: Env, input: { tenantSlug: string; linkSlug: string; prefill: Record<string, string>; customerToken?: string | null }): Promise<PublicCart> {
  const ctx = await tenantBySlug(env, input.tenantSlug);
  const link = await findOpenableLink(ctx, input.linkSlug);
  const customer = input.customerToken ? await customerOfToken(ctx, input.customerToken) : null;
  const ids = (xs: (string | null)[]) => [...new Set(xs.filter((x): x is string => !!x))];
  const [priceRows, planRows] = await ctx.db.batch([
    ctx.db.select().from(pricePlans).where(tenantRowsById(pricePlans, ctx.tenant.id, ids(link.items.map((i) => i.pricePlan)))),
    ctx.db.select().from(plans).where(tenantRowsById(plans, ctx.tenant.id, ids(link.items.map((i) => i.plan)).concat(['']))),
  ]);
  // A join with same-named columns is read on its own: inside a D1 batch its rows come back unmapped.
  const productRows = await ctx.db
    .select({ p: products, m: measurements, u: units })
    .from(products)
    .leftJoin(measurements, and(eq(measurements.tenantId, products.tenantId), eq(measurements.id, products.measurementId)))
    .leftJoin(units, and(eq(units.tenantId, measurements.tenantId), eq(units.id, measurements.unitId)))
    .where(and(eq(products.tenantId, ctx.tenant.id), inArray(products.id, ids(link.items.map((i) => i.product)).concat(['']))));
  const items: CartItemState[] = [];
  for (const [n, i] of link.items.entries()) {
    const price = priceRows.find((p) => p.id === i.pricePlan);
    const product = productRows.find((r) => r.p.id === i.product);
    // What was sellable when the link was saved may have been retired since: such a link opens nothing.
    if (!price || price.status !== 'active' || !product || product.p.isArchived) throw ApiError.notFound('Checkout link');
    items.push({
      id: `item-${n + 1}`,
      productId: product.p.id,
      planId: i.plan,
      name: product.p.name,
      description: product.p.description,
      quantity: i.quantity,
      minQuantity: i.minQuantity,
      maxQuantity: i.maxQuantity,
      unit: product.u?.name ?? null,
      aggregationType: product.m?.aggregationType ?? 'count',
      measurementDescription: product.m?.description ?? null,
      taxGroupId: product.p.taxGroupId,
      price,
      contractPeriod: i.contractPeriod,
      cancellationPeriod: i.cancellationPeriod,
    });
  }
  const plan = planRows.find((p) => p.id === items.find((i) => i.planId)?.planId) ?? null;
  if (plan && plan.status !== 'active') throw ApiError.notFound('Checkout link');
  const taxGroups = Object.fromEntries((await loadTaxGroups(ctx)).entries());
  const nowIso = ctx.now.toISOString();
  const state: Omit<CartState, 'view'> = {
    id: randomToken(24),
    tenantId: ctx.tenant.id,
    linkId: link.id,
    linkSlug: link.slug,
    status: 'open',
    version: 1,
    createdAt: nowIso,
    updatedAt: nowIso,
    expiresAt: new Date(Date.now() + CART_TTL_MS).toISOString(),
    currency: items[0]!.price.currencyCode,
    sellerCountry: ctx.tenant.countryCode,
    testMode: ctx.tenant.mode === 'test',
    offersCard: (await loadGatewayCredentials(env, ctx.db, ctx.tenant.id, 'card_provider')) !== null,
    timeZone: customer?.timeZone ?? ctx.tenant.timeZone,
    planId: plan?.id ?? null,
    planName: plan?.name ?? null,
    planDescription: plan?.description ?? null,
    seller: await sellerOf(ctx),
    options: link.options,
    afterCheckout: link.afterCheckout,
    taxGroups,
    items,
    customerId: customer?.id ?? null,
    loggedIn: customer !== null,
    email: customer?.email ?? null,
    phone: customer?.phone ?? null,
    invoiceAddress: customer ? await customerCartAddress(ctx, customer) : null,
    prefill: cleanPrefill(input.prefill),
    coupon: null,
    pendingOtp: null,
    paymentMethodId: null,
    subscriptionId: null,
    invoiceId: null,
    completionDetails: null,
    completedAt: null,
  };
  return storeNewCart(ctx, state);
}
