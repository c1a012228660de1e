import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { optionalText } from '../../http/schemas';
import { InvoiceSchema } from '../../schemas/invoices';
import { setAddress, setDunning, setNote, setPaymentMethod } from '../../services/invoices/operations';
import { params } from './requests';

// Fields of a document that change outside its status transitions.

const tags = ['Invoices'];
const documentResponse = { 200: jsonResponse(InvoiceSchema, 'The document') };

export const invoiceDetailRoutes = createRouter();

invoiceDetailRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/invoices/{id}/dunning',
    access: 'invoice:write',
    tags,
    summary: 'Exclude an unpaid document from dunning, or include it again',
    request: { params, body: jsonBody(z.strictObject({ dunningDisabled: z.boolean() }).openapi('InvoiceDunning')) },
    responses: documentResponse,
  }),
  async (c) => c.json(await setDunning(serviceContext(c), c.req.valid('param').id, c.req.valid('json').dunningDisabled), 200),
);

invoiceDetailRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/invoices/{id}/note',
    access: 'invoice:write',
    tags,
    summary: 'Set the internal note',
    request: { params, body: jsonBody(z.strictObject({ internalNote: optionalText(1, 10_000) }).openapi('InvoiceNote')) },
    responses: documentResponse,
  }),
  async (c) => c.json(await setNote(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
);

invoiceDetailRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/invoices/{id}/address',
    access: 'invoice:write',
    tags,
    summary: "Set a draft's address (null: the customer's billing address)",
    request: { params, body: jsonBody(z.strictObject({ address: z.string().min(1).max(64).nullable() }).openapi('InvoiceAddress')) },
    responses: documentResponse,
  }),
  async (c) => c.json(await setAddress(serviceContext(c), c.req.valid('param').id, c.req.valid('json').address), 200),
);

const reference = z.string().min(1).max(64).nullable();

/** `address` (as on PUT) or `invoiceAddress` (as subscriptions name it): one of the two; null: the customer's billing address. */
const SetAddressSchema = z
  .strictObject({ address: reference.optional(), invoiceAddress: reference.optional() })
  .superRefine((v, ctx) => {
    if (v.address !== undefined && v.invoiceAddress !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['invoiceAddress'], message: 'Give address or invoiceAddress, not both.', params: { code: 'conflicting_alias' } });
    } else if (v.address === undefined && v.invoiceAddress === undefined) {
      ctx.addIssue({ code: 'custom', path: ['address'], message: 'Required (or invoiceAddress); null for the customer\'s billing address.', params: { code: 'required' } });
    }
  })
  .openapi('InvoiceSetAddress');

invoiceDetailRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/address',
    access: 'invoice:write',
    tags,
    summary: "Set the customer address of a draft (Fynn's operation)",
    description:
      "One of the customer's addresses by id, or null for the customer's billing address, copied onto the draft. A finalized document keeps the address it was issued with: 409 `invalid-transition` (cancel and duplicate it to correct it).",
    request: { params, body: jsonBody(SetAddressSchema) },
    responses: { 201: jsonResponse(InvoiceSchema, 'The document') },
  }),
  async (c) => {
    const b = c.req.valid('json');
    const [field, value] = b.address !== undefined ? ['address', b.address] : ['invoiceAddress', b.invoiceAddress ?? null];
    return c.json(await setAddress(serviceContext(c), c.req.valid('param').id, value, field), 201);
  },
);

/** Fynn's `paymentMethodId` or our `paymentMethod`: one of the two; null removes it. */
const PaymentMethodSchema = z
  .strictObject({ paymentMethodId: reference.optional(), paymentMethod: reference.optional() })
  .superRefine((v, ctx) => {
    if (v.paymentMethodId !== undefined && v.paymentMethod !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['paymentMethod'], message: 'Give paymentMethodId or paymentMethod, not both.', params: { code: 'conflicting_alias' } });
    } else if (v.paymentMethodId === undefined && v.paymentMethod === undefined) {
      ctx.addIssue({ code: 'custom', path: ['paymentMethodId'], message: 'Required (or paymentMethod).', params: { code: 'required' } });
    }
  })
  .openapi('InvoicePaymentMethod');

invoiceDetailRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/invoices/{id}/payment-method',
    access: 'invoice:write',
    tags,
    summary: 'Set the payment method',
    request: { params, body: jsonBody(PaymentMethodSchema) },
    responses: { 201: jsonResponse(InvoiceSchema, 'The document') },
  }),
  async (c) => {
    const b = c.req.valid('json');
    const [field, value] = b.paymentMethodId !== undefined ? ['paymentMethodId', b.paymentMethodId] : ['paymentMethod', b.paymentMethod ?? null];
    return c.json(await setPaymentMethod(serviceContext(c), c.req.valid('param').id, value, field), 201);
  },
);
