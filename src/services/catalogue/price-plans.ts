import { customerExists } from '../customers/guards';
import { z } from '@hono/zod-openapi';
import { eq, sql } from 'drizzle-orm';
import { checkDecimal, Dec, exceedsLineAmount, maxLineAmount } from '../../billing/money';
import { checkPricePlan, priceFor, PricingError, type PricePlanPricing } from '../../billing/pricing';
import { outer } from '../../db/client';
import { customers, measurements, pricePlans, products, type PriceTier } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import type { PricePlanResource } from '../../schemas/catalogue';
import { checkReference, listFilter, resourceService } from '../common/resource';

type PricePlanRow = typeof pricePlans.$inferSelect & { inUse?: number | null; checkoutLinkIds?: string | null };
export type PricePlanType = PricePlanRow['type'];

export interface PricePlanInput {
  product: string;
  internalName: string | null;
  status: 'active' | 'inactive';
  type: PricePlanType | null;
  calculationType: PricePlanRow['calculationType'];
  currencyCode: string;
  price: { amount: string } | null;
  percentage: string | null;
  tiers: PriceTier[] | null;
  freeUnits: string;
  billingInterval: string | null;
  showPricePerInterval: string | null;
  applyTrial: boolean;
  payInAdvance: boolean | null;
  proRata: boolean;
  custom: boolean;
  customer: string | null;
  salesChannel: string | null;
}

/** The pricing a price plan row stands for, in the shape `priceFor` takes. */
export function pricingOf(row: Pick<PricePlanRow, 'calculationType' | 'priceAmount' | 'tiers' | 'freeUnits' | 'percentage'>): PricePlanPricing {
  return {
    calculationType: row.calculationType,
    flatPrice: row.calculationType === 'flat_fee' ? row.priceAmount : null,
    unitPrice: row.calculationType === 'per_unit' ? row.priceAmount : null,
    tiers: row.tiers,
    freeUnits: row.freeUnits,
    percentage: row.percentage,
  };
}

// A price plan is in use once a plan offers it or a subscription item bills it.
const inUseSql = (id: SQL | string, tenantId: SQL | string) =>
  sql`EXISTS (SELECT 1 FROM subscription_items si WHERE si.tenant_id = ${tenantId} AND si.price_plan_id = ${id})
    OR EXISTS (SELECT 1 FROM plans p WHERE p.tenant_id = ${tenantId} AND (
      EXISTS (SELECT 1 FROM json_each(p.items) i WHERE json_extract(i.value, '$.pricePlan') = ${id})
      OR EXISTS (SELECT 1 FROM json_each(p.addons) a WHERE json_extract(a.value, '$.pricePlan') = ${id})))`;
type SQL = ReturnType<typeof sql>;

