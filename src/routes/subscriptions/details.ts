import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, mergePatchBody } from '../../http/openapi';
import { timestamp } from '../../http/schemas';
import { SubscriptionSchema } from '../../schemas/subscriptions';
import { orderProducts, setInvoiceAddress, setPaymentMethod } from '../../services/subscriptions/details';
import { ItemInputSchema, nullable, params } from './requests';

// What a subscription bills to: its invoice address, payment method and ordered products.

const tags = ['Subscriptions'];

export const subscriptionDetailRoutes = createRouter();

subscriptionDetailRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscriptions/{id}/invoice-address',
    access: 'subscription:write',
    tags,
    summary: 'Set the invoice address (null: the customer default)',
    description: 'Refused with 409 when the subscription is in a status that does not allow it (docs/state-machines.md).',
    request: { params, body: jsonBody(z.strictObject({ invoiceAddress: z.string().min(1).max(64).nullable() }).openapi('SubscriptionInvoiceAddress')) },
    responses: { 200: jsonResponse(SubscriptionSchema, 'The subscription') },
  }),
  async (c) => c.json(await setInvoiceAddress(serviceContext(c), c.req.valid('param').id, c.req.valid('json').invoiceAddress), 200),
);

const PaymentMethodBodySchema = z.strictObject({ paymentMethodId: z.string().min(1).max(64).nullable() }).openapi('SubscriptionPaymentMethod');

// The n8n node sends PATCH (as application/json), Fynn's docs PUT: both set the payment method.
subscriptionDetailRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/subscriptions/{id}/payment-method',
    access: 'subscription:write',
    tags,
    summary: 'Set the payment method (null: the customer default)',
    description: 'The same as PUT; the body is read as a merge patch of {paymentMethodId}, sent as application/merge-patch+json or application/json.',
    request: {
      params,
      body: mergePatchBody(PaymentMethodBodySchema),
    },
    responses: { 200: jsonResponse(SubscriptionSchema, 'The subscription') },
  }),
  async (c) => c.json(await setPaymentMethod(serviceContext(c), c.req.valid('param').id, c.req.valid('json').paymentMethodId), 200),
);

subscriptionDetailRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/subscriptions/{id}/payment-method',
    access: 'subscription:write',
    tags,
    summary: 'Set the payment method (null: the customer default)',
    request: { params, body: jsonBody(PaymentMethodBodySchema) },
    responses: { 200: jsonResponse(SubscriptionSchema, 'The subscription') },
  }),
  async (c) => c.json(await setPaymentMethod(serviceContext(c), c.req.valid('param').id, c.req.valid('json').paymentMethodId), 200),
);

subscriptionDetailRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/subscriptions/{id}/products',
    access: 'subscription:write',
    tags,
    summary: 'Order add-ons and one-time charges',
    request: {
      params,
      body: jsonBody(
        z
          .strictObject({
            billingStart: nullable(timestamp),
            startDate: nullable(timestamp),
            endDate: nullable(timestamp),
            products: z.array(ItemInputSchema).min(1).max(50),
          })
          .openapi('SubscriptionOrderProducts'),
      ),
    },
    responses: { 201: jsonResponse(SubscriptionSchema, 'The subscription with the ordered items') },
  }),
  // 201 as Fynn answers: the order creates items.
  async (c) => c.json(await orderProducts(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 201),
);
