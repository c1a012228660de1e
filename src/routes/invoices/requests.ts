import { z } from '@hono/zod-openapi';
import { checkTaxRate } from '../../billing/tax';
import type { AppContext } from '../../http/context';
import { ApiError, zodViolations } from '../../http/errors';
import { currencyCode, decimalOrNumber, decimalPattern, decimalString, durationText, idParam, optionalText, requiredText, timestamp } from '../../http/schemas';
import type { PositionItem } from '../../services/invoices/position-input';

// Path parameters and request pieces shared by the invoice routes.

/** Where a position's numbers sit in the bodies that carry positions (read exactly, see exactNumbers). */
const LINE_NUMBERS = ['quantity', 'discountPercentage'];
export const POSITION_NUMBER_PATHS = ['positions.*', 'positions.*.children.*'].flatMap((at) => LINE_NUMBERS.map((f) => `${at}.${f}`));
/** The same for a body that is one position (position items, a replaced position) with its children. */
export const ITEM_NUMBER_PATHS = ['', 'children.*.'].flatMap((at) => LINE_NUMBERS.map((f) => `${at}${f}`));

export const params = z.object({ id: idParam('id', 'Invoice id') });

/** Optional and nullable: absent becomes null. */
export const nullable = <T extends z.ZodTypeAny>(s: T) => s.nullable().optional().transform((v) => v ?? null);

const signed = (example: string) => decimalString(10, { signed: true }).openapi({ example });
/** A percentage such as "19" or "5.5", checked by `checkTaxRate` (the rule of the totals). */
export const taxRate = z
  .string()
  .superRefine((v, ctx) => {
    const p = checkTaxRate(v);
    if (p) ctx.addIssue({ code: 'custom', message: `${p.message} A percentage such as "19" or "5.5".`, params: { code: p.code === 'invalid_decimal' ? 'invalid_format' : p.code } });
  })
  .openapi({ type: 'string', pattern: decimalPattern({ scale: 10, max: '100' }).source, example: '19' });
const discountAmount = decimalString(4).openapi({ example: '5.00' });
const percentage = decimalOrNumber(10, { integerDigits: 3, max: '100' }, '10');
const reference = z.string().min(1).max(64);

/** The fields of a line, in our spelling and Fynn's (`taxGroupId`, `unitId`, `discountAmount`). */
const lineFields = {
  name: requiredText(1, 255),
  description: optionalText(1, 2000),
  quantity: decimalOrNumber(10, { signed: true }, '1').optional(),
  unitPrice: signed('19.99'),
  currencyCode: nullable(currencyCode).openapi({ description: 'Must be the invoice currency when given' }),
  discount: nullable(discountAmount),
  discountAmount: nullable(discountAmount).openapi({ description: "Fynn's name of `discount`" }),
  discountPercentage: nullable(percentage).openapi({ description: 'Instead of an amount: percent of quantity × unitPrice' }),
  taxGroup: nullable(reference),
  taxGroupId: nullable(reference).openapi({ description: "Fynn's name of `taxGroup`" }),
  taxRate: nullable(taxRate),
  taxCategory: nullable(z.enum(['S', 'Z', 'E', 'AE', 'K', 'G', 'O'])),
  unit: nullable(reference),
  unitId: nullable(reference).openapi({ description: "Fynn's name of `unit`" }),
  unitPriceInterval: nullable(durationText),
  product: nullable(reference),
  subscriptionItem: nullable(reference),
  serviceDateFrom: nullable(timestamp),
  serviceDateTo: nullable(timestamp),
};

const ALIASES = [
  ['taxGroup', 'taxGroupId'],
  ['unit', 'unitId'],
  ['discount', 'discountAmount'],
] as const;

type Line = z.output<z.ZodObject<typeof lineFields>>;

/** Our name and Fynn's for the same field: one of them, and the violation names the one sent. */
function noConflictingAliases(v: Line, ctx: z.RefinementCtx) {
  for (const [ours, fynn] of ALIASES) {
    if (v[ours] !== null && v[fynn] !== null) ctx.addIssue({ code: 'custom', path: [fynn], message: `Give ${ours} or ${fynn}, not both.`, params: { code: 'conflicting_alias' } });
  }
}

