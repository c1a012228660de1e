import { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { measurements } from '../../db/schema';
import { createRouter } from '../../http/openapi';
import { optionalText } from '../../http/schemas';
import { measurementService } from '../../services/catalogue/basics';
import { registerResourceRoutes } from '../resource-routes';
import { UnitSchema } from '../units/index';

const aggregationTypes = ['count', 'count_unique', 'max', 'sum', 'last_value', 'average'] as const;
const measurementTypes = ['instant_metered', 'metered', 'recurring'] as const;

export const MeasurementSchema = z
  .object({
    id: z.string(),
    unit: UnitSchema.partial().extend({ id: z.string() }),
    code: z.string(),
    description: z.string().nullable(),
    fairBilling: z.boolean(),
    aggregationType: z.enum(aggregationTypes),
    type: z.enum(measurementTypes),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Measurement');

export const measurementRoutes = createRouter();
registerResourceRoutes(measurementRoutes, {
  path: '/measurements',
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
      aggregationType: z.enum(aggregationTypes),
      type: z.enum(measurementTypes),
    })
    .openapi('MeasurementWrite'),
  filters: {
    code: { schema: z.string().max(255), where: (v: string) => eq(measurements.code, v) },
    type: { schema: z.enum(measurementTypes), where: (v: (typeof measurementTypes)[number]) => eq(measurements.type, v) },
  },
  sortable: { code: measurements.code, createdAt: measurements.createdAt },
  descriptions: {
    create: 'instant_metered and recurring measurements need the aggregation last_value.',
    put: 'aggregationType and type cannot change after creation (422).',
  },
});
