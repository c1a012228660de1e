import { z } from '@hono/zod-openapi';

// Representations of features, their assignments and the entitlements they grant.

export const FeatureSchema = z
  .object({
    id: z.string(),
    code: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    status: z.enum(['active', 'inactive', 'archived']),
    type: z.enum(['switch', 'quantity', 'config']),
    config: z.array(z.object({ value: z.string(), label: z.string() })),
    unit: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Feature');
export type FeatureResource = z.infer<typeof FeatureSchema>;

export const EntitlementSchema = z
  .object({
    id: z.string(),
    subscriptionItem: z.object({
      id: z.string(),
      name: z.string(),
      description: z.string().nullable(),
      furtherInformation: z.string().nullable(),
      status: z.string(),
      subscriptionId: z.string(),
    }),
    feature: FeatureSchema,
    value: z.string().nullable(),
    validFrom: z.string().nullable(),
    validUntil: z.string().nullable(),
    active: z.boolean(),
  })
  .openapi('Entitlement');
export type EntitlementResource = z.infer<typeof EntitlementSchema>;

export const FeatureAssignmentSchema = z
  .object({
    id: z.string(),
    object: z.enum(['product-price', 'product']),
    objectId: z.string(),
    feature: z.record(z.string(), z.unknown()),
    name: z.string(),
    value: z.string().nullable(),
    validFrom: z.string().nullable(),
    validUntil: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('FeatureAssignment');
export type FeatureAssignmentResource = z.infer<typeof FeatureAssignmentSchema>;

export const CustomerEntitlementSchema = z
  .object({ customer: z.string(), feature: z.string(), entitled: z.boolean(), values: z.array(z.string()), subscriptions: z.array(z.string()) })
  .openapi('CustomerEntitlement');
export type CustomerEntitlement = z.infer<typeof CustomerEntitlementSchema>;
