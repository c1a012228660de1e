import { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { productFamilies } from '../../db/schema';
import { createRouter } from '../../http/openapi';
import { requiredText } from '../../http/schemas';
import { productFamilyService } from '../../services/catalogue/basics';
import { registerResourceRoutes } from '../resource-routes';

export const ProductFamilySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    products: z.array(z.object({ id: z.string(), name: z.string(), number: z.string().nullable() })),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('ProductFamily');

export const productFamilyRoutes = createRouter();
registerResourceRoutes(productFamilyRoutes, {
  path: '/product-families',
  name: 'ProductFamily',
  tag: 'Product families',
  permission: 'product-family',
  service: productFamilyService,
  schema: ProductFamilySchema,
  writeSchema: z.strictObject({ name: requiredText(1, 255) }).openapi('ProductFamilyWrite'),
  filters: { name: { schema: z.string().max(255), where: (v: string) => eq(productFamilies.name, v) } },
  sortable: { name: productFamilies.name, createdAt: productFamilies.createdAt },
});

