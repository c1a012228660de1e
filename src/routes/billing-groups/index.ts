import { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { billingGroups } from '../../db/schema';
import { createRouter } from '../../http/openapi';
import { requiredText } from '../../http/schemas';
import { billingGroupService } from '../../services/catalogue/basics';
import { registerResourceRoutes } from '../resource-routes';

const types = ['start_of_month', 'end_of_month', 'start_of_year', 'end_of_year', 'custom'] as const;

export const BillingGroupSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(types),
    customDay: z.number().int().nullable(),
    customMonth: z.number().int().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('BillingGroup');

export const billingGroupRoutes = createRouter();
registerResourceRoutes(billingGroupRoutes, {
  path: '/billing-groups',
  name: 'BillingGroup',
  tag: 'Billing groups',
  permission: 'billing-group',
  service: billingGroupService,
  schema: BillingGroupSchema,
  writeSchema: z
    .strictObject({
      name: requiredText(1, 255),
      type: z.enum(types),
      customDay: z.number().int().min(1).max(31).nullable().optional().transform((v) => v ?? null),
      customMonth: z.number().int().min(1).max(12).nullable().optional().transform((v) => v ?? null),
    })
    .openapi('BillingGroupWrite'),
  filters: { type: { schema: z.enum(types), where: (v: (typeof types)[number]) => eq(billingGroups.type, v) } },
  sortable: { name: billingGroups.name },
  descriptions: { create: 'customDay (1..31, required) and customMonth (1..12, optional: yearly) only for type custom.' },
});
