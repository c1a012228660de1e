import { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { costCentres } from '../../db/schema';
import { createRouter } from '../../http/openapi';
import { optionalText, requiredText } from '../../http/schemas';
import { costCentreService } from '../../services/catalogue/basics';
import { registerResourceRoutes } from '../resource-routes';

export const CostCentreSchema = z
  .object({ id: z.string(), name: z.string(), code: z.string(), type: z.string().nullable(), createdAt: z.string(), updatedAt: z.string() })
  .openapi('CostCentre');

export const costCentreRoutes = createRouter();
registerResourceRoutes(costCentreRoutes, {
  path: '/cost-centres',
  name: 'CostCentre',
  tag: 'Cost centres',
  permission: 'cost-centre',
  service: costCentreService,
  schema: CostCentreSchema,
  writeSchema: z.strictObject({ name: requiredText(1, 255), code: requiredText(1, 255), type: optionalText(1, 255) }).openapi('CostCentreWrite'),
  filters: { code: { schema: z.string().max(255), where: (v: string) => eq(costCentres.code, v) } },
  sortable: { name: costCentres.name, code: costCentres.code },
});
