import { and, eq, inArray } from 'drizzle-orm';
import { isUniqueViolation } from '../../db/client';
import { offerRecipients } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { newId } from '../../lib/ids';
import type { OfferRecipientResource, OfferResource } from '../../schemas/offers';
import type { ServiceContext } from '../context';
import { sellerName } from './content';
import { appendLog, commitOfferChange, requireOfferAction, signingStart, tenantEntry } from './lifecycle';
import { offerLink } from './links';
import { invitationMail } from './mail';
import { loadOffer, renderOffer, type OfferAggregate, type RecipientRow } from './read';

// The people an offer goes to (spec §2.6, Offer recipient): readers and signers, each with a
// personal link; sending mails them the link (the mail port) and starts the signing.

export interface RecipientInput {
  email: string;
  firstName: string | null;
  lastName: string | null;
  role: 'read' | 'sign';
  /** Mail the invitation now (Fynn's `sendEmail`): the offer is then sent, and its signing starts. */
  sendEmail: boolean;
}

const conflictEmail = () => ApiError.violation('email', 'The offer has a recipient with this e-mail address already.', 'not_unique');

export async function addRecipient(ctx: ServiceContext, offerId: string, input: RecipientInput, origin: string): Promise<OfferResource> {
  const before = await loadOffer(ctx, offerId);
  requireOfferAction(before.row, 'add-recipient');
  const emailKey = input.email.trim().toLowerCase();
  if (before.recipients.some((r) => r.emailKey === emailKey)) throw conflictEmail();
  const now = ctx.now.toISOString();
  const row: RecipientRow = {
    id: newId(),
    tenantId: ctx.tenant.id,
    offerId,
    email: input.email.trim(),
    emailKey,
    firstName: input.firstName,
    lastName: input.lastName,
    role: input.role,
    signingStatus: 'not_started',
    signingLog: [],
    signingName: null,
    signedAt: null,
    invitedAt: input.sendEmail ? now : null,
    otpHash: null,
    otpExpiresAt: null,
    otpAttempts: 0,
    otpWindowStartedAt: null,
    otpCodesInWindow: 0,
    createdAt: now,
    updatedAt: now,
  };
  if (input.sendEmail) row.signingLog = [tenantEntry(ctx, 'invited')];
  const changes = input.sendEmail ? { ...(await signingStart(ctx, before)), sentAt: now } : {};
  try {
    await commitOfferChange(ctx, before, changes, ['offer.updated'], {
      recipients: [...before.recipients, row],
      statements: [ctx.db.insert(offerRecipients).values(row)],
    });
  } catch (err) {
    if (isUniqueViolation(err, 'offer_recipients.email_key')) throw conflictEmail();
    throw err;
  }
  const after = await loadOffer(ctx, offerId);
  if (input.sendEmail) await mailInvitations(ctx, after, [row], origin);
  return renderOffer(after, ctx.now);
}

/** Removes a recipient (its link stops working). A signer who signed stays; so do signers once anyone signed. */
export async function removeRecipient(ctx: ServiceContext, offerId: string, recipientId: string): Promise<OfferResource> {
  const before = await loadOffer(ctx, offerId);
  requireOfferAction(before.row, 'remove-recipient');
  const target = before.recipients.find((r) => r.id === recipientId);
  if (!target) throw ApiError.notFound('Offer recipient');
  if (target.signingStatus === 'signed') throw ApiError.conflict('The recipient has signed; cancel the signing first to remove them.', 'invalid-transition');
  if (target.role === 'sign' && before.recipients.some((r) => r.signingStatus === 'signed')) {
    throw ApiError.conflict('Others have signed already: removing a signer now would change who the offer needs; cancel the signing first.', 'invalid-transition');
  }
  return commitOfferChange(ctx, before, {}, ['offer.updated'], {
    recipients: before.recipients.filter((r) => r.id !== recipientId),
    statements: [ctx.db.delete(offerRecipients).where(and(eq(offerRecipients.tenantId, ctx.tenant.id), eq(offerRecipients.id, recipientId)))],
  });
}

/** Fynn's PUT /offer-recipients/{id}/role: a reader becomes a signer or the other way round, until they signed. */
export async function changeRecipientRole(ctx: ServiceContext, recipientId: string, role: 'read' | 'sign'): Promise<OfferRecipientResource> {
  const recipient = await ctx.db.select().from(offerRecipients).where(and(eq(offerRecipients.tenantId, ctx.tenant.id), eq(offerRecipients.id, recipientId))).get();
  if (!recipient) throw ApiError.notFound('Offer recipient');
  const before = await loadOffer(ctx, recipient.offerId);
  requireOfferAction(before.row, 'change-role');
  if (recipient.signingStatus === 'signed') throw ApiError.conflict('The recipient has signed; the role stays.', 'invalid-transition');
  if (role === 'read' && before.recipients.some((r) => r.signingStatus === 'signed')) {
    throw ApiError.conflict('Others have signed already: a signer cannot become a reader now; cancel the signing first.', 'invalid-transition');
  }
  const recipients = before.recipients.map((r) => (r.id === recipientId ? { ...r, role, updatedAt: ctx.now.toISOString() } : r));
  const offer = await commitOfferChange(ctx, before, {}, ['offer.updated'], {
    recipients,
    statements: [
      ctx.db.update(offerRecipients).set({ role, updatedAt: ctx.now.toISOString() }).where(and(eq(offerRecipients.tenantId, ctx.tenant.id), eq(offerRecipients.id, recipientId))),
    ],
  });
  return offer.recipients.find((r) => r.id === recipientId)!;
}

/**
 * Sends the offer: every recipient who has not signed gets their link by mail, and signing starts
 * (the content is frozen). Needs a signer: an offer nobody may sign cannot be signed.
 */
export async function sendOffer(ctx: ServiceContext, offerId: string, origin: string): Promise<OfferResource> {
  const before = await loadOffer(ctx, offerId);
  requireOfferAction(before.row, 'send');
  if (!before.recipients.some((r) => r.role === 'sign')) throw ApiError.violation('recipients', 'The offer needs a recipient with role sign before it is sent.', 'no_signer');
  const due = before.recipients.filter((r) => r.signingStatus !== 'signed');
  const entry = tenantEntry(ctx, 'invited');
  const now = ctx.now.toISOString();
  const recipients = before.recipients.map((r) => (due.includes(r) ? { ...r, invitedAt: now, signingLog: [...r.signingLog, entry] } : r));
  await commitOfferChange(ctx, before, { ...(await signingStart(ctx, before)), sentAt: now }, ['offer.updated'], {
    recipients,
    statements: [
      ctx.db
        .update(offerRecipients)
        .set({ invitedAt: now, signingLog: appendLog(entry), updatedAt: now })
        .where(and(eq(offerRecipients.tenantId, ctx.tenant.id), inArray(offerRecipients.id, due.length ? due.map((r) => r.id) : ['']))),
    ],
  });
  const after = await loadOffer(ctx, offerId);
  await mailInvitations(ctx, after, due, origin);
  return renderOffer(after, ctx.now);
}

/** The invitations, after the change that records them committed. */
async function mailInvitations(ctx: ServiceContext, agg: OfferAggregate, recipients: RecipientRow[], origin: string) {
  const seller = await sellerName(ctx);
  for (const r of recipients) {
    const mail = invitationMail(agg.row, r, seller, await offerLink(ctx.env, ctx.tenant.id, r.id, origin));
    await ctx.mailer.send({ tenantId: ctx.tenant.id, to: r.email, subject: mail.subject, body: mail.body, attachments: [] });
  }
}
