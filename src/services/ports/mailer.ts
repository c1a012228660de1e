import type { Db } from '../../db/client';
import { outgoingMails } from '../../db/schema';
import type { Env, MailJob } from '../../env';
import { systemNow } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { logError } from '../../lib/log';

// The mail port (docs/decisions.md, Mail). Services hand a mail over and never wait for a provider:
// the mail is written to `outgoing_mails` (its id is the mail's identity and the provider's
// idempotency key); with a provider configured, a message on the mail queue makes its consumer send
// it (src/services/mail/delivery.ts), retried there and by the cron sweeper.

export interface OutgoingMail {
  tenantId: string;
  to: string;
  subject: string;
  /** Plain text. */
  body: string;
  /** Stored files to attach (R2 keys). */
  attachments: { key: string; fileName: string; mimeType: string }[];
}

/** Outgoing mail: accepted at once, delivered off the request path. */
export interface Mailer {
  /** Records the mail for delivery; resolves with its id. */
  send(mail: OutgoingMail): Promise<string>;
}

/** The adapters Env.MAIL_PROVIDER names: `outbox` (default) keeps mails local; `brevo` sends them. */
export const MAIL_PROVIDERS = ['outbox', 'brevo'] as const;
export type MailProviderName = (typeof MAIL_PROVIDERS)[number];

export function mailProviderName(env: Pick<Env, 'MAIL_PROVIDER'>): MailProviderName {
  const name = env.MAIL_PROVIDER || 'outbox';
  if (!(MAIL_PROVIDERS as readonly string[]).includes(name)) throw new Error(`MAIL_PROVIDER must be one of ${MAIL_PROVIDERS.join(', ')}.`);
  return name as MailProviderName;
}

/** The port's adapter for this deployment, chosen once per service context. */
export function mailer(env: Env, db: Db, now: Date): Mailer {
  return mailProviderName(env) === 'outbox' ? new OutboxMailer(db, now) : new QueuedMailer(env, db, now);
}

/** The local mail interface: mails stay in `outgoing_mails` (shown at /dev/mail in development). */
export class OutboxMailer implements Mailer {
  constructor(
    private readonly db: Db,
    private readonly now: Date,
  ) {}
  async send(mail: OutgoingMail) {
    const id = newId();
    await this.db.insert(outgoingMails).values({ id, ...mail, status: 'recorded', createdAt: this.now.toISOString() });
    return id;
  }
}

/**
 * A provider's side of the port: the mail is written as `pending` and announced on the mail queue.
 * A lost announcement costs a delay, not the mail: the sweeper queues pending mails again.
 */
export class QueuedMailer implements Mailer {
  constructor(
    private readonly env: Env,
    private readonly db: Db,
    private readonly now: Date,
  ) {}
  async send(mail: OutgoingMail) {
    const id = newId();
    // Delivery runs on the real clock, whatever a test clock says the tenant's now is.
    await this.db.insert(outgoingMails).values({ id, ...mail, status: 'pending', nextAttemptAt: systemNow().toISOString(), createdAt: this.now.toISOString() });
    try {
      await this.env.MAIL_JOBS.send({ tenantId: mail.tenantId, mailId: id } satisfies MailJob);
    } catch (err) {
      logError({ job: 'mail-enqueue', tenantId: mail.tenantId, mailId: id }, err);
    }
    return id;
  }
}
