import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { pdfResponse, previewPdf, wantsPdf } from '../../services/documents/previews';
import { ApiError } from '../../http/errors';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema } from '../../http/pagination';
import { currencyCode, customFieldValues, optionalText } from '../../http/schemas';
import { InvoiceSchema } from '../../schemas/invoices';
import { createDraft, deleteDraft, updateDraft } from '../../services/invoices/drafts';
import { invoiceListQuery, listInvoices, loadInvoice, renderLoaded } from '../../services/invoices/read';
import { customerScope, nullable, params, PositionInputSchema, POSITION_NUMBER_PATHS } from './requests';
import { exactNumbers } from '../../http/exact-numbers';

const tags = ['Invoices'];

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

export const invoiceRoutes = createRouter();

invoiceRoutes.use('/invoices', exactNumbers(...POSITION_NUMBER_PATHS));
invoiceRoutes.use('/invoices/:id', exactNumbers(...POSITION_NUMBER_PATHS));

invoiceRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/invoices',
    access: 'invoice:read',
    customerScoped: true,
    tags,
    summary: 'List invoices, credit notes, cancellations and other documents',
    description: 'A customer session sees only its own finalized documents.',
    request: { query: invoiceListQuery },
    responses: { 200: jsonResponse(collectionSchema(InvoiceSchema, 'InvoiceCollection'), 'A page of documents') },
  }),
  async (c) => c.json(await listInvoices(serviceContext(c), c.req.valid('query'), customerScope(c)), 200),
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
  async (c) => c.json(await createDraft(serviceContext(c), c.req.valid('json')), 201),
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
    return c.json(renderLoaded(agg), 200);
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
  async (c) => c.json(await updateDraft(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
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
    method: 'get',
    path: '/invoices/{id}/preview',
    access: 'invoice:read',
    tags,
    summary: 'The document as it would be rendered now (computed, not stored)',
    description: 'With `Accept: application/pdf` the PDF, marked as a preview and without a number; JSON otherwise.',
    request: { params },
    responses: {
      200: {
        description: 'The rendition',
        content: { 'application/json': { schema: InvoiceSchema }, 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } },
      },
    },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    const agg = await loadInvoice(ctx, c.req.valid('param').id);
    if (wantsPdf(c.req.header('Accept'))) return pdfResponse(await previewPdf(ctx, agg), `${agg.row.number ?? 'preview'}.pdf`);
    return c.json(renderLoaded(agg), 200);
  },
);
