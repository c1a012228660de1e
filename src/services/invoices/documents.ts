import { and, eq, inArray } from 'drizzle-orm';
import { customerEmailAddresses, invoices } from '../../db/schema';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import { systemNow } from '../../lib/clock';
import { hmacSha256Hex } from '../../lib/crypto';
import { commitInvoiceChange } from './write';
import { loadInvoice, renderLoaded } from './read';
import { type InvoiceAggregate } from './render';
import { requireStatus } from './operations';
import type { DownloadLink } from '../../schemas/invoices';

/**
 * The document as it would be rendered now. Until the documents issue renders PDF and EN16931 XML,
 * the rendition is the JSON representation, stored in R2 under the tenant's prefix.
 */
export async function storeRendition(ctx: ServiceContext, agg: InvoiceAggregate) {
  const key = `${ctx.tenant.id}/invoices/${agg.row.id}/${agg.row.number ?? 'draft'}.json`;
  await ctx.env.DOCUMENTS.put(key, JSON.stringify(renderLoaded(agg), null, 2), { httpMetadata: { contentType: 'application/json' } });
  return key;
}

/** A signed, expiring link to the stored rendition: HMAC over key and expiry with the JWT secret. */
export async function downloadLink(ctx: ServiceContext, id: string, origin: string, secondsValid: number): Promise<DownloadLink> {
  const agg = await loadInvoice(ctx, id);
  if (agg.row.status === 'STATUS_DRAFT') throw ApiError.conflict('Drafts have no document yet; use GET /invoices/{id}/preview.', 'invalid-transition');
  let key = agg.row.documentKey;
  if (!key) {
    key = await storeRendition(ctx, agg);
    await ctx.db.update(invoices).set({ documentKey: key }).where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.id, id)));
  }
  // Links expire on the wall clock, where they are checked, not on a tenant's test clock.
  const expires = Math.floor(systemNow().getTime() / 1000) + secondsValid;
  const signature = await signDocument(ctx.env.JWT_SECRET, key, expires);
  return {
    url: `${origin}/public/documents/${encodeURIComponent(key)}?expires=${expires}&signature=${signature}`,
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}

/** The signature of a download link: an HMAC of the key and its expiry under the server secret. */
export async function signDocument(secret: string, key: string, expires: number): Promise<string> {
  return hmacSha256Hex(new TextEncoder().encode(secret), `document-link\n${key}\n${expires}`);
}

/** Sends the document through the mail interface and records lastSentAt. */
export async function resendInvoice(ctx: ServiceContext, id: string) {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, ['STATUS_UNPAID', 'STATUS_REMINDED', 'STATUS_PAID', 'STATUS_CLOSED', 'STATUS_CANCELLED'], 'send');
  const emails = await ctx.db
    .select()
    .from(customerEmailAddresses)
    .where(and(eq(customerEmailAddresses.tenantId, ctx.tenant.id), eq(customerEmailAddresses.customerId, before.row.customerId), eq(customerEmailAddresses.isDefault, true), inArray(customerEmailAddresses.type, ['invoice', 'default'])));
  const to = emails.find((e) => e.type === 'invoice')?.email ?? emails.find((e) => e.type === 'default')?.email ?? before.customer.email;
  await ctx.mailer.send({ tenantId: ctx.tenant.id, to, subject: `${before.row.number}`, body: `Your document ${before.row.number} is attached.`, attachmentKey: before.row.documentKey });
  return commitInvoiceChange(ctx, before, { lastSentAt: ctx.now.toISOString() }, ['invoice.updated']);
}
