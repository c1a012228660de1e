import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { collectionSchema, paginationQuery } from '../../http/pagination';
import { optionalText } from '../../http/schemas';
import { InvoiceCommentSchema } from '../../schemas/invoices';
import { addComment, listComments } from '../../services/invoices/operations';
import { params } from './requests';

const tags = ['Invoices'];

export const invoiceCommentRoutes = createRouter();

invoiceCommentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/comments',
    access: 'invoice:write',
    tags,
    summary: 'Add a comment',
    request: { params, body: jsonBody(z.strictObject({ text: z.string().trim().min(1).max(10_000), author: optionalText(1, 255) }).openapi('InvoiceCommentWrite')) },
    responses: { 201: jsonResponse(InvoiceCommentSchema, 'The comment') },
  }),
  async (c) => {
    const b = c.req.valid('json');
    return c.json(await addComment(serviceContext(c), c.req.valid('param').id, b.text, b.author), 201);
  },
);

invoiceCommentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/invoices/{id}/comments',
    access: 'invoice:read',
    tags,
    summary: 'List comments',
    request: { params, query: z.object(paginationQuery) },
    responses: { 200: jsonResponse(collectionSchema(InvoiceCommentSchema, 'InvoiceCommentCollection'), 'Comments') },
  }),
  async (c) => c.json(await listComments(serviceContext(c), c.req.valid('param').id, c.req.valid('query')), 200),
);
