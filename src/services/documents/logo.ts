import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { PDFDocument } from 'pdf-lib';
import { media } from '../../db/schema';
import { ApiError } from '../../http/errors';
import type { DocumentSettingsResource } from '../../schemas/documents';
import type { ServiceContext } from '../context';
import { sha256Hex } from '../../lib/crypto';
import { storeFile } from './media';
import { loadDocumentSettings, renderDocumentSettings, writeDocumentSettings } from './settings';

// The letterhead logo: PNG or JPEG (what a PDF embeds as it is), stored in R2.

/** Large enough for a print-quality logo, small enough to embed in every document. */
export const MAX_LOGO_BYTES = 512 * 1024;

/**
 * A logo is printed about 60 × 22 mm; 2 megapixels are more than 600 dpi for that. Every render
 * decodes a PNG logo in full (4 bytes a pixel), so a small file of huge dimensions must not get in.
 */
export const MAX_LOGO_PIXELS = 2_000_000;
const MAX_LOGO_SIDE = 4000;

const SIGNATURES: Record<'image/png' | 'image/jpeg', number[]> = { 'image/png': [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/jpeg': [0xff, 0xd8, 0xff] };

export const LogoUploadSchema = z
  .strictObject({
    mimeType: z.enum(['image/png', 'image/jpeg']),
    content: z
      .string()
      .min(4)
      .max(Math.ceil(MAX_LOGO_BYTES / 3) * 4)
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, { message: 'Must be base64.' })
      .openapi({ description: `The image, base64-encoded; at most ${MAX_LOGO_BYTES / 1024} KiB decoded.` }),
  })
  .openapi('LogoUpload');

function decodeBase64(text: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** The width and height a PNG declares (its IHDR chunk comes first), before anything decodes it. */
function pngSize(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.length < 24 || String.fromCharCode(...bytes.subarray(12, 16)) !== 'IHDR') return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/**
 * Refuses what the documents could not print: the magic bytes alone do not make an image, and a
 * logo that fails to embed would fail every document rendered after it. The check embeds it as
 * the renderer does.
 */
async function checkImage(bytes: Uint8Array, mimeType: 'image/png' | 'image/jpeg'): Promise<void> {
  const kind = mimeType === 'image/png' ? 'PNG' : 'JPEG';
  if (!SIGNATURES[mimeType].every((b, i) => bytes[i] === b)) throw ApiError.violation('content', `The content is not a ${kind} image.`, 'invalid_image');
  if (bytes.length > MAX_LOGO_BYTES) throw ApiError.violation('content', `The image exceeds ${MAX_LOGO_BYTES / 1024} KiB.`, 'too_large');
  const tooLarge = (s: { width: number; height: number }) => s.width > MAX_LOGO_SIDE || s.height > MAX_LOGO_SIDE || s.width * s.height > MAX_LOGO_PIXELS;
  const declared = mimeType === 'image/png' ? pngSize(bytes) : null;
  if (mimeType === 'image/png' && !declared) throw ApiError.violation('content', 'The content is not a PNG image.', 'invalid_image');
  if (declared && tooLarge(declared)) throw ApiError.violation('content', `The image exceeds ${MAX_LOGO_PIXELS} pixels or ${MAX_LOGO_SIDE} pixels a side.`, 'too_large');
  let size: { width: number; height: number };
  try {
    const doc = await PDFDocument.create();
    size = mimeType === 'image/png' ? await doc.embedPng(bytes) : await doc.embedJpg(bytes);
  } catch {
    throw ApiError.violation('content', `The content is not a ${kind} image that documents can print.`, 'invalid_image');
  }
  if (tooLarge(size)) throw ApiError.violation('content', `The image exceeds ${MAX_LOGO_PIXELS} pixels or ${MAX_LOGO_SIDE} pixels a side.`, 'too_large');
}

export async function uploadLogo(ctx: ServiceContext, input: z.output<typeof LogoUploadSchema>): Promise<DocumentSettingsResource> {
  const bytes = decodeBase64(input.content);
  if (!bytes) throw ApiError.violation('content', 'Must be base64.', 'invalid_base64');
  await checkImage(bytes, input.mimeType);
  const current = await loadDocumentSettings(ctx.db, ctx.tenant.id);
  const ext = input.mimeType === 'image/png' ? 'png' : 'jpg';
  // Keyed by content: a logo in use by rendered documents is never overwritten by the next one.
  const key = `${ctx.tenant.id}/logos/${await sha256Hex(bytes)}.${ext}`;
  const row = await storeFile(ctx, { ownerType: 'tenant', ownerId: ctx.tenant.id, purpose: 'logo', key, bytes, mimeType: input.mimeType, fileExtension: ext, fileName: `logo.${ext}` });
  const previous = await currentLogo(ctx, current.logoMediaId);
  const replace = [
    ctx.db.delete(media).where(and(eq(media.tenantId, ctx.tenant.id), eq(media.ownerType, 'tenant'), eq(media.ownerId, ctx.tenant.id), eq(media.purpose, 'logo'))),
    ctx.db.insert(media).values(row),
  ];
  const written = await writeDocumentSettings(ctx, current, { logoMediaId: row.id }, replace);
  if (previous && previous.storageFileName !== key) await removeObject(ctx, previous.storageFileName);
  return renderDocumentSettings(ctx, written);
}

export async function deleteLogo(ctx: ServiceContext): Promise<DocumentSettingsResource> {
  const current = await loadDocumentSettings(ctx.db, ctx.tenant.id);
  if (!current.logoMediaId) return renderDocumentSettings(ctx, current);
  const previous = await currentLogo(ctx, current.logoMediaId);
  const remove = ctx.db.delete(media).where(and(eq(media.tenantId, ctx.tenant.id), eq(media.id, current.logoMediaId)));
  const written = await writeDocumentSettings(ctx, current, { logoMediaId: null }, [remove]);
  if (previous) await removeObject(ctx, previous.storageFileName);
  return renderDocumentSettings(ctx, written);
}

const currentLogo = (ctx: ServiceContext, id: string | null) =>
  id ? ctx.db.select().from(media).where(and(eq(media.tenantId, ctx.tenant.id), eq(media.id, id))).get() : Promise.resolve(undefined);

/**
 * A logo no longer in use leaves R2 once the settings stopped naming it: rendered documents carry
 * their own copy of it. Should this fail, the object is only left behind.
 */
async function removeObject(ctx: ServiceContext, key: string): Promise<void> {
  await ctx.env.DOCUMENTS.delete(key).catch(() => undefined);
}
