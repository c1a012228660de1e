import { and, eq, gt, isNotNull, lt, sql } from 'drizzle-orm';
import { isGuardFailure, requireCondition, requirePreviousChange } from '../../db/client';
import { offerRecipients } from '../../db/schema';
import type { SigningLogEntry } from '../../db/schema/offers';
import type { Env } from '../../env';
import { insertEvent } from '../../events/outbox';
import { ApiError } from '../../http/errors';
import type { Visitor } from '../../http/visitor';
import { systemNow } from '../../lib/clock';
import { hmacSha256Hex, timingSafeEqual } from '../../lib/crypto';
import type { PublicOffer } from '../../schemas/offers';
import { openTenantContext, type ServiceContext } from '../context';
import { signedUrl } from '../documents/links';
import { OTP, randomCode } from '../platform/customer-otp';
import { jwtKey } from '../platform/customer-sessions';
import { offerContent, sellerName, type OfferContent } from './content';
import { appendLog, commitOfferChange, requireOfferAction, signingStart } from './lifecycle';
import { maskEmail, readOfferToken } from './links';
import { signingCodeMail } from './mail';
import { loadOffer, renderOffer, type OfferAggregate, type RecipientRow } from './read';
import { afterSignature } from './signing';

// The recipient's side of an offer (docs/decisions.md, Offers): the link opens it, every step is
// logged with time, IP address and user agent, and a signer signs with a one-time code sent to
// their e-mail and their typed full name. The page (src/pages/offers/) and the public JSON routes
// call these functions.

export type { Visitor };

/** Entries kept in a recipient's log; views beyond it are not recorded (signing steps always are). */
const MAX_LOG_ENTRIES = 500;

interface Opened {
  ctx: ServiceContext;
  agg: OfferAggregate;
  recipient: RecipientRow;
}

const unknownOffer = () => ApiError.notFound('Offer');

/** The offer and recipient behind a link; 404 alike for a forged link, an unknown tenant and a removed recipient. */
async function open(env: Env, token: string): Promise<Opened> {
  const ids = await readOfferToken(env, token);
  if (!ids) throw unknownOffer();
  const ctx = await openTenantContext(env, ids.tenantId);
  if (!ctx) throw unknownOffer();
  const recipient = await ctx.db
    .select()
    .from(offerRecipients)
    .where(and(eq(offerRecipients.tenantId, ctx.tenant.id), eq(offerRecipients.id, ids.recipientId)))
    .get();
  if (!recipient) throw unknownOffer();
  const agg = await loadOffer(ctx, recipient.offerId);
  return { ctx, agg, recipient: agg.recipients.find((r) => r.id === recipient.id) ?? recipient };
}

const entry = (ctx: ServiceContext, action: string, visitor: Visitor): SigningLogEntry => ({
  at: ctx.now.toISOString(),
  action,
  ip: visitor.ip,
  userAgent: visitor.userAgent ? visitor.userAgent.slice(0, 512) : null,
});

/** What the link holder sees: an archived offer's content is withdrawn. */
async function publicView(o: Opened, origin: string): Promise<PublicOffer> {
  const { agg, recipient, ctx } = o;
  const r = agg.row;
  const archived = r.status === 'archived';
  const content: OfferContent = archived
    ? { number: r.number, name: r.name, contactPerson: null, description: null, sections: [], offerLineItems: [], totals: null, terms: null, locale: r.locale, seller: await sellerName(ctx), pricedAt: r.archivedAt ?? r.updatedAt }
    : await offerContent(ctx, agg);
  const signedDocument = agg.media.find((m) => m.id === r.signedDocumentId);
  return {
    ...content,
    signed: r.status === 'signed',
    canSign: recipient.role === 'sign' && recipient.signingStatus !== 'signed' && (r.status === 'open' || r.status === 'signing'),
    status: r.status,
    signedAt: r.signedAt,
    signedDocumentUrl: signedDocument ? await signedUrl(ctx, origin, signedDocument, Math.floor(systemNow().getTime() / 1000) + 3600) : null,
    recipient: { firstName: recipient.firstName, lastName: recipient.lastName, email: recipient.email, role: recipient.role, signingStatus: recipient.signingStatus, signedAt: recipient.signedAt },
  };
}

/**
 * GET /public/offers/{token} and the offer page: the offer for this recipient. The view is logged
 * (not again for the same address and browser right after their last view) and a first view
 * moves the recipient from not_started to started.
 */
