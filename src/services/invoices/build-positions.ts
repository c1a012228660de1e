import { and, eq } from 'drizzle-orm';
import { lineNet, positionTotals, taxCategoryRateProblem } from '../../billing/invoice-totals';
import { currencyScale, Dec, documentAmountLimit, toDecimalString, toMinorUnitsSafe, withinDocumentLimit } from '../../billing/money';
import { resolveTax, TaxRateUnavailableError, type TaxResolution } from '../../billing/tax';
import { inJson, tenantRowsById } from '../../db/client';
import { products, subscriptionItems, subscriptions, taxes, taxGroups, units } from '../../db/schema';
import type { PositionTax } from '../../db/schema/invoices';
import type { Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { newId } from '../../lib/ids';
import { taxOverrides } from '../catalogue/taxes';
import type { CustomerRow, PositionRow } from './render';
import { fieldPath, type PositionInput } from './position-input';

const limitText = (currency: string) => `${documentAmountLimit(currency).toFixed(0).replace(/\B(?=(\d{3})+$)/g, ',')} ${currency}`;

async function referenced(ctx: ServiceContext, customerId: string, inputs: PositionInput[]) {
  const ids = (pick: (p: PositionInput) => string | null) => [...new Set(inputs.map(pick).filter((x): x is string => x !== null))];
  const t = ctx.tenant.id;
  const [groupIds, unitIds, productIds, itemIds] = [ids((p) => p.taxGroup), ids((p) => p.unit), ids((p) => p.product), ids((p) => p.subscriptionItem)];
  const [groups, unitRows, productRows, itemRows] = await Promise.all([
    groupIds.length ? ctx.db.select().from(taxGroups).where(tenantRowsById(taxGroups, t, groupIds)) : [],
    unitIds.length ? ctx.db.select({ id: units.id, name: units.name }).from(units).where(tenantRowsById(units, t, unitIds)) : [],
    productIds.length ? ctx.db.select({ id: products.id }).from(products).where(tenantRowsById(products, t, productIds)) : [],
    // A line may name a subscription item of this customer only.
    itemIds.length
      ? ctx.db
          .select({ id: subscriptionItems.id })
          .from(subscriptionItems)
          .innerJoin(subscriptions, and(eq(subscriptions.tenantId, subscriptionItems.tenantId), eq(subscriptions.id, subscriptionItems.subscriptionId)))
          .where(and(eq(subscriptionItems.tenantId, t), inJson(subscriptionItems.id, itemIds), eq(subscriptions.customerId, customerId)))
      : [],
  ]);
  const overrides = new Map(await Promise.all(groups.map(async (g) => [g.id, await taxOverrides(ctx, g)] as const)));
  return { groups, units: unitRows, products: new Set(productRows.map((r) => r.id)), items: new Set(itemRows.map((r) => r.id)), overrides };
}

/**
 * Position rows for a document (docs/decisions.md, Invoices and billing): tax resolved per line
 * for the customer, each net rounded once, every reference checked, and each line bounded so its
 * amounts can be stored and billed. Broken rules go to `v` with the line's path.
 */
export async function buildPositions(
  ctx: ServiceContext,
  invoiceId: string,
  customer: CustomerRow,
  currency: string,
  inputs: PositionInput[],
  v: Violations,
  options: { startSort?: number; date?: Date; existing?: readonly PositionRow[] } = {},
): Promise<PositionRow[]> {
  const { startSort = 0, date = ctx.now, existing = [] } = options;
  const refs = await referenced(ctx, customer.id, inputs);
  const ids = inputs.map(() => newId());
  const rows: (PositionRow & { taxId?: string | null })[] = [];
  for (const [i, p] of inputs.entries()) {
    const at = p.path;
    const f = (field: string) => fieldPath(at, field);
    const names = p.names ?? { taxGroup: 'taxGroup', unit: 'unit', discount: 'discount' };
    const problems = v.list.length;
    let tax: Pick<TaxResolution, 'rate' | 'category' | 'legalNote' | 'taxId'> | null = null;
    const group = p.taxGroup === null ? null : (refs.groups.find((g) => g.id === p.taxGroup) ?? null);
    if (p.taxGroup !== null && (p.taxRate !== null || p.taxCategory !== null)) {
      v.add(f('taxRate'), `Give a ${names.taxGroup} or a taxRate (and taxCategory), not both.`, 'conflicting_fields');
    } else if (p.taxGroup !== null && !group) {
      v.add(f(names.taxGroup), 'No such tax group.', 'not_found');
    } else if (group) {
      try {
        tax = resolveTax({
          taxGroup: { type: group.type, reverseChargeType: group.reverseChargeType },
          sellerCountry: ctx.tenant.countryCode,
          customerCountry: customer.countryCode,
          vatIdValid: customer.isVatIdValid,
          isBusiness: customer.companyName !== null || customer.vatId !== null,
          taxExempt: customer.taxExempt,
          date,
          overrides: refs.overrides.get(group.id),
        });
      } catch (err) {
        if (!(err instanceof TaxRateUnavailableError)) throw err;
        v.add(f(names.taxGroup), `No tax rate is known for ${err.country}; add one under /taxes.`, 'rate_unavailable');
      }
    } else if (p.taxRate === null) {
      v.add(f('taxRate'), `Give a ${names.taxGroup}, or a taxRate (and taxCategory).`, 'required');
    } else {
      const category = p.taxCategory ?? (new Dec(p.taxRate).isZero() ? 'Z' : 'S');
      const mismatch = taxCategoryRateProblem(category, p.taxRate);
      if (mismatch) v.add(f('taxCategory'), mismatch, 'rate_mismatch');
      else tax = { rate: toDecimalString(p.taxRate), category: category as TaxResolution['category'], legalNote: null, taxId: null };
    }
    const unit = p.unit === null ? null : (refs.units.find((u) => u.id === p.unit) ?? null);
    if (p.unit !== null && !unit) v.add(f(names.unit), 'No such unit.', 'not_found');
    if (p.product !== null && !refs.products.has(p.product)) v.add(f('product'), 'No such product.', 'not_found');
    if (p.subscriptionItem !== null && !refs.items.has(p.subscriptionItem)) v.add(f('subscriptionItem'), "No such subscription item of this invoice's customer.", 'not_found');
    if (p.currencyCode !== null && p.currencyCode !== currency) v.add(f('currencyCode'), `Must be the invoice currency ${currency}.`, 'currency_mismatch');
    if (p.serviceDateFrom && p.serviceDateTo && new Date(p.serviceDateTo) < new Date(p.serviceDateFrom)) v.add(f('serviceDateTo'), 'Must not lie before serviceDateFrom.', 'before_start');
    let parentId: string | null = null;
    if (p.parent && 'index' in p.parent) {
      const index = p.parent.index;
      if (index >= 0 && index < i && inputs[index]!.parent === null) parentId = ids[index]!;
      else v.add(f('parent'), 'Must be the index of an earlier top-level position (the tree is at most two levels deep).', 'invalid_parent');
    } else if (p.parent) {
      const id = p.parent.id;
      if (existing.some((x) => x.id === id && x.parentId === null)) parentId = id;
      else v.add(f('parent'), 'Must be a top-level position of the same invoice (the tree is at most two levels deep).', 'invalid_parent');
    }
    // Each line is bounded before anything is rounded or stored (docs/decisions.md, "Amount bounds").
    const gross = new Dec(p.quantity).times(p.unitPrice);
    if (!withinDocumentLimit(gross, currency)) {
      v.add(at || 'unitPrice', `quantity × unitPrice must stay below ${limitText(currency)}.`, 'too_large');
      continue;
    }
    const percent = p.discountPercentage === null || new Dec(p.discountPercentage).isZero() ? null : new Dec(p.discountPercentage);
    if (percent && p.discount !== null && !new Dec(p.discount).isZero()) {
      v.add(f('discountPercentage'), `Give ${names.discount} or discountPercentage, not both.`, 'conflicting_fields');
    }
    if (v.list.length > problems || !tax) continue;
    const discount = percent ? gross.abs().times(percent).div(100).toString() : (p.discount ?? undefined);
    const net = lineNet({ quantity: p.quantity, unitPrice: p.unitPrice, discount }, currency);
    rows.push({
      id: ids[i]!,
      tenantId: ctx.tenant.id,
      invoiceId,
      parentId,
      sort: startSort + i,
      name: p.name,
      description: p.description,
      quantity: p.quantity,
      unitPrice: p.unitPrice,
      discountAmount: toMinorUnitsSafe(net.discount, currency),
      netAmount: toMinorUnitsSafe(net.net, currency),
      taxRate: tax.rate,
      taxCategory: tax.category,
      taxNote: tax.legalNote,
      serviceFrom: p.serviceDateFrom ? new Date(p.serviceDateFrom).toISOString() : null,
      serviceTo: p.serviceDateTo ? new Date(p.serviceDateTo).toISOString() : null,
      kind: 'manual',
      productId: p.product,
      subscriptionItemId: p.subscriptionItem,
      createdAt: ctx.now.toISOString(),
      unit: unit ? { id: unit.id, name: unit.name } : null,
      taxGroup: group ? { id: group.id, internalDescription: group.internalDescription, reverseChargeType: group.reverseChargeType, type: group.type } : null,
      tax: null,
      taxId: tax.taxId,
      discountPercentage: percent ? toDecimalString(percent) : null,
      unitPriceInterval: p.unitPriceInterval,
    });
  }
  // The tenant's /taxes entry that supplied a rate, as the document shows it.
  const taxIds = [...new Set(rows.map((r) => r.taxId).filter((x): x is string => !!x))];
  const taxRows = taxIds.length ? await ctx.db.select().from(taxes).where(tenantRowsById(taxes, ctx.tenant.id, taxIds)) : [];
  return rows.map(({ taxId, ...row }) => {
    const t = taxRows.find((x) => x.id === taxId);
    const snapshot: PositionTax | null = t ? { id: t.id, code: t.code, description: t.description } : null;
    return { ...row, tax: snapshot };
  });
}

/**
 * A document's totals (`positionTotals`), refused with a violation when its net, discount or gross
 * would reach `documentAmountLimit`, so what is accepted can be stored and billed.
 */
export function checkedTotals(positions: readonly PositionRow[], currency: string, v: Violations, path = 'positions') {
  const limit = BigInt(documentAmountLimit(currency).times(new Dec(10).pow(currencyScale(currency))).toFixed(0));
  const sum = (pick: (p: PositionRow) => number) => positions.reduce((s, p) => s + BigInt(pick(p)), 0n);
  const abs = (x: bigint) => (x < 0n ? -x : x);
  const tooLarge = () => v.add(path, `The document's amounts must stay below ${limitText(currency)}.`, 'too_large');
  if (abs(sum((p) => p.netAmount)) >= limit || abs(sum((p) => p.discountAmount)) >= limit) {
    tooLarge();
    return null;
  }
  const totals = positionTotals(positions, currency);
  if (BigInt(Math.abs(totals.grossAmount)) >= limit) {
    tooLarge();
    return null;
  }
  return totals;
}
