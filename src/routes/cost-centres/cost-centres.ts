import { z } from '@hono/zod-openapi';
import { createRouter } from '../../http/openapi';
import { optionalText, requiredText } from '../../http/schemas';
import { costCentreService } from '../../services/catalogue/basics';
import { registerResourceRoutes } from '../resource-routes';
import { CostCentreSchema } from '../../schemas/catalogue';

export const costCentreRoutes = createRouter();
registerResourceRoutes(costCentreRoutes, {
  paths: { collection: '/cost-centres', item: '/cost-centres/{id}' },
  name: 'CostCentre',
  tag: 'Cost centres',
  permission: 'cost-centre',
  service: costCentreService,
  schema: CostCentreSchema,
  writeSchema: z.strictObject({ name: requiredText(1, 255), code: requiredText(1, 255), type: optionalText(1, 255) }).openapi('CostCentreWrite'),
});
