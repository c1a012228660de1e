import { z } from '@hono/zod-openapi';
import { createRouter } from '../../http/openapi';
import { optionalText } from '../../http/schemas';
import { measurementService } from '../../services/catalogue/basics';
import { registerResourceRoutes } from '../resource-routes';
import { AGGREGATION_TYPES, MEASUREMENT_TYPES, MeasurementSchema } from '../../schemas/catalogue';

export const measurementRoutes = createRouter();
registerResourceRoutes(measurementRoutes, {
  paths: { collection: '/measurements', item: '/measurements/{id}' },
  name: 'Measurement',
  tag: 'Measurements',
  permission: 'measurement',
  service: measurementService,
  schema: MeasurementSchema,
  writeSchema: z
    .strictObject({
      unit: z.string().min(1).max(64),
      code: z.string().trim().min(1).max(255),
      description: optionalText(1, 255),
      fairBilling: z.boolean().default(true),
      aggregationType: z.enum(AGGREGATION_TYPES),
      type: z.enum(MEASUREMENT_TYPES),
    })
    .openapi('MeasurementWrite'),
  descriptions: {
    create: 'instant_metered and recurring measurements need the aggregation last_value.',
    put: 'aggregationType and type cannot change after creation (422).',
  },
});
