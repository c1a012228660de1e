import { z } from '@hono/zod-openapi';
import { decimalString, idParam, timestamp } from '../../http/schemas';

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
