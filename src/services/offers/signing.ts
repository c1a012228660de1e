import { and, eq, isNull, sql } from 'drizzle-orm';
import { requireCondition } from '../../db/client';
import { settled, sweepTenants, type ShardSweep } from '../../db/directory';
import { customers, media, offers } from '../../db/schema';
import type { Env } from '../../env';
import { ApiError, Violations } from '../../http/errors';
import { logError, safeErrorMessage } from '../../lib/log';
import { createServiceContext, type ServiceContext } from '../context';
import { createCustomer, customerInput } from '../customers/create';
import { customerExists } from '../customers/guards';
import { activateSubscription } from '../subscriptions/lifecycle';
import { checkNewSubscription, newSubscription } from '../subscriptions/create';
import { offerContent } from './content';
import { storeOfferDocuments } from './documents';
import { commitOfferChange } from './lifecycle';
import { loadOffer, type OfferAggregate } from './read';

// The end of signing (docs/decisions.md, Offers). When the last signer has signed: the signed
// document and the audit log are stored and the offer becomes `signed` (offer.signed). Then,
// step by step and each step recorded so a failure continues rather than repeats: the customer
// (made from the signer when the offer was for a prospect), the subscription (a prospect's is made
// now), and its activation when autoActivateSubscription. The signing request does all of it; the
// sweeper finishes what a failure or a crash left.

/** Attempts of the steps after signing before the sweeper leaves an offer to a person. */
export const MAX_COMPLETION_ATTEMPTS = 5;

const isConcurrent = (err: unknown) => err instanceof ApiError && err.status === 409 && err.type === 'concurrent-update';

function allSigned(agg: OfferAggregate): boolean {
  const signers = agg.recipients.filter((r) => r.role === 'sign');
  return signers.length > 0 && signers.every((r) => r.signingStatus === 'signed');
}

/** An offer in signing whose signers have all signed becomes signed, with its two files. True once it is signed. */
export async function finishSigning(ctx: ServiceContext, offerId: string): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const agg = await loadOffer(ctx, offerId);
    if (agg.row.status !== 'signing') return agg.row.status === 'signed';
    if (!allSigned(agg)) return false;
    const signedAt = agg.recipients
      .filter((r) => r.role === 'sign')
      .map((r) => r.signedAt!)
      .sort()
      .at(-1)!;
    const { signed, audit } = await storeOfferDocuments(ctx, agg, await offerContent(ctx, agg), signedAt);
    try {
      await commitOfferChange(ctx, { ...agg, media: [signed, audit] }, { status: 'signed', signedAt, signedDocumentId: signed.id, auditLogDocumentId: audit.id }, ['offer.signed'], {
        statements: [
          ctx.db.insert(media).values(signed),
          ctx.db.insert(media).values(audit),
          // A signer removed or a signing cancelled meanwhile changed updatedAt; this is the rest.
          requireCondition(
            ctx.db,
            sql`NOT EXISTS (SELECT 1 FROM offer_recipients WHERE tenant_id = ${ctx.tenant.id} AND offer_id = ${offerId} AND role = 'sign' AND signing_status <> 'signed')`,
          ),
        ],
      });
      return true;
    } catch (err) {
      // Another request finished it, or the offer changed: look again.
      if (!isConcurrent(err)) throw err;
    }
  }
  return (await loadOffer(ctx, offerId)).row.status === 'signed';
}

/** The customer of a prospect's offer: the first signer's, found by e-mail, else made from their details and the prospect. */
async function customerFromSigner(ctx: ServiceContext, agg: OfferAggregate): Promise<string> {
  const signer = agg.recipients
    .filter((r) => r.role === 'sign' && r.signedAt)
    .sort((a, b) => (a.signedAt! < b.signedAt! ? -1 : 1))[0];
  if (!signer) throw new Error(`offer ${agg.row.id} is signed without a signer`);
  const existing = () => ctx.db.select({ id: customers.id }).from(customers).where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.emailKey, signer.emailKey))).get();
  const found = await existing();
  if (found) return found.id;
  // Names as short as one letter are no customer names (2 to 255 characters); they are left out.
  const name = (v: string | null) => (v && v.trim().length >= 2 ? v.trim() : null);
  try {
    const made = await createCustomer(
      ctx,
      customerInput({
        email: signer.email,
        countryCode: agg.row.prospect?.countryCode ?? null,
        contactPerson: agg.row.contactPersonId,
        firstName: name(signer.firstName),
        lastName: name(signer.lastName),
        language: agg.row.locale,
        companyName: agg.row.prospect?.companyName ?? null,
      }),
    );
    return made.id;
  } catch (err) {
    // Made by a concurrent completion between the look and the insert.
    const now = await existing();
    if (now) return now.id;
    throw err;
  }
}

