/** @jsxImportSource hono/jsx */
import { Hono, type Context } from 'hono';
import type { JSX } from 'hono/jsx/jsx-runtime';
import type { AppEnv } from '../../http/context';
import { ApiError } from '../../http/errors';
import { rateDecision, withRateLimitHeaders, type PublicLimit } from '../../http/rate-limit';
import { logError } from '../../lib/log';
import type { PublicCart } from '../../schemas/checkout';
import { applyCoupon, cartLogo, changeQuantity, confirmCart, confirmCartOtp, openCart, prepareCard, readCart, readCartJson, removeCoupon, setBuyerDetails, settleCardAuthentication } from '../../services/checkout/public-carts';
import { systemNow } from '../../lib/clock';
import { TtlCache } from '../../lib/ttl-cache';
import { ASSETS } from './assets';
import { buyerDetails, confirmInput, emptyForm, parseForm, valuesFromCart, withViolations, type FormState } from './form';
import { pickLang, TEXTS, type Lang, type Texts } from './texts';
import { CartPage } from './cart-view';
import { AuthenticatePage, CompletedPage, MessagePage, OtpPage, webUrl } from './components';

// The hosted checkout page (docs/decisions.md, Hosted checkout page). Server-rendered HTML
// over the public cart service; every change is a form post that calls the service and redirects
// back to the cart (Post/Redirect/Get), or, when the service refuses it, shows the page again with
// the typed values and each violation next to its field (422). These routes are mounted before the
// API's JSON body guard: forms post application/x-www-form-urlencoded, which the API refuses.

/** Forms of this page are small; anything larger is not one of them. */
const MAX_FORM_BYTES = 16 * 1024;
const SLUG = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
const CART_ID = /^[A-Za-z0-9_-]{8,100}$/;
/** Prefill values a link may carry (customerPrefill); other query parameters are ignored. */
const MAX_PREFILL = 30;

type PageContext = Context<AppEnv>;

interface Page {
  lang: Lang;
  t: Texts;
  path: string;
  /** `?lang=…` when the language was chosen explicitly: carried through every form and redirect. */
  query: string;
}

function langQuery(c: PageContext): string {
  const lang = c.req.query('lang');
  return lang === 'de' || lang === 'en' ? `?lang=${lang}` : '';
}

function page(c: PageContext): Page {
  const lang = pickLang(c.req.header('Accept-Language'), c.req.query('lang'));
  // A post's answer links (language switch, "continue") to the cart page, never to the post's path.
  const path = new URL(c.req.url).pathname.replace(/^(\/checkout\/cart\/[^/]+)\/.+$/, '$1');
  return { lang, t: TEXTS[lang], path, query: langQuery(c) };
}

/** Stripe.js's default address, and what its CSP needs (docs.stripe.com/security/guide#content-security-policy). */
const STRIPE_JS = 'https://js.stripe.com/v3/';
const STRIPE_CSP = { script: 'https://js.stripe.com', frame: 'https://js.stripe.com https://hooks.stripe.com', connect: 'https://api.stripe.com' };

/** The card client's address and the sources the page's CSP then allows. */
function cardClient(env: PageContext['env']): { url: string; csp: typeof STRIPE_CSP } {
  const url = env.CARD_CLIENT_URL || STRIPE_JS;
  if (url === STRIPE_JS) return { url, csp: STRIPE_CSP };
  const origin = new URL(url).origin;
  return { url, csp: { script: origin, frame: origin, connect: origin } };
}

/** An HTML answer that no cache keeps (a cart is one buyer's, and changes with every post). */
function html(c: PageContext, element: JSX.Element, status: 200 | 404 | 409 | 413 | 415 | 422 | 429 | 500 = 200, card: typeof STRIPE_CSP | null = null): Response {
  return htmlText(c, `<!doctype html>${element.toString()}`, status, card);
}

function htmlText(c: PageContext, text: string, status: 200 | 404 | 409 | 413 | 415 | 422 | 429 | 500 = 200, card: typeof STRIPE_CSP | null = null): Response {
  return new Response(text, {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Language': page(c).lang,
      Vary: 'Accept-Language',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': card
        ? `default-src 'none'; style-src 'self'; script-src 'self' ${card.script}; connect-src 'self' ${card.connect}; frame-src ${card.frame}; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'`
        : "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'",
    },
  });
}

