import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { ApiError } from '../../http/errors';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { systemNow } from '../../lib/clock';
import { timingSafeEqual } from '../../lib/crypto';
import { DownloadLinkSchema, InvoiceSchema } from '../../schemas/invoices';
import { downloadLink, resendInvoice, signDocument } from '../../services/invoices/documents';
import { loadInvoice } from '../../services/invoices/read';
import { customerScope, params } from './requests';

// The stored document: sending it, and signed links to download it.

const tags = ['Invoices'];

export const invoiceDocumentRoutes = createRouter();

// Fynn resends with PUT; POST stays for the clients that already use it.
invoiceDocumentRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/invoices/{id}/resend',
    access: 'invoice:write',
    tags,
    summary: 'Send the document to the customer again',
    description: 'Through the mail interface; records lastSentAt.',
    request: { params },
    responses: { 200: jsonResponse(InvoiceSchema, 'The document') },
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
    responses: { 200: jsonResponse(InvoiceSchema, 'The document') },
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
    summary: 'A signed, expiring link to the stored document',
    description: 'Until PDF and EN16931 XML rendering arrive, the stored document is the JSON rendition.',
    request: { params, query: z.object({ secondsValid: z.string().regex(/^\d{1,6}$/).transform(Number).pipe(z.number().int().min(10).max(604_800)).optional() }) },
    responses: { 200: jsonResponse(DownloadLinkSchema, 'The link') },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    const id = c.req.valid('param').id;
    if (customerScope(c)) await loadInvoice(ctx, id, customerScope(c));
    return c.json(await downloadLink(ctx, id, new URL(c.req.url).origin, c.req.valid('query').secondsValid ?? 3600), 200);
  },
);

invoiceDocumentRoutes.openapi(
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
    return new Response(object.body, { headers: { 'Content-Type': object.httpMetadata?.contentType ?? 'application/octet-stream', 'Cache-Control': 'private, no-store' } });
  },
);
