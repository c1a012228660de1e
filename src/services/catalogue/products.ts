import { z } from '@hono/zod-openapi';
import { containsText, outer } from '../../db/client';
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { costCentres, measurements, productFamilies, products, taxGroups } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { checkCustomFieldValues, selectCustomFieldDefinitions } from '../customers/custom-fields';
import type { ProductResource } from '../../schemas/catalogue';
import { checkReference, listFilter, resourceService } from '../common/resource';

type ProductRow = typeof products.$inferSelect & {
  families?: string | null;
  measurement?: string | null;
  taxGroup?: string | null;
  costCentre?: string | null;
};

export interface ProductInput {
  name: string;
  description: string | null;
  internalName: string | null;
  number: string | null;
  type: ProductRow['type'];
  productFamilies: string[];
  measurement: string;
  taxGroup: string;
  invoiceVisibility: ProductRow['invoiceVisibility'];
  costCentre: string | null;
  customFields: Record<string, unknown> | null;
}

const json = <T>(text: string | null | undefined): T | null => (text ? (JSON.parse(text) as T) : null);

export function renderProduct(r: ProductRow): ProductResource {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    internalName: r.internalName,
    number: r.number,
    type: r.type,
    // Embedded references; where the embed is not loaded (event payloads of a write) just the id.
    productFamilies: json<ProductResource['productFamilies']>(r.families) ?? r.productFamilies.map((id) => ({ id })),
    measurement: json<ProductResource['measurement']>(r.measurement) ?? { id: r.measurementId },
    taxGroup: json<ProductResource['taxGroup']>(r.taxGroup) ?? { id: r.taxGroupId },
    invoiceVisibility: r.invoiceVisibility,
    costCentre: json<NonNullable<ProductResource['costCentre']>>(r.costCentre) ?? (r.costCentreId ? { id: r.costCentreId } : null),
    isArchived: r.isArchived,
    customFields: r.customFields,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export const productService = resourceService({
  label: 'Product',
  table: products,
  selection: {
    families: sql<string>`(SELECT json_group_array(json_object('id', f.id, 'name', f.name) ORDER BY j.key)
      FROM json_each(${outer(products.productFamilies)}) j JOIN product_families f ON f.id = j.value AND f.tenant_id = ${outer(products.tenantId)})`,
    measurement: sql<string>`(SELECT json_object('id', m.id, 'code', m.code, 'description', m.description, 'aggregationType', m.aggregation_type,
        'type', m.type, 'fairBilling', json(CASE WHEN m.fair_billing THEN 'true' ELSE 'false' END),
        'unit', (SELECT json_object('id', u.id, 'name', u.name, 'code', u.code) FROM units u WHERE u.tenant_id = m.tenant_id AND u.id = m.unit_id))
      FROM measurements m WHERE m.tenant_id = ${outer(products.tenantId)} AND m.id = ${outer(products.measurementId)})`,
    taxGroup: sql<string>`(SELECT json_object('id', g.id, 'internalDescription', g.internal_description, 'reverseChargeType', g.reverse_charge_type, 'type', g.type)
      FROM tax_groups g WHERE g.tenant_id = ${outer(products.tenantId)} AND g.id = ${outer(products.taxGroupId)})`,
    costCentre: sql<string>`(SELECT json_object('id', c.id, 'name', c.name, 'code', c.code, 'type', c.type, 'createdAt', c.created_at, 'updatedAt', c.updated_at)
      FROM cost_centres c WHERE c.tenant_id = ${outer(products.tenantId)} AND c.id = ${outer(products.costCentreId)})`,
  },
  selectionDeps: { families: 'productFamilies', measurement: 'measurementId', taxGroup: 'taxGroupId', costCentre: 'costCentreId' },
  render: renderProduct,
  async check(ctx: ServiceContext, input: ProductInput, current, v: Violations) {
    if (current && input.type !== current.type) v.add('type', 'The type of a product cannot change after creation.', 'immutable');
    const families = [...new Set(input.productFamilies)];
    const [found, defs] = await ctx.db.batch([
      ctx.db
        .select({ id: productFamilies.id })
        .from(productFamilies)
        .where(and(eq(productFamilies.tenantId, ctx.tenant.id), inArray(productFamilies.id, families.length ? families : ['']))),
      selectCustomFieldDefinitions(ctx.db, ctx.tenant.id, 'product'),
    ]);
    const known = new Set(found.map((f) => f.id));
    input.productFamilies.forEach((id, i) => {
      if (!known.has(id)) v.add(`productFamilies[${i}]`, 'No such product family.', 'not_found');
    });
    await checkReference(ctx, measurements, input.measurement, 'measurement', v, 'measurement');
    await checkReference(ctx, taxGroups, input.taxGroup, 'taxGroup', v, 'tax group');
    await checkReference(ctx, costCentres, input.costCentre, 'costCentre', v, 'cost centre');
    checkCustomFieldValues(defs, input.customFields, v);
  },
  columns: (_ctx, i: ProductInput, current) => ({
    name: i.name,
    description: i.description,
    internalName: i.internalName,
    number: i.number,
    type: i.type,
    productFamilies: [...new Set(i.productFamilies)],
    measurementId: i.measurement,
    taxGroupId: i.taxGroup,
    invoiceVisibility: i.invoiceVisibility,
    costCentreId: i.costCentre,
    customFields: i.customFields,
    isArchived: current?.isArchived ?? false,
  }),
  writable: (r): ProductInput => ({
    name: r.name,
    description: r.description,
    internalName: r.internalName,
    number: r.number,
    type: r.type,
    productFamilies: r.productFamilies,
    measurement: r.measurementId,
    taxGroup: r.taxGroupId,
    invoiceVisibility: r.invoiceVisibility,
    costCentre: r.costCentreId,
    customFields: r.customFields,
  }),
  uniques: { 'products.number': 'number' },
  inUse: (id, tenantId) =>
    sql`EXISTS (SELECT 1 FROM price_plans WHERE tenant_id = ${tenantId} AND product_id = ${id})
      OR EXISTS (SELECT 1 FROM subscription_items WHERE tenant_id = ${tenantId} AND product_id = ${id})
      OR EXISTS (SELECT 1 FROM plans p WHERE p.tenant_id = ${tenantId} AND (p.origin_product_id = ${id}
        OR EXISTS (SELECT 1 FROM json_each(p.items) i WHERE json_extract(i.value, '$.product') = ${id})
        OR EXISTS (SELECT 1 FROM json_each(p.addons) a WHERE json_extract(a.value, '$.product') = ${id})))`,
  events: { created: 'product.created', updated: 'product.updated', deleted: 'product.deleted' },
  filters: {
    type: listFilter(z.enum(['product', 'charge', 'plan']), (v) => eq(products.type, v)),
    productFamily: listFilter(z.string().max(64), (v) => sql`EXISTS (SELECT 1 FROM json_each(${outer(products.productFamilies)}) j WHERE j.value = ${v})`),
    isArchived: listFilter(z.enum(['true', 'false']), (v) => eq(products.isArchived, v === 'true')),
    number: listFilter(z.string().max(255), (v) => eq(products.number, v)),
    search: listFilter(z.string().max(255), (v) => containsText(products.name, v)),
    includePlanProducts: listFilter(z.enum(['true', 'false']), () => undefined),
  },
  // Plan-type products belong to their plan and stay out of product lists unless asked for.
  baseFilter: (q) => (q.type === undefined && q.includePlanProducts !== 'true' ? ne(products.type, 'plan') : undefined),
  sortable: { name: products.name, number: products.number, createdAt: products.createdAt },
});

/** Archived products stay on existing subscriptions but cannot be sold again until unarchived. */
export async function setProductArchived(ctx: ServiceContext, id: string, archived: boolean) {
  const current = await productService.find(ctx, id);
  if (current.isArchived === archived) {
    throw ApiError.conflict(archived ? 'The product is already archived.' : 'The product is not archived.', 'invalid-transition');
  }
  return productService.change(ctx, current, { isArchived: archived }, archived ? 'product.archived' : 'product.unarchived');
}
