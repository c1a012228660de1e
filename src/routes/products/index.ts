import { z } from '@hono/zod-openapi';
import { eq, ne, sql } from 'drizzle-orm';
import { containsText, outer } from '../../db/client';
import { products } from '../../db/schema';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { customFieldValues, idParam, optionalText, requiredText } from '../../http/schemas';
import { productService, setProductArchived } from '../../services/catalogue/products';
import { registerResourceRoutes } from '../resource-routes';

const ref = z.object({ id: z.string() }).passthrough();

export const ProductSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    internalName: z.string().nullable(),
    number: z.string().nullable(),
    type: z.enum(['product', 'charge', 'plan']),
    productFamilies: z.array(z.object({ id: z.string(), name: z.string().optional() })),
    measurement: ref.nullable(),
    taxGroup: ref.nullable(),
    invoiceVisibility: z.enum(['always', 'only_if_charged']),
    costCentre: ref.nullable(),
    isArchived: z.boolean(),
    customFields: z.record(z.string(), z.unknown()).nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Product');

const ProductWriteSchema = z
  .strictObject({
    name: requiredText(1, 255),
    description: optionalText(1, 10_000),
    internalName: optionalText(1, 255),
    number: optionalText(2, 255),
    type: z.enum(['product', 'charge', 'plan']),
    productFamilies: z.array(z.string().min(1).max(64)).min(1, 'A product belongs to at least one product family.').max(50),
    measurement: z.string().min(1).max(64),
    taxGroup: z.string().min(1).max(64),
    invoiceVisibility: z.enum(['always', 'only_if_charged']).default('always'),
    costCentre: z.string().min(1).max(64).nullable().optional().transform((v) => v ?? null),
    customFields: customFieldValues,
  })
  .openapi('ProductWrite');

const tags = ['Products'];
export const productRoutes = createRouter();

registerResourceRoutes(productRoutes, {
  path: '/catalogue/products',
  name: 'Product',
  tag: 'Products',
  permission: 'product',
  service: productService,
  schema: ProductSchema,
  writeSchema: ProductWriteSchema,
  filters: {
    type: { schema: z.enum(['product', 'charge', 'plan']), where: (v: 'product' | 'charge' | 'plan') => eq(products.type, v) },
    productFamily: {
      schema: z.string().max(64),
      where: (v: string) => sql`EXISTS (SELECT 1 FROM json_each(${outer(products.productFamilies)}) j WHERE j.value = ${v})`,
    },
    isArchived: { schema: z.enum(['true', 'false']), where: (v: string) => eq(products.isArchived, v === 'true') },
    number: { schema: z.string().max(255), where: (v: string) => eq(products.number, v) },
    search: {
      schema: z.string().max(255),
      where: (v: string) => containsText(products.name, v),
    },
    includePlanProducts: { schema: z.enum(['true', 'false']), where: () => undefined },
  },
  // Plan-type products belong to their plan and stay out of product lists unless asked for.
  baseFilter: (q) => (q.type === undefined && q.includePlanProducts !== 'true' ? ne(products.type, 'plan') : undefined),
  sortable: { name: products.name, number: products.number, createdAt: products.createdAt },
  descriptions: {
    list: 'Products of type plan are left out unless `type=plan` or `includePlanProducts=true`.',
    put: 'The type of a product cannot change after creation.',
  },
});

for (const action of ['archive', 'unarchive'] as const) {
  productRoutes.openapi(
    defineRoute({
      method: 'put',
      path: `/catalogue/products/{id}/${action}`,
      access: 'product:write',
      tags,
      summary: action === 'archive' ? 'Archive a product (no new subscriptions)' : 'Unarchive a product',
      request: { params: z.object({ id: idParam('id', 'Product id') }) },
      responses: { 200: jsonResponse(ProductSchema, 'The product') },
    }),
    async (c) => c.json((await setProductArchived(serviceContext(c), c.req.valid('param').id, action === 'archive')) as never, 200),
  );
}