/** 303 to the cart page (keeping an explicit language choice): the browser GETs it. */
function toCart(c: PageContext, cartId: string): Response {
  return new Response(null, { status: 303, headers: { Location: `/checkout/cart/${encodeURIComponent(cartId)}${langQuery(c)}`, 'Cache-Control': 'no-store' } });
}

/** The page for a cart that can no longer be shown or changed, or for an unexpected failure. */
function errorPage(c: PageContext, err: unknown, cartId?: string): Response {
  const p = page(c);
  if (err instanceof ApiError && err.status === 404) return html(c, <MessagePage {...p} title={p.t.notFoundTitle} message={p.t.notFound} />, 404);
  if (err instanceof ApiError && err.status === 409) {
    const link = cartId ? { href: `/checkout/cart/${encodeURIComponent(cartId)}${p.query}`, label: p.t.continue } : null;
    return html(c, <MessagePage {...p} title={p.t.lockedTitle} message={p.t.locked} link={link} />, 409);
  }
  logError({ requestId: c.get('requestId'), page: 'checkout' }, err);
  return html(c, <MessagePage {...p} title={p.t.errorTitle} message={p.t.error} />, 500);
}

async function cartPage(c: PageContext, cart: PublicCart, form: FormState, status: 200 | 422 = 200, message: string | null = null): Promise<Response> {
  const p = page(c);
  if (cart.status === 'completed' || cart.status === 'paid') return html(c, <CompletedPage {...p} cart={cart} message={message} />);
  if (cart.status === 'redirect_to_payment') {
    // The charge waits for the buyer's bank: the card client confirms it with the charge's client secret.
    const waiting = await prepareCard(c.env, cart.id).catch(() => null);
    const client = waiting?.publishableKey ? cardClient(c.env) : null;
    const card = client && waiting?.publishableKey ? { publishableKey: waiting.publishableKey, clientUrl: client.url, clientSecret: waiting.clientSecret } : null;
    return html(c, <AuthenticatePage {...p} cart={cart} card={card} />, 200, client?.csp ?? null);
  }
  if (cart.status !== 'open') return html(c, <MessagePage {...p} title={p.t.lockedTitle} message={p.t.confirming} link={{ href: p.path + p.query, label: p.t.continue }} />);
  const values = { ...valuesFromCart(cart), ...form.values };
  // Cards through the gateway's client, when the tenant's card gateway has a publishable key.
  const prepared = cart.settings.paymentMethods.includes('card') ? await prepareCard(c.env, cart.id).catch(() => null) : null;
  const client = prepared?.publishableKey ? cardClient(c.env) : null;
  const card = client && prepared?.publishableKey ? { publishableKey: prepared.publishableKey, clientUrl: client.url } : null;
  return html(c, <CartPage {...p} cart={cart} form={{ ...form, values }} card={card} />, status, client?.csp ?? null);
}

/**
 * A page under the public rate limit of its client address, like the JSON routes (docs/decisions.md,
 * Rate limits): refused, the buyer gets a page saying when to try again (429, Retry-After).
 */
async function limited(c: PageContext, rule: PublicLimit, answer: () => Promise<Response>): Promise<Response> {
  const decision = await rateDecision(c, rule);
  if (!decision) return answer();
  if (!decision.allowed) {
    const p = page(c);
    return withRateLimitHeaders(html(c, <MessagePage {...p} title={p.t.tooManyTitle} message={p.t.tooMany(decision.reset)} />, 429), decision);
  }
  return withRateLimitHeaders(await answer(), decision);
}

/** The posted form, bounded; a 415 or 413 page when it is no urlencoded form of a sane size. */
async function readForm(c: PageContext): Promise<Record<string, string> | Response> {
  const p = page(c);
  const declared = Number(c.req.header('Content-Length') ?? '0');
  const type = c.req.header('Content-Type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;.*)?$/i.test(type)) {
    return html(c, <MessagePage {...p} title={p.t.errorTitle} message={p.t.error} />, 415);
  }
  if (declared > MAX_FORM_BYTES) return html(c, <MessagePage {...p} title={p.t.errorTitle} message={p.t.error} />, 413);
  const body = await c.req.text();
  if (body.length > MAX_FORM_BYTES) return html(c, <MessagePage {...p} title={p.t.errorTitle} message={p.t.error} />, 413);
  return parseForm(body);
}

