import { z } from '@hono/zod-openapi';
import { MoneySchema } from './catalogue';
import { CustomerSummarySchema } from './customers';
import { SubscriptionSchema } from './subscriptions';

// Offers, their recipients, the public offer and offer templates (spec §2.6; docs/decisions.md, Offers).

export const OFFER_STATUSES = ['open', 'signing', 'signed', 'archived'] as const;
export const RECIPIENT_ROLES = ['read', 'sign'] as const;
export const SIGNING_STATUSES = ['not_started', 'started', 'pending', 'signed', 'archived'] as const;
export const OFFER_LOCALES = ['de', 'en'] as const;

const richText = z.string().openapi({
  description: 'Rich text in the safe subset of HTML the API stores: p, h1–h3, strong, em, a (http, https, mailto), ul, ol, li, blockquote, br, hr. Anything else is removed on input.',
});

export const OfferTemplateSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    sections: z.array(richText),
    type: z.string().openapi({ description: '`section` (a part an offer takes over), `offer` (a whole offer), or a word of the tenant' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('OfferTemplate');
export type OfferTemplateResource = z.infer<typeof OfferTemplateSchema>;

/** A stored file of an offer, as spec §2.6 shows it ("media-like"); downloaded through PUT /offers/{id}/download-link. */
export const OfferMediaSchema = z
  .object({ id: z.string(), mimeType: z.string(), fileExtension: z.string(), fileName: z.string(), createdAt: z.string() })
  .openapi('OfferMedia');

export const OfferContactPersonSchema = z
  .object({
    id: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string(),
    avatar: z.string().nullable(),
    phone: z.string().nullable(),
    linkedin: z.string().nullable(),
    position: z.string().nullable(),
    website: z.string().nullable(),
  })
  .openapi('OfferContactPerson');

export const SigningLogEntrySchema = z
  .object({
    at: z.string(),
    action: z.string().openapi({
      description:
        'invited, viewed, code_sent, code_rejected, signed, signing_cancelled (by the tenant), offer_archived; each with the time and, for the recipient\'s own steps, the IP address and user agent',
    }),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
  })
  .openapi('OfferSigningLogEntry');

export const OfferRecipientSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    role: z.enum(RECIPIENT_ROLES),
    createdAt: z.string(),
    signingStatus: z.enum(SIGNING_STATUSES).openapi({
      description: 'not_started (link not opened) → started (opened the offer) → pending (asked for a signing code) → signed; archived when the offer was archived before this recipient signed',
    }),
    signingLog: z.array(SigningLogEntrySchema),
    signatureDone: z.boolean(),
    signingName: z.string().nullable().openapi({ description: 'The full name the signer typed' }),
    signedAt: z.string().nullable(),
    invitedAt: z.string().nullable(),
    signedDocument: OfferMediaSchema.nullable().openapi({ description: 'The signed offer, once this recipient signed and the offer is signed' }),
    link: z.string().nullable().openapi({
      description: "The recipient's personal link to the offer page. Shown only by GET /offers/{id}: it is a credential, so lists, write answers and events carry null.",
    }),
  })
  .openapi('OfferRecipient');
export type OfferRecipientResource = z.infer<typeof OfferRecipientSchema>;

export const OfferSubscriptionDraftSchema = z
  .object({
    plan: z.string().nullable(),
    items: z.array(z.object({ product: z.string(), pricePlan: z.string(), quantity: z.string() })),
    name: z.string().nullable(),
    number: z.string().nullable(),
    externalId: z.string().nullable(),
    contractStart: z.string().nullable(),
    contractPeriod: z.string().nullable(),
    cancellationPeriod: z.string().nullable(),
    billingGroup: z.string().nullable(),
    trialDays: z.number().int(),
    poNumber: z.string().nullable(),
    customFields: z.record(z.string(), z.unknown()).nullable(),
    coupons: z.array(z.string()),
  })
  .openapi('OfferSubscriptionDraft');

