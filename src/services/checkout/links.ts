import { and, eq, inArray, sql } from 'drizzle-orm';
import { outer } from '../../db/client';
import { checkoutLinks, plans, pricePlans, products, type CheckoutLinkAfterCheckout, type CheckoutLinkItemRow, type CheckoutLinkOptions } from '../../db/schema';
import { ApiError, type Violations } from '../../http/errors';
import { randomToken } from '../../lib/ids';
import type { CheckoutLinkResource } from '../../schemas/checkout';
import type { ServiceContext } from '../context';
import { resourceService } from '../common/resource';

// Checkout links (`/checkout-links`): a tenant's pre-configured cart for active plans and price
// plans, opened by buyers at `/checkout/{tenantSlug}/{slug}`. The tenant slug is the tenant's id
// (tenants have no public name of their own yet).

export interface CheckoutLinkItemInput {
  product: string;
  pricePlan: string;
  plan: string | null;
  quantity: number;
  minQuantity: number | null;
  maxQuantity: number | null;
  periods: { contractPeriod: string | null; cancellationPeriod: string | null } | null;
}

export interface CheckoutLinkInput {
  slug: string | null;
  isEnabled: boolean;
  afterCheckout: CheckoutLinkAfterCheckout;
  options: CheckoutLinkOptions;
  items: CheckoutLinkItemInput[];
}

/** A slug is one URL path segment as written: letters, digits, `-` and `_`. */
export const SLUG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

type LinkRow = typeof checkoutLinks.$inferSelect & { embedded?: string | null };

interface Embedded {
  productName: string | null;
  productDescription: string | null;
  priceType: CheckoutLinkResource['items'][number]['price']['type'] | null;
  calculationType: CheckoutLinkResource['items'][number]['price']['calculationType'] | null;
  currencyCode: string | null;
  priceAmount: string | null;
  billingInterval: string | null;
  planCode: string | null;
  planName: string | null;
}

/** The hosted page's path; the route puts the API's origin in front. */
export function checkoutPath(tenantId: string, slug: string): string {
  return `/checkout/${encodeURIComponent(tenantId)}/${encodeURIComponent(slug)}`;
}