function toItem(v: Line, extra: { parent: string | null; children: PositionItem[] }): PositionItem {
  const { taxGroupId, unitId, discountAmount: fynnDiscount, quantity, ...rest } = v;
  return {
    ...rest,
    quantity: quantity ?? '1',
    taxGroup: rest.taxGroup ?? taxGroupId,
    unit: rest.unit ?? unitId,
    discount: rest.discount ?? fynnDiscount,
    names: { taxGroup: taxGroupId !== null ? 'taxGroupId' : 'taxGroup', unit: unitId !== null ? 'unitId' : 'unit', discount: fynnDiscount !== null ? 'discountAmount' : 'discount' },
    ...extra,
  };
}

const ChildSchema = z
  .strictObject(lineFields)
  .superRefine(noConflictingAliases)
  .transform((v) => toItem(v, { parent: null, children: [] }))
  .openapi('InvoicePositionChildWrite');

const parentField = nullable(z.string().min(1).max(64)).openapi({ description: 'Index of an earlier top-level position of this request, or the id of an existing one' });
const childrenField = z.array(ChildSchema).max(200).optional().openapi({ description: 'Lines under this one (the tree is at most two levels deep)' });

/** A position with its sub-positions (`children`), as our API and Fynn's position items write it. */
export const PositionInputSchema = z
  .strictObject({ ...lineFields, parent: parentField, children: childrenField })
  .superRefine(noConflictingAliases)
  .transform(({ parent, children, ...v }) => toItem(v, { parent, children: children ?? [] }))
  .openapi('InvoicePositionWrite');

/** One position replaced in place: no sub-positions of its own in the body. */
export const PositionUpdateSchema = z
  .strictObject({ ...lineFields, parent: parentField })
  .superRefine(noConflictingAliases)
  .transform(({ parent, ...v }) => toItem(v, { parent, children: [] }))
  .openapi('InvoicePositionUpdate');

/** Fynn's `POST /invoices/{id}/position-items` body: one item, optionally at a `position` (1-based; 0 or null appends). */
export const PositionItemSchema = z
  .strictObject({ ...lineFields, position: z.number().int().min(0).max(100_000).nullable().optional(), children: childrenField })
  .superRefine(noConflictingAliases)
  .transform(({ position, children, ...v }) => ({ item: toItem(v, { parent: null, children: children ?? [] }), position: position ?? 0 }))
  .openapi('InvoicePositionItemWrite');

/**
 * A line of a credit note: a position of the invoice (`id`, optionally a `quantity` of it), or a
 * new line (as a position is written, without sub-positions), given as the positive amount to credit.
 */
export const CreditPositionSchema = z
  .strictObject({
    ...lineFields,
    id: reference.optional().openapi({ description: 'A position of the invoice to credit (then only quantity may be given)' }),
    name: requiredText(1, 255).optional(),
    unitPrice: signed('19.99').optional(),
  })
  .superRefine((v, ctx) => {
    if (v.id !== undefined) {
      for (const [key, value] of Object.entries(v)) {
        if (key !== 'id' && key !== 'quantity' && value !== null && value !== undefined) {
          ctx.addIssue({ code: 'custom', path: [key], message: 'A position given by id takes only a quantity.', params: { code: 'conflicting_fields' } });
        }
      }
      return;
    }
    for (const key of ['name', 'unitPrice'] as const) if (v[key] === undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'Required (or the id of a position).', params: { code: 'required' } });
    noConflictingAliases(v as Line, ctx);
  })
  .transform(({ id, ...v }) => {
    if (id !== undefined) return { ref: { id, quantity: v.quantity ?? null } };
    const { children: _c, parent: _p, ...line } = toItem(v as Line, { parent: null, children: [] });
    return { line };
  })
  .openapi('InvoiceCreditPosition');

/**
 * A body that is one of several shapes, told apart by `pick` (e.g. by a key only one shape has):
 * on failure the violations are those of the picked shape, instead of the union's "Invalid input".
 */
export function shapeHook(pick: (body: unknown) => z.ZodTypeAny) {
  return (result: { success: boolean; target: string; error?: z.ZodError }, c: AppContext): undefined | Promise<never> => {
    if (result.success) return undefined;
    if (result.target !== 'json') throw ApiError.badRequest(`Invalid ${result.target === 'param' ? 'path' : result.target} parameters.`, zodViolations(result.error!));
    return c.req.json().then((body: unknown) => {
      const picked = pick(body).safeParse(body);
      throw ApiError.validation(zodViolations(picked.success ? result.error! : picked.error));
    });
  };
}

export const isObjectWith = (key: string) => (body: unknown) => typeof body === 'object' && body !== null && key in body;

/** The customer a customer session is limited to; undefined for API keys. */
export const customerScope = (c: AppContext) => (c.var.principal.kind === 'customer' ? c.var.principal.customerId : undefined);
