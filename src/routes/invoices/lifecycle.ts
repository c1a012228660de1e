import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { optionalText, timestamp } from '../../http/schemas';
import { InvoiceSchema } from '../../schemas/invoices';
import { finalizeInvoice } from '../../services/invoices/finalize';
import { closeInvoice, duplicateInvoice } from '../../services/invoices/operations';
import { CREDIT_REASONS, creditInvoice } from '../../services/invoices/credits';
import { cancelInvoice } from '../../services/invoices/reversals';
import { CreditPositionSchema, nullable, params, POSITION_NUMBER_PATHS } from './requests';
import { exactNumbers } from '../../http/exact-numbers';

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
    responses: { 201: jsonResponse(InvoiceSchema, 'The finalized document') },
  }),
  async (c) => {
    // Without a body the validated value is {}: no due date given.
    const body: { dueDate?: string | null } = c.req.valid('json');
    return c.json(await finalizeInvoice(serviceContext(c), c.req.valid('param').id, body.dueDate ?? null), 201);
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

const CreditSchema = z
  .strictObject({
    positions: z.array(CreditPositionSchema).max(200).nullable().optional(),
    reason: optionalText(1, 255).openapi({ description: `One of Fynn's reasons (${Object.keys(CREDIT_REASONS).join(', ')}) or free text` }),
    comment: optionalText(1, 2000),
    paymentMethod: nullable(z.string().min(1).max(64)).openapi({ description: "The customer's payment method for the credit note (default: the invoice's)" }),
    customIntroduction: optionalText(1, 10_000),
    customClosing: optionalText(1, 10_000),
  })
  .openapi('InvoiceCredit');

invoiceLifecycleRoutes.use('/invoices/:id/credit', exactNumbers(...POSITION_NUMBER_PATHS));

invoiceLifecycleRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/credit',
    access: 'invoice:write',
    tags,
    summary: 'Issue a credit note against an invoice',
    description:
      "Credits the given positions: positions of the invoice by id (all or a quantity of them), or new lines (positive amounts) at the invoice's tax rates. Without positions, everything not yet credited. Never more than what is left to credit, per tax rate and in all (422).",
    request: { params, body: jsonBody(CreditSchema) },
    responses: { 201: jsonResponse(InvoiceSchema, 'The credit note') },
  }),
  async (c) => {
    const b = c.req.valid('json');
    return c.json(await creditInvoice(serviceContext(c), c.req.valid('param').id, { ...b, positions: b.positions ?? null }), 201);
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
