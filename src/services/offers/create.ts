import { and, eq, sql } from 'drizzle-orm';
import { contactPersons, customers } from '../../db/schema';
import type { OfferProspect, OfferSubscriptionDraft } from '../../db/schema/offers';
import { EVENT_VERSION } from '../../events/catalogue';
import { nextUpdatedAt } from '../../db/commit';
import { ApiError, Violations } from '../../http/errors';
import { newId } from '../../lib/ids';
import type { OfferResource } from '../../schemas/offers';
import type { ServiceContext } from '../context';
import { customerExists } from '../customers/guards';
import { loadSettings } from '../platform/settings';
import type { NumberedDocument, OfferIssueRequest } from '../ports/numbering';
import { checkNewSubscription, newSubscription, type SubscriptionInput } from '../subscriptions/create';
import { loadSubscription, renderSubscription } from '../subscriptions/aggregate';
import type { SubscriptionResource } from '../../schemas/subscriptions';
import { loadOffer, renderOffer, type OfferRow } from './read';
import { OFFER_TEXT_LIMITS, sanitizeSections } from './sections';
import { templateSections } from './templates';

// Creating an offer (docs/decisions.md, Offers): for a customer, with a new subscription in status
// `offer` built like a draft; for a prospect, with the subscription's fields kept until signing
// makes a customer; or from an existing draft subscription (Fynn's POST /subscriptions/{id}/offers).
// The number comes from the offer range through the TenantObject, in the batch that writes it all.

export type OfferSubscriptionInput = Omit<SubscriptionInput, 'customer'>;

export interface OfferTexts {
  name: string | null;
  description: string | null;
  sections: string[];
  /** A template whose sections open the offer (Fynn's `offerTemplateId`). */
  offerTemplateId: string | null;
  /** Templates whose sections follow, in this order. */
  templates: string[];
  contactPerson: string | null;
  crmDealId: string | null;
  locale: 'de' | 'en' | null;
  autoActivateSubscription: boolean;
}

export interface OfferCreateInput extends OfferTexts {
  customer: string | null;
  prospect: OfferProspect | null;
  subscription: OfferSubscriptionInput | null;
}

/** Violations of a nested part (the subscription's fields) under its path; `customer` stays where it is. */
function nested(from: Violations, into: Violations, prefix: string) {
  for (const x of from.list) into.add(x.propertyPath === 'customer' ? 'customer' : `${prefix}.${x.propertyPath}`, x.message, x.code);
}

/** The sections an offer starts with: its template's, the named templates', then its own; all sanitized. */
async function initialSections(ctx: ServiceContext, input: OfferTexts, v: Violations): Promise<string[]> {
  const fromTemplate = input.offerTemplateId ? await templateSections(ctx, [input.offerTemplateId], 'offerTemplateId', v, true) : [];
  const fromTemplates = await templateSections(ctx, input.templates, 'templates', v);
  const sections = sanitizeSections([...fromTemplate, ...fromTemplates, ...input.sections]);
  if (sections.length > OFFER_TEXT_LIMITS.sections) v.add('sections', `At most ${OFFER_TEXT_LIMITS.sections} sections (templates included).`, 'too_big');
  return sections;
}

async function checkContactPerson(ctx: ServiceContext, id: string | null, v: Violations) {
  if (!id) return;
  const row = await ctx.db.select({ id: contactPersons.id }).from(contactPersons).where(and(eq(contactPersons.tenantId, ctx.tenant.id), eq(contactPersons.id, id))).get();
  if (!row) v.add('contactPerson', 'No such contact person.', 'not_found');
}

function draftOf(s: OfferSubscriptionInput): OfferSubscriptionDraft {
  return {
    plan: s.plan,
    items: s.items,
    name: s.name,
    number: s.number,
    externalId: s.externalId,
    contractStart: s.contractStart,
    contractPeriod: s.contractPeriod,
    cancellationPeriod: s.cancellationPeriod,
    billingGroup: s.billingGroup,
    trialDays: s.trialDays,
    poNumber: s.poNumber,
    customFields: s.customFields,
    coupons: s.coupons,
  };
}

