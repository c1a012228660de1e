import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { idParam } from '../../http/schemas';
import { InvoiceSchema } from '../../schemas/invoices';
import { addPositions, deletePosition, updatePosition } from '../../services/invoices/positions';
import { isObjectWith, params, PositionInputSchema, PositionItemSchema, PositionUpdateSchema, shapeHook, ITEM_NUMBER_PATHS, POSITION_NUMBER_PATHS } from './requests';
import { exactNumbers } from '../../http/exact-numbers';

// The positions (lines) of a draft; each change answers with the whole draft.

const tags = ['Invoices'];
const positionParams = z.object({ id: idParam('id', 'Invoice position id') });

const PositionListSchema = z.strictObject({ positions: z.array(PositionInputSchema).min(1).max(200) }).openapi('InvoicePositionsAdd');

export const invoicePositionRoutes = createRouter();

invoicePositionRoutes.use('/invoices/:id/position-items', exactNumbers(...ITEM_NUMBER_PATHS, ...POSITION_NUMBER_PATHS));
invoicePositionRoutes.use('/invoice-position-items/:id', exactNumbers(...ITEM_NUMBER_PATHS));

invoicePositionRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/position-items',
    access: 'invoice:write',
    tags,
    summary: 'Add positions to a draft',
    description: "Either `{positions: [...]}` or, as Fynn's API takes it, one item (with `children` and an optional `position`).",
    request: { params, body: jsonBody(z.union([PositionListSchema, PositionItemSchema])) },
    responses: { 200: jsonResponse(InvoiceSchema, 'The draft') },
  }),
  async (c) => {
    const body = c.req.valid('json');
    const ctx = serviceContext(c);
    const id = c.req.valid('param').id;
    if ('positions' in body) return c.json(await addPositions(ctx, id, body.positions), 200);
    return c.json(await addPositions(ctx, id, [body.item], { position: body.position, path: '' }), 200);
  },
  shapeHook((body) => (isObjectWith('positions')(body) ? PositionListSchema : PositionItemSchema)),
);

invoicePositionRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/invoice-position-items/{id}',
    access: 'invoice:write',
    tags,
    summary: 'Replace a position of a draft',
    request: { params: positionParams, body: jsonBody(PositionUpdateSchema) },
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
