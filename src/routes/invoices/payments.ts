import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { decimalString, optionalText, timestamp } from '../../http/schemas';
import { InvoiceSchema } from '../../schemas/invoices';
import { addPayment } from '../../services/invoices/payments';
import { params } from './requests';

const PaymentSchema = z
  .strictObject({
    amount: decimalString(4),
    paymentDate: timestamp,
    description: optionalText(1, 255),
    paymentMethod: optionalText(1, 64),
  })
  .openapi('InvoicePayment');

export const invoicePaymentRoutes = createRouter();

invoicePaymentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/payments',
    access: 'invoice:write',
    tags: ['Invoices'],
    summary: 'Record a payment (partial payments allowed)',
    description: 'Fully paid → STATUS_PAID and invoice.paid. A payment above the unpaid amount is refused (422).',
    request: { params, body: jsonBody(PaymentSchema) },
    responses: { 200: jsonResponse(InvoiceSchema, 'The document') },
  }),
  async (c) => c.json(await addPayment(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
);
