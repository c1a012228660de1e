import { z } from '@hono/zod-openapi';
import type { AppContext } from '../../http/context';
import { decimalString, idParam, optionalText, percentString, requiredText, taxCategoryRateRule, timestamp } from '../../http/schemas';

// Path parameters and request pieces shared by the invoice routes.

export const params = z.object({ id: idParam('id', 'Invoice id') });

/** Optional and nullable: absent becomes null. */
export const nullable = <T extends z.ZodTypeAny>(s: T) => s.nullable().optional().transform((v) => v ?? null);

export const PositionInputSchema = z
  .strictObject({
    name: requiredText(1, 255),
    description: optionalText(1, 2000),
    quantity: decimalString(10, { signed: true }).default('1'),
    unitPrice: decimalString(10, { signed: true }),
    discount: nullable(decimalString(4)),
    taxGroup: nullable(z.string().min(1).max(64)),
    taxRate: nullable(percentString),
    taxCategory: nullable(z.enum(['S', 'Z', 'E', 'AE', 'K', 'G', 'O'])),
    serviceDateFrom: nullable(timestamp),
    serviceDateTo: nullable(timestamp),
    parent: nullable(z.string().min(1).max(64)).openapi({ description: 'Index of an earlier top-level position of this request, or the id of an existing one' }),
  })
  .superRefine(taxCategoryRateRule)
  .openapi('InvoicePositionWrite');

/** The customer a customer session is limited to; undefined for API keys. */
export const customerScope = (c: AppContext) => (c.var.principal.kind === 'customer' ? c.var.principal.customerId : undefined);
