import type { Db } from '../../db/client';
import { outgoingMails } from '../../db/schema';
import { newId } from '../../lib/ids';

export interface OutgoingMail {
  tenantId: string;
  to: string;
  subject: string;
  body: string;
  /** Stored files to attach (R2 keys). */
  attachments: { key: string; fileName: string; mimeType: string }[];
}

/** Outgoing mail. Production wires a provider; tests and local development use the outbox table. */
export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
}

/** The local mail interface: mails are recorded in `outgoing_mails` instead of being sent. */
export class OutboxMailer implements Mailer {
  constructor(
    private readonly db: Db,
    private readonly now: Date,
  ) {}
  async send(mail: OutgoingMail) {
    await this.db.insert(outgoingMails).values({ id: newId(), ...mail, createdAt: this.now.toISOString() });
  }
}
