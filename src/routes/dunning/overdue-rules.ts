import { z } from '@hono/zod-openapi';
import { createRouter } from '../../http/openapi';
import { currencyCode, decimalString } from '../../http/schemas';
import { DUNNING_FINAL_ACTIONS, DUNNING_TYPES, DunningRuleSchema } from '../../schemas/dunning';
import { dunningRuleRoutesService } from '../../services/dunning/rules';
import { registerResourceRoutes } from '../resource-routes';

const text = (max: number) => z.string().max(max).nullable().optional();

const TextsWrite = z
  .strictObject({ title: text(255), introduction: text(5000), closing: text(5000), emailSubject: text(255), emailBody: text(10000) })
  .nullable()
  .openapi('DunningTextsWrite');

const DunningRuleWrite = z
  .strictObject({
    level: z.number().int().min(1).max(20),
    type: z.enum(DUNNING_TYPES),
    daysOverdue: z.number().int().min(0).max(365),
    dueInDays: z.number().int().min(0).max(365),
    dunningFeeCents: z.number().int().min(0).max(100_000_00).nullable().optional().openapi({ description: 'The fee in minor units (of dunningFee.currencyCode, default EUR); only type dunning' }),
    dunningFee: z.strictObject({ amount: decimalString(4, { max: '100000' }), currencyCode }).nullable().optional(),
    texts: z.strictObject({ de: TextsWrite.optional(), en: TextsWrite.optional() }).nullable().optional(),
    emailTemplate: z.string().max(255).nullable().optional(),
    documentTemplate: z.string().max(255).nullable().optional(),
    attachInvoice: z.boolean().nullable().optional(),
    finalAction: z.enum(DUNNING_FINAL_ACTIONS).nullable().optional(),
  })
  .openapi('DunningRuleWrite');

export const dunningRuleRoutes = createRouter();
registerResourceRoutes(dunningRuleRoutes, {
  paths: { collection: '/dunning/overdue-rules', item: '/dunning/overdue-rules/{id}' },
  name: 'DunningRule',
  tag: 'Dunning',
  permission: 'dunning-rule',
  service: dunningRuleRoutesService,
  schema: DunningRuleSchema,
  writeSchema: DunningRuleWrite,
  descriptions: {
    list: 'The overdue rules by level. A tenant without rules of its own has the default set (reminder 7 days after the due date, dunning letters 14 and 28 days after the previous due date; `isDefault: true`, `id: null`); once it creates one rule, its rules are the whole set.',
    create: "Level n of the dunning: `daysOverdue` counts from the invoice's due date for the first level and from the previous document's due date after that; `dueInDays` gives the new due date. Fees only on type `dunning`, as `dunningFeeCents` or `dunningFee`.",
  },
});
