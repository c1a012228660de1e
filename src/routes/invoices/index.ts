import { z } from '@hono/zod-openapi';
import { serviceContext, type AppContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema, paginationQuery, sortDirection } from '../../http/pagination';
import { currencyCode, customFieldValues, idParam, optionalText, requiredText, timestamp } from '../../http/schemas';
import * as invoices from '../../services/invoices';
import { ApiError } from '../../http/errors';

const tags = ['Invoices'];
const params = z.object({ id: idParam('id', 'Invoice id') });
const nullable = <T extends z.ZodTypeAny>(s: T) => s.nullable().optional().transform((v) => v ?? null);
const signedDecimal = (scale: number) => z.string().regex(new RegExp(`^-?\\d{1,15}(\\.\\d{1,${scale}})?$`), `Must be a decimal string with at most ${scale} decimals.`);
const moneySchema = z.object({ amount: z.string(), currencyCode: z.string() });

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

const DraftSchema = z
  .strictObject({
    customer: z.string().min(1).max(64),
    currencyCode: nullable(currencyCode),
    title: optionalText(1, 255),
    introduction: optionalText(1, 10_000),
    closing: optionalText(1, 10_000),
    internalNote: optionalText(1, 10_000),
    customFields: customFieldValues,
    positions: z.array(PositionInputSchema).max(500).default([]),
  })
  .openapi('InvoiceDraftWrite');

const PositionSchema = z
  .object({
    id: z.string(),
    parent: z.string().nullable(),
    sort: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    quantity: z.string(),
    unitPrice: moneySchema,
    discountAmount: moneySchema,
    netAmount: moneySchema,
    taxRate: z.string(),
    taxCategory: z.string(),
    taxNote: z.string().nullable(),
    serviceDateFrom: z.string().nullable(),
    serviceDateTo: z.string().nullable(),
    kind: z.string(),
    product: z.string().nullable(),
    subscriptionItem: z.string().nullable(),
  })
  .openapi('InvoicePosition');

export const InvoiceSchema = z
  .object({
    id: z.string(),
    type: z.enum(invoices.INVOICE_TYPES),
    status: z.string(),
    number: z.string().nullable(),
    customer: z.record(z.string(), z.unknown()),
    subscription: z.string().nullable(),
    referencedInvoice: z.string().nullable(),
    currencyCode: z.string(),
    creationDate: z.string(),
    finalizationDate: z.string().nullable(),
    dueDate: z.string().nullable(),
    payDate: z.string().nullable(),
    lastSentAt: z.string().nullable(),
    lastReminderDate: z.string().nullable(),
    dunningLevel: z.number().int(),
    dunningStatus: z.string(),
    dunningDisabled: z.boolean(),
    invoiceAddress: z.record(z.string(), z.unknown()).nullable(),
    paymentMethod: z.string().nullable(),
    internalNote: z.string().nullable(),
    title: z.string().nullable(),
    introduction: z.string().nullable(),
    closing: z.string().nullable(),
    netAmount: moneySchema,
    taxAmount: moneySchema,
    grossAmount: moneySchema,
    discountAmount: moneySchema,
    unpaidAmount: moneySchema,
    taxes: z.array(z.object({ rate: z.string(), category: z.string(), taxableAmount: moneySchema, taxAmount: moneySchema })),
    positions: z.array(PositionSchema),
    applicatedExchangeRates: z.array(z.record(z.string(), z.unknown())),
    serviceDateFrom: z.string().nullable(),
    serviceDateTo: z.string().nullable(),
    sourceType: z.string(),
    customFields: z.record(z.string(), z.unknown()).nullable(),
    file: z.record(z.string(), z.unknown()).nullable(),
    xmlFile: z.null(),
    eInvoiceType: z.null(),
    leitwegId: z.null(),
    usageBreakdownUrl: z.null(),
    cancellationDocument: z.object({ id: z.string(), number: z.string().nullable() }).nullable(),
    updatedAt: z.string(),
  })
  .openapi('Invoice');

const customerScope = (c: AppContext) => (c.var.principal.kind === 'customer' ? c.var.principal.customerId : undefined);
const listOf = (v: unknown) => [v].flat().filter((x): x is string => typeof x === 'string' && x !== '');

export const invoiceRoutes = createRouter();

invoiceRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/invoices',
    access: 'invoice:read',
    customerScoped: true,
    tags,
    summary: 'List invoices, credit notes, cancellations and other documents',
    description: 'A customer session sees only its own finalized documents.',
    request: {
      query: z.object({
        ...paginationQuery,
        status: z.string().max(40).optional(),
        'status[]': z.union([z.string().max(40), z.array(z.string().max(40)).max(20)]).optional(),
        type: z.string().max(40).optional(),
        'type[]': z.union([z.string().max(40), z.array(z.string().max(40)).max(20)]).optional(),
        customer: z.string().max(64).optional(),
        subscription: z.string().max(64).optional(),
        number: z.string().max(255).optional(),
        'creationDate[after]': timestamp.optional(),
        'creationDate[before]': timestamp.optional(),
        'dueDate[after]': timestamp.optional(),
        'dueDate[before]': timestamp.optional(),
        'order[number]': sortDirection.optional(),
        'order[creationDate]': sortDirection.optional(),
        'order[dueDate]': sortDirection.optional(),
        'order[grossAmount]': sortDirection.optional(),
      }),
    },
    responses: { 200: jsonResponse(collectionSchema(InvoiceSchema, 'InvoiceCollection'), 'A page of documents') },
  }),
  async (c) => {
    const q = c.req.valid('query');
    const order = (['number', 'creationDate', 'dueDate', 'grossAmount'] as const).filter((f) => q[`order[${f}]`]).map((f) => ({ field: f, dir: q[`order[${f}]`]! }));
    const iso = (v: string | undefined) => (v ? new Date(v).toISOString() : undefined);
    return c.json(
      (await invoices.listInvoices(serviceContext(c), {
        page: q.page,
        limit: q.limit,
        status: [...listOf(q.status), ...listOf(q['status[]'])],
        type: [...listOf(q.type), ...listOf(q['type[]'])],
        customer: q.customer,
        subscription: q.subscription,
        number: q.number,
        createdFrom: iso(q['creationDate[after]']),
        createdTo: iso(q['creationDate[before]']),
        dueFrom: iso(q['dueDate[after]']),
        dueTo: iso(q['dueDate[before]']),
        order,
        customerScope: customerScope(c),
      })) as never,
      200,
    );
  },
);

invoiceRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices',
    access: 'invoice:write',
    tags,
    summary: 'Create a draft invoice',
    request: { body: jsonBody(DraftSchema) },
    responses: { 201: jsonResponse(InvoiceSchema, 'The draft') },
  }),
  async (c) => c.json((await invoices.createDraft(serviceContext(c), c.req.valid('json'))) as never, 201),
);

invoiceRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/invoices/{id}',
    access: 'invoice:read',
    customerScoped: true,
    tags,
    summary: 'Get a document',
    request: { params },
    responses: { 200: jsonResponse(InvoiceSchema, 'The document') },
  }),
  async (c) => {
    const agg = await invoices.loadInvoice(serviceContext(c), c.req.valid('param').id, customerScope(c));
    if (customerScope(c) && agg.row.status === 'STATUS_DRAFT') throw ApiError.notFound('Invoice');
    return c.json(invoices.renderLoaded(agg) as never, 200);
  },
);

invoiceRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/invoices/{id}',
    access: 'invoice:write',
    tags,
    summary: 'Replace a draft',
    request: { params, body: jsonBody(DraftSchema) },
    responses: { 200: jsonResponse(InvoiceSchema, 'The draft') },
  }),
  async (c) => c.json((await invoices.updateDraft(serviceContext(c), c.req.valid('param').id, c.req.valid('json'))) as never, 200),
);

invoiceRoutes.openapi(
  defineRoute({ method: 'delete', path: '/invoices/{id}', access: 'invoice:write', tags, summary: 'Delete a draft', request: { params }, responses: { 204: noContent } }),
  async (c) => {
    await invoices.deleteDraft(serviceContext(c), c.req.valid('param').id);
    return c.body(null, 204);
  },
);

invoiceRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/position-items',
    access: 'invoice:write',
    tags,
    summary: 'Add positions to a draft',
    request: { params, body: jsonBody(z.strictObject({ positions: z.array(PositionInputSchema).min(1).max(200) }).openapi('InvoicePositionsAdd')) },
    responses: { 200: jsonResponse(InvoiceSchema, 'The draft') },
  }),
  async (c) => c.json((await invoices.addPositions(serviceContext(c), c.req.valid('param').id, c.req.valid('json').positions)) as never, 200),
);

const positionParams = z.object({ id: idParam('id', 'Invoice position id') });

invoiceRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/invoice-position-items/{id}',
    access: 'invoice:write',
    tags,
    summary: 'Replace a position of a draft',
    request: { params: positionParams, body: jsonBody(PositionInputSchema) },
    responses: { 200: jsonResponse(InvoiceSchema, 'The draft') },
  }),
  async (c) => c.json((await invoices.updatePosition(serviceContext(c), c.req.valid('param').id, c.req.valid('json'))) as never, 200),
);

invoiceRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/invoice-position-items/{id}',
    access: 'invoice:write',
    tags,
    summary: 'Delete a position (and its sub-positions) of a draft',
    request: { params: positionParams },
    responses: { 200: jsonResponse(InvoiceSchema, 'The draft') },
  }),
  async (c) => c.json((await invoices.deletePosition(serviceContext(c), c.req.valid('param').id)) as never, 200),
);

invoiceRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/finalize',
    access: 'invoice:write',
    tags,
    summary: 'Finalize a draft: it gets the next number of its range',
    request: { params, body: { required: false, content: { 'application/json': { schema: z.strictObject({ dueDate: nullable(timestamp) }).openapi('InvoiceFinalize') } } } },
    responses: { 200: jsonResponse(InvoiceSchema, 'The finalized document') },
  }),
  async (c) => {
    const body = (c.req.valid('json') as { dueDate?: string | null } | undefined) ?? {};
    return c.json((await invoices.finalizeInvoice(serviceContext(c), c.req.valid('param').id, body.dueDate ?? null)) as never, 200);
  },
);
