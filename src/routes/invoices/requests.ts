import { z } from '@hono/zod-openapi';
import type { AppContext } from '../../http/context';
import { idParam, optionalText, requiredText, timestamp } from '../../http/schemas';

// Path parameters and request pieces shared by the invoice routes.

export const params = z.object({ id: idParam('id', 'Invoice id') });

/** Optional and nullable: absent becomes null. */
export const nullable = <T extends z.ZodTypeAny>(s: T) => s.nullable().optional().transform((v) => v ?? null);

const signedDecimal = (scale: number) => z.string().regex(new RegExp(`^-?\\d{1,15}(\\.\\d{1,${scale}})?$`), `Must be a decimal string with at most ${scale} decimals.`);

export const PositionInputSchema = z
  .strictObject({
    name: requiredText(1, 255),
    description: optionalText(1, 2000),
    quantity: signedDecimal(10).default('1'),
    unitPrice: signedDecimal(10),
    discount: nullable(z.string().regex(/^\d{1,15}(\.\d{1,4})?$/, 'Must be a non-negative decimal string.')),
    taxGroup: nullable(z.string().min(1).max(64)),
    taxRate: nullable(z.string().regex(/^\d{1,3}(\.\d{1,4})?$/, 'Must be a percentage such as "19" or "5.5".')),
    taxCategory: nullable(z.enum(['S', 'Z', 'E', 'AE', 'K', 'G', 'O'])),
    serviceDateFrom: nullable(timestamp),
    serviceDateTo: nullable(timestamp),
    parent: nullable(z.string().min(1).max(64)).openapi({ description: 'Index of an earlier top-level position of this request, or the id of an existing one' }),
  })
  .openapi('InvoicePositionWrite');

/** The customer a customer session is limited to; undefined for API keys. */
export const customerScope = (c: AppContext) => (c.var.principal.kind === 'customer' ? c.var.principal.customerId : undefined);
