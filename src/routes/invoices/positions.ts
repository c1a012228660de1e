import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { idParam } from '../../http/schemas';
import { InvoiceSchema } from '../../schemas/invoices';
import { addPositions, deletePosition, updatePosition } from '../../services/invoices/positions';
import { params, PositionInputSchema } from './requests';

// The positions (lines) of a draft; each change answers with the whole draft.

const tags = ['Invoices'];
const positionParams = z.object({ id: idParam('id', 'Invoice position id') });

export const invoicePositionRoutes = createRouter();

invoicePositionRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/position-items',
    access: 'invoice:write',
    tags,
    summary: 'Add positions to a draft',
    request: { params, body: jsonBody(z.strictObject({ positions: z.array(PositionInputSchema).min(1).max(200) }).openapi('InvoicePositionsAdd')) },
    responses: { 200: jsonResponse(InvoiceSchema, 'The draft') },
  }),
  async (c) => c.json(await addPositions(serviceContext(c), c.req.valid('param').id, c.req.valid('json').positions), 200),
);

invoicePositionRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/invoice-position-items/{id}',
    access: 'invoice:write',
    tags,
    summary: 'Replace a position of a draft',
    request: { params: positionParams, body: jsonBody(PositionInputSchema) },
    responses: { 200: jsonResponse(InvoiceSchema, 'The draft') },
  }),
  async (c) => c.json(await updatePosition(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
);

invoicePositionRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/invoice-position-items/{id}',
    access: 'invoice:write',
    tags,
    summary: 'Delete a position (and its sub-positions) of a draft',
    request: { params: positionParams },
    responses: { 200: jsonResponse(InvoiceSchema, 'The draft') },
  }),
  async (c) => c.json(await deletePosition(serviceContext(c), c.req.valid('param').id), 200),
);
