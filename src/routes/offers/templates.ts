import { z } from '@hono/zod-openapi';
import { createRouter } from '../../http/openapi';
import { requiredText } from '../../http/schemas';
import { OfferTemplateSchema } from '../../schemas/offers';
import { OFFER_TEXT_LIMITS } from '../../services/offers/sections';
import { offerTemplateService } from '../../services/offers/templates';
import { registerResourceRoutes } from '../resource-routes';

export const offerTemplateRoutes = createRouter();
registerResourceRoutes(offerTemplateRoutes, {
  paths: { collection: '/offer-templates', item: '/offer-templates/{id}' },
  name: 'OfferTemplate',
  tag: 'Offer templates',
  permission: 'offer-template',
  service: offerTemplateService,
  schema: OfferTemplateSchema,
  writeSchema: z
    .strictObject({
      name: requiredText(1, 255),
      type: z
        .string()
        .regex(/^[a-z][a-z0-9_-]{0,63}$/, 'Must be a lower-case word such as section or offer.')
        .default('section'),
      sections: z
        .array(z.string().max(OFFER_TEXT_LIMITS.sectionChars, `A section holds at most ${OFFER_TEXT_LIMITS.sectionChars} characters.`))
        .max(OFFER_TEXT_LIMITS.sections)
        .default([]),
    })
    .openapi('OfferTemplateWrite'),
  descriptions: {
    list: 'Filters `type` and `type[]` (one value or several).',
    create: 'Sections are rich text: HTML kept in a safe subset (p, h1–h3, strong, em, a with http(s)/mailto, lists, blockquote, br, hr); anything else is removed.',
  },
});
