import { z } from '@hono/zod-openapi';
import { createRouter } from '../../http/openapi';
import { optionalText, requiredText } from '../../http/schemas';
import { FeatureSchema } from '../../schemas/entitlements';
import { featureService } from '../../services/subscriptions/entitlements';
import { registerResourceRoutes } from '../resource-routes';

export const featureRoutes = createRouter();

registerResourceRoutes(featureRoutes, {
  paths: { collection: '/entitlement/features', item: '/entitlement/features/{id}' },
  name: 'Feature',
  tag: 'Entitlements',
  permission: 'feature',
  service: featureService,
  schema: FeatureSchema,
  writeSchema: z
    .strictObject({
      code: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'Use 1 to 64 letters, digits, _ . -'),
      name: requiredText(1, 255),
      description: optionalText(1, 1000),
      status: z.enum(['active', 'inactive', 'archived']).default('active'),
      type: z.enum(['switch', 'quantity', 'config']),
      config: z
        .array(z.strictObject({ value: z.string().min(1).max(255), label: z.string().min(1).max(255) }))
        .max(100)
        .nullable()
        .optional()
        .transform((v) => v ?? null),
      unit: optionalText(1, 64),
    })
    .openapi('FeatureWrite'),
  descriptions: { put: 'The code cannot change: applications check entitlements by code.' },
});
