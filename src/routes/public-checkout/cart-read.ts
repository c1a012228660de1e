import type { Env } from '../../env';
import { requestIdOf } from '../../http/request';
import { peekViewJson } from '../../services/checkout/state';

// GET /public/checkout/cart/{id} ahead of the router. The read is a cart page's poll and the
// busiest public request, and all it does is ask the cart's object for its view: the router, the
// middleware chain and the parameter validation cost it as much as that call (docs/decisions.md,
// Checkout). When the object answers, its view is the answer, as the routed GET /public/checkout/
// cart/{id} (carts.ts, which documents it) would give it; anything else (a query string, an id
// the object does not know, an expired cart, an object that lost its state) goes the routed way,
// which answers the problem or restores the cart from D1.

const PATH = /^\/public\/checkout\/cart\/([A-Za-z0-9_-]{32})$/;

export async function fastCartRead(request: Request, env: Env): Promise<Response | null> {
  if (request.method !== 'GET') return null;
  const url = request.url;
  // The path begins after the scheme's `//` and the host; only the bare path is taken here (a query
  // string is for the router to refuse as an unknown parameter).
  const path = url.indexOf('/', url.indexOf('//') + 2);
  if (path < 0 || url.includes('?') || url.includes('#')) return null;
  const id = PATH.exec(url.slice(path))?.[1];
  if (!id) return null;
  const view = await peekViewJson(env, id);
  if (view === null) return null;
  return new Response(view, { headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestIdOf(request.headers.get('X-Request-Id')) } });
}
