import { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import { resolveTax, TaxRateUnavailableError, type TaxRateOverride } from '../../billing/tax';
import { taxes, taxGroups } from '../../db/schema';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import type { TaxGroupResource, TaxResolution, TaxResource } from '../../schemas/catalogue';
import { checkReference, listFilter, resourceService } from '../common/resource';

type TaxGroupRow = typeof taxGroups.$inferSelect;
export interface TaxGroupInput {
  internalDescription: string | null;
  reverseChargeType: TaxGroupRow['reverseChargeType'];
  type: TaxGroupRow['type'];
}

export const taxGroupService = resourceService({
  label: 'Tax group',
  table: taxGroups,
  render: (r: TaxGroupRow): TaxGroupResource => ({
    id: r.id,
    internalDescription: r.internalDescription,
    reverseChargeType: r.reverseChargeType,
    type: r.type,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }),
  columns: (_ctx, i: TaxGroupInput) => i,
  writable: (r): TaxGroupInput => ({ internalDescription: r.internalDescription, reverseChargeType: r.reverseChargeType, type: r.type }),
  inUse: (id, tenantId) =>
    sql`EXISTS (SELECT 1 FROM products WHERE tenant_id = ${tenantId} AND tax_group_id = ${id})
      OR EXISTS (SELECT 1 FROM taxes WHERE tenant_id = ${tenantId} AND tax_group_id = ${id})`,
  events: { created: 'tax_group.created', updated: 'tax_group.updated', deleted: 'tax_group.deleted' },
  filters: { type: listFilter(z.enum(['standard', 'reduced']), (v) => eq(taxGroups.type, v)) },
});

type TaxRow = typeof taxes.$inferSelect;
export interface TaxInput {
  taxGroup: string;
  countryCode: string;
  validFrom: string;
  rate: string;
  code: string;
  description: string | null;
}

export const taxService = resourceService({
  label: 'Tax',
  table: taxes,
  render: (r: TaxRow): TaxResource => ({
    id: r.id,
    taxGroup: r.taxGroupId,
    countryCode: r.countryCode,
    validFrom: r.validFrom,
    // A percentage with at most 4 decimals, not money: a JSON number shows it exactly.
    rate: Number(r.rate),
    code: r.code,
    description: r.description,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }),
  async check(ctx, input: TaxInput, _current, v) {
    await checkReference(ctx, taxGroups, input.taxGroup, 'taxGroup', v, 'tax group');
  },
  columns: (_ctx, i: TaxInput) => ({ taxGroupId: i.taxGroup, countryCode: i.countryCode, validFrom: i.validFrom, rate: i.rate, code: i.code, description: i.description }),
  writable: (r): TaxInput => ({ taxGroup: r.taxGroupId, countryCode: r.countryCode, validFrom: r.validFrom, rate: r.rate, code: r.code, description: r.description }),
  uniques: { 'taxes.valid_from': 'validFrom' },
  events: { created: 'tax.created', updated: 'tax.updated', deleted: 'tax.deleted' },
  filters: {
    taxGroup: listFilter(z.string().max(64), (v) => eq(taxes.taxGroupId, v)),
    countryCode: listFilter(z.string().max(2), (v) => eq(taxes.countryCode, v)),
  },
  sortable: { validFrom: taxes.validFrom, countryCode: taxes.countryCode },
});

/** The tenant's own rates of a tax group, as overrides of the EU table. */
export async function taxOverrides(ctx: ServiceContext, group: Pick<TaxGroupRow, 'id' | 'type'>): Promise<TaxRateOverride[]> {
  const rows = await ctx.db
    .select()
    .from(taxes)
    .where(and(eq(taxes.tenantId, ctx.tenant.id), eq(taxes.taxGroupId, group.id)));
  return rows.map((t) => ({ country: t.countryCode, type: group.type, rate: t.rate, validFrom: t.validFrom, taxId: t.id }));
}

export interface TaxPreviewInput {
  customerCountry: string;
  date: string;
  isBusiness: boolean;
  vatIdValid: boolean;
  taxExempt: 'auto' | 'exempt';
}

/** What a tax group charges a given customer on a given day: the same resolution billing uses. */
export async function previewTax(ctx: ServiceContext, groupId: string, input: TaxPreviewInput): Promise<TaxResolution> {
  const group = await taxGroupService.find(ctx, groupId);
  const overrides = await taxOverrides(ctx, group);
  try {
    const resolution = resolveTax({
      taxGroup: { type: group.type, reverseChargeType: group.reverseChargeType },
      sellerCountry: ctx.tenant.countryCode,
      customerCountry: input.customerCountry,
      vatIdValid: input.vatIdValid,
      isBusiness: input.isBusiness,
      taxExempt: input.taxExempt,
      date: input.date,
      overrides,
    });
    return { ...resolution, sellerCountry: ctx.tenant.countryCode, date: input.date };
  } catch (err) {
    if (err instanceof TaxRateUnavailableError) {
      throw ApiError.violation('customerCountry', `No tax rate is known for ${err.country}; add one under /taxes.`, 'rate_unavailable');
    }
    throw err;
  }
}

