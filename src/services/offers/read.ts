import { and, asc, count, desc, eq, inArray, type SQL } from 'drizzle-orm';
import { inJson, tenantRowsById } from '../../db/client';
import { contactPersons, customers, media, offerRecipients, offers, subscriptions } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { collection, filterValues, pageOffset, type Page } from '../../http/pagination';
import type { OfferRecipientResource, OfferResource } from '../../schemas/offers';
import type { Env } from '../../env';
import type { ServiceContext } from '../context';
import type { MediaRow } from '../documents/media';
import { assembleSubscriptions, renderSubscription, shortCustomer, type SubscriptionAggregate } from '../subscriptions/aggregate';
import { offerLink } from './links';

// Reading offers: one aggregate per offer (recipients, subscription, customer, contact person,
// files) read in a few batched queries for any number of offers, and its representation.

export type OfferRow = typeof offers.$inferSelect;
export type RecipientRow = typeof offerRecipients.$inferSelect;
type CustomerRow = typeof customers.$inferSelect;
type ContactRow = typeof contactPersons.$inferSelect;

export interface OfferAggregate {
  row: OfferRow;
  recipients: RecipientRow[];
  subscription: SubscriptionAggregate | null;
  customer: CustomerRow | null;
  contactPerson: ContactRow | null;
  media: MediaRow[];
}

export async function assembleOffers(ctx: ServiceContext, rows: OfferRow[]): Promise<OfferAggregate[]> {
  if (rows.length === 0) return [];
  const t = ctx.tenant.id;
  const ids = rows.map((r) => r.id);
  const pick = (f: (r: OfferRow) => string | null) => [...new Set(rows.map(f).filter((x): x is string => x !== null))];
  const [recipientRows, customerRows, contactRows, mediaRows, subscriptionRows] = await ctx.db.batch([
    ctx.db
      .select()
      .from(offerRecipients)
      .where(and(eq(offerRecipients.tenantId, t), inJson(offerRecipients.offerId, ids)))
      .orderBy(asc(offerRecipients.createdAt), asc(offerRecipients.id)),
    ctx.db.select().from(customers).where(tenantRowsById(customers, t, pick((r) => r.customerId))),
    ctx.db.select().from(contactPersons).where(tenantRowsById(contactPersons, t, pick((r) => r.contactPersonId))),
    ctx.db.select().from(media).where(and(eq(media.tenantId, t), eq(media.ownerType, 'offer'), inJson(media.ownerId, ids))),
    ctx.db.select().from(subscriptions).where(tenantRowsById(subscriptions, t, pick((r) => r.subscriptionId))),
  ]);
  const subs = new Map((await assembleSubscriptions(ctx, subscriptionRows)).map((s) => [s.row.id, s]));
  return rows.map((row) => ({
    row,
    recipients: recipientRows.filter((r) => r.offerId === row.id),
    subscription: row.subscriptionId ? (subs.get(row.subscriptionId) ?? null) : null,
    customer: customerRows.find((c) => c.id === row.customerId) ?? null,
    contactPerson: contactRows.find((c) => c.id === row.contactPersonId) ?? null,
    media: mediaRows.filter((m) => m.ownerId === row.id),
  }));
}

export async function loadOfferRow(ctx: ServiceContext, id: string): Promise<OfferRow> {
  const row = await ctx.db.select().from(offers).where(and(eq(offers.tenantId, ctx.tenant.id), eq(offers.id, id))).get();
  if (!row) throw ApiError.notFound('Offer');
  return row;
}

export async function loadOffer(ctx: ServiceContext, id: string): Promise<OfferAggregate> {
  return (await assembleOffers(ctx, [await loadOfferRow(ctx, id)]))[0]!;
}

function renderMedia(m: MediaRow | undefined) {
  return m ? { id: m.id, mimeType: m.mimeType, fileExtension: m.fileExtension, fileName: m.fileName, createdAt: m.createdAt } : null;
}

export function renderContactPerson(c: ContactRow | null) {
  return c && { id: c.id, firstName: c.firstName, lastName: c.lastName, email: c.email, avatar: c.avatar, phone: null, linkedin: null, position: null, website: null };
}