export function renderPricePlan(r: PricePlanRow): PricePlanResource {
  return {
    id: r.id,
    product: r.productId,
    internalName: r.internalName,
    status: r.status,
    type: r.type,
    calculationType: r.calculationType,
    currencyCode: r.currencyCode,
    price: r.priceAmount === null ? null : { amount: r.priceAmount, currencyCode: r.currencyCode, createdAt: r.createdAt, updatedAt: r.updatedAt, tenantId: r.tenantId },
    percentage: r.percentage,
    tiers: r.tiers,
    freeUnits: r.freeUnits,
    billingInterval: r.billingInterval,
    showPricePerInterval: r.showPricePerInterval,
    applyTrial: r.applyTrial,
    payInAdvance: r.payInAdvance,
    proRata: r.proRata,
    custom: r.custom,
    customer: r.customerId,
    salesChannel: r.salesChannel,
    // A one-time price is the price of a charge: its product (docs/decisions.md, Response shapes).
    charge: r.type === 'one_time' ? r.productId : null,
    // The catalogue has no product sets, so no price belongs to an option of one.
    productSetOption: null,
    inUse: Boolean(r.inUse),
    checkoutLinkIds: r.checkoutLinkIds ? (JSON.parse(r.checkoutLinkIds) as string[]) : [],
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** Fields that make up the price: fixed once the price plan is in use (a new price is a new price plan). */
const PRICE_FIELDS = [
  'productId',
  'type',
  'calculationType',
  'currencyCode',
  'priceAmount',
  'percentage',
  'tiers',
  'freeUnits',
  'billingInterval',
  'applyTrial',
  'payInAdvance',
  'proRata',
  'customerId',
] as const;

/** The price plan type a product's kind and measurement call for. */
function expectedType(productType: string, measurementType: string | undefined): PricePlanType {
  if (productType === 'charge') return 'one_time';
  if (measurementType === 'metered') return 'metered';
  if (measurementType === 'instant_metered') return 'instant_metered';
  return 'recurring';
}

async function derive(ctx: ServiceContext, input: PricePlanInput, v: Violations) {
  const product = (await checkReference(ctx, products, input.product, 'product', v, 'product')) as typeof products.$inferSelect | null;
  let measurementType: string | undefined;
  if (product) {
    const m = await ctx.db.select({ type: measurements.type }).from(measurements).where(sql`${measurements.tenantId} = ${ctx.tenant.id} AND ${measurements.id} = ${product.measurementId}`).get();
    measurementType = m?.type;
  }
  const type = product ? expectedType(product.type, measurementType) : (input.type ?? 'recurring');
  return { product, type };
}

export const pricePlanService = resourceService({
  label: 'Price plan',
  table: pricePlans,
  selection: {
    inUse: inUseSql(outer(pricePlans.id), outer(pricePlans.tenantId)),
    // The checkout links that sell it (spec §2.3 checkoutLinkIds).
    checkoutLinkIds: sql<string>`(SELECT json_group_array(l.id) FROM checkout_links l WHERE l.tenant_id = ${outer(pricePlans.tenantId)}
      AND EXISTS (SELECT 1 FROM json_each(l.items) i WHERE json_extract(i.value, '$.pricePlan') = ${outer(pricePlans.id)}))`,
  },
  render: renderPricePlan,
  // A price reserved for a customer: the customer must still exist when it is written.
  references: (row, tenantId) => (row.customerId ? [{ path: 'customer', label: 'customer', exists: customerExists(tenantId, row.customerId) }] : []),
  async check(ctx: ServiceContext, input: PricePlanInput, current, v: Violations) {
    const { product, type } = await derive(ctx, input, v);
    if (product?.isArchived && (!current || current.productId !== input.product)) {
      v.add('product', 'The product is archived.', 'archived');
    }
    if (input.type !== null && product && input.type !== type) {
      v.add('type', `A ${product.type} product with this measurement takes price plans of type ${type}.`, 'type_mismatch');
    }
    const usesAmount = input.calculationType === 'flat_fee' || input.calculationType === 'per_unit';
    if (usesAmount && !input.price) v.add('price', `A ${input.calculationType} price plan needs price.amount.`, 'required');
    if (!usesAmount && input.price) v.add('price', `A ${input.calculationType} price plan takes no price; use tiers or percentage.`, 'not_allowed');
    const tiered = ['tiered', 'volume', 'stair_step'].includes(input.calculationType);
    if (!tiered && input.tiers) v.add('tiers', `A ${input.calculationType} price plan takes no tiers.`, 'not_allowed');
    if (input.calculationType !== 'percentage' && input.percentage !== null) v.add('percentage', 'Only percentage price plans take a percentage.', 'not_allowed');
    for (const p of checkPricePlan(pricingOf(columnsOf(input, type)))) {
      // A missing price is already reported on `price`.
      if ((p.propertyPath === 'flatPrice' || p.propertyPath === 'unitPrice') && !input.price) continue;
      v.add(p.propertyPath === 'flatPrice' || p.propertyPath === 'unitPrice' ? 'price.amount' : p.propertyPath, p.message, p.code);
    }
    checkAmountBounds(input, v);
    if (type === 'one_time' || type === 'instant_metered') {
      if (input.billingInterval !== null) v.add('billingInterval', `A ${type} price plan has no billing interval.`, 'not_allowed');
    } else if (input.billingInterval === null) {
      v.add('billingInterval', `A ${type} price plan needs a billing interval (e.g. 1M).`, 'required');
    }
    if ((type === 'metered' || type === 'instant_metered') && input.payInAdvance === true) {
      v.add('payInAdvance', 'Usage is billed in arrears; a usage price plan cannot be paid in advance.', 'not_allowed');
    }
    if (input.custom && !input.customer) v.add('customer', 'A custom price plan belongs to a customer.', 'required');
    if (!input.custom && input.customer) v.add('customer', 'Only custom price plans belong to a customer.', 'not_allowed');
    await checkReference(ctx, customers, input.customer, 'customer', v, 'customer');
    if (current && v.empty) {
      const next = columnsOf(input, type);
      const inUse = Boolean((current as PricePlanRow).inUse);
      const changed = PRICE_FIELDS.filter((f) => JSON.stringify(next[f]) !== JSON.stringify(current[f]));
      if (inUse && changed.length > 0) {
        throw ApiError.conflict(
          `The price plan is in use; its price (${changed.join(', ')}) cannot change. Create a new price plan instead.`,
          'price-plan-in-use',
        );
      }
      if (current.status === 'archived') throw ApiError.conflict('An archived price plan cannot be changed.', 'invalid-transition');
    }
  },
  async columns(ctx, input: PricePlanInput) {
    const v = new Violations();
    const { type } = await derive(ctx, input, v);
    return columnsOf(input, type);
  },
  writable: (r): PricePlanInput => ({
    product: r.productId,
    internalName: r.internalName,
    status: r.status === 'archived' ? 'inactive' : r.status,
    type: r.type,
    calculationType: r.calculationType,
    currencyCode: r.currencyCode,
    price: r.priceAmount === null ? null : { amount: r.priceAmount },
    percentage: r.percentage,
    tiers: r.tiers,
    freeUnits: r.freeUnits,
    billingInterval: r.billingInterval,
    showPricePerInterval: r.showPricePerInterval,
    applyTrial: r.applyTrial,
    payInAdvance: r.payInAdvance,
    proRata: r.proRata,
    custom: r.custom,
    customer: r.customerId,
    salesChannel: r.salesChannel,
  }),
  inUse: (id, tenantId) => inUseSql(id, tenantId),
  events: { created: 'price_plan.created', updated: 'price_plan.updated', deleted: 'price_plan.deleted' },
  filters: {
    product: listFilter(z.string().max(64), (v) => eq(pricePlans.productId, v)),
    status: listFilter(z.enum(['active', 'inactive', 'archived']), (v) => eq(pricePlans.status, v)),
    currencyCode: listFilter(z.string().max(3), (v) => eq(pricePlans.currencyCode, v)),
    customer: listFilter(z.string().max(64), (v) => eq(pricePlans.customerId, v)),
  },
  sortable: { createdAt: pricePlans.createdAt },
});

/**
 * Every price that one unit or one tier bills must fit one invoice line (docs/decisions.md, Invoices
 * and billing); what a quantity bills is checked where the quantity is given (`unbillableAmount`).
 * Malformed prices are left to `checkPricePlan`.
 */
function checkAmountBounds(input: PricePlanInput, v: Violations) {
  const prices: [string, string | null | undefined][] = [
    ['price.amount', input.price?.amount],
    ...(input.tiers ?? []).flatMap((tier, i): [string, string | null | undefined][] => [
      [`tiers[${i}].unitPrice`, tier.unitPrice],
      [`tiers[${i}].flatPrice`, tier.flatPrice],
    ]),
  ];
  for (const [path, value] of prices) {
    if (typeof value !== 'string' || checkDecimal(value, { allowNegative: false }) !== null) continue;
    if (exceedsLineAmount(value, input.currencyCode)) {
      v.add(path, `Must be at most ${maxLineAmount(input.currencyCode).toString()} ${input.currencyCode}, the largest amount an invoice line may bill.`, 'too_large');
    }
  }
}

/**
 * Why one period of `quantity` under the price plan cannot be billed: its amount is beyond what an
 * invoice line may bill (docs/decisions.md, Invoices and billing); null when it can. Percentage
 * plans take a share of the other lines, which are bounded themselves.
 */
export function unbillableAmount(row: Pick<PricePlanRow, 'calculationType' | 'priceAmount' | 'tiers' | 'freeUnits' | 'percentage' | 'currencyCode'>, quantity: string): string | null {
  if (row.calculationType === 'percentage' || checkDecimal(quantity, { allowNegative: false }) !== null) return null;
  let amount: string;
  try {
    amount = priceFor(pricingOf(row), quantity).amount;
  } catch (err) {
    // A stored plan its checks would refuse today: billing reports it (lastBillingError).
    if (err instanceof PricingError) return null;
    throw err;
  }
  if (!exceedsLineAmount(amount, row.currencyCode)) return null;
  const bound = maxLineAmount(row.currencyCode).toString();
  return `A quantity of ${quantity} bills ${amount} ${row.currencyCode} a period, more than an invoice line may bill (${bound} ${row.currencyCode}).`;
}

/**
 * What items bill together in one period at their quantities (percentage plans and plans that
 * cannot be priced left out: they are bounded by their base, or reported when billed), or null.
 */
export function periodTotal(items: { price: Parameters<typeof unbillableAmount>[0] | undefined; quantity: string }[]): Dec | null {
  let total: Dec | null = null;
  for (const { price, quantity } of items) {
    if (!price || price.calculationType === 'percentage' || checkDecimal(quantity, { allowNegative: false }) !== null) continue;
    try {
      total = (total ?? new Dec(0)).plus(priceFor(pricingOf(price), quantity).amount);
    } catch (err) {
      if (!(err instanceof PricingError)) throw err;
    }
  }
  return total;
}

function columnsOf(input: PricePlanInput, type: PricePlanType) {
  return {
    productId: input.product,
    internalName: input.internalName,
    status: input.status,
    type,
    calculationType: input.calculationType,
    currencyCode: input.currencyCode,
    priceAmount: input.price?.amount ?? null,
    percentage: input.percentage,
    tiers: input.tiers,
    freeUnits: input.freeUnits,
    billingInterval: input.billingInterval,
    showPricePerInterval: input.showPricePerInterval,
    applyTrial: input.applyTrial,
    // Recurring fees default to billing in advance; usage is always billed in arrears.
    payInAdvance: input.payInAdvance ?? (type === 'recurring' || type === 'one_time'),
    proRata: input.proRata,
    custom: input.custom,
    customerId: input.customer,
    salesChannel: input.salesChannel,
  };
}

/** An archived price plan is no longer offered; subscriptions that have it keep it. */
export async function archivePricePlan(ctx: ServiceContext, id: string) {
  const current = await pricePlanService.find(ctx, id);
  if (current.status === 'archived') throw ApiError.conflict('The price plan is already archived.', 'invalid-transition');
  return pricePlanService.change(ctx, current, { status: 'archived' }, 'price_plan.archived');
}