export async function viewOffer(env: Env, token: string, visitor: Visitor, origin: string, options: { log?: boolean } = {}): Promise<PublicOffer> {
  const o = await open(env, token);
  // A page shown again after a refused post is the same view, not a new one.
  if (options.log === false) return publicView(o, origin);
  const t = offerRecipients;
  const seen = entry(o.ctx, 'viewed', visitor);
  const updated = await o.ctx.db
    .update(t)
    .set({ signingLog: appendLog(seen), signingStatus: sql`CASE WHEN ${t.signingStatus} = 'not_started' THEN 'started' ELSE ${t.signingStatus} END` })
    .where(
      and(
        eq(t.tenantId, o.ctx.tenant.id),
        eq(t.id, o.recipient.id),
        sql`json_array_length(${t.signingLog}) < ${MAX_LOG_ENTRIES}`,
        sql`NOT (coalesce(json_extract(${t.signingLog}, '$[#-1].action'), '') = 'viewed'
          AND coalesce(json_extract(${t.signingLog}, '$[#-1].ip'), '') = ${visitor.ip ?? ''}
          AND coalesce(json_extract(${t.signingLog}, '$[#-1].userAgent'), '') = ${seen.userAgent ?? ''})`,
      ),
    )
    .returning({ signingStatus: t.signingStatus })
    .get();
  const recipient = updated ? { ...o.recipient, signingStatus: updated.signingStatus } : o.recipient;
  return publicView({ ...o, recipient }, origin);
}

/** A signer who may sign now: role sign, not signed yet, the offer open or signing. */
function requireSigner(o: Opened) {
  if (o.recipient.role !== 'sign') throw ApiError.forbidden('This recipient may read the offer but not sign it.');
  requireOfferAction(o.agg.row, 'sign');
  if (o.recipient.signingStatus === 'signed') throw ApiError.conflict('You have signed this offer already.', 'already-signed');
}

/** HMAC of a signing code under the server secret, bound to tenant and recipient (six digits are no secret to a plain hash). */
function codeHash(ctx: ServiceContext, recipientId: string, code: string): Promise<string> {
  return hmacSha256Hex(jwtKey(ctx.env), `offer-signing-code:${ctx.tenant.id}:${recipientId}:${code}`);
}

/**
 * Sends a signer a one-time code (OTP's limits: 6 digits, 10 minutes, 5 tries, 5 codes an hour) to
 * the e-mail address the tenant gave. The first request of an open offer starts its signing: from
 * then on its content is frozen.
 */
export async function requestSigningCode(env: Env, token: string, visitor: Visitor) {
  let o = await open(env, token);
  requireSigner(o);
  if (o.agg.row.status === 'open') {
    try {
      await commitOfferChange(o.ctx, o.agg, await signingStart(o.ctx, o.agg), ['offer.updated']);
    } catch (err) {
      // Another signer (or the tenant's send) started it first: fine, as long as it is signing now.
      if (!(err instanceof ApiError && err.type === 'concurrent-update')) throw err;
    }
    o = await open(env, token);
    requireSigner(o);
  }
  const { ctx } = o;
  const t = offerRecipients;
  const code = randomCode();
  const now = systemNow();
  const windowStart = new Date(now.getTime() - OTP.windowMs).toISOString();
  const newWindow = sql`(${t.otpWindowStartedAt} IS NULL OR ${t.otpWindowStartedAt} <= ${windowStart})`;
  const expiresAt = new Date(now.getTime() + OTP.ttlMs).toISOString();
  const sent = await ctx.db
    .update(t)
    .set({
      otpHash: await codeHash(ctx, o.recipient.id, code),
      otpExpiresAt: expiresAt,
      otpAttempts: 0,
      otpCodesInWindow: sql`CASE WHEN ${newWindow} THEN 1 ELSE ${t.otpCodesInWindow} + 1 END`,
      otpWindowStartedAt: sql`CASE WHEN ${newWindow} THEN ${now.toISOString()} ELSE ${t.otpWindowStartedAt} END`,
      signingStatus: 'pending',
      signingLog: appendLog(entry(ctx, 'code_sent', visitor)),
      updatedAt: ctx.now.toISOString(),
    })
    .where(
      and(
        eq(t.tenantId, ctx.tenant.id),
        eq(t.id, o.recipient.id),
        eq(t.role, 'sign'),
        sql`${t.signingStatus} NOT IN ('signed', 'archived')`,
        sql`(${newWindow} OR ${t.otpCodesInWindow} < ${OTP.maxCodesPerWindow})`,
        sql`EXISTS (SELECT 1 FROM offers WHERE tenant_id = ${ctx.tenant.id} AND id = ${o.agg.row.id} AND status = 'signing')`,
      ),
    )
    .returning({ id: t.id })
    .get();
  if (!sent) {
    const again = await open(env, token);
    requireSigner(again);
    throw new ApiError(429, 'too-many-codes', `At most ${OTP.maxCodesPerWindow} codes an hour; use the last one or try again later.`, undefined, { 'Retry-After': '600' });
  }
  const mail = signingCodeMail(o.agg.row, o.recipient, code, OTP.ttlMs / 60_000);
  await ctx.mailer.send({ tenantId: ctx.tenant.id, to: o.recipient.email, subject: mail.subject, body: mail.body, attachments: [] });
  return { sent: true as const, expiresAt, email: maskEmail(o.recipient.email) };
}

