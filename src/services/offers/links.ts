import type { Env } from '../../env';
import { hmacSha256, timingSafeEqual } from '../../lib/crypto';
import { jwtKey } from '../platform/customer-sessions';

// A recipient's link (docs/decisions.md, Offers): `<tenant>.<recipient>.<mac>`, where the mac is an
// HMAC-SHA256 of tenant and recipient under the server secret. Nothing secret is stored: the link
// is computed again to show it to the tenant, a forged or altered one is refused before any
// database is asked, and removing the recipient ends it. The tenant in it says which shard to open
// (docs/decisions.md, Tenancy and shards).

const ID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const TOKEN = new RegExp(`^(${ID})\\.(${ID})\\.([A-Za-z0-9_-]{43})$`);

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function mac(env: Pick<Env, 'JWT_SECRET'>, tenantId: string, recipientId: string): Promise<string> {
  return base64url(await hmacSha256(jwtKey(env), `offer-recipient-link\n${tenantId}\n${recipientId}`));
}

export async function offerToken(env: Pick<Env, 'JWT_SECRET'>, tenantId: string, recipientId: string): Promise<string> {
  return `${tenantId}.${recipientId}.${await mac(env, tenantId, recipientId)}`;
}

/** The hosted offer page of a recipient. */
export async function offerLink(env: Pick<Env, 'JWT_SECRET'>, tenantId: string, recipientId: string, origin: string): Promise<string> {
  return `${origin}/offer/${await offerToken(env, tenantId, recipientId)}`;
}

/** Tenant and recipient of a genuine token; null for anything else (malformed, forged, altered). */
export async function readOfferToken(env: Pick<Env, 'JWT_SECRET'>, token: string): Promise<{ tenantId: string; recipientId: string } | null> {
  const m = TOKEN.exec(token);
  if (!m) return null;
  const [, tenantId, recipientId, given] = m;
  return timingSafeEqual(await mac(env, tenantId!, recipientId!), given!) ? { tenantId: tenantId!, recipientId: recipientId! } : null;
}

/** An e-mail address partly hidden, for a page anyone with the link sees: `e***@example.com`. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}