export async function createOffer(ctx: ServiceContext, input: OfferCreateInput): Promise<OfferResource> {
  const v = new Violations();
  if (input.customer && input.prospect) v.add('prospect', 'An offer is for a customer or for a prospect, not both.', 'conflicting_fields');
  const sections = await initialSections(ctx, input, v);
  await checkContactPerson(ctx, input.contactPerson, v);
  const customer = input.customer
    ? await ctx.db.select().from(customers).where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, input.customer))).get()
    : null;
  if (input.customer && !customer) v.add('customer', 'No such customer.', 'not_found');
  else if (customer && customer.status !== 'STATUS_ACTIVE') v.add('customer', `The customer is ${customer.status}.`, 'not_active');
  let subscription: Awaited<ReturnType<typeof newSubscription>> | null = null;
  if (input.subscription) {
    const own = new Violations();
    const full: SubscriptionInput = { ...input.subscription, customer: input.customer ?? '' };
    const checked = await checkNewSubscription(ctx, full, own, { prospect: !input.customer });
    nested(own, v, 'subscription');
    if (v.empty && customer) subscription = await newSubscription(ctx, full, checked, 'offer');
  }
  v.throwIfAny();

  const row = offerRow(ctx, {
    ...input,
    sections,
    customerId: customer?.id ?? null,
    subscriptionId: subscription?.row.id ?? null,
    locale: input.locale ?? customer?.language ?? 'de',
    prospect: customer ? null : (input.prospect ?? { companyName: null, countryCode: null }),
    subscriptionDraft: !customer && input.subscription ? draftOf(input.subscription) : null,
  });
  const events: OfferIssueRequest['events'] = [];
  if (subscription) events.push(event(ctx, 'subscription.created', subscription.row.id, subscription.resource));
  return issue(ctx, row, {
    subscription: subscription && { row: subscription.row, items: subscription.items, discounts: subscription.discounts },
    shown: subscription?.resource ?? null,
    fromDraft: null,
    references: { customerId: row.customerId, contactPersonId: row.contactPersonId, invoiceAddressId: subscription?.row.invoiceAddressId ?? null },
    events,
  });
}

/** Fynn's POST /subscriptions/{id}/offers: the draft becomes the subscription of a new offer to its customer. */
export async function createOfferForSubscription(ctx: ServiceContext, subscriptionId: string, input: OfferTexts): Promise<OfferResource> {
  const sub = await loadSubscription(ctx, subscriptionId);
  if (sub.row.status !== 'draft') throw ApiError.conflict(`Only a draft subscription can be offered; this one is ${sub.row.status}.`, 'invalid-transition');
  const v = new Violations();
  const sections = await initialSections(ctx, input, v);
  await checkContactPerson(ctx, input.contactPerson, v);
  if (sub.customer.status !== 'STATUS_ACTIVE') v.add('customer', `The customer is ${sub.customer.status}.`, 'not_active');
  v.throwIfAny();
  const row = offerRow(ctx, {
    ...input,
    sections,
    customerId: sub.row.customerId,
    subscriptionId: sub.row.id,
    locale: input.locale ?? sub.customer.language ?? 'de',
    prospect: null,
    subscriptionDraft: null,
  });
  const updatedAt = nextUpdatedAt(ctx.now, sub.row.updatedAt);
  const shown = renderSubscription({ ...sub, row: { ...sub.row, status: 'offer', updatedAt } }, ctx.now);
  return issue(ctx, row, {
    subscription: null,
    shown,
    fromDraft: { id: sub.row.id, expectedUpdatedAt: sub.row.updatedAt, updatedAt },
    references: { customerId: row.customerId, contactPersonId: row.contactPersonId, invoiceAddressId: null },
    events: [event(ctx, 'subscription.updated', sub.row.id, shown)],
  });
}

type NewOfferRow = Omit<OfferRow, 'number' | 'numberSeq'>;

