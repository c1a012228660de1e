import { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { units } from '../../db/schema';
import { createRouter } from '../../http/openapi';
import { requiredText } from '../../http/schemas';
import { unitService } from '../../services/catalogue/basics';
import { registerResourceRoutes } from '../resource-routes';

export const UnitSchema = z
  .object({ id: z.string(), name: z.string(), code: z.string(), createdAt: z.string(), updatedAt: z.string() })
  .openapi('Unit');

export const unitRoutes = createRouter();
registerResourceRoutes(unitRoutes, {
  path: '/units',
  name: 'Unit',
  tag: 'Units',
  permission: 'unit',
  service: unitService,
  schema: UnitSchema,
  writeSchema: z
    .strictObject({ name: requiredText(1, 255), code: z.string().regex(/^[A-Za-z0-9_.\-]{1,64}$/, 'Use 1 to 64 letters, digits, _ . -') })
    .openapi('UnitWrite'),
  filters: { code: { schema: z.string().max(255), where: (v: string) => eq(units.code, v) } },
  sortable: { name: units.name, code: units.code },
});
