import { and, eq } from 'drizzle-orm';
import { tenantDb } from '../../db/directory';
import { media } from '../../db/schema';
import type { Env } from '../../env';
import { ApiError } from '../../http/errors';
import { systemNow } from '../../lib/clock';
import { hmacSha256Hex, timingSafeEqual } from '../../lib/crypto';
import type { DownloadLink } from '../../schemas/invoices';
import type { ServiceContext } from '../context';
import { loadInvoice } from '../invoices/read';
import type { MediaRow } from './media';
import { ensureRendered } from './render';

// Signed, expiring links to a document's files: the signature is the only credential of the
// public download route. A link names the file's tenant, which says where the file's record lives
// (docs/decisions.md, Tenancy and shards); the signature covers it with the file and the expiry.

/** The signature of a download link: an HMAC of the tenant, the file and its expiry under the server secret. */
export async function signDocument(secret: string, tenantId: string, mediaId: string, expires: number): Promise<string> {
  return hmacSha256Hex(new TextEncoder().encode(secret), `document-link\n${tenantId}\n${mediaId}\n${expires}`);
}

/** The public download URL of a stored file (GET /public/documents/{id}), signed until `expires` (Unix seconds). */
export async function signedUrl(ctx: ServiceContext, origin: string, m: Pick<MediaRow, 'id'>, expires: number) {
  const tenant = encodeURIComponent(ctx.tenant.id);
  return `${origin}/public/documents/${m.id}?tenant=${tenant}&expires=${expires}&signature=${await signDocument(ctx.env.JWT_SECRET, ctx.tenant.id, m.id, expires)}`;
}

/** Signed, expiring links to the document's PDF and XML, rendering them first if needed. */
export async function downloadLink(ctx: ServiceContext, id: string, origin: string, secondsValid: number, customerScope?: string): Promise<DownloadLink> {
  const agg = await loadInvoice(ctx, id, customerScope);
  // A customer sees its finalized documents only, as on GET /invoices/{id}.
  if (customerScope && agg.row.status === 'STATUS_DRAFT') throw ApiError.notFound('Invoice');
  const files = await ensureRendered(ctx, id, agg);
  // Links expire on the wall clock, where they are checked, not on a tenant's test clock.
  const expires = Math.floor(systemNow().getTime() / 1000) + secondsValid;
  return {
    url: await signedUrl(ctx, origin, files.file, expires),
    xmlUrl: files.xml ? await signedUrl(ctx, origin, files.xml, expires) : null,
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}

/**
 * The file behind a signed link: 403 for a signature that does not match or has expired, 404 when
 * it matches but the file is gone. Public: the signature is the only credential.
 */
export async function openSignedFile(env: Env, tenantId: string, mediaId: string, expiresParam: string, signature: string) {
  const expires = /^\d{1,12}$/.test(expiresParam) ? Number(expiresParam) : 0;
  const expected = await signDocument(env.JWT_SECRET, tenantId, mediaId, expires);
  if (!timingSafeEqual(expected, signature) || expires * 1000 < systemNow().getTime()) throw ApiError.forbidden('The link is invalid or has expired.');
  const db = await tenantDb(env, tenantId);
  const m = db ? await db.select().from(media).where(and(eq(media.tenantId, tenantId), eq(media.id, mediaId))).get() : undefined;
  const object = m ? await env.DOCUMENTS.get(m.storageFileName) : null;
  if (!m || !object) throw ApiError.notFound('Document');
  return { media: m, object };
}