export function renderLink(r: LinkRow): CheckoutLinkResource {
  const embedded: Embedded[] = r.embedded ? JSON.parse(r.embedded) : [];
  return {
    id: r.id,
    afterCheckout: r.afterCheckout,
    options: r.options,
    slug: r.slug,
    isEnabled: r.isEnabled,
    items: r.items.map((i, n) => {
      const e = embedded[n];
      return {
        type: 'product' as const,
        product: { type: 'product' as const, id: i.product, name: e?.productName ?? '', description: e?.productDescription ?? null },
        quantity: i.quantity,
        minQuantity: i.minQuantity,
        maxQuantity: i.maxQuantity,
        plan: i.plan ? { id: i.plan, code: e?.planCode ?? '', name: e?.planName ?? '' } : null,
        price: {
          id: i.pricePlan,
          type: e?.priceType ?? 'recurring',
          calculationType: e?.calculationType ?? 'flat_fee',
          currencyCode: e?.currencyCode ?? '',
          price: e?.priceAmount ? { amount: e.priceAmount } : null,
          billingInterval: e?.billingInterval ?? null,
        },
        periods: { contractPeriod: i.contractPeriod, cancellationPeriod: i.cancellationPeriod },
      };
    }),
    url: checkoutPath(r.tenantId, r.slug),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** Checks the items against the tenant's catalogue: active price plans of unarchived products, of an active plan when one is named, one currency. */
async function checkItems(ctx: ServiceContext, items: CheckoutLinkItemInput[], v: Violations) {
  const ids = (xs: (string | null)[]) => [...new Set(xs.filter((x): x is string => !!x))];
  const t = ctx.tenant.id;
  const none = [''];
  const [productRows, priceRows, planRows] = await ctx.db.batch([
    ctx.db.select().from(products).where(and(eq(products.tenantId, t), inArray(products.id, ids(items.map((i) => i.product)).concat(none)))),
    ctx.db.select().from(pricePlans).where(and(eq(pricePlans.tenantId, t), inArray(pricePlans.id, ids(items.map((i) => i.pricePlan)).concat(none)))),
    ctx.db.select().from(plans).where(and(eq(plans.tenantId, t), inArray(plans.id, ids(items.map((i) => i.plan)).concat(none)))),
  ]);
  const currencies = new Set<string>();
  const planIds = new Set<string>();
  items.forEach((item, n) => {
    const at = `items[${n}]`;
    const product = productRows.find((p) => p.id === item.product);
    const price = priceRows.find((p) => p.id === item.pricePlan);
    if (!product) v.add(`${at}.product`, 'No such product.', 'not_found');
    else if (product.isArchived) v.add(`${at}.product`, 'The product is archived.', 'archived');
    if (!price) v.add(`${at}.pricePlan`, 'No such price plan.', 'not_found');
    else {
      if (price.productId !== item.product) v.add(`${at}.pricePlan`, 'The price plan belongs to another product.', 'product_mismatch');
      if (price.status !== 'active') v.add(`${at}.pricePlan`, `Only active price plans can be sold; this one is ${price.status}.`, 'not_active');
      if (price.customerId) v.add(`${at}.pricePlan`, 'A price plan reserved for one customer cannot be sold through a link.', 'other_customer');
      currencies.add(price.currencyCode);
    }
    if (item.plan) {
      planIds.add(item.plan);
      const plan = planRows.find((p) => p.id === item.plan);
      if (!plan) v.add(`${at}.plan`, 'No such plan.', 'not_found');
      else if (plan.status !== 'active') v.add(`${at}.plan`, `Only active plans can be sold; this one is ${plan.status}.`, 'not_active');
      else if (![...plan.items, ...plan.addons].some((p) => p.product === item.product && p.pricePlan === item.pricePlan)) {
        v.add(`${at}.pricePlan`, 'The product at this price plan is not part of the plan.', 'not_in_plan');
      }
    }
    if (item.minQuantity !== null && item.maxQuantity !== null && item.minQuantity > item.maxQuantity) v.add(`${at}.maxQuantity`, 'Must not be below minQuantity.', 'out_of_range');
    if (item.minQuantity !== null && item.quantity < item.minQuantity) v.add(`${at}.quantity`, `Must be at least ${item.minQuantity}.`, 'out_of_range');
    if (item.maxQuantity !== null && item.quantity > item.maxQuantity) v.add(`${at}.quantity`, `Must be at most ${item.maxQuantity}.`, 'out_of_range');
  });
  if (currencies.size > 1) v.add('items', `All items must share one currency (found ${[...currencies].join(', ')}).`, 'mixed_currencies');
  if (planIds.size > 1) v.add('items', 'A link sells at most one plan.', 'several_plans');
  return { plans: planRows };
}

/** A plan's add-on brings its own bounds; an item the link names none for keeps at least 1 and no maximum. */
function itemRows(items: CheckoutLinkItemInput[], planRows: (typeof plans.$inferSelect)[]): CheckoutLinkItemRow[] {
  return items.map((i) => {
    const plan = planRows.find((p) => p.id === i.plan);
    const addon = plan?.addons.find((a) => a.product === i.product && a.pricePlan === i.pricePlan);
    const addonMin = addon ? Math.ceil(Number(addon.minQuantity)) : null;
    const addonMax = addon?.maxQuantity ? Math.floor(Number(addon.maxQuantity)) : null;
    return {
      product: i.product,
      pricePlan: i.pricePlan,
      plan: i.plan,
      quantity: i.quantity,
      minQuantity: i.minQuantity ?? addonMin ?? 1,
      maxQuantity: i.maxQuantity ?? addonMax,
      contractPeriod: i.periods?.contractPeriod ?? plan?.contractPeriod ?? null,
      cancellationPeriod: i.periods?.cancellationPeriod ?? plan?.cancellationPeriod ?? null,
    };
  });
}

const embeddedSql = sql<string>`(SELECT json_group_array(json_object(
    'productName', p.name, 'productDescription', p.description,
    'priceType', pp.type, 'calculationType', pp.calculation_type, 'currencyCode', pp.currency_code, 'priceAmount', pp.price_amount, 'billingInterval', pp.billing_interval,
    'planCode', pl.code, 'planName', pl.name) ORDER BY j.key)
  FROM json_each(${outer(checkoutLinks.items)}) j
  LEFT JOIN products p ON p.tenant_id = ${outer(checkoutLinks.tenantId)} AND p.id = json_extract(j.value, '$.product')
  LEFT JOIN price_plans pp ON pp.tenant_id = ${outer(checkoutLinks.tenantId)} AND pp.id = json_extract(j.value, '$.pricePlan')
  LEFT JOIN plans pl ON pl.tenant_id = ${outer(checkoutLinks.tenantId)} AND pl.id = json_extract(j.value, '$.plan'))`;

export const checkoutLinkService = resourceService({
  label: 'Checkout link',
  table: checkoutLinks,
  selection: { embedded: embeddedSql },
  render: renderLink,
  async check(ctx, input: CheckoutLinkInput, _current, v) {
    if (input.afterCheckout.action === 'redirect' && !input.afterCheckout.url) v.add('afterCheckout.url', 'A redirect needs the URL to redirect to.', 'required');
    if (input.items.length === 0) v.add('items', 'A checkout link sells at least one item.', 'required');
    await checkItems(ctx, input.items, v);
  },
  async columns(ctx, input: CheckoutLinkInput, current) {
    const planIds = [...new Set(input.items.map((i) => i.plan).filter((x): x is string => !!x))];
    const planRows = planIds.length ? await ctx.db.select().from(plans).where(and(eq(plans.tenantId, ctx.tenant.id), inArray(plans.id, planIds))) : [];
    return {
      slug: input.slug ?? current?.slug ?? randomToken(8).toLowerCase().replace(/[^a-z0-9]/g, 'x'),
      isEnabled: input.isEnabled,
      afterCheckout: input.afterCheckout,
      options: input.options,
      items: itemRows(input.items, planRows),
    };
  },
  writable: (r: LinkRow) => ({
    slug: r.slug,
    isEnabled: r.isEnabled,
    afterCheckout: r.afterCheckout,
    options: r.options,
    items: r.items.map((i) => ({
      product: i.product,
      pricePlan: i.pricePlan,
      plan: i.plan,
      quantity: i.quantity,
      minQuantity: i.minQuantity,
      maxQuantity: i.maxQuantity,
      periods: { contractPeriod: i.contractPeriod, cancellationPeriod: i.cancellationPeriod },
    })),
  }),
  uniques: { 'checkout_links.slug': 'slug' },
});

/** `PUT /checkout-links/{id}/enable|disable`: a disabled link opens no carts (404); open carts stay. */
export async function setLinkEnabled(ctx: ServiceContext, id: string, isEnabled: boolean): Promise<CheckoutLinkResource> {
  const current = await checkoutLinkService.find(ctx, id);
  if (current.isEnabled === isEnabled) return renderLink(current);
  return checkoutLinkService.change(ctx, current, { isEnabled }, undefined);
}

/** The enabled link a buyer opens, by the tenant's slug (its id) and the link's slug; 404 otherwise. */
export async function findOpenableLink(ctx: ServiceContext, slug: string) {
  const row = await ctx.db
    .select()
    .from(checkoutLinks)
    .where(and(eq(checkoutLinks.tenantId, ctx.tenant.id), eq(checkoutLinks.slug, slug)))
    .get();
  if (!row || !row.isEnabled) throw ApiError.notFound('Checkout link');
  return row;
}
