import { z } from '@hono/zod-openapi';
import { serviceContext, type AppContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema, paginationQuery, sortDirection } from '../../http/pagination';
import { currencyCode, customFieldValues, idParam, optionalText, requiredText, timestamp } from '../../http/schemas';
import { INVOICE_TYPES } from '../../services/invoices/render';
import { addPositions, deletePosition, updatePosition } from '../../services/invoices/positions';
import { createDraft, deleteDraft, updateDraft } from '../../services/invoices/drafts';
import { finalizeInvoice } from '../../services/invoices/finalize';
import { listInvoices, loadInvoice, renderLoaded } from '../../services/invoices/read';
import { type CreditInput, cancelInvoice, creditInvoice } from '../../services/invoices/reversals';
import { type PaymentInput, addPayment } from '../../services/invoices/payments';
import { addComment, closeInvoice, duplicateInvoice, listComments, setAddress, setDunning, setNote, setPaymentMethod } from '../../services/invoices/operations';
import { downloadLink, resendInvoice, signDocument } from '../../services/invoices/documents';
import { timingSafeEqual } from '../../lib/crypto';
import { systemNow } from '../../lib/clock';
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
    type: z.enum(INVOICE_TYPES),
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
      (await listInvoices(serviceContext(c), {
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
  async (c) => c.json((await createDraft(serviceContext(c), c.req.valid('json'))) as never, 201),
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
    const agg = await loadInvoice(serviceContext(c), c.req.valid('param').id, customerScope(c));
    if (customerScope(c) && agg.row.status === 'STATUS_DRAFT') throw ApiError.notFound('Invoice');
    return c.json(renderLoaded(agg) as never, 200);
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
  async (c) => c.json((await updateDraft(serviceContext(c), c.req.valid('param').id, c.req.valid('json'))) as never, 200),
);

invoiceRoutes.openapi(
  defineRoute({ method: 'delete', path: '/invoices/{id}', access: 'invoice:write', tags, summary: 'Delete a draft', request: { params }, responses: { 204: noContent } }),
  async (c) => {
    await deleteDraft(serviceContext(c), c.req.valid('param').id);
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
  async (c) => c.json((await addPositions(serviceContext(c), c.req.valid('param').id, c.req.valid('json').positions)) as never, 200),
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
  async (c) => c.json((await updatePosition(serviceContext(c), c.req.valid('param').id, c.req.valid('json'))) as never, 200),
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
  async (c) => c.json((await deletePosition(serviceContext(c), c.req.valid('param').id)) as never, 200),
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
    return c.json((await finalizeInvoice(serviceContext(c), c.req.valid('param').id, body.dueDate ?? null)) as never, 200);
  },
);

// ── Operations on documents ──────────────────────────────────────────────────────────────────

const documentOp = (method: 'post' | 'put', path: string, summary: string, body: z.ZodTypeAny | null, description?: string) =>
  defineRoute({
    method,
    path: `/invoices/{id}/${path}`,
    access: 'invoice:write',
    tags,
    summary,
    description,
    request: body ? { params, body: jsonBody(body) } : { params },
    responses: { 200: jsonResponse(InvoiceSchema, 'The document') },
  });

invoiceRoutes.openapi(
  documentOp(
    'post',
    'payments',
    'Record a payment (partial payments allowed)',
    z.strictObject({ amount: z.string().regex(/^\d{1,15}(\.\d{1,4})?$/, 'Must be a decimal string.'), paymentDate: timestamp, description: optionalText(1, 255), paymentMethod: optionalText(1, 64) }).openapi('InvoicePayment'),
    'Fully paid → STATUS_PAID and invoice.paid. A payment above the unpaid amount is refused (422).',
  ),
  async (c) => c.json((await addPayment(serviceContext(c), c.req.valid('param').id, c.req.valid('json' as never) as PaymentInput)) as never, 200),
);

invoiceRoutes.openapi(
  documentOp('post', 'cancel', 'Cancel a finalized invoice with a numbered cancellation document', null, 'The cancellation (TYPE_CANCEL) reverses every line and gets a number of its own range.'),
  async (c) => c.json((await cancelInvoice(serviceContext(c), c.req.valid('param').id)) as never, 200),
);

invoiceRoutes.openapi(
  documentOp(
    'post',
    'credit',
    'Issue a credit note against an invoice',
    z
      .strictObject({ positions: z.array(PositionInputSchema).max(200).nullable().optional(), reason: optionalText(1, 255), comment: optionalText(1, 2000) })
      .openapi('InvoiceCredit'),
    'Credits the given positions (positive amounts), or everything not yet credited. Never more than the remaining creditable amount (422).',
  ),
  async (c) => {
    const b = c.req.valid('json' as never) as { positions?: CreditInput['positions']; reason: string | null; comment: string | null };
    return c.json((await creditInvoice(serviceContext(c), c.req.valid('param').id, { positions: b.positions ?? null, reason: b.reason, comment: b.comment })) as never, 200);
  },
);

invoiceRoutes.openapi(
  documentOp('post', 'approve', 'Approve a draft that needs manual approval: it is finalized', null),
  async (c) => c.json((await finalizeInvoice(serviceContext(c), c.req.valid('param').id, null)) as never, 200),
);

invoiceRoutes.openapi(documentOp('post', 'duplicate', 'Copy a document into a new draft', null), async (c) =>
  c.json((await duplicateInvoice(serviceContext(c), c.req.valid('param').id)) as never, 200),
);

invoiceRoutes.openapi(documentOp('put', 'close', 'Close an unpaid document (no further payment expected)', null), async (c) =>
  c.json((await closeInvoice(serviceContext(c), c.req.valid('param').id)) as never, 200),
);

invoiceRoutes.openapi(
  documentOp('put', 'dunning', 'Exclude an unpaid document from dunning, or include it again', z.strictObject({ dunningDisabled: z.boolean() }).openapi('InvoiceDunning')),
  async (c) => c.json((await setDunning(serviceContext(c), c.req.valid('param').id, (c.req.valid('json' as never) as { dunningDisabled: boolean }).dunningDisabled)) as never, 200),
);

invoiceRoutes.openapi(
  documentOp('put', 'note', 'Set the internal note', z.strictObject({ internalNote: optionalText(1, 10_000) }).openapi('InvoiceNote')),
  async (c) => c.json((await setNote(serviceContext(c), c.req.valid('param').id, c.req.valid('json' as never) as { internalNote: string | null })) as never, 200),
);

invoiceRoutes.openapi(
  documentOp('put', 'address', "Set a draft's address (null: the customer's billing address)", z.strictObject({ address: z.string().min(1).max(64).nullable() }).openapi('InvoiceAddress')),
  async (c) => c.json((await setAddress(serviceContext(c), c.req.valid('param').id, (c.req.valid('json' as never) as { address: string | null }).address)) as never, 200),
);

invoiceRoutes.openapi(
  documentOp('post', 'payment-method', 'Set the payment method', z.strictObject({ paymentMethod: z.string().min(1).max(64).nullable() }).openapi('InvoicePaymentMethod')),
  async (c) =>
    c.json((await setPaymentMethod(serviceContext(c), c.req.valid('param').id, (c.req.valid('json' as never) as { paymentMethod: string | null }).paymentMethod)) as never, 200),
);

invoiceRoutes.openapi(documentOp('post', 'resend', 'Send the document to the customer again', null, 'Through the mail interface; records lastSentAt.'), async (c) => {
  const ctx = serviceContext(c);
  return c.json((await resendInvoice(ctx, c.req.valid('param').id)) as never, 200);
});

const CommentSchema = z.object({ id: z.string(), text: z.string(), author: z.string().nullable(), createdAt: z.string() }).openapi('InvoiceComment');

invoiceRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/comments',
    access: 'invoice:write',
    tags,
    summary: 'Add a comment',
    request: { params, body: jsonBody(z.strictObject({ text: z.string().trim().min(1).max(10_000), author: optionalText(1, 255) }).openapi('InvoiceCommentWrite')) },
    responses: { 201: jsonResponse(CommentSchema, 'The comment') },
  }),
  async (c) => {
    const b = c.req.valid('json');
    return c.json(await addComment(serviceContext(c), c.req.valid('param').id, b.text, b.author), 201);
  },
);

invoiceRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/invoices/{id}/comments',
    access: 'invoice:read',
    tags,
    summary: 'List comments',
    request: { params, query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(CommentSchema, 'InvoiceCommentCollection'), 'Comments') },
  }),
  async (c) => c.json(await listComments(serviceContext(c), c.req.valid('param').id, c.req.valid('query')), 200),
);

invoiceRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/invoices/{id}/preview',
    access: 'invoice:read',
    tags,
    summary: 'The document as it would be rendered now (computed, not stored)',
    request: { params },
    responses: { 200: jsonResponse(InvoiceSchema, 'The rendition') },
  }),
  async (c) => c.json(renderLoaded(await loadInvoice(serviceContext(c), c.req.valid('param').id)) as never, 200),
);

invoiceRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/invoices/{id}/download-link',
    access: 'invoice:read',
    customerScoped: true,
    tags,
    summary: 'A signed, expiring link to the stored document',
    description: 'Until PDF and EN16931 XML rendering arrive, the stored document is the JSON rendition.',
    request: { params, query: z.object({ secondsValid: z.string().regex(/^\d{1,6}$/).transform(Number).pipe(z.number().int().min(10).max(604_800)).optional() }) },
    responses: { 200: jsonResponse(z.object({ url: z.string(), expiresAt: z.string() }).openapi('DownloadLink'), 'The link') },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    const id = c.req.valid('param').id;
    if (customerScope(c)) await loadInvoice(ctx, id, customerScope(c));
    return c.json(await downloadLink(ctx, id, new URL(c.req.url).origin, c.req.valid('query').secondsValid ?? 3600), 200);
  },
);

invoiceRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/public/documents/{key}',
    access: 'public',
    tags,
    summary: 'Download a document through a signed link',
    request: {
      params: z.object({ key: z.string().min(1).max(512).openapi({ param: { name: 'key', in: 'path' } }) }),
      query: z.object({ expires: z.string().regex(/^\d{1,12}$/), signature: z.string().regex(/^[0-9a-f]{64}$/) }),
    },
    responses: { 200: { description: 'The document' } },
  }),
  async (c) => {
    const { key } = c.req.valid('param');
    const { expires, signature } = c.req.valid('query');
    const expected = await signDocument(c.env.JWT_SECRET, key, Number(expires));
    // Expiry is checked against the wall clock: links are infrastructure, not billing time.
    if (!timingSafeEqual(expected, signature) || Number(expires) * 1000 < systemNow().getTime()) throw ApiError.notFound('Document');
    const object = await c.env.DOCUMENTS.get(key);
    if (!object) throw ApiError.notFound('Document');
    return new Response(object.body, { headers: { 'Content-Type': object.httpMetadata?.contentType ?? 'application/octet-stream', 'Cache-Control': 'private, no-store' } }) as never;
  },
);
