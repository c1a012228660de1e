import { z } from '@hono/zod-openapi';
import { MoneySchema } from './catalogue';

// Dunning (spec §2.5 Dunning document; overdue rules are named only in the navigation, their
// shape follows what Fynn returns: docs/decisions.md, Dunning).

export const DUNNING_TYPES = ['reminder', 'dunning'] as const;
export const DUNNING_STATUSES = ['open', 'paid', 'cancelled'] as const;
export const DUNNING_FINAL_ACTIONS = ['none', 'suspend_customer', 'pause_subscriptions'] as const;

const TextsSchema = z
  .object({
    title: z.string().nullable(),
    introduction: z.string().nullable(),
    closing: z.string().nullable(),
    emailSubject: z.string().nullable(),
    emailBody: z.string().nullable(),
  })
  .openapi('DunningTexts');

export const DunningRuleSchema = z
  .object({
    id: z.string().openapi({ description: 'For a rule of the default set (the tenant has no rules of its own) `default-<level>`: a name, not a stored rule' }),
    level: z.number().int(),
    type: z.enum(DUNNING_TYPES),
    daysOverdue: z.number().int().openapi({ description: "Days after the invoice's due date (level 1) or the previous document's due date" }),
    dueInDays: z.number().int().openapi({ description: 'Days the document gives to pay' }),
    dunningFeeCents: z.number().int().openapi({ description: 'The fee in minor units of dunningFee.currencyCode; only type dunning' }),
    dunningFee: MoneySchema,
    texts: z.record(z.string(), TextsSchema).openapi({ description: 'Texts per language (de, en); `{invoiceNumber}`, `{invoiceDate}`, `{dueDate}`, `{amountDue}`, `{level}`, `{number}` and `{seller}` are filled in' }),
    emailTemplate: z.string().nullable(),
    documentTemplate: z.string().nullable(),
    attachInvoice: z.boolean(),
    finalAction: z.enum(DUNNING_FINAL_ACTIONS).openapi({ description: 'What the last level does besides its document' }),
    isDefault: z.boolean(),
    createdAt: z.string().nullable(),
    updatedAt: z.string().nullable(),
  })
  .openapi('DunningRule');

export type DunningRuleResource = z.infer<typeof DunningRuleSchema>;

const PositionSchema = z
  .object({
    type: z.enum(['invoice', 'dunning_fee']),
    name: z.string(),
    amount: MoneySchema,
    level: z.number().int().nullable(),
  })
  .openapi('DunningDocumentPosition');

export const DunningDocumentSchema = z
  .object({
    id: z.string(),
    customer: z.object({ id: z.string() }),
    recipient: z.object({
      name: z.string(),
      email: z.string().nullable(),
      companyName: z.string().nullable(),
      street: z.string().nullable(),
      zip: z.string().nullable(),
      city: z.string().nullable(),
      countryCode: z.string().nullable(),
    }),
    title: z.string(),
    introduction: z.string().nullable(),
    closing: z.string().nullable(),
    documentDate: z.string(),
    dueDate: z.string().openapi({ description: 'Until when the invoice is to be paid' }),
    media: z.object({ id: z.string(), fileName: z.string(), mimeType: z.string() }).nullable().openapi({ description: 'The rendered PDF, once rendered' }),
    template: z.string().nullable(),
    invoice: z.object({ id: z.string(), number: z.string().nullable() }),
    level: z.number().int(),
    type: z.enum(DUNNING_TYPES),
    status: z.enum(DUNNING_STATUSES),
    reason: z.string().nullable(),
    dunningFeeCents: z.number().int(),
    dunningFee: MoneySchema,
    openAmount: MoneySchema.openapi({ description: 'What was unpaid of the invoice when the document was made' }),
    amountDue: MoneySchema.openapi({ description: 'The open amount plus the fees of this and the earlier documents' }),
    positions: z.array(PositionSchema),
    number: z.string(),
    sentAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('DunningDocument');

export type DunningDocumentResource = z.infer<typeof DunningDocumentSchema>;
