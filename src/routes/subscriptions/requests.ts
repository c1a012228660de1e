import { z } from '@hono/zod-openapi';
import { decimalString, idParam } from '../../http/schemas';

// Path parameters and request pieces shared by the subscription routes.

export const params = z.object({ id: idParam('id', 'Subscription id') });

/** Optional and nullable: absent becomes null. */
export const nullable = <T extends z.ZodTypeAny>(s: T) => s.nullable().optional().transform((v) => v ?? null);

export const ref = nullable(z.string().min(1).max(64));

/**
 * Optional and nullable, and a blank string counts as absent too: the n8n node sends a field the
 * user left empty as "" (`{"nextBillingDate": ""}`, `{"reason": ""}`).
 */
export const blankAsNull = <T extends z.ZodTypeAny>(s: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? null : v), s.nullable().optional()).transform((v) => v ?? null);

export const quantity = decimalString(4)
  .refine((v) => /[1-9]/.test(v), { message: 'Must be greater than 0.', params: { code: 'too_small' } })
  .default('1');

export const ItemInputSchema = z
  .strictObject({ product: z.string().min(1).max(64), pricePlan: z.string().min(1).max(64), quantity })
  .openapi('SubscriptionItemInput');

/** A JSON body the client may leave out (the operation then takes its defaults). */
export const optionalBody = <T extends z.ZodTypeAny>(schema: T) => ({ required: false, content: { 'application/json': { schema } } });