const wrongCode = () => ApiError.violation('code', 'The code is wrong or has expired; ask for a new one.', 'invalid_code');

/**
 * Signs for the recipient: the code (each try counted before it is compared; spent once) and the
 * typed full name. The signature, its log entry and `offer.updated` are one batch; when it was the
 * last signature the offer is finished and completed (src/services/offers/signing.ts).
 */
export async function signOffer(env: Env, token: string, input: { code: string; fullName: string }, visitor: Visitor, origin: string): Promise<PublicOffer> {
  const o = await open(env, token);
  requireSigner(o);
  const { ctx, agg, recipient } = o;
  const t = offerRecipients;
  const mine = and(eq(t.tenantId, ctx.tenant.id), eq(t.id, recipient.id));
  const attempt = await ctx.db
    .update(t)
    .set({ otpAttempts: sql`${t.otpAttempts} + 1` })
    .where(and(mine, isNotNull(t.otpHash), gt(t.otpExpiresAt, systemNow().toISOString()), lt(t.otpAttempts, OTP.maxAttempts)))
    .returning({ otpHash: t.otpHash })
    .get();
  if (!attempt?.otpHash || !timingSafeEqual(attempt.otpHash, await codeHash(ctx, recipient.id, input.code.trim()))) {
    await ctx.db
      .update(t)
      .set({ signingLog: appendLog(entry(ctx, 'code_rejected', visitor)) })
      .where(and(mine, sql`json_array_length(${t.signingLog}) < ${MAX_LOG_ENTRIES}`));
    throw wrongCode();
  }
  const nowIso = ctx.now.toISOString();
  const fullName = input.fullName.trim().replace(/\s+/g, ' ');
  const signedEntry = entry(ctx, 'signed', visitor);
  const signedRecipient: RecipientRow = {
    ...recipient,
    signingStatus: 'signed',
    signedAt: nowIso,
    signingName: fullName,
    otpHash: null,
    otpExpiresAt: null,
    signingLog: [...recipient.signingLog, signedEntry],
    updatedAt: nowIso,
  };
  const after = { ...agg, recipients: agg.recipients.map((r) => (r.id === recipient.id ? signedRecipient : r)) };
  try {
    // The code is spent by the statement guarded on it: of two tries with one code, one signs.
    await ctx.db.batch([
      ctx.db
        .update(t)
        .set({ signingStatus: 'signed', signedAt: nowIso, signingName: fullName, otpHash: null, otpExpiresAt: null, signingLog: appendLog(signedEntry), updatedAt: nowIso })
        .where(and(mine, eq(t.otpHash, attempt.otpHash), eq(t.signingStatus, 'pending'))),
      requirePreviousChange(ctx.db),
      requireCondition(ctx.db, sql`EXISTS (SELECT 1 FROM offers WHERE tenant_id = ${ctx.tenant.id} AND id = ${agg.row.id} AND status = 'signing')`),
      insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'offer.updated', resourceId: agg.row.id, data: renderOffer(after, ctx.now), now: ctx.now }),
    ]);
  } catch (err) {
    if (!isGuardFailure(err)) throw err;
    // The signing was cancelled or the offer archived meanwhile, or the code was spent by another try.
    requireSigner(await open(env, token));
    throw wrongCode();
  }
  await afterSignature(ctx, agg.row.id);
  return publicView(await open(env, token), origin);
}
