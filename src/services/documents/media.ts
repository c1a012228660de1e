import { and, eq } from 'drizzle-orm';
import { media } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { newId } from '../../lib/ids';
import type { MediaResource } from '../../schemas/documents';
import type { ServiceContext } from '../context';

// Files in R2 and their Media records. A file is written once under its key and never replaced
// (GoBD: a rendered document is immutable); the record is unique per owner and purpose.

export type MediaRow = typeof media.$inferSelect;

export function renderMedia(m: MediaRow): MediaResource {
  return {
    id: m.id,
    isPrivate: m.isPrivate,
    mimeType: m.mimeType,
    fileExtension: m.fileExtension,
    fileName: m.fileName,
    storageFileName: m.storageFileName,
    createdAt: m.createdAt,
  };
}

export async function sha256Bytes(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export interface NewFile {
  ownerType: MediaRow['ownerType'];
  ownerId: string;
  purpose: MediaRow['purpose'];
  key: string;
  bytes: Uint8Array;
  mimeType: string;
  fileExtension: string;
  fileName: string;
}

/**
 * Stores the bytes under `key` unless an object is there already (an earlier render of the same
 * document, normally the same bytes: rendering is deterministic) and returns the Media row to insert.
 */
export async function storeFile(ctx: ServiceContext, f: NewFile): Promise<MediaRow> {
  const existing = await ctx.env.DOCUMENTS.get(f.key);
  // What is stored stays, and the record describes what is stored.
  const bytes = existing ? new Uint8Array(await existing.arrayBuffer()) : f.bytes;
  if (!existing) await ctx.env.DOCUMENTS.put(f.key, f.bytes, { httpMetadata: { contentType: f.mimeType } });
  return {
    id: newId(),
    tenantId: ctx.tenant.id,
    ownerType: f.ownerType,
    ownerId: f.ownerId,
    purpose: f.purpose,
    isPrivate: true,
    mimeType: f.mimeType,
    fileExtension: f.fileExtension,
    fileName: f.fileName,
    storageFileName: f.key,
    byteSize: bytes.byteLength,
    sha256: await sha256Bytes(bytes),
    createdAt: ctx.now.toISOString(),
  };
}

export async function loadMedia(ctx: ServiceContext, id: string): Promise<MediaRow> {
  const row = await ctx.db.select().from(media).where(and(eq(media.tenantId, ctx.tenant.id), eq(media.id, id))).get();
  if (!row) throw ApiError.notFound('File');
  return row;
}
