import { z } from '@hono/zod-openapi';
import { createRouter, defineRoute, jsonBody, jsonResponse, problem } from '../../http/openapi';
import { visitorOf } from '../../http/visitor';
import { PublicOfferSchema, SigningCodeSentSchema } from '../../schemas/offers';
import { requestSigningCode, signOffer, viewOffer } from '../../services/offers/public';

// The recipient's side of an offer (no credentials: the link's token is the credential). The
// hosted page (src/pages/offers/) calls the same service functions.

const tags = ['Public offers'];
const params = z.object({
  id: z.string().min(1).max(200).openapi({ param: { name: 'id', in: 'path' }, description: "The recipient's link token (the last part of their link)" }),
});
const origin = (url: string) => new URL(url).origin;

const SignSchema = z
  .strictObject({
    code: z.string().trim().regex(/^\d{6}$/, 'Must be the 6-digit code from the e-mail.'),
    fullName: z.string().trim().min(2, 'Type your full name (at least 2 characters).').max(200, 'Must be at most 200 characters long.'),
    accept: z.literal(true, { error: 'Confirm that you accept the offer.' }),
  })
  .openapi('PublicOfferSign');

export const publicOfferRoutes = createRouter();

publicOfferRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/public/offers/{id}',
    access: 'public',
    tags,
    summary: 'Get an offer as its recipient',
    description: 'The offer behind a recipient\'s link (404 for any other value). Each view is logged in the recipient\'s signingLog.',
    request: { params },
    responses: { 200: jsonResponse(PublicOfferSchema, 'The offer') },
  }),
  async (c) => c.json(await viewOffer(c.env, c.req.valid('param').id, visitorOf(c), origin(c.req.url)), 200),
);

publicOfferRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/public/offers/{id}/signing-code',
    access: 'public',
    // It mails a code: limited like the other public routes that make state.
    rateLimit: 'public-create',
    tags,
    summary: 'Send a signing code',
    description: "A one-time code to the signer's e-mail address (valid 10 minutes, 5 tries; at most 5 codes an hour, then 429). The first code of an open offer starts its signing.",
    request: { params },
    responses: { 200: jsonResponse(SigningCodeSentSchema, 'The code was sent'), 429: problem('Too many codes this hour') },
  }),
  async (c) => c.json(await requestSigningCode(c.env, c.req.valid('param').id, visitorOf(c)), 200),
);

publicOfferRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/public/offers/{id}/sign',
    access: 'public',
    tags,
    summary: 'Sign an offer',
    description: 'With the code from the e-mail and the full name typed. When the last signer signs, the offer is signed, its documents stored and (autoActivateSubscription) its subscription activated.',
    request: { params, body: jsonBody(SignSchema) },
    responses: { 200: jsonResponse(PublicOfferSchema, 'The offer, signed by this recipient') },
  }),
  async (c) => c.json(await signOffer(c.env, c.req.valid('param').id, c.req.valid('json'), visitorOf(c), origin(c.req.url)), 200),
);
