import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { idParam } from '../../http/schemas';
import { customerPaymentMethodListQuery, listCustomerPaymentMethods } from '../../services/payments/methods';
import { PaymentMethodCollectionSchema } from './payment-methods';

export const customerPaymentMethodListRoutes = createRouter();

customerPaymentMethodListRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/customers/{id}/payment-methods',
    access: 'payment-method:read',
    // A customer session reads its own methods only (another customer's id is 404).
    customerSelf: 'id',
    tags: ['Payment methods', 'Customers'],
    summary: "List a customer's payment methods",
    description: 'The same masked representation and filters as GET /payment-methods, for one customer; 404 for an unknown customer.',
    request: { params: z.object({ id: idParam('id', 'Customer id') }), query: customerPaymentMethodListQuery },
    responses: { 200: jsonResponse(PaymentMethodCollectionSchema, "The customer's payment methods") },
  }),
  async (c) => c.json(await listCustomerPaymentMethods(serviceContext(c), c.req.valid('param').id, c.req.valid('query')), 200),
);
