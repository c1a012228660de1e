import type { Context } from 'hono';

/** Who is at the other end of a public request, as far as it tells: what an audit trail records. */
export interface Visitor {
  ip: string | null;
  userAgent: string | null;
}

/**
 * The client's address as Cloudflare's edge sets it (`CF-Connecting-IP`, which a client cannot
 * set itself there; X-Forwarded-For can, so it is not read) and the user agent it sent.
 */
export function visitorOf(c: Context): Visitor {
  const ip = c.req.header('CF-Connecting-IP')?.trim() || null;
  const userAgent = c.req.header('User-Agent')?.trim() || null;
  return { ip: ip && ip.length <= 64 ? ip : null, userAgent: userAgent ? userAgent.slice(0, 512) : null };
}