/** The subscription a prospect's offer sells, made for its new customer and recorded on the offer in one batch. */
async function subscriptionFromDraft(ctx: ServiceContext, agg: OfferAggregate, customerId: string) {
  const draft = agg.row.subscriptionDraft!;
  const input = { ...draft, customer: customerId, paymentMethod: null, invoiceAddress: null };
  const v = new Violations();
  const checked = await checkNewSubscription(ctx, input, v);
  v.throwIfAny();
  const made = await newSubscription(ctx, input, checked, 'offer');
  await commitOfferChange(ctx, agg, { subscriptionId: made.row.id }, ['offer.updated'], {
    statements: [...made.statements, requireCondition(ctx.db, customerExists(ctx.tenant.id, customerId))],
  });
}

/**
 * After signing: customer, subscription, activation. Each step is recorded before the next, so a
 * run that failed (a product archived since, a concurrent run) is continued by the next one. A
 * failure is counted on the offer with its reason (`activationError`), for the sweeper and the tenant.
 */
export async function completeSignedOffer(ctx: ServiceContext, offerId: string): Promise<void> {
  try {
    let agg = await loadOffer(ctx, offerId);
    if (agg.row.status !== 'signed' || agg.row.completedAt) return;
    if (!agg.row.customerId) {
      const customerId = await customerFromSigner(ctx, agg);
      await commitOfferChange(ctx, agg, { customerId }, ['offer.updated'], { statements: [requireCondition(ctx.db, customerExists(ctx.tenant.id, customerId))] });
      agg = await loadOffer(ctx, offerId);
    }
    if (!agg.row.subscriptionId && agg.row.subscriptionDraft) {
      await subscriptionFromDraft(ctx, agg, agg.row.customerId!);
      agg = await loadOffer(ctx, offerId);
    }
    if (agg.row.autoActivateSubscription && agg.subscription?.row.status === 'offer') await activateSubscription(ctx, agg.subscription.row.id, null);
    await ctx.db
      .update(offers)
      .set({ completedAt: ctx.now.toISOString(), completionError: null })
      .where(and(eq(offers.tenantId, ctx.tenant.id), eq(offers.id, offerId), isNull(offers.completedAt)));
  } catch (err) {
    // A concurrent run is doing the same steps; it records its own outcome.
    if (isConcurrent(err)) return;
    logError({ job: 'offer-completion', tenantId: ctx.tenant.id, offerId }, err);
    const reason = err instanceof ApiError ? `${err.message}${err.violations?.length ? ` (${err.violations.map((v) => `${v.propertyPath}: ${v.message}`).join('; ')})` : ''}` : safeErrorMessage(err);
    await ctx.db
      .update(offers)
      .set({ completionAttempts: sql`${offers.completionAttempts} + 1`, completionError: reason.slice(0, 500) })
      .where(and(eq(offers.tenantId, ctx.tenant.id), eq(offers.id, offerId)));
  }
}

/** Everything after a signature: finish the offer when it was the last one, then complete it. */
export async function afterSignature(ctx: ServiceContext, offerId: string): Promise<void> {
  if (await finishSigning(ctx, offerId)) await completeSignedOffer(ctx, offerId);
}

/**
 * The 15-minute sweeper of a shard: offers whose last signature was not followed by their files (a
 * failed render, a crash), and signed offers whose completion failed, fewer than
 * MAX_COMPLETION_ATTEMPTS times.
 */
export async function sweepOffers(env: Env, sweep: ShardSweep): Promise<{ finished: number; completed: number }> {
  const due = await sweep.db
    .select({ id: offers.id, tenantId: offers.tenantId, status: offers.status })
    .from(offers)
    .where(
      and(
        settled(sweep, offers.tenantId),
        sql`(${offers.status} = 'signed' AND ${offers.completedAt} IS NULL AND ${offers.completionAttempts} < ${MAX_COMPLETION_ATTEMPTS})
          OR (${offers.status} = 'signing' AND NOT EXISTS (SELECT 1 FROM offer_recipients r WHERE r.tenant_id = ${offers.tenantId} AND r.offer_id = ${offers.id} AND r.role = 'sign' AND r.signing_status <> 'signed')
            AND EXISTS (SELECT 1 FROM offer_recipients r WHERE r.tenant_id = ${offers.tenantId} AND r.offer_id = ${offers.id} AND r.role = 'sign'))`,
      ),
    )
    .limit(100);
  const tenants = new Map((await sweepTenants(sweep)).map((t) => [t.id, t]));
  let finished = 0;
  let completed = 0;
  for (const o of due) {
    const tenant = tenants.get(o.tenantId);
    if (!tenant) continue;
    const ctx = createServiceContext({ env, db: sweep.db, tenant });
    try {
      if (o.status === 'signing' && (await finishSigning(ctx, o.id))) finished++;
      await completeSignedOffer(ctx, o.id);
      completed++;
    } catch (err) {
      logError({ job: 'offer-sweeper', tenantId: o.tenantId, offerId: o.id }, err);
    }
  }
  return { finished, completed };
}
