import { z } from '@hono/zod-openapi';
import { customFieldValues, decimalString, durationText, idParam, optionalText, timestamp } from '../../http/schemas';

// Path parameters and request pieces shared by the subscription routes.

export const params = z.object({ id: idParam('id', 'Subscription id') });

/** Optional and nullable: absent becomes null. */
export const nullable = <T extends z.ZodTypeAny>(s: T) => s.nullable().optional().transform((v) => v ?? null);

export const ref = nullable(z.string().min(1).max(64));

/**
 * An optional, nullable timestamp that also takes "" for none: the n8n node sends a date the user
 * left empty as "" (`{"nextBillingDate": ""}`). Documented as such, so a validator built from the
 * OpenAPI document accepts what the server accepts.
 */
export const timestampOrBlank = z
  .union([timestamp, z.literal('')], { error: 'Must be an ISO 8601 timestamp with offset or Z, or "" for none.' })
  .nullable()
  .optional()
  .transform((v) => (v === '' || v === undefined ? null : v));

export const quantity = decimalString(4)
  .refine((v) => /[1-9]/.test(v), { message: 'Must be greater than 0.', params: { code: 'too_small' } })
  .default('1');

export const ItemInputSchema = z
  .strictObject({ product: z.string().min(1).max(64), pricePlan: z.string().min(1).max(64), quantity })
  .openapi('SubscriptionItemInput');

/** A JSON body the client may leave out (the operation then takes its defaults). */
export const optionalBody = <T extends z.ZodTypeAny>(schema: T) => ({ required: false, content: { 'application/json': { schema } } });

/** The fields of a new subscription besides its customer: POST /subscriptions, and the subscription an offer sells (POST /offers). */
export const subscriptionFields = {
  plan: ref,
  items: z.array(ItemInputSchema).min(1, 'A subscription needs at least one item.').max(100),
  name: optionalText(1, 255),
  number: optionalText(2, 255),
  externalId: optionalText(1, 255),
  contractDetails: nullable(z.strictObject({ contractStart: nullable(timestamp) })),
  periods: nullable(z.strictObject({ contractPeriod: nullable(durationText), cancellationPeriod: nullable(durationText) })),
  billingGroup: ref,
  trialDays: z.number().int().min(0).max(730).default(0),
  paymentMethod: ref,
  invoiceAddress: ref,
  poNumber: optionalText(1, 255),
  customFields: customFieldValues,
  coupons: z.array(z.string().min(1).max(64)).max(10).default([]),
};

const subscriptionFieldsSchema = z.strictObject(subscriptionFields);

/** The service's input from those fields (dates normalized, periods flattened). */
export function subscriptionInput(b: z.infer<typeof subscriptionFieldsSchema>) {
  return {
    plan: b.plan,
    items: b.items,
    name: b.name,
    number: b.number,
    externalId: b.externalId,
    contractStart: b.contractDetails?.contractStart ? new Date(b.contractDetails.contractStart).toISOString() : null,
    contractPeriod: b.periods?.contractPeriod ?? null,
    cancellationPeriod: b.periods?.cancellationPeriod ?? null,
    billingGroup: b.billingGroup,
    trialDays: b.trialDays,
    paymentMethod: b.paymentMethod,
    invoiceAddress: b.invoiceAddress,
    poNumber: b.poNumber,
    customFields: b.customFields,
    coupons: b.coupons,
  };
}
