import { z } from '@hono/zod-openapi';
import { createRouter } from '../../http/openapi';
import { requiredText } from '../../http/schemas';
import { unitService } from '../../services/catalogue/basics';
import { registerResourceRoutes } from '../resource-routes';
import { UnitSchema } from '../../schemas/catalogue';

export const unitRoutes = createRouter();
registerResourceRoutes(unitRoutes, {
  paths: { collection: '/units', item: '/units/{id}' },
  name: 'Unit',
  tag: 'Units',
  permission: 'unit',
  service: unitService,
  schema: UnitSchema,
  writeSchema: z
    .strictObject({ name: requiredText(1, 255), code: z.string().regex(/^[A-Za-z0-9_.\-]{1,64}$/, 'Use 1 to 64 letters, digits, _ . -') })
    .openapi('UnitWrite'),
});