export const OfferSchema = z
  .object({
    id: z.string(),
    subscription: SubscriptionSchema.nullable().openapi({ description: 'The subscription (status offer until signed and activated); null for a prospect until signing' }),
    subscriptionDraft: OfferSubscriptionDraftSchema.nullable().openapi({ description: 'A prospect offer: the subscription made at signing' }),
    customer: CustomerSummarySchema.nullable(),
    prospect: z.object({ companyName: z.string().nullable(), countryCode: z.string().nullable() }).nullable(),
    number: z.string(),
    name: z.string().nullable(),
    status: z.enum(OFFER_STATUSES).openapi({
      description: 'open (editable) → signing (sent, or a signer asked for a code: content frozen) → signed (every sign recipient signed); open or signing → archived',
    }),
    description: z.string().nullable(),
    sections: z.array(richText),
    locale: z.enum(OFFER_LOCALES),
    recipients: z.array(OfferRecipientSchema),
    auditLogDocument: OfferMediaSchema.nullable(),
    signedDocument: OfferMediaSchema.nullable(),
    signedAt: z.string().nullable(),
    sentAt: z.string().nullable(),
    archivedAt: z.string().nullable(),
    autoActivateSubscription: z.boolean(),
    activationError: z.string().nullable().openapi({ description: 'Why the customer, subscription or activation after signing failed (retried by the sweeper); null otherwise' }),
    crmDealId: z.string().nullable(),
    contactPerson: OfferContactPersonSchema.nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Offer');
export type OfferResource = z.infer<typeof OfferSchema>;

export const OfferLineItemSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    quantity: z.string(),
    type: z.enum(['recurring', 'one_time', 'metered', 'instant_metered']),
    calculationType: z.string(),
    billingInterval: z.string().nullable(),
    payInAdvance: z.boolean(),
    unitPrice: z.string().nullable().openapi({ description: 'The price per unit (per_unit) or the fee (flat_fee); null for tiered and percentage prices' }),
    recurringAmount: MoneySchema.nullable().openapi({ description: 'Net per billing interval at this quantity (recurring items)' }),
    firstInvoiceAmount: MoneySchema.nullable().openapi({ description: 'Net this item adds to the first invoice; null when it is billed later (usage, in arrears)' }),
    taxRate: z.string().nullable(),
  })
  .openapi('OfferLineItem');

export const OfferTotalsSchema = z
  .object({
    currencyCode: z.string(),
    netAmount: MoneySchema,
    discountAmount: MoneySchema,
    taxAmount: MoneySchema,
    grossAmount: MoneySchema,
    firstBillingDate: z.string().nullable().openapi({ description: 'When the first invoice would be made if the subscription started when the prices were taken' }),
  })
  .openapi('OfferTotals', { description: 'The first invoice, priced by billing as if the subscription started when the prices were taken' });

export const OfferTermsSchema = z
  .object({
    contractStart: z.string().nullable(),
    contractPeriod: z.string().nullable(),
    cancellationPeriod: z.string().nullable(),
    trialDays: z.number().int(),
  })
  .openapi('OfferTerms');

export const PublicOfferSchema = z
  .object({
    number: z.string(),
    name: z.string().nullable(),
    contactPerson: OfferContactPersonSchema.nullable(),
    description: z.string().nullable(),
    sections: z.array(richText),
    offerLineItems: z.array(OfferLineItemSchema),
    totals: OfferTotalsSchema.nullable(),
    terms: OfferTermsSchema.nullable(),
    signed: z.boolean().openapi({ description: 'The offer is signed (every sign recipient signed)' }),
    canSign: z.boolean().openapi({ description: 'This recipient may sign now: role sign, not signed yet, offer open or signing' }),
    status: z.enum(OFFER_STATUSES),
    locale: z.enum(OFFER_LOCALES),
    seller: z.string(),
    pricedAt: z.string().openapi({ description: 'When the line items were priced (frozen once signing started)' }),
    signedAt: z.string().nullable(),
    signedDocumentUrl: z.string().nullable().openapi({ description: 'Once the offer is signed: a download link of the signed document, valid for an hour' }),
    recipient: z.object({
      firstName: z.string().nullable(),
      lastName: z.string().nullable(),
      email: z.string(),
      role: z.enum(RECIPIENT_ROLES),
      signingStatus: z.enum(SIGNING_STATUSES),
      signedAt: z.string().nullable(),
    }),
  })
  .openapi('PublicOffer');
export type PublicOffer = z.infer<typeof PublicOfferSchema>;

export const SigningCodeSentSchema = z
  .object({ sent: z.literal(true), expiresAt: z.string(), email: z.string().openapi({ description: 'Where the code went, partly hidden' }) })
  .openapi('OfferSigningCodeSent');

export const OfferDownloadLinkSchema = z
  .object({ signedDocumentUrl: z.string(), auditLogDocumentUrl: z.string(), expiresAt: z.string() })
  .openapi('OfferDownloadLink');
