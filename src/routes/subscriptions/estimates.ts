import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { pdfResponse, previewPdf, wantsPdf } from '../../services/documents/previews';
import { ApiError } from '../../http/errors';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { InvoiceSchema } from '../../schemas/invoices';
import { EstimatedAmountSchema } from '../../schemas/subscriptions';
import { estimatedAmount, estimatedInvoice, estimatedInvoiceDocument } from '../../services/billing/estimates';
import { params } from './requests';

// What the next invoice of a subscription will be, computed and not stored.

const tags = ['Subscriptions'];

export const subscriptionEstimateRoutes = createRouter();

subscriptionEstimateRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/subscriptions/{id}/estimated-amount',
    access: 'subscription:read',
    tags,
    summary: 'The net amount of the next invoice',
    description: 'Recurring fees of the next period, usage so far, quantities and coupon discounts; net of tax.',
    request: { params },
    responses: { 200: jsonResponse(EstimatedAmountSchema, 'Net amount') },
  }),
  async (c) => c.json(await estimatedAmount(serviceContext(c), c.req.valid('param').id), 200),
);

subscriptionEstimateRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/subscriptions/{id}/estimated-invoice',
    access: 'subscription:read',
    tags,
    summary: 'The next invoice as billing would compose it (not stored)',
    description:
      'At the next billing date, with usage as measured so far; with `Accept: application/pdf` as a PDF marked as a preview. 404 when nothing is going to be billed (a draft, a terminated subscription).',
    request: { params },
    responses: {
      200: {
        description: 'The invoice it would be',
        content: { 'application/json': { schema: InvoiceSchema }, 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } },
      },
    },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    const id = c.req.valid('param').id;
    if (wantsPdf(c.req.header('Accept'))) {
      const agg = await estimatedInvoiceDocument(ctx, id);
      if (!agg) throw ApiError.notFound('Upcoming invoice');
      return pdfResponse(await previewPdf(ctx, agg), 'estimated-invoice.pdf');
    }
    const invoice = await estimatedInvoice(ctx, id);
    if (!invoice) throw ApiError.notFound('Upcoming invoice');
    return c.json(invoice, 200);
  },
);
