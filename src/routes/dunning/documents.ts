import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { collectionSchema } from '../../http/pagination';
import { idParam, optionalText } from '../../http/schemas';
import { DunningDocumentSchema } from '../../schemas/dunning';
import { cancelDunningDocument, dunningDocumentListQuery, getDunningDocument, listDunningDocuments } from '../../services/dunning/documents';
import { customerScope } from '../invoices/requests';

const tags = ['Dunning'];
const params = z.object({ id: idParam('id', 'Dunning document id') });

export const dunningDocumentRoutes = createRouter();

dunningDocumentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/dunning/documents',
    access: 'dunning-document:read',
    customerScoped: true,
    tags,
    summary: 'Reminders and dunning letters, newest first',
    description: 'Filters take one value or several (`status=open&status=paid`). A customer sees only its own documents.',
    request: { query: dunningDocumentListQuery },
    responses: { 200: jsonResponse(collectionSchema(DunningDocumentSchema, 'DunningDocumentCollection'), 'Dunning documents') },
  }),
  async (c) => c.json(await listDunningDocuments(serviceContext(c), c.req.valid('query'), customerScope(c)), 200),
);

dunningDocumentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/dunning/documents/{id}',
    access: 'dunning-document:read',
    customerScoped: true,
    tags,
    summary: 'A reminder or dunning letter',
    request: { params },
    responses: { 200: jsonResponse(DunningDocumentSchema, 'The dunning document') },
  }),
  async (c) => c.json(await getDunningDocument(serviceContext(c), c.req.valid('param').id, customerScope(c)), 200),
);

dunningDocumentRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/dunning/documents/{id}/cancel',
    access: 'dunning-document:write',
    tags,
    summary: 'Cancel an open reminder or dunning letter',
    description: 'Its fee is no longer asked for by later documents. The invoice keeps its level; dunning goes on from there (pause it with PUT /invoices/{id}/dunning).',
    request: { params, body: { required: false, content: { 'application/json': { schema: z.strictObject({ reason: optionalText(1, 500) }).openapi('DunningDocumentCancel') } } } },
    responses: { 200: jsonResponse(DunningDocumentSchema, 'The cancelled document') },
  }),
  async (c) => c.json(await cancelDunningDocument(serviceContext(c), c.req.valid('param').id, c.req.valid('json')?.reason ?? null), 200),
);