/**
 * A form post on a cart: runs `change` with the form, then redirects to the cart page; a 422 of
 * the service shows the page again with the typed values and the violations at their fields.
 */
function post(c: PageContext, change: (cartId: string, form: Record<string, string>) => Promise<Response | void>, rule: PublicLimit = 'public'): Promise<Response> {
  return limited(c, rule, () => applyPost(c, change));
}

async function applyPost(c: PageContext, change: (cartId: string, form: Record<string, string>) => Promise<Response | void>): Promise<Response> {
  const cartId = c.req.param('id') ?? '';
  if (!CART_ID.test(cartId)) return errorPage(c, ApiError.notFound('Cart'));
  const form = await readForm(c);
  if (form instanceof Response) return form;
  try {
    const answer = await change(cartId, form);
    return answer ?? toCart(c, cartId);
  } catch (err) {
    // A cart that is locked (confirming, or completed by a first post) shows where it stands.
    if (err instanceof ApiError && err.status === 409) return toCart(c, cartId);
    if (!(err instanceof ApiError) || err.status !== 422) return errorPage(c, err, cartId);
    try {
      const cart = await readCart(c.env, cartId);
      return cartPage(c, cart, withViolations(page(c).lang, form, err.violations ?? [], err.message), 422);
    } catch (readErr) {
      return errorPage(c, readErr, cartId);
    }
  }
}

export const checkoutPages = new Hono<AppEnv>();

checkoutPages.get('/checkout/assets/:file', (c) => {
  const m = /^checkout\.([0-9a-f]{8})\.(css|js)$/.exec(c.req.param('file'));
  const asset = m ? ASSETS[m[2] as 'css' | 'js'] : undefined;
  if (!m || !asset) return c.text('Not found', 404);
  // An old hash still gets today's file, but only briefly cached, so a page that was open during a
  // deployment keeps working.
  const current = asset.hash === m[1];
  return new Response(asset.text, {
    headers: {
      'Content-Type': asset.type,
      'Cache-Control': current ? 'public, max-age=31536000, immutable' : 'public, max-age=60',
      'X-Content-Type-Options': 'nosniff',
    },
  });
});

/**
 * Cart pages as rendered, by everything they are made of: the cart's view as its object holds it,
 * the language and the query they carry. A page is shown again and again (a buyer reloads, the
 * page polls) while the cart stays as it is; the view is read every time, so a changed cart is a
 * new key, never an old page. Pages with a card form are not kept (they depend on the tenant's card
 * gateway, read from D1). Bounded in number, and a minute each.
 */
const renderedPages = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 500, now: () => systemNow().getTime() });

// Registered before /checkout/{tenantSlug}/{slug}, which the same path would match too.
checkoutPages.get('/checkout/cart/:id', (c) =>
  limited(c, 'public', async () => {
    const cartId = c.req.param('id');
    if (!CART_ID.test(cartId)) return errorPage(c, ApiError.notFound('Cart'));
    try {
      const view = await readCartJson(c.env, cartId);
      const p = page(c);
      const key = `${p.lang}${p.query}\n${view}`;
      const rendered = renderedPages.get(key);
      if (rendered !== undefined) return htmlText(c, rendered);
      const cart = JSON.parse(view) as PublicCart;
      const res = await cartPage(c, cart, emptyForm());
      if (res.status === 200 && !cart.settings.paymentMethods.includes('card')) renderedPages.set(key, await res.clone().text());
      return res;
    } catch (err) {
      return errorPage(c, err, cartId);
    }
  }),
);

checkoutPages.get('/checkout/cart/:id/logo', (c) =>
  limited(c, 'public', async () => {
    const cartId = c.req.param('id');
    if (!CART_ID.test(cartId)) return c.text('Not found', 404);
    try {
      const logo = await cartLogo(c.env, cartId);
      return new Response(logo.body, {
        headers: { 'Content-Type': logo.mimeType, 'Cache-Control': 'private, max-age=3600', ETag: `"${logo.etag}"`, 'X-Content-Type-Options': 'nosniff' },
      });
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return c.text('Not found', 404);
      logError({ requestId: c.get('requestId'), page: 'checkout-logo' }, err);
      return c.text('Error', 500);
    }
  }),
);