/**
 * The offer as the API shows it. `links` holds each recipient's link: only GET /offers/{id}
 * passes them (docs/decisions.md, Offers: the link is a credential); everywhere else they are null.
 */
export function renderOffer(agg: OfferAggregate, now: Date, links: Map<string, string> | null = null): OfferResource {
  const r = agg.row;
  const signed = renderMedia(agg.media.find((m) => m.id === r.signedDocumentId));
  const recipients: OfferRecipientResource[] = agg.recipients.map((x) => ({
    id: x.id,
    email: x.email,
    firstName: x.firstName,
    lastName: x.lastName,
    role: x.role,
    createdAt: x.createdAt,
    signingStatus: x.signingStatus,
    signingLog: x.signingLog,
    signatureDone: x.signingStatus === 'signed',
    signingName: x.signingName,
    signedAt: x.signedAt,
    invitedAt: x.invitedAt,
    signedDocument: x.signingStatus === 'signed' ? signed : null,
    link: links?.get(x.id) ?? null,
  }));
  return {
    id: r.id,
    subscription: agg.subscription && renderSubscription(agg.subscription, now),
    subscriptionDraft: r.subscriptionDraft,
    customer: agg.customer && shortCustomer(agg.customer),
    prospect: r.prospect,
    number: r.number,
    name: r.name,
    status: r.status,
    description: r.description,
    sections: r.sections,
    locale: r.locale,
    recipients,
    auditLogDocument: renderMedia(agg.media.find((m) => m.id === r.auditLogDocumentId)),
    signedDocument: signed,
    signedAt: r.signedAt,
    sentAt: r.sentAt,
    archivedAt: r.archivedAt,
    autoActivateSubscription: r.autoActivateSubscription,
    activationError: r.completedAt ? null : r.completionError,
    crmDealId: r.crmDealId,
    contactPerson: renderContactPerson(agg.contactPerson),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** GET /offers/{id}: the one answer that shows the recipients' links. */
export async function offerWithLinks(ctx: ServiceContext, id: string, origin: string): Promise<OfferResource> {
  const agg = await loadOffer(ctx, id);
  return renderOffer(agg, ctx.now, await recipientLinks(ctx.env, ctx.tenant.id, agg.recipients, origin));
}

export async function recipientLinks(env: Env, tenantId: string, recipients: RecipientRow[], origin: string): Promise<Map<string, string>> {
  return new Map(await Promise.all(recipients.map(async (x) => [x.id, await offerLink(env, tenantId, x.id, origin)] as const)));
}

export async function getOffer(ctx: ServiceContext, id: string): Promise<OfferResource> {
  return renderOffer(await loadOffer(ctx, id), ctx.now);
}

export interface OfferListQuery extends Page {
  status?: string | string[];
  'status[]'?: string | string[];
  customer?: string | string[];
  'customer[]'?: string | string[];
  'order[createdAt]'?: 'asc' | 'desc';
  'order[number]'?: 'asc' | 'desc';
}

export async function listOffers(ctx: ServiceContext, q: OfferListQuery) {
  const statuses = filterValues(q.status, q['status[]']) as OfferRow['status'][] | undefined;
  const customerIds = filterValues(q.customer, q['customer[]']);
  const conditions: (SQL | undefined)[] = [
    eq(offers.tenantId, ctx.tenant.id),
    statuses ? inArray(offers.status, statuses) : undefined,
    customerIds ? inArray(offers.customerId, customerIds) : undefined,
  ];
  const where = and(...conditions);
  const order = [
    ...(q['order[number]'] ? [q['order[number]'] === 'asc' ? asc(offers.numberSeq) : desc(offers.numberSeq)] : []),
    ...(q['order[createdAt]'] === 'asc' ? [asc(offers.createdAt)] : []),
    desc(offers.createdAt),
    desc(offers.id),
  ];
  const [[total], rows] = await ctx.db.batch([
    ctx.db.select({ n: count() }).from(offers).where(where),
    ctx.db.select().from(offers).where(where).orderBy(...order).limit(q.limit).offset(pageOffset(q)),
  ]);
  const aggs = await assembleOffers(ctx, rows);
  return collection(aggs.map((a) => renderOffer(a, ctx.now)), total?.n ?? 0, q);
}
