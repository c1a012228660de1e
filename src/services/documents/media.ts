import { and, eq } from 'drizzle-orm';
import { media } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { sha256Hex } from '../../lib/crypto';
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

/**
 * A file name that stays one name when saved: a document number may hold `/` (its format allows
 * it) and a customer number anything, so path separators and control characters become `_`.
 */
export function safeFileName(name: string): string {
  return name.replace(/[/\\\u0000-\u001f\u007f]/g, '_');
}

/**
 * A Content-Disposition header for a name of any characters (RFC 6266): an ASCII fallback for old
 * clients and the exact name percent-encoded (RFC 8187). A header value holds Latin-1 only, and a
 * quote in the plain form would end the name early.
 */
export function contentDisposition(type: 'attachment' | 'inline', name: string): string {
  const safe = safeFileName(name);
  const ascii = safe.replace(/[^A-Za-z0-9._-]/g, '_');
  let exact: string;
  try {
    exact = encodeURIComponent(safe).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  } catch {
    // A lone surrogate cannot be encoded; the ASCII form is still a name.
    exact = ascii;
  }
  return `${type}; filename="${ascii}"; filename*=UTF-8''${exact}`;
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
  // What is stored stays, and the record describes what is stored. The put is conditional: of two
  // renders at once the second must not replace what the first wrote (its bytes may differ when
  // the settings changed in between), and a render finding an object records that one. Normally
  // there is none, so the put comes first: one R2 operation per file.
  let bytes = f.bytes;
  const written = await ctx.env.DOCUMENTS.put(f.key, f.bytes, { httpMetadata: { contentType: f.mimeType }, onlyIf: new Headers({ 'If-None-Match': '*' }) });
  if (!written) {
    const first = await ctx.env.DOCUMENTS.get(f.key);
    if (!first) throw new Error(`The file ${f.key} was neither written nor found.`);
    bytes = new Uint8Array(await first.arrayBuffer());
  }
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
    sha256: await sha256Hex(bytes),
    createdAt: ctx.now.toISOString(),
  };
}

export async function loadMedia(ctx: ServiceContext, id: string): Promise<MediaRow> {
  const row = await ctx.db.select().from(media).where(and(eq(media.tenantId, ctx.tenant.id), eq(media.id, id))).get();
  if (!row) throw ApiError.notFound('File');
  return row;
}
