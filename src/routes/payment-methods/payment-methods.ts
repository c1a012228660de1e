import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, mergePatchBody, problem } from '../../http/openapi';
import { collectionSchema } from '../../http/pagination';
import { calendarDate, idParam, optionalText, requiredText } from '../../http/schemas';
import { GATEWAY_NAMES, PAYMENT_METHOD_SOURCES, PAYMENT_METHOD_TYPES, PaymentMethodSchema } from '../../schemas/payment-methods';
import { getPaymentMethod, listPaymentMethods, paymentMethodListQuery, revokePaymentMethod, updatePaymentMethod } from '../../services/payments/methods';
import { createPaymentMethod } from '../../services/payments/methods-create';
import { customerScope } from '../invoices/requests';

const tags = ['Payment methods'];

const params = z.object({ id: idParam('id', 'Payment method id') });

const data = z
  .array(z.string().max(255, 'Must be at most 255 characters long.'))
  .max(20, 'At most 20 entries.')
  .openapi({ description: 'Free strings the tenant keeps with the method.' });

const SepaDebitWriteSchema = z
  .strictObject({
    iban: z.string().min(1).max(64).openapi({ description: 'Spaces and lower case are fine; stored compact and upper case, shown only masked.', example: 'DE89 3704 0044 0532 0130 00' }),
    bic: optionalText(8, 20),
    accountHolder: requiredText(2, 70).openapi({ description: "The debtor's name, in the SEPA character set (letters with accents are transliterated in files)." }),
    mandateReference: optionalText(1, 35).openapi({ description: "Generated from the setting sepa.mandateReferenceFormat when missing; unique among the tenant's mandates." }),
    signingDate: calendarDate.nullable().optional().openapi({ description: "The day the payer signed; today (the tenant's time) when missing, never in the future." }),
  })
  .openapi('SepaDebitWrite');

export const PaymentMethodWriteSchema = z
  .strictObject({
    customer: z.string().min(1).max(64).openapi({ description: 'Customer id' }),
    type: z.enum(PAYMENT_METHOD_TYPES),
    gatewayName: z
      .enum(GATEWAY_NAMES)
      .nullable()
      .optional()
      .openapi({ description: 'Defaults by type: sepa_debit → sepa_debit, card → card_provider, bank_transfer → bank_transfer, fake_provider → testing (or fake_provider).' }),
    name: optionalText(1, 255),
    default: z.boolean().nullable().optional().openapi({ description: "Takes the default from the customer's other methods; a customer's first usable method becomes the default when this is missing." }),
    enabled: z.boolean().nullable().optional(),
    data: data.nullable().optional(),
    source: z.enum(PAYMENT_METHOD_SOURCES).nullable().optional(),
    sepaDebit: SepaDebitWriteSchema.nullable().optional().openapi({ description: 'Required for (and only for) sepa_debit.' }),
    token: z
      .string()
      .min(1)
      .max(255)
      .nullable()
      .optional()
      .openapi({ description: "card: the card gateway's payment method id (Stripe pm_…), required; fake_provider: one of the testing tokens (charges succeed when missing)." }),
  })
  .openapi('PaymentMethodWrite');

/** An empty name is no name: back to the generated one (as null). */
const patchName = z.preprocess((v) => (v === '' ? null : v), z.string().trim().min(1).max(255).nullable().optional());

const PaymentMethodPatchSchema = z
  .strictObject({
    name: patchName,
    default: z.boolean().optional(),
    enabled: z.boolean().optional(),
    data: data.nullable().optional(),
  })
  .openapi('PaymentMethodPatch');

export const PaymentMethodCollectionSchema = collectionSchema(PaymentMethodSchema, 'PaymentMethodCollection');

const method = { 200: jsonResponse(PaymentMethodSchema, 'The payment method') };

export const paymentMethodRoutes = createRouter();

paymentMethodRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/payment-methods',
    access: 'payment-method:read',
    customerScoped: true,
    tags,
    summary: 'List payment methods',
    description: 'Filters by customer, type, status and enabled (`customer[]`, `type[]`, `status[]` for several). A customer session sees only its own methods. IBANs are masked.',
    request: { query: paymentMethodListQuery },
    responses: { 200: jsonResponse(PaymentMethodCollectionSchema, 'A page of payment methods') },
  }),
  async (c) => c.json(await listPaymentMethods(serviceContext(c), c.req.valid('query'), customerScope(c)), 200),
);

paymentMethodRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/payment-methods',
    access: 'payment-method:write',
    tags,
    summary: 'Add a payment method to a customer',
    description:
      'sepa_debit needs `sepaDebit` (IBAN checked and stored, shown masked; mandate reference generated when missing); card needs `token`, bound to the customer through the card gateway (status gateway_unconfigured while the tenant has none); fake_provider takes a testing token. Emits payment_method.created.',
    request: { body: jsonBody(PaymentMethodWriteSchema) },
    responses: { 201: jsonResponse(PaymentMethodSchema, 'The payment method'), 503: problem('The card gateway could not be reached; nothing was stored') },
  }),
  async (c) => c.json(await createPaymentMethod(serviceContext(c), c.req.valid('json')), 201),
);

paymentMethodRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/payment-methods/{id}',
    access: 'payment-method:read',
    customerScoped: true,
    tags,
    summary: 'Get a payment method',
    request: { params },
    responses: method,
  }),
  async (c) => c.json(await getPaymentMethod(serviceContext(c), c.req.valid('param').id, customerScope(c)), 200),
);

paymentMethodRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/payment-methods/{id}',
    access: 'payment-method:write',
    tags,
    summary: 'Change the name, default, enabled flag or data of a payment method',
    description:
      'A merge patch (also accepted as application/json). `default: true` takes the default from the customer\'s other methods and needs an enabled method that is not revoked or expired; disabling the default clears it. Emits payment_method.updated.',
    request: { params, body: mergePatchBody(PaymentMethodPatchSchema) },
    responses: method,
  }),
  async (c) => c.json(await updatePaymentMethod(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
);

const revokeDescription = 'Final: the method is revoked, disabled and no longer the default; 409 when it already is revoked. Emits payment_method.updated.';

paymentMethodRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/payment-methods/{id}/revoke',
    access: 'payment-method:write',
    tags,
    summary: 'Revoke a payment method',
    description: revokeDescription,
    request: { params },
    responses: method,
  }),
  async (c) => c.json(await revokePaymentMethod(serviceContext(c), c.req.valid('param').id), 200),
);

paymentMethodRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/payment-methods/{id}',
    access: 'payment-method:write',
    tags,
    summary: 'Revoke a payment method (as PUT /payment-methods/{id}/revoke)',
    description: `${revokeDescription} The method stays readable: transactions and SEPA files refer to it.`,
    request: { params },
    responses: method,
  }),
  async (c) => c.json(await revokePaymentMethod(serviceContext(c), c.req.valid('param').id), 200),
);
