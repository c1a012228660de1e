import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse, problem } from '../../http/openapi';
import { DownloadLinkSchema, InvoiceSchema } from '../../schemas/invoices';
import { downloadLink, openSignedFile } from '../../services/documents/links';
import { contentDisposition } from '../../services/documents/media';
import { resendInvoice } from '../../services/invoices/sending';
import { usageBreakdown, usageBreakdownCsv, UsageBreakdownSchema } from '../../services/documents/usage-breakdown';
import { customerScope, params } from './requests';

// The stored document: sending it, and signed links to download its PDF and e-invoice.

const tags = ['Invoices'];

/** A render on demand that failed: recorded, and tried again in the background. */
const renderFailed = problem('The document could not be rendered yet (Retry-After); it is tried again in the background');

export const invoiceDocumentRoutes = createRouter();

// Fynn resends with PUT; POST stays for the clients that already use it.
invoiceDocumentRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/invoices/{id}/resend',
    access: 'invoice:write',
    tags,
    summary: 'Send the document to the customer again',
    description: 'Through the mail interface, with the PDF and the e-invoice XML attached; records lastSentAt.',
    request: { params },
    responses: { 200: jsonResponse(InvoiceSchema, 'The document'), 503: renderFailed },
  }),
  async (c) => c.json(await resendInvoice(serviceContext(c), c.req.valid('param').id), 200),
);

invoiceDocumentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/resend',
    access: 'invoice:write',
    tags,
    summary: 'Send the document to the customer again (as PUT)',
    request: { params },
    responses: { 200: jsonResponse(InvoiceSchema, 'The document'), 503: renderFailed },
  }),
  async (c) => c.json(await resendInvoice(serviceContext(c), c.req.valid('param').id), 200),
);

invoiceDocumentRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/invoices/{id}/download-link',
    access: 'invoice:read',
    customerScoped: true,
    tags,
    summary: "Signed, expiring links to the document's PDF and e-invoice XML",
    description: 'Renders the files first if the render job has not run yet. 409 for a draft (see GET /invoices/{id}/preview).',
    request: { params, query: z.object({ secondsValid: z.string().regex(/^\d{1,6}$/).transform(Number).pipe(z.number().int().min(10).max(604_800)).optional() }) },
    responses: { 200: jsonResponse(DownloadLinkSchema, 'The links'), 503: renderFailed },
  }),
  async (c) => c.json(await downloadLink(serviceContext(c), c.req.valid('param').id, new URL(c.req.url).origin, c.req.valid('query').secondsValid ?? 3600, customerScope(c)), 200),
);

invoiceDocumentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/public/documents/{fileId}',
    access: 'public',
    tags,
    summary: 'Download a file through a signed link',
    description: '403 when the signature is missing, does not match or has expired.',
    request: {
      params: z.object({ fileId: z.string().min(1).max(64).openapi({ param: { name: 'fileId', in: 'path' } }) }),
      // Any malformed link is refused as a bad signature (403), not as a validation error, so no
      // bounds here: the check takes an expiry of up to 12 digits and compares the signature whole.
      query: z.object({ tenant: z.string().optional(), expires: z.string().optional(), signature: z.string().optional() }),
    },
    responses: { 200: { description: 'The file (application/pdf or application/xml), as an attachment' } },
  }),
  async (c) => {
    const { tenant, expires, signature } = c.req.valid('query');
    const file = await openSignedFile(c.env, tenant ?? '', c.req.valid('param').fileId, expires ?? '', signature ?? '');
    return new Response(file.object.body, {
      headers: {
        'Content-Type': file.media.mimeType,
        'Content-Length': String(file.object.size),
        'Content-Disposition': contentDisposition('attachment', file.media.fileName),
        'Cache-Control': 'private, no-store',
        'X-Content-Type-Options': 'nosniff',
      },
    });
  },
);

invoiceDocumentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/public/usage-breakdowns/{tenant}/{token}',
    access: 'public',
    tags,
    summary: "The usage behind a document's metered positions (its usageBreakdownUrl)",
    description: 'JSON, or CSV with `format=csv`. The token is the credential: it is unguessable and only on the document.',
    request: {
      params: z.object({
        tenant: z.string().max(64).openapi({ param: { name: 'tenant', in: 'path' } }),
        token: z.string().min(20).max(100).openapi({ param: { name: 'token', in: 'path' } }),
      }),
      query: z.object({ format: z.enum(['json', 'csv']).optional() }),
    },
    responses: {
      200: {
        description: 'The usage, per position',
        content: { 'application/json': { schema: UsageBreakdownSchema }, 'text/csv': { schema: z.string() } },
      },
    },
  }),
  async (c) => {
    const { tenant, token } = c.req.valid('param');
    const breakdown = await usageBreakdown(c.env, tenant, token);
    c.header('Cache-Control', 'private, no-store');
    if (c.req.valid('query').format !== 'csv') return c.json(breakdown, 200);
    return c.body(usageBreakdownCsv(breakdown), 200, { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': contentDisposition('attachment', `usage-${breakdown.document.number ?? 'document'}.csv`) });
  },
);
