import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { PublicOffer } from '../../schemas/offers';

/** What recipients read and sign: the public offer without the reader's own state. */
export type OfferContent = Omit<PublicOffer, 'signed' | 'canSign' | 'status' | 'signedAt' | 'signedDocumentUrl' | 'recipient'>;

/** Reusable rich-text sections (docs/decisions.md, Offers): `sections` hold sanitized HTML. */
export const offerTemplates = sqliteTable(
  'offer_templates',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    name: text('name').notNull(),
    /** `section` (a reusable part of an offer), `offer` (a whole offer's sections) or the tenant's own word. */
    type: text('type').notNull(),
    sections: text('sections', { mode: 'json' }).$type<string[]>().notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('offer_templates_tenant_idx').on(t.tenantId, t.type, t.createdAt)],
);

/** Who an offer for a prospect (no customer yet) is addressed to; the customer is made from it and the signer at signing. */
export interface OfferProspect {
  companyName: string | null;
  countryCode: string | null;
}

/** The subscription an offer to a prospect will start: the draft subscription's fields without a customer. */
export interface OfferSubscriptionDraft {
  plan: string | null;
  items: { product: string; pricePlan: string; quantity: string }[];
  name: string | null;
  number: string | null;
  externalId: string | null;
  contractStart: string | null;
  contractPeriod: string | null;
  cancellationPeriod: string | null;
  billingGroup: string | null;
  trialDays: number;
  poNumber: string | null;
  customFields: Record<string, unknown> | null;
  coupons: string[];
}

/** One entry of a recipient's signing log: what happened, when, from where. */
export interface SigningLogEntry {
  at: string;
  action: string;
  ip: string | null;
  userAgent: string | null;
}

export const offers = sqliteTable(
  'offers',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    /** From the offer range (`offer.numberFormat`), allocated by the TenantObject like document numbers. */
    number: text('number').notNull(),
    numberSeq: integer('number_seq').notNull(),
    name: text('name'),
    description: text('description'),
    sections: text('sections', { mode: 'json' }).$type<string[]>().notNull(),
    locale: text('locale', { enum: ['de', 'en'] }).notNull(),
    status: text('status', { enum: ['open', 'signing', 'signed', 'archived'] }).notNull(),
    customerId: text('customer_id'),
    subscriptionId: text('subscription_id'),
    prospect: text('prospect', { mode: 'json' }).$type<OfferProspect | null>(),
    /** A prospect's subscription, made at signing once there is a customer. */
    subscriptionDraft: text('subscription_draft', { mode: 'json' }).$type<OfferSubscriptionDraft | null>(),
    contactPersonId: text('contact_person_id'),
    crmDealId: text('crm_deal_id'),
    autoActivateSubscription: integer('auto_activate_subscription', { mode: 'boolean' }).notNull(),
    /**
     * What the recipients read and sign, frozen when signing starts (the public offer's content and
     * its priced line items); null while the offer is open and shown as it is.
     */
    content: text('content', { mode: 'json' }).$type<OfferContent | null>(),
    sentAt: text('sent_at'),
    signedAt: text('signed_at'),
    archivedAt: text('archived_at'),
    signedDocumentId: text('signed_document_id'),
    auditLogDocumentId: text('audit_log_document_id'),
    /** After signing: customer, subscription and activation done (null while pending); failures are counted for the sweeper. */
    completedAt: text('completed_at'),
    completionAttempts: integer('completion_attempts').notNull().default(0),
    completionError: text('completion_error'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('offers_number_seq_uq').on(t.tenantId, t.numberSeq),
    // One offer per subscription: the offer is how that subscription is sold.
    uniqueIndex('offers_subscription_uq').on(t.tenantId, t.subscriptionId),
    index('offers_tenant_idx').on(t.tenantId, t.createdAt),
    index('offers_status_idx').on(t.tenantId, t.status, t.createdAt),
    index('offers_customer_idx').on(t.tenantId, t.customerId),
    // The sweeper's look for signed offers whose completion is pending.
    index('offers_completion_idx').on(t.status, t.completedAt),
  ],
);

export const offerRecipients = sqliteTable(
  'offer_recipients',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    offerId: text('offer_id').notNull(),
    email: text('email').notNull(),
    emailKey: text('email_key').notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    role: text('role', { enum: ['read', 'sign'] }).notNull(),
    signingStatus: text('signing_status', { enum: ['not_started', 'started', 'pending', 'signed', 'archived'] }).notNull(),
    signingLog: text('signing_log', { mode: 'json' }).$type<SigningLogEntry[]>().notNull(),
    /** The full name the signer typed. */
    signingName: text('signing_name'),
    signedAt: text('signed_at'),
    invitedAt: text('invited_at'),
    /** The signing code: an HMAC of it (never the code), its expiry (wall clock), tries and the hour's count of codes. */
    otpHash: text('otp_hash'),
    otpExpiresAt: text('otp_expires_at'),
    otpAttempts: integer('otp_attempts').notNull().default(0),
    otpWindowStartedAt: text('otp_window_started_at'),
    otpCodesInWindow: integer('otp_codes_in_window').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('offer_recipients_offer_idx').on(t.tenantId, t.offerId), uniqueIndex('offer_recipients_email_uq').on(t.tenantId, t.offerId, t.emailKey)],
);
