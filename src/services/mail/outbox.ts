import { and, desc, eq, type SQL } from 'drizzle-orm';
import { createDb } from '../../db/client';
import { outgoingMails, tenants } from '../../db/schema';
import { binding, shardNames } from '../../db/shards';
import type { Env } from '../../env';

// The local outbox as the development page shows it (/dev/mail; docs/decisions.md, Mail): every
// mail of every tenant on every shard, newest first. Only reachable when Env.ENVIRONMENT is
// `development`: it reads across tenants, which no other path does.

export interface OutboxMail {
  id: string;
  tenantId: string;
  tenantName: string | null;
  to: string;
  subject: string;
  body: string;
  attachments: { key: string; fileName: string; mimeType: string }[];
  status: string;
  lastError: string | null;
  createdAt: string;
}

export const OUTBOX_PAGE_SIZE = 200;

async function read(env: Env, where: SQL | undefined, limit: number): Promise<OutboxMail[]> {
  const found = await Promise.all(
    shardNames(env).map((shard) =>
      createDb(binding(env, shard))
        .select({
          id: outgoingMails.id,
          tenantId: outgoingMails.tenantId,
          tenantName: tenants.name,
          to: outgoingMails.to,
          subject: outgoingMails.subject,
          body: outgoingMails.body,
          attachments: outgoingMails.attachments,
          status: outgoingMails.status,
          lastError: outgoingMails.lastError,
          createdAt: outgoingMails.createdAt,
        })
        .from(outgoingMails)
        .leftJoin(tenants, eq(tenants.id, outgoingMails.tenantId))
        .where(where)
        .orderBy(desc(outgoingMails.createdAt), desc(outgoingMails.id))
        .limit(limit),
    ),
  );
  return found.flat().sort((a, b) => (a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt))).slice(0, limit);
}

/** The newest mails, of one tenant when `tenantId` is given. */
export function listOutbox(env: Env, filter: { tenantId?: string } = {}): Promise<OutboxMail[]> {
  return read(env, filter.tenantId ? eq(outgoingMails.tenantId, filter.tenantId) : undefined, OUTBOX_PAGE_SIZE);
}

export async function outboxMail(env: Env, id: string): Promise<OutboxMail | undefined> {
  return (await read(env, and(eq(outgoingMails.id, id)), 1))[0];
}

/** An attachment's bytes, from the documents bucket. */
export async function outboxAttachment(env: Env, mail: OutboxMail, index: number): Promise<{ fileName: string; mimeType: string; body: ReadableStream } | undefined> {
  const a = mail.attachments[index];
  const object = a && (await env.DOCUMENTS.get(a.key));
  return object ? { fileName: a.fileName, mimeType: a.mimeType, body: object.body } : undefined;
}
