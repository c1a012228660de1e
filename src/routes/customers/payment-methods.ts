import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonResponse, mergePatchBody } from '../../http/openapi';
import { CustomerSchema } from '../../schemas/customers';
import { setDefaultPaymentMethod } from '../../services/customers/payment-methods';
import { customerParams as params, PaymentMethodBodySchema } from './requests';

export const customerPaymentMethodRoutes = createRouter();

customerPaymentMethodRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/customers/{id}/payment-method',
    access: 'customer:write',
    tags: ['Customers'],
    summary: "Set the customer's default payment method",
    description: "Chooses among the customer's payment methods; billing uses the default when a subscription names none. Sent as application/json (as the n8n node does) or as a merge patch.",
    request: {
      params,
      body: mergePatchBody(PaymentMethodBodySchema),
    },
    responses: { 200: jsonResponse(CustomerSchema, 'The customer') },
  }),
  async (c) => c.json(await setDefaultPaymentMethod(serviceContext(c), c.req.valid('param').id, c.req.valid('json').paymentMethodId), 200),
);
