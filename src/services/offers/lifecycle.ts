import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { isGuardFailure, requireCondition, requirePreviousChange } from '../../db/client';
import { commitGuarded, type ChangeEvent } from '../../db/commit';
import { contactPersons, offerRecipients, offers, subscriptions } from '../../db/schema';
import type { SigningLogEntry } from '../../db/schema/offers';
import type { EventType } from '../../events/catalogue';
import { insertEvent } from '../../events/outbox';
import { ApiError, Violations } from '../../http/errors';
import type { OfferResource } from '../../schemas/offers';
import type { ServiceContext } from '../context';
import { subscriptionDeletion } from '../subscriptions/details';
import { liveContent } from './content';
import { loadOffer, renderOffer, type OfferAggregate, type OfferRow, type RecipientRow } from './read';
import { OFFER_TEXT_LIMITS, sanitizeSections } from './sections';

// The offer's state machine (docs/state-machines.md, Offer) and the tenant's changes of an offer.

export type OfferStatus = OfferRow['status'];
export type OfferAction = 'update' | 'archive' | 'delete' | 'send' | 'cancel-signing' | 'add-recipient' | 'remove-recipient' | 'change-role' | 'sign';

/** Which actions each status allows (docs/state-machines.md is written from it); any other pair is 409. */
export const OFFER_TRANSITIONS: Record<OfferStatus, Partial<Record<OfferAction, OfferStatus>>> = {
  open: { update: 'open', archive: 'archived', delete: 'open', send: 'signing', 'add-recipient': 'open', 'remove-recipient': 'open', 'change-role': 'open', sign: 'signing' },
  signing: {
    update: 'signing',
    archive: 'archived',
    send: 'signing',
    'cancel-signing': 'open',
    'add-recipient': 'signing',
    'remove-recipient': 'signing',
    'change-role': 'signing',
    sign: 'signing',
  },
  signed: {},
  archived: {},
};

export function requireOfferAction(row: Pick<OfferRow, 'status'>, action: OfferAction): OfferStatus {
  const next = OFFER_TRANSITIONS[row.status][action];
  if (!next) throw ApiError.conflict(`Cannot ${action} an offer in status ${row.status}.`, 'invalid-transition');
  return next;
}

/** A log entry appended to a recipient's signing log in one statement (no read-modify-write, so none is lost). */
export function appendLog(entry: SigningLogEntry) {
  return sql`json_insert(${offerRecipients.signingLog}, '$[#]', json(${JSON.stringify(entry)}))`;
}

export const tenantEntry = (ctx: ServiceContext, action: string): SigningLogEntry => ({ at: ctx.now.toISOString(), action, ip: null, userAgent: null });

/**
 * Writes a change of an offer through the guarded path with its statements and events in one
 * batch; `recipients` is how they stand after it (for the events and the answer). Events carry
 * the offer without links.
 */
export async function commitOfferChange(
  ctx: ServiceContext,
  before: OfferAggregate,
  changes: Partial<OfferRow>,
  events: EventType[],
  options: { recipients?: RecipientRow[]; statements?: BatchItem<'sqlite'>[]; extraEvents?: ChangeEvent[] } = {},
): Promise<OfferResource> {
  const { resource } = await commitGuarded(ctx, {
    table: offers,
    current: before.row,
    changes,
    render: (row) => renderOffer({ ...before, row, recipients: options.recipients ?? before.recipients }, ctx.now),
    statements: options.statements,
    events: [...events, ...(options.extraEvents ?? [])],
    conflict: 'The offer was changed concurrently; reload and retry.',
  });
  return resource;
}

export interface OfferUpdateInput {
  name?: string | null;
  description?: string | null;
  sections?: string[];
  contactPerson?: string | null;
  autoActivateSubscription?: boolean;
  locale?: 'de' | 'en';
  crmDealId?: string | null;
}

/**
 * PUT /offers/{id} (spec §4.2): the fields sent change, the others stay. While signing, what the
 * signers read is frozen: only autoActivateSubscription (and crmDealId) may change.
 */
export async function updateOffer(ctx: ServiceContext, id: string, input: OfferUpdateInput): Promise<OfferResource> {
  const before = await loadOffer(ctx, id);
  const r = before.row;
  requireOfferAction(r, 'update');
  const v = new Violations();
  const changes: Partial<OfferRow> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  if (input.sections !== undefined) {
    changes.sections = sanitizeSections(input.sections);
    if (changes.sections.length > OFFER_TEXT_LIMITS.sections) v.add('sections', `At most ${OFFER_TEXT_LIMITS.sections} sections.`, 'too_big');
  }
  if (input.locale !== undefined) changes.locale = input.locale;
  let contactPerson = before.contactPerson;
  if (input.contactPerson !== undefined) {
    changes.contactPersonId = input.contactPerson;
    contactPerson = input.contactPerson
      ? ((await ctx.db.select().from(contactPersons).where(and(eq(contactPersons.tenantId, ctx.tenant.id), eq(contactPersons.id, input.contactPerson))).get()) ?? null)
      : null;
    if (input.contactPerson && !contactPerson) v.add('contactPerson', 'No such contact person.', 'not_found');
  }
  if (input.autoActivateSubscription !== undefined) changes.autoActivateSubscription = input.autoActivateSubscription;
  if (input.crmDealId !== undefined) changes.crmDealId = input.crmDealId;
  v.throwIfAny();
  if (r.status === 'signing') {
    const frozen = (['name', 'description', 'sections', 'locale', 'contactPersonId'] as const).filter(
      (k) => k in changes && JSON.stringify(changes[k]) !== JSON.stringify(r[k]),
    );
    if (frozen.length) {
      throw ApiError.conflict(
        `The offer is being signed: what its signers read (${frozen.join(', ')}) cannot change; cancel the signing first (PUT /offers/{id}/cancel-signing).`,
        'offer-signing',
      );
    }
  }
  // A contact person deleted between the check and the write must not be left referenced.
  const statements = changes.contactPersonId ? [requireCondition(ctx.db, sql`EXISTS (SELECT 1 FROM contact_persons WHERE tenant_id = ${ctx.tenant.id} AND id = ${changes.contactPersonId})`)] : [];
  return commitOfferChange(ctx, { ...before, contactPerson }, changes, ['offer.updated'], { statements });
}

