import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { emailAddress, idParam, optionalText } from '../../http/schemas';
import { OfferRecipientSchema, OfferSchema, RECIPIENT_ROLES } from '../../schemas/offers';
import { addRecipient, changeRecipientRole, removeRecipient } from '../../services/offers/recipients';

const tags = ['Offers'];

const RecipientCreateSchema = z
  .strictObject({
    email: emailAddress,
    firstName: optionalText(1, 100),
    lastName: optionalText(1, 100),
    role: z.enum(RECIPIENT_ROLES).default('read').openapi({ description: 'read: may read the offer; sign: may read and sign it' }),
    sendEmail: z.boolean().default(false).openapi({ description: 'Mail the invitation now (the offer is then sent, and its signing starts); otherwise pass the link on yourself' }),
  })
  .openapi('OfferRecipientCreate');

export const offerRecipientRoutes = createRouter();

offerRecipientRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/offers/{id}/recipients',
    access: 'offer:write',
    tags,
    summary: 'Add a recipient to an offer',
    description: 'Each recipient gets a personal link (shown by GET /offers/{id}). One recipient per e-mail address and offer.',
    request: { params: z.object({ id: idParam('id', 'Offer id') }), body: jsonBody(RecipientCreateSchema) },
    responses: { 201: jsonResponse(OfferSchema, 'The offer') },
  }),
  async (c) => {
    const b = c.req.valid('json');
    return c.json(await addRecipient(serviceContext(c), c.req.valid('param').id, b, new URL(c.req.url).origin), 201);
  },
);

offerRecipientRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/offers/{id}/recipients/{recipientId}',
    access: 'offer:write',
    tags,
    summary: 'Remove a recipient from an offer',
    description: 'Its link stops working. Not a recipient who signed, nor a signer once anyone signed (cancel the signing first).',
    request: { params: z.object({ id: idParam('id', 'Offer id'), recipientId: idParam('recipientId', 'Recipient id') }) },
    responses: { 200: jsonResponse(OfferSchema, 'The offer') },
  }),
  async (c) => {
    const { id, recipientId } = c.req.valid('param');
    return c.json(await removeRecipient(serviceContext(c), id, recipientId), 200);
  },
);

offerRecipientRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/offer-recipients/{id}/role',
    access: 'offer:write',
    tags,
    summary: "Change a recipient's role",
    request: { params: z.object({ id: idParam('id', 'Recipient id') }), body: jsonBody(z.strictObject({ role: z.enum(RECIPIENT_ROLES) }).openapi('OfferRecipientRole')) },
    responses: { 200: jsonResponse(OfferRecipientSchema, 'The recipient') },
  }),
  async (c) => c.json(await changeRecipientRole(serviceContext(c), c.req.valid('param').id, c.req.valid('json').role), 200),
);