function offerRow(
  ctx: ServiceContext,
  x: OfferTexts & Pick<OfferRow, 'sections' | 'customerId' | 'subscriptionId' | 'prospect' | 'subscriptionDraft'> & { locale: 'de' | 'en' },
): NewOfferRow {
  const now = ctx.now.toISOString();
  return {
    id: newId(),
    tenantId: ctx.tenant.id,
    name: x.name,
    description: x.description,
    sections: x.sections,
    locale: x.locale,
    status: 'open',
    customerId: x.customerId,
    subscriptionId: x.subscriptionId,
    prospect: x.prospect,
    subscriptionDraft: x.subscriptionDraft,
    contactPersonId: x.contactPerson,
    crmDealId: x.crmDealId,
    autoActivateSubscription: x.autoActivateSubscription,
    content: null,
    sentAt: null,
    signedAt: null,
    archivedAt: null,
    signedDocumentId: null,
    auditLogDocumentId: null,
    completedAt: null,
    completionAttempts: 0,
    completionError: null,
    createdAt: now,
    updatedAt: now,
  };
}

function event(ctx: ServiceContext, type: string, resourceId: string, data: unknown): OfferIssueRequest['events'][number] {
  return { id: newId(), type, version: EVENT_VERSION, resourceId, data: data as Record<string, unknown>, createdAt: ctx.now.toISOString() };
}

/**
 * Asks the TenantObject for the offer's number and the batch that writes it (with `offer.created`,
 * whose `{number}` the object fills in); then answers the offer as stored.
 */
async function issue(ctx: ServiceContext, row: NewOfferRow, rest: Omit<OfferIssueRequest, keyof NumberedDocument | 'offer'> & { shown: SubscriptionResource | null }): Promise<OfferResource> {
  const settings = await loadSettings(ctx.db, ctx.tenant.id);
  const customerNumber = row.customerId
    ? ((await ctx.db.select({ n: customers.customerNumber }).from(customers).where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, row.customerId))).get())?.n ?? '')
    : '';
  // The event shows the offer as it will be stored; the object puts the number in.
  const draft = { ...row, number: '{number}', numberSeq: 0 };
  const created = await renderNew(ctx, draft, rest.shown);
  const { shown: _shown, ...request } = rest;
  const answer = await ctx.numbering.issueOffer({
    tenantId: ctx.tenant.id,
    format: settings['offer.numberFormat'],
    timeZone: ctx.tenant.timeZone,
    customerNumber,
    date: ctx.now.toISOString(),
    offer: row,
    ...request,
    events: [...request.events, event(ctx, 'offer.created', row.id, created)],
  });
  if (!answer.ok) {
    if (answer.reason === 'subscription_number_taken') throw ApiError.violation('subscription.number', 'Another subscription already has this number.', 'not_unique');
    // A reference went away between the checks and the batch: say which, as read now.
    const gone = new Violations();
    if (row.customerId) {
      const found = await ctx.db.get<{ ok: number }>(sql`SELECT CASE WHEN ${customerExists(ctx.tenant.id, row.customerId)} THEN 1 ELSE 0 END AS ok`);
      if (!found?.ok) gone.add('customer', 'No such customer.', 'not_found');
    }
    if (gone.empty && rest.fromDraft) throw ApiError.conflict('The subscription was changed concurrently; reload and retry.', 'concurrent-update');
    if (gone.empty) gone.add(row.contactPersonId ? 'contactPerson' : 'subscription.invoiceAddress', 'It was deleted meanwhile.', 'not_found');
    gone.throwIfAny();
  }
  return renderOffer(await loadOffer(ctx, row.id), ctx.now);
}

/** The offer before it is stored, for its creation event. */
async function renderNew(ctx: ServiceContext, row: OfferRow, subscription: SubscriptionResource | null) {
  const customer = row.customerId ? ((await ctx.db.select().from(customers).where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, row.customerId))).get()) ?? null) : null;
  const contact = row.contactPersonId
    ? ((await ctx.db.select().from(contactPersons).where(and(eq(contactPersons.tenantId, ctx.tenant.id), eq(contactPersons.id, row.contactPersonId))).get()) ?? null)
    : null;
  return { ...renderOffer({ row, recipients: [], subscription: null, customer, contactPerson: contact, media: [] }, ctx.now), subscription };
}
