import { and, eq, lte, or, sql } from 'drizzle-orm';
import { openTenant, settled, type ShardSweep } from '../../db/directory';
import { outgoingMails } from '../../db/schema';
import type { Env, MailJob } from '../../env';
import { systemNow } from '../../lib/clock';
import { logError, safeErrorMessage } from '../../lib/log';
import { MailRejectedError, MailUnavailableError, mailProvider, type ProviderMail } from '../ports/mail-provider';

// Sending what the mail port recorded as pending (docs/decisions.md, Mail): the mail queue's
// consumer claims a mail, calls the provider once with the mail's id as idempotency key and records
// the outcome. A 4xx refusal fails the mail for good; a 5xx, 429 or no answer puts it back with a
// delay, retried by the queue and, should a message be lost, by the cron sweeper. Time here is the
// real clock: a tenant's test clock says nothing about when a provider may be asked again.

/** The mail queue's name (wrangler.toml). */
export const MAIL_JOBS_QUEUE = 'edge-billing-mail';

/** Provider calls a mail gets before it is given up. */
export const MAX_MAIL_ATTEMPTS = 8;
/** Seconds before the next try after the n-th failed one (the last figure repeats). */
const RETRY_DELAYS = [30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600];
/** A claim older than this belongs to a worker that died mid-call: another may take the mail over. */
const STALE_CLAIM_MS = 5 * 60_000;
/** A pending mail this long past its due time lost its queue message: the sweeper queues it again. */
const REQUEUE_AFTER_MS = 10 * 60_000;

export type MailOutcome =
  | { outcome: 'sent'; messageId: string }
  | { outcome: 'failed'; reason: string }
  | { outcome: 'retry'; delaySeconds: number; reason: string }
  | { outcome: 'skipped' };

const retryDelay = (attempts: number, asked?: number) => Math.max(asked ?? 0, RETRY_DELAYS[Math.min(attempts, RETRY_DELAYS.length) - 1]!);

/** Sends one pending mail, at most once at a time; anything else (sent, failed, claimed) is skipped. */
export async function deliverMail(env: Env, job: MailJob, now: Date = systemNow()): Promise<MailOutcome> {
  const found = await openTenant(env, job.tenantId);
  if (!found) return { outcome: 'skipped' };
  const { db, tenant } = found;
  const m = outgoingMails;
  const nowIso = now.toISOString();
  const mine = and(eq(m.tenantId, tenant.id), eq(m.id, job.mailId));
  const mail = await db
    .update(m)
    .set({ status: 'sending', attempts: sql`${m.attempts} + 1`, nextAttemptAt: nowIso })
    .where(and(mine, or(eq(m.status, 'pending'), and(eq(m.status, 'sending'), lte(m.nextAttemptAt, new Date(now.getTime() - STALE_CLAIM_MS).toISOString())))))
    .returning()
    .get();
  if (!mail) return { outcome: 'skipped' };
  const claim = and(mine, eq(m.status, 'sending'), eq(m.attempts, mail.attempts));

  let outcome: MailOutcome;
  try {
    const provider = mailProvider(env);
    if (!provider || !env.MAIL_FROM) throw new MailUnavailableError('The mail provider is not configured (BREVO_API_KEY, MAIL_FROM).');
    const attachments: ProviderMail['attachments'] = [];
    for (const a of mail.attachments) {
      const object = await env.DOCUMENTS.get(a.key);
      if (!object) throw new MailRejectedError(`The attachment ${a.fileName} is not stored.`);
      attachments.push({ fileName: a.fileName, mimeType: a.mimeType, bytes: new Uint8Array(await object.arrayBuffer()) });
    }
    const sent = await provider.send({ id: mail.id, from: { email: env.MAIL_FROM, name: tenant.name }, to: mail.to, subject: mail.subject, text: mail.body, attachments });
    outcome = { outcome: 'sent', messageId: sent.messageId };
  } catch (err) {
    const reason = safeErrorMessage(err);
    if (err instanceof MailUnavailableError && mail.attempts < MAX_MAIL_ATTEMPTS) outcome = { outcome: 'retry', delaySeconds: retryDelay(mail.attempts, err.retryAfterSeconds), reason };
    else if (err instanceof MailUnavailableError || err instanceof MailRejectedError || mail.attempts >= MAX_MAIL_ATTEMPTS) outcome = { outcome: 'failed', reason };
    else {
      // Our own fault (storage, a bug): give the claim back and let the queue try again.
      await db.update(m).set({ status: 'pending', lastError: reason }).where(claim);
      throw err;
    }
    logError({ job: 'mail', tenantId: tenant.id, mailId: mail.id, attempt: mail.attempts, outcome: outcome.outcome }, err);
  }

  // The body may hold a one-time code: once the provider has the mail (or never will), it is dropped.
  if (outcome.outcome === 'sent') {
    await db.update(m).set({ status: 'sent', sentAt: nowIso, providerMessageId: outcome.messageId || null, lastError: null, nextAttemptAt: null, body: '' }).where(claim);
  } else if (outcome.outcome === 'failed') {
    await db.update(m).set({ status: 'failed', lastError: outcome.reason, nextAttemptAt: null, body: '' }).where(claim);
  } else {
    await db.update(m).set({ status: 'pending', lastError: outcome.reason, nextAttemptAt: new Date(now.getTime() + outcome.delaySeconds * 1000).toISOString() }).where(claim);
  }
  return outcome;
}

/** The mail queue's consumer: a mail to retry goes back on the queue with its delay. */
export async function consumeMailJobs(batch: MessageBatch<MailJob>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const job = message.body;
    if (typeof job?.tenantId !== 'string' || typeof job.mailId !== 'string') {
      message.ack();
      continue;
    }
    try {
      const result = await deliverMail(env, job);
      if (result.outcome === 'retry') message.retry({ delaySeconds: result.delaySeconds });
      else message.ack();
    } catch (err) {
      logError({ job: 'mail', tenantId: job.tenantId, mailId: job.mailId }, err);
      message.retry({ delaySeconds: 60 });
    }
  }
}

/** The cron's sweep: pending mails whose queue message was lost (or ran out of retries), and stale claims, queued again. */
export async function sweepPendingMail(env: Env, sweep: ShardSweep, limit = 500, now: Date = systemNow()): Promise<number> {
  const m = outgoingMails;
  const due = await sweep.db
    .select({ tenantId: m.tenantId, mailId: m.id })
    .from(m)
    .where(
      and(
        settled(sweep, m.tenantId),
        or(
          and(eq(m.status, 'pending'), lte(m.nextAttemptAt, new Date(now.getTime() - REQUEUE_AFTER_MS).toISOString())),
          and(eq(m.status, 'sending'), lte(m.nextAttemptAt, new Date(now.getTime() - STALE_CLAIM_MS).toISOString())),
        ),
      ),
    )
    .limit(limit);
  const jobs = due.filter((d) => sweep.tenants.has(d.tenantId));
  for (let i = 0; i < jobs.length; i += 100) await env.MAIL_JOBS.sendBatch(jobs.slice(i, i + 100).map((body) => ({ body })));
  return jobs.length;
}
