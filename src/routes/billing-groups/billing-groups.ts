import { z } from '@hono/zod-openapi';
import { createRouter } from '../../http/openapi';
import { requiredText } from '../../http/schemas';
import { billingGroupService } from '../../services/catalogue/basics';
import { registerResourceRoutes } from '../resource-routes';
import { BILLING_GROUP_TYPES, BillingGroupSchema } from '../../schemas/catalogue';

export const billingGroupRoutes = createRouter();
registerResourceRoutes(billingGroupRoutes, {
  paths: { collection: '/billing-groups', item: '/billing-groups/{id}' },
  name: 'BillingGroup',
  tag: 'Billing groups',
  permission: 'billing-group',
  service: billingGroupService,
  schema: BillingGroupSchema,
  writeSchema: z
    .strictObject({
      name: requiredText(1, 255),
      type: z.enum(BILLING_GROUP_TYPES),
      customDay: z.number().int().min(1).max(31).nullable().optional().transform((v) => v ?? null),
      customMonth: z.number().int().min(1).max(12).nullable().optional().transform((v) => v ?? null),
    })
    .openapi('BillingGroupWrite'),
  descriptions: { create: 'customDay (1..31, required) and customMonth (1..12, optional: yearly) only for type custom.' },
});
