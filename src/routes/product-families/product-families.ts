import { z } from '@hono/zod-openapi';
import { createRouter } from '../../http/openapi';
import { requiredText } from '../../http/schemas';
import { productFamilyService } from '../../services/catalogue/basics';
import { registerResourceRoutes } from '../resource-routes';
import { ProductFamilySchema } from '../../schemas/catalogue';

export const productFamilyRoutes = createRouter();
registerResourceRoutes(productFamilyRoutes, {
  paths: { collection: '/product-families', item: '/product-families/{id}' },
  name: 'ProductFamily',
  tag: 'Product families',
  permission: 'product-family',
  service: productFamilyService,
  schema: ProductFamilySchema,
  writeSchema: z.strictObject({ name: requiredText(1, 255) }).openapi('ProductFamilyWrite'),
});

