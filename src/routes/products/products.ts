import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { customFieldValues, idParam, optionalText, requiredText } from '../../http/schemas';
import { productService, setProductArchived } from '../../services/catalogue/products';
import { registerResourceRoutes } from '../resource-routes';
import { ProductSchema } from '../../schemas/catalogue';

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
  paths: { collection: '/catalogue/products', item: '/catalogue/products/{id}' },
  name: 'Product',
  tag: 'Products',
  permission: 'product',
  service: productService,
  schema: ProductSchema,
  writeSchema: ProductWriteSchema,
  descriptions: {
    list: 'Products of type plan are left out unless `type=plan` or `includePlanProducts=true`.',
    put: 'The type of a product cannot change after creation.',
  },
});

const params = z.object({ id: idParam('id', 'Product id') });

productRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/catalogue/products/{id}/archive',
    access: 'product:write',
    tags,
    summary: 'Archive a product (no new subscriptions)',
    request: { params },
    responses: { 200: jsonResponse(ProductSchema, 'The product') },
  }),
  async (c) => c.json(await setProductArchived(serviceContext(c), c.req.valid('param').id, true), 200),
);

productRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/catalogue/products/{id}/unarchive',
    access: 'product:write',
    tags,
    summary: 'Unarchive a product',
    request: { params },
    responses: { 200: jsonResponse(ProductSchema, 'The product') },
  }),
  async (c) => c.json(await setProductArchived(serviceContext(c), c.req.valid('param').id, false), 200),
);
