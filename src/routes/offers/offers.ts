import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { ApiError } from '../../http/errors';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema, listFilter, paginationQuery, sortDirection } from '../../http/pagination';
import { countryCode, idParam, optionalText } from '../../http/schemas';
import { OFFER_LOCALES, OFFER_STATUSES, OfferDownloadLinkSchema, OfferSchema } from '../../schemas/offers';
import { createOffer, createOfferForSubscription, type OfferTexts } from '../../services/offers/create';
import { offerDownloadLink } from '../../services/offers/documents';
import { archiveOffer, cancelSigning, deleteOffer, updateOffer } from '../../services/offers/lifecycle';
import { listOffers, offerWithLinks } from '../../services/offers/read';
import { sendOffer } from '../../services/offers/recipients';
import { OFFER_TEXT_LIMITS } from '../../services/offers/sections';
import { subscriptionFields, subscriptionInput } from '../subscriptions/requests';

const tags = ['Offers'];
const params = z.object({ id: idParam('id', 'Offer id') });
const ref = z.string().min(1).max(64).nullable().optional();
const origin = (url: string) => new URL(url).origin;

const sections = z
  .array(z.string().max(OFFER_TEXT_LIMITS.sectionChars, `A section holds at most ${OFFER_TEXT_LIMITS.sectionChars} characters.`))
  .max(OFFER_TEXT_LIMITS.sections)
  .openapi({ description: 'Rich text (HTML); kept in a safe subset (see OfferTemplate)' });
const description = optionalText(1, OFFER_TEXT_LIMITS.description);

/** Fynn's create body has `title`; ours `name`. Both at once must agree (docs/decisions.md, HTTP conventions). */
function nameOf(b: { name?: string | null; title?: string | null }): string | null {
  if (b.name && b.title && b.name !== b.title) throw ApiError.violation('title', 'title is another name for name; send one of them.', 'conflicting_alias');
  return b.name ?? b.title ?? null;
}

const textFields = {
  name: optionalText(1, 255),
  title: optionalText(1, 255).openapi({ description: "Fynn's name for `name`" }),
  description,
  sections: sections.default([]),
  offerTemplateId: ref.openapi({ description: 'A template whose sections open the offer' }),
  templates: z.array(z.string().min(1).max(64)).max(20).default([]).openapi({ description: 'Templates whose sections follow, in this order' }),
  contactPerson: ref,
  crmDealId: optionalText(1, 255),
  crmMetadata: z.null().optional().openapi({ description: 'Accepted as null only: no CRM is connected' }),
  locale: z.enum(OFFER_LOCALES).nullable().optional(),
  autoActivateSubscription: z.boolean().default(true),
};

interface TextBody {
  name: string | null;
  title: string | null;
  description: string | null;
  sections: string[];
  offerTemplateId?: string | null;
  templates: string[];
  contactPerson?: string | null;
  crmDealId: string | null;
  locale?: 'de' | 'en' | null;
  autoActivateSubscription: boolean;
}
const texts = (b: TextBody): OfferTexts => ({
  name: nameOf(b),
  description: b.description,
  sections: b.sections,
  offerTemplateId: b.offerTemplateId ?? null,
  templates: b.templates,
  contactPerson: b.contactPerson ?? null,
  crmDealId: b.crmDealId,
  locale: b.locale ?? null,
  autoActivateSubscription: b.autoActivateSubscription,
});

const OfferCreateSchema = z
  .strictObject({
    customer: ref.openapi({ description: 'The customer; leave it out for a prospect (the customer is made from the signer at signing)' }),
    prospect: z
      .strictObject({ companyName: optionalText(2, 255), countryCode: countryCode.nullable().optional().transform((v) => v ?? null) })
      .nullable()
      .optional()
      .openapi({ description: 'A prospect offer: who it is for, and the country its prices are taxed for (default: the tenant\'s)' }),
    subscription: z.strictObject(subscriptionFields).nullable().optional().openapi({ description: 'The subscription the offer sells, as POST /subscriptions takes it (without customer)' }),
    ...textFields,
  })
  .openapi('OfferCreate');

const OfferUpdateSchema = z
  .strictObject({
    name: optionalText(1, 255).optional(),
    description: description.optional(),
    sections: sections.optional(),
    contactPerson: ref,
    autoActivateSubscription: z.boolean().optional(),
    locale: z.enum(OFFER_LOCALES).optional(),
    crmDealId: optionalText(1, 255).optional(),
  })
  .openapi('OfferUpdate');

const OfferFromSubscriptionSchema = z
  .strictObject({
    offerTemplateId: textFields.offerTemplateId,
    title: textFields.title,
    contactPerson: ref,
    crmMetadata: textFields.crmMetadata,
    name: textFields.name,
    description,
    sections: textFields.sections,
    templates: textFields.templates,
    locale: textFields.locale,
    crmDealId: textFields.crmDealId,
    autoActivateSubscription: textFields.autoActivateSubscription,
  })
  .openapi('OfferFromSubscription');

export const offerRoutes = createRouter();

offerRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/offers',
    access: 'offer:read',
    tags,
    summary: 'List offers',
    description: 'Newest first. Recipients show no links here (GET /offers/{id} does).',
    request: {
      query: z.object({
        ...paginationQuery,
        ...listFilter('status', z.enum([...OFFER_STATUSES, ''])),
        ...listFilter('customer', z.string().max(64)),
        'order[createdAt]': sortDirection.optional(),
        'order[number]': sortDirection.optional(),
      }),
    },
    responses: { 200: jsonResponse(collectionSchema(OfferSchema, 'OfferCollection'), 'A page of offers') },
  }),
  async (c) => c.json(await listOffers(serviceContext(c), c.req.valid('query')), 200),
);

offerRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/offers',
    access: 'offer:write',
    tags,
    summary: 'Create an offer',
    description:
      'For a customer (its subscription is created in status offer) or a prospect (the subscription is made at signing, for the customer made from the signer). The number comes from the offer range (setting offer.numberFormat).',
    request: { body: jsonBody(OfferCreateSchema) },
    responses: { 201: jsonResponse(OfferSchema, 'The offer') },
  }),
  async (c) => {
    const b = c.req.valid('json');
    const offer = await createOffer(serviceContext(c), {
      ...texts(b),
      customer: b.customer ?? null,
      prospect: b.prospect ?? null,
      subscription: b.subscription ? subscriptionInput(b.subscription) : null,
    });
    return c.json(offer, 201);
  },
);

offerRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/subscriptions/{id}/offers',
    access: 'offer:write',
    tags,
    summary: 'Offer a draft subscription',
    description: "Fynn's path: a new offer whose subscription is this draft (which moves to status offer).",
    request: { params: z.object({ id: idParam('id', 'Subscription id') }), body: jsonBody(OfferFromSubscriptionSchema) },
    responses: { 201: jsonResponse(OfferSchema, 'The offer') },
  }),
  async (c) => c.json(await createOfferForSubscription(serviceContext(c), c.req.valid('param').id, texts(c.req.valid('json'))), 201),
);

offerRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/offers/{id}',
    access: 'offer:read',
    tags,
    summary: 'Get an offer',
    description: "The one answer that shows each recipient's personal link (`link`).",
    request: { params },
    responses: { 200: jsonResponse(OfferSchema, 'The offer') },
  }),
  async (c) => c.json(await offerWithLinks(serviceContext(c), c.req.valid('param').id, origin(c.req.url)), 200),
);

offerRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/offers/{id}',
    access: 'offer:write',
    tags,
    summary: 'Update an offer',
    description: 'Fields sent change, others stay. While signing only autoActivateSubscription and crmDealId may change (409 offer-signing); signed and archived offers not at all.',
    request: { params, body: jsonBody(OfferUpdateSchema) },
    responses: { 200: jsonResponse(OfferSchema, 'The offer') },
  }),
  async (c) => c.json(await updateOffer(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
);

offerRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/offers/{id}',
    access: 'offer:write',
    tags,
    summary: 'Delete an open offer',
    description: 'With its recipients and its subscription (status offer). Offers that were sent or signed are archived instead.',
    request: { params },
    responses: { 204: noContent },
  }),
  async (c) => {
    await deleteOffer(serviceContext(c), c.req.valid('param').id);
    return c.body(null, 204);
  },
);

offerRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/offers/{id}/archive',
    access: 'offer:write',
    tags,
    summary: 'Archive an offer',
    description: 'Open or signing → archived: the links no longer sign; the page says the offer was withdrawn.',
    request: { params },
    responses: { 200: jsonResponse(OfferSchema, 'The offer') },
  }),
  async (c) => c.json(await archiveOffer(serviceContext(c), c.req.valid('param').id), 200),
);

offerRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/offers/{id}/send',
    access: 'offer:write',
    tags,
    summary: 'Send an offer',
    description: 'Mails every recipient who has not signed their link and starts the signing (the content is frozen). Needs a recipient with role sign.',
    request: { params },
    responses: { 200: jsonResponse(OfferSchema, 'The offer') },
  }),
  async (c) => c.json(await sendOffer(serviceContext(c), c.req.valid('param').id, origin(c.req.url)), 200),
);

offerRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/offers/{id}/cancel-signing',
    access: 'offer:write',
    tags,
    summary: 'Cancel the signing of an offer',
    description: 'Signing → open: signatures so far are void (logged); the offer can be edited and sent again.',
    request: { params },
    responses: { 200: jsonResponse(OfferSchema, 'The offer') },
  }),
  async (c) => c.json(await cancelSigning(serviceContext(c), c.req.valid('param').id), 200),
);

offerRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/offers/{id}/download-link',
    access: 'offer:read',
    tags,
    summary: 'Download links of a signed offer',
    description: 'Signed, expiring links to the signed document and the audit log (10 s to 7 days, default 1 h).',
    request: { params, query: z.object({ secondsValid: z.string().regex(/^\d{1,6}$/).transform(Number).pipe(z.number().int().min(10).max(604_800)).optional() }) },
    responses: { 200: jsonResponse(OfferDownloadLinkSchema, 'The links') },
  }),
  async (c) => c.json(await offerDownloadLink(serviceContext(c), c.req.valid('param').id, origin(c.req.url), c.req.valid('query').secondsValid ?? 3600), 200),
);
