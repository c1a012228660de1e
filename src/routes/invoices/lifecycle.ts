import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { optionalText, timestamp } from '../../http/schemas';
import { InvoiceSchema } from '../../schemas/invoices';
import { finalizeInvoice } from '../../services/invoices/finalize';
import { closeInvoice, duplicateInvoice } from '../../services/invoices/operations';
import { cancelInvoice, creditInvoice } from '../../services/invoices/reversals';
import { nullable, params, PositionInputSchema } from './requests';

// Status transitions of a document (docs/state-machines.md): finalize, approve, cancel, credit,
// duplicate, close.

const tags = ['Invoices'];
const documentResponse = { 200: jsonResponse(InvoiceSchema, 'The document') };

export const invoiceLifecycleRoutes = createRouter();

invoiceLifecycleRoutes.openapi(
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
    // Without a body the validated value is {}: no due date given.
    const body: { dueDate?: string | null } = c.req.valid('json');
    return c.json(await finalizeInvoice(serviceContext(c), c.req.valid('param').id, body.dueDate ?? null), 200);
  },
);

invoiceLifecycleRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/cancel',
    access: 'invoice:write',
    tags,
    summary: 'Cancel a finalized invoice with a numbered cancellation document',
    description: 'The cancellation (TYPE_CANCEL) reverses every line and gets a number of its own range.',
    request: { params },
    responses: documentResponse,
  }),
  async (c) => c.json(await cancelInvoice(serviceContext(c), c.req.valid('param').id), 200),
);

invoiceLifecycleRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/credit',
    access: 'invoice:write',
    tags,
    summary: 'Issue a credit note against an invoice',
    description: 'Credits the given positions (positive amounts), or everything not yet credited. Never more than the remaining creditable amount (422).',
    request: {
      params,
      body: jsonBody(
        z
          .strictObject({ positions: z.array(PositionInputSchema).max(200).nullable().optional(), reason: optionalText(1, 255), comment: optionalText(1, 2000) })
          .openapi('InvoiceCredit'),
      ),
    },
    responses: documentResponse,
  }),
  async (c) => {
    const b = c.req.valid('json');
    return c.json(await creditInvoice(serviceContext(c), c.req.valid('param').id, { positions: b.positions ?? null, reason: b.reason, comment: b.comment }), 200);
  },
);

invoiceLifecycleRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/approve',
    access: 'invoice:write',
    tags,
    summary: 'Approve a draft that needs manual approval: it is finalized',
    request: { params },
    responses: documentResponse,
  }),
  async (c) => c.json(await finalizeInvoice(serviceContext(c), c.req.valid('param').id, null), 200),
);

invoiceLifecycleRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/duplicate',
    access: 'invoice:write',
    tags,
    summary: 'Copy a document into a new draft',
    request: { params },
    responses: documentResponse,
  }),
  async (c) => c.json(await duplicateInvoice(serviceContext(c), c.req.valid('param').id), 200),
);

invoiceLifecycleRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/invoices/{id}/close',
    access: 'invoice:write',
    tags,
    summary: 'Close an unpaid document (no further payment expected)',
    request: { params },
    responses: documentResponse,
  }),
  async (c) => c.json(await closeInvoice(serviceContext(c), c.req.valid('param').id), 200),
);
