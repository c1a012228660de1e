import { and, eq, inArray } from 'drizzle-orm';
import { customerEmailAddresses } from '../../db/schema';
import type { ServiceContext } from '../context';
import { ensureRendered } from '../documents/render';
import { commitInvoiceChange } from './write';
import { loadInvoice } from './read';
import { requireStatus } from './operations';

/** Sends the document through the mail interface and records lastSentAt. */
export async function resendInvoice(ctx: ServiceContext, id: string) {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, ['STATUS_UNPAID', 'STATUS_REMINDED', 'STATUS_PAID', 'STATUS_CLOSED', 'STATUS_CANCELLED'], 'send');
  const emails = await ctx.db
    .select()
    .from(customerEmailAddresses)
    .where(and(eq(customerEmailAddresses.tenantId, ctx.tenant.id), eq(customerEmailAddresses.customerId, before.row.customerId), eq(customerEmailAddresses.isDefault, true), inArray(customerEmailAddresses.type, ['invoice', 'default'])));
  const to = emails.find((e) => e.type === 'invoice')?.email ?? emails.find((e) => e.type === 'default')?.email ?? before.customer.email;
  const files = await ensureRendered(ctx, id, before);
  const attachments = [files.file, ...(files.xml ? [files.xml] : [])].map((m) => ({ key: m.storageFileName, fileName: m.fileName, mimeType: m.mimeType }));
  await ctx.mailer.send({ tenantId: ctx.tenant.id, to, subject: `${before.row.number}`, body: `Your document ${before.row.number} is attached.`, attachments });
  // The document as it is now, with the files just rendered (rendering keeps updatedAt, so the
  // guard still holds); the answer and the event show what the mail carries.
  const sent = { ...before, row: { ...before.row, fileId: files.file.id, xmlFileId: files.xml?.id ?? null }, media: [files.file, ...(files.xml ? [files.xml] : [])] };
  return commitInvoiceChange(ctx, sent, { lastSentAt: ctx.now.toISOString() }, ['invoice.updated']);
}