/** Open or signing → archived: unsigned recipients' links stop signing, each with an entry in its log. */
export async function archiveOffer(ctx: ServiceContext, id: string): Promise<OfferResource> {
  const before = await loadOffer(ctx, id);
  requireOfferAction(before.row, 'archive');
  const entry = tenantEntry(ctx, 'offer_archived');
  const recipients = before.recipients.map((x) =>
    x.signingStatus === 'signed' ? x : { ...x, signingStatus: 'archived' as const, otpHash: null, signingLog: [...x.signingLog, entry] },
  );
  return commitOfferChange(ctx, before, { status: 'archived', archivedAt: ctx.now.toISOString() }, ['offer.archived'], {
    recipients,
    statements: [
      ctx.db
        .update(offerRecipients)
        .set({ signingStatus: 'archived', otpHash: null, signingLog: appendLog(entry), updatedAt: ctx.now.toISOString() })
        .where(and(eq(offerRecipients.tenantId, ctx.tenant.id), eq(offerRecipients.offerId, id), notInArray(offerRecipients.signingStatus, ['signed']))),
    ],
  });
}

/**
 * Deletes an open offer with its recipients and its subscription (still in status offer). Its
 * number is not used again: `offer.deleted` records it (docs/decisions.md, Offers).
 */
export async function deleteOffer(ctx: ServiceContext, id: string): Promise<void> {
  const before = await loadOffer(ctx, id);
  requireOfferAction(before.row, 'delete');
  const t = ctx.tenant.id;
  const sub = before.subscription?.row.status === 'offer' ? before.subscription.row : null;
  try {
    await ctx.db.batch([
      ctx.db.delete(offers).where(and(eq(offers.tenantId, t), eq(offers.id, id), eq(offers.status, 'open'), eq(offers.updatedAt, before.row.updatedAt))),
      requirePreviousChange(ctx.db),
      ctx.db.delete(offerRecipients).where(and(eq(offerRecipients.tenantId, t), eq(offerRecipients.offerId, id))),
      ...(sub
        ? [
            ctx.db.delete(subscriptions).where(and(eq(subscriptions.tenantId, t), eq(subscriptions.id, sub.id), inArray(subscriptions.status, ['offer']))),
            ...subscriptionDeletion(ctx, sub.id, sub.number),
          ]
        : []),
      insertEvent(ctx.db, { tenantId: t, type: 'offer.deleted', resourceId: id, data: { id, number: before.row.number }, now: ctx.now }),
    ]);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.conflict('The offer was changed concurrently; reload and retry.', 'concurrent-update');
    throw err;
  }
}

/**
 * The changes that start signing: the content recipients read is frozen (texts and line items
 * priced now), so every signer signs the same thing and the signed document shows it.
 */
export async function signingStart(ctx: ServiceContext, agg: OfferAggregate): Promise<Partial<OfferRow>> {
  if (agg.row.status === 'signing') return {};
  return { status: 'signing', content: await liveContent(ctx, agg) };
}

/** Signing → open: every signature so far is void (logged), the content thaws and can be edited again. */
export async function cancelSigning(ctx: ServiceContext, id: string): Promise<OfferResource> {
  const before = await loadOffer(ctx, id);
  requireOfferAction(before.row, 'cancel-signing');
  const entry = tenantEntry(ctx, 'signing_cancelled');
  const reset = { signingStatus: 'not_started' as const, signedAt: null, signingName: null, otpHash: null, otpExpiresAt: null, otpAttempts: 0 };
  const recipients = before.recipients.map((x) => ({ ...x, ...reset, signingLog: [...x.signingLog, entry] }));
  return commitOfferChange(ctx, before, { status: 'open', content: null }, ['offer.updated'], {
    recipients,
    statements: [
      ctx.db
        .update(offerRecipients)
        .set({ ...reset, signingLog: appendLog(entry), updatedAt: ctx.now.toISOString() })
        .where(and(eq(offerRecipients.tenantId, ctx.tenant.id), eq(offerRecipients.offerId, id))),
    ],
  });
}
