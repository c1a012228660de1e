import { z } from '@hono/zod-openapi';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { toDec } from '../../billing/money';
import { plans, pricePlans, productFamilies, products, type PlanAddon, type PlanItem } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { PLAN_STATUSES, type PlanResource } from '../../schemas/catalogue';
import { checkReference, listFilter, resourceService } from '../common/resource';

type PlanRow = typeof plans.$inferSelect;
export type PlanStatus = PlanRow['status'];

export interface PlanInput {
  family: string;
  code: string;
  name: string;
  description: string | null;
  originProduct: string | null;
  allowCheckout: boolean;
  changeBehaviour: PlanRow['changeBehaviour'];
  changeApplyBehaviour: PlanRow['changeApplyBehaviour'];
  contractPeriod: string | null;
  cancellationPeriod: string | null;
  items: PlanItem[];
  addons: PlanAddon[];
}

export function renderPlan(r: PlanRow): PlanResource {
  return {
    id: r.id,
    family: r.familyId,
    code: r.code,
    name: r.name,
    description: r.description,
    originProduct: r.originProductId,
    allowCheckout: r.allowCheckout,
    status: r.status,
    changeBehaviour: r.changeBehaviour,
    changeApplyBehaviour: r.changeApplyBehaviour,
    contractPeriod: r.contractPeriod,
    cancellationPeriod: r.cancellationPeriod,
    items: r.items,
    addons: r.addons,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

type ProductRow = typeof products.$inferSelect;
type PricePlanRow = typeof pricePlans.$inferSelect;

/** Loads the products and price plans a plan refers to, in two queries. */
async function loadContents(ctx: ServiceContext, lines: { product: string; pricePlan: string }[]) {
  const productIds = [...new Set(lines.map((l) => l.product))];
  const priceIds = [...new Set(lines.map((l) => l.pricePlan))];
  const [productRows, priceRows] = await ctx.db.batch([
    ctx.db.select().from(products).where(and(eq(products.tenantId, ctx.tenant.id), inArray(products.id, productIds.length ? productIds : ['']))),
    ctx.db.select().from(pricePlans).where(and(eq(pricePlans.tenantId, ctx.tenant.id), inArray(pricePlans.id, priceIds.length ? priceIds : ['']))),
  ]);
  return { products: new Map(productRows.map((p) => [p.id, p])), prices: new Map(priceRows.map((p) => [p.id, p])) };
}

/**
 * Checks a plan's contents: every line names a product of the tenant and a price plan of that
 * product; add-on quantities are ordered. With `forActivation`, also that the plan can be sold:
 * it has items, nothing is archived, every price plan is active and they share one currency.
 */
function checkContents(
  input: Pick<PlanInput, 'items' | 'addons'>,
  contents: { products: Map<string, ProductRow>; prices: Map<string, PricePlanRow> },
  v: Violations,
  forActivation: boolean,
) {
  const currencies = new Set<string>();
  const lines = [...input.items.map((l, i) => ({ l, path: `items[${i}]` })), ...input.addons.map((l, i) => ({ l, path: `addons[${i}]` }))];
  for (const { l, path } of lines) {
    const product = contents.products.get(l.product);
    const price = contents.prices.get(l.pricePlan);
    if (!product) v.add(`${path}.product`, 'No such product.', 'not_found');
    if (!price) v.add(`${path}.pricePlan`, 'No such price plan.', 'not_found');
    if (product && price && price.productId !== product.id) v.add(`${path}.pricePlan`, 'The price plan belongs to another product.', 'product_mismatch');
    if (price) currencies.add(price.currencyCode);
    if (forActivation) {
      if (product?.isArchived) v.add(`${path}.product`, 'The product is archived.', 'archived');
      if (price && price.status !== 'active') v.add(`${path}.pricePlan`, `The price plan is ${price.status}.`, 'not_active');
    }
  }
  input.addons.forEach((a, i) => {
    if (a.maxQuantity !== null && toDec(a.maxQuantity).lt(toDec(a.minQuantity))) {
      v.add(`addons[${i}].maxQuantity`, 'Must not be below minQuantity.', 'out_of_range');
    }
  });
  if (forActivation) {
    if (input.items.length === 0) v.add('items', 'A plan needs at least one item before it can be activated.', 'required');
    if (currencies.size > 1) v.add('items', `All price plans of a plan must share one currency (found ${[...currencies].join(', ')}).`, 'mixed_currencies');
  }
}

export const planService = resourceService({
  label: 'Plan',
  table: plans,
  render: renderPlan,
  async check(ctx: ServiceContext, input: PlanInput, current, v: Violations) {
    if (current?.status === 'archived') throw ApiError.conflict('An archived plan cannot be changed.', 'invalid-transition');
    await checkReference(ctx, productFamilies, input.family, 'family', v, 'product family');
    await checkReference(ctx, products, input.originProduct, 'originProduct', v, 'product');
    const contents = await loadContents(ctx, [...input.items, ...input.addons]);
    // An active plan must stay sellable through every edit.
    checkContents(input, contents, v, current?.status === 'active');
  },
  columns: (_ctx, i: PlanInput, current) => ({
    familyId: i.family,
    code: i.code,
    name: i.name,
    description: i.description,
    originProductId: i.originProduct,
    allowCheckout: i.allowCheckout,
    status: current?.status ?? 'draft',
    changeBehaviour: i.changeBehaviour,
    changeApplyBehaviour: i.changeApplyBehaviour,
    contractPeriod: i.contractPeriod,
    cancellationPeriod: i.cancellationPeriod,
    items: i.items,
    addons: i.addons,
  }),
  writable: (r): PlanInput => ({
    family: r.familyId,
    code: r.code,
    name: r.name,
    description: r.description,
    originProduct: r.originProductId,
    allowCheckout: r.allowCheckout,
    changeBehaviour: r.changeBehaviour,
    changeApplyBehaviour: r.changeApplyBehaviour,
    contractPeriod: r.contractPeriod,
    cancellationPeriod: r.cancellationPeriod,
    items: r.items,
    addons: r.addons,
  }),
  uniques: { 'plans.code': 'code' },
  // Only drafts can be deleted; a plan that was ever sold is archived instead.
  inUse: (id, tenantId) => sqlNotDraft(id, tenantId),
  events: { created: 'plan.created', updated: 'plan.updated', deleted: 'plan.deleted' },
  filters: {
    status: listFilter(z.enum(PLAN_STATUSES), (v) => eq(plans.status, v)),
    family: listFilter(z.string().max(64), (v) => eq(plans.familyId, v)),
    code: listFilter(z.string().max(64), (v) => eq(plans.code, v)),
  },
  sortable: { name: plans.name, code: plans.code, createdAt: plans.createdAt },
});

function sqlNotDraft(id: string, tenantId: string) {
  return sql`EXISTS (SELECT 1 FROM plans WHERE tenant_id = ${tenantId} AND id = ${id} AND status <> 'draft')`;
}

/** Plan status transitions (docs/state-machines.md): activate, deactivate, archive. */
export const PLAN_TRANSITIONS: Record<'activate' | 'deactivate' | 'archive', { from: PlanStatus[]; to: PlanStatus }> = {
  activate: { from: ['draft', 'inactive'], to: 'active' },
  deactivate: { from: ['active'], to: 'inactive' },
  archive: { from: ['draft', 'active', 'inactive'], to: 'archived' },
};

export async function transitionPlan(ctx: ServiceContext, id: string, action: keyof typeof PLAN_TRANSITIONS) {
  const current = await planService.find(ctx, id);
  const rule = PLAN_TRANSITIONS[action];
  if (!rule.from.includes(current.status)) {
    throw ApiError.conflict(`Cannot ${action} a plan in status ${current.status}.`, 'invalid-transition');
  }
  if (rule.to === 'active') {
    const v = new Violations();
    checkContents(current, await loadContents(ctx, [...current.items, ...current.addons]), v, true);
    v.throwIfAny();
  }
  return planService.change(ctx, current, { status: rule.to }, 'plan.updated');
}
