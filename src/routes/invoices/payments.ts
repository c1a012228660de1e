import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { currencyCode, decimalOrNumber, optionalText, timestamp } from '../../http/schemas';
import { InvoiceSchema } from '../../schemas/invoices';
import { addPayment } from '../../services/invoices/payments';
import { nullable, params } from './requests';
import { exactNumbers } from '../../http/exact-numbers';

// Fynn's body (amount as a JSON number, date, currency and fee optional) and ours (amount as a
// string) alike: a number is read from the request text exactly, never through a float.
const PaymentSchema = z
  .strictObject({
    amount: decimalOrNumber(undefined, {}, '50.00').openapi({ description: 'A decimal string or a JSON number, at most the currency’s decimals' }),
    paymentDate: nullable(timestamp).openapi({ description: 'Default: now' }),
    description: optionalText(1, 255),
    paymentMethod: optionalText(1, 64),
    currencyCode: nullable(currencyCode).openapi({ description: 'Must be the invoice currency when given' }),
    feeAmount: nullable(decimalOrNumber(undefined, {}, '1.25')).openapi({ description: "The provider's fee, stored for information" }),
  })
  .openapi('InvoicePayment');

export const invoicePaymentRoutes = createRouter();

invoicePaymentRoutes.use('/invoices/:id/payments', exactNumbers('amount', 'feeAmount'));

invoicePaymentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/payments',
    access: 'invoice:write',
    tags: ['Invoices'],
    summary: 'Record a payment (partial payments allowed)',
    description: 'Fully paid → STATUS_PAID and invoice.paid. A payment above the unpaid amount is refused (422).',
    request: { params, body: jsonBody(PaymentSchema) },
    responses: { 201: jsonResponse(InvoiceSchema, 'The document') },
  }),
  async (c) => c.json(await addPayment(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 201),
);