checkoutPages.post('/checkout/cart/:id/quantity', (c) =>
  post(c, async (cartId, form) => {
    const quantity = /^\d{1,9}$/.test(form.quantity ?? '') ? Number(form.quantity) : NaN;
    if (!Number.isInteger(quantity)) throw ApiError.violation('quantity', 'Must be a whole number.', 'invalid_type');
    await changeQuantity(c.env, cartId, { cartItemId: form.cartItemId ?? '', quantity });
  }),
);

checkoutPages.post('/checkout/cart/:id/coupon', (c) =>
  post(c, async (cartId, form) => {
    await applyCoupon(c.env, cartId, { code: (form.code ?? '').trim() });
  }),
);

checkoutPages.post('/checkout/cart/:id/coupon/remove', (c) =>
  post(c, async (cartId) => {
    await removeCoupon(c.env, cartId);
  }),
);

checkoutPages.post('/checkout/cart/:id/details', (c) =>
  post(c, async (cartId, form) => {
    await setBuyerDetails(c.env, cartId, buyerDetails(form));
  }),
);

checkoutPages.post('/checkout/cart/:id/confirm', (c) =>
  post(c, async (cartId, form) => {
    const result = await confirmCart(c.env, cartId, confirmInput(form));
    if (result.action === 'redirect' && webUrl(result.redirectUrl)) {
      return new Response(null, { status: 303, headers: { Location: webUrl(result.redirectUrl)!, 'Cache-Control': 'no-store' } });
    }
    if (result.action === 'otp_required') {
      // The e-mail is an existing customer's: a one-time code went to it, which completes the order.
      const email = confirmInput(form).email ?? '';
      return html(c, <OtpPage {...page(c)} cartId={cartId} email={email} form={emptyForm()} />);
    }
    // Answered here rather than after a redirect: the link's confirmation message is in the
    // result only, not in the cart. A reload posts again and gets the completed cart's page.
    const cart = await readCart(c.env, cartId);
    return cartPage(c, cart, emptyForm(), 200, result.confirmationMessage);
  }, 'public-create'),
);

checkoutPages.post('/checkout/cart/:id/payment', (c) =>
  post(c, async (cartId) => {
    const before = await readCart(c.env, cartId);
    const cart = await settleCardAuthentication(c.env, cartId);
    if (before.status === 'redirect_to_payment' && cart.status === 'open') {
      // The bank did not confirm it: the cart is open again, and the buyer chooses a method anew.
      const p = page(c);
      return cartPage(c, cart, { values: {}, errors: { paymentType: p.t.authenticateFailed }, general: [] }, 422);
    }
  }),
);

checkoutPages.post('/checkout/cart/:id/otp', (c) =>
  post(c, async (cartId, form) => {
    const email = (form.email ?? '').trim();
    try {
      await confirmCartOtp(c.env, cartId, { email, otp: (form.otp ?? '').trim() });
    } catch (err) {
      if (!(err instanceof ApiError) || (err.status !== 401 && err.status !== 422)) throw err;
      const p = page(c);
      const message = err.status === 401 ? p.t.otpWrong : (err.violations?.[0]?.message ?? err.message);
      return html(c, <OtpPage {...p} cartId={cartId} email={email} form={{ values: {}, errors: { otp: message }, general: [] }} />, 422);
    }
  }, 'public-create'),
);

checkoutPages.get('/checkout/:tenantSlug/:slug', async (c, next) => {
  const tenantSlug = c.req.param('tenantSlug');
  // The tenant API's /checkout/carts/… ("carts" is a reserved tenant slug).
  if (tenantSlug === 'carts') return next();
  const linkSlug = c.req.param('slug');
  if (!SLUG.test(tenantSlug) || !SLUG.test(linkSlug)) return errorPage(c, ApiError.notFound('Checkout link'));
  const prefill: Record<string, string> = {};
  for (const [k, v] of Object.entries(c.req.query())) {
    if (k === 'lang' || Object.keys(prefill).length >= MAX_PREFILL) continue;
    if (k.length <= 64 && v.length <= 255) prefill[k] = v;
  }
  // Opening a link makes a cart: a crawler following checkout links must not fill the cart store.
  return limited(c, 'public-create', async () => {
    try {
      const cart = await openCart(c.env, { tenantSlug, linkSlug, prefill, customerToken: null });
      return toCart(c, cart.id);
    } catch (err) {
      return errorPage(c, err);
    }
  });
});
