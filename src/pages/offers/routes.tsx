/** @jsxImportSource hono/jsx */
import { Hono, type Context } from 'hono';
import type { JSX } from 'hono/jsx/jsx-runtime';
import type { AppEnv } from '../../http/context';
import { ApiError, type Violation } from '../../http/errors';
import { rateDecision, withRateLimitHeaders, type PublicLimit } from '../../http/rate-limit';
import { visitorOf } from '../../http/visitor';
import { logError } from '../../lib/log';
import type { PublicOffer } from '../../schemas/offers';
import { maskEmail } from '../../services/offers/links';
import { requestSigningCode, signOffer, viewOffer } from '../../services/offers/public';
import { emptyForm, parseForm, type FormState } from '../checkout/form';
import { pickLang } from '../checkout/texts';
import { OFFER_CSS } from './assets';
import { TEXTS, type Lang } from './texts';
import { MessagePage, OfferPage, type PageProps, type SignState } from './view';

// The hosted offer page (docs/decisions.md, Offers): `/offer/{token}` shows the recipient's offer,
// `/offer/{token}/code` mails a signing code and `/offer/{token}/sign` signs, each a form post
// answered 303 back to the page (Post/Redirect/Get), or the page again with the problem at its
// field. No script, a strict CSP, no referrer (the address holds the recipient's credential).
// Mounted before the API's JSON body guard: forms post application/x-www-form-urlencoded.

const MAX_FORM_BYTES = 8 * 1024;
const TOKEN = /^[0-9a-f-]{36}\.[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/;

type PageContext = Context<AppEnv>;

const langQuery = (c: PageContext) => {
  const lang = c.req.query('lang');
  return lang === 'de' || lang === 'en' ? `?lang=${lang}` : '';
};

/** The page's language: `?lang=` first, then the offer's own, then the browser's. */
function page(c: PageContext, token: string, offerLocale?: Lang): PageProps {
  const explicit = c.req.query('lang');
  const lang = explicit === 'de' || explicit === 'en' ? explicit : (offerLocale ?? pickLang(c.req.header('Accept-Language'), undefined));
  return { lang, t: TEXTS[lang], path: `/offer/${token}`, query: langQuery(c) };
}

function html(c: PageContext, element: JSX.Element, lang: Lang, status: 200 | 404 | 413 | 415 | 422 | 429 | 500 = 200): Response {
  return new Response(`<!doctype html>${element.toString()}`, {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Language': lang,
      'X-Content-Type-Options': 'nosniff',
      'X-Robots-Tag': 'noindex, nofollow',
      // The page's address is the recipient's credential: no referrer carries it to a link's target.
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    },
  });
}

const toPage = (c: PageContext, token: string, anchor = '') =>
  new Response(null, { status: 303, headers: { Location: `/offer/${token}${langQuery(c)}${anchor}`, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } });

function errorPage(c: PageContext, token: string, err: unknown): Response {
  const p = page(c, token);
  if (err instanceof ApiError && err.status === 404) return html(c, <MessagePage {...p} title={p.t.notFoundTitle} message={p.t.notFound} />, p.lang, 404);
  logError({ requestId: c.get('requestId'), page: 'offer' }, err);
  return html(c, <MessagePage {...p} title={p.t.errorTitle} message={p.t.error} />, p.lang, 500);
}

/**
 * A page under the public rate limit of its client address, like the JSON routes (docs/decisions.md,
 * Rate limits): refused, the visitor gets a page saying when to try again (429, Retry-After).
 */
async function limited(c: PageContext, rule: PublicLimit, answer: () => Promise<Response>): Promise<Response> {
  const decision = await rateDecision(c, rule);
  if (!decision) return answer();
  if (!decision.allowed) {
    const p = page(c, c.req.param('token') ?? '');
    return withRateLimitHeaders(html(c, <MessagePage {...p} title={p.t.rateLimitedTitle} message={p.t.rateLimited(decision.reset)} />, p.lang, 429), decision);
  }
  return withRateLimitHeaders(await answer(), decision);
}

function signState(offer: PublicOffer, form: FormState = emptyForm(), notice: string | null = null): SignState {
  const email = maskEmail(offer.recipient.email);
  return { form, email, codeSentTo: offer.recipient.signingStatus === 'pending' ? email : null, notice };
}

function offerPage(c: PageContext, token: string, offer: PublicOffer, sign: SignState, status: 200 | 422 | 429 = 200): Response {
  const p = page(c, token, offer.locale);
  if (offer.status === 'archived') return html(c, <MessagePage {...p} brand={offer.seller} title={p.t.archivedTitle} message={p.t.archived(offer.number)} />, p.lang);
  return html(c, <OfferPage {...p} offer={offer} token={token} sign={sign} />, p.lang, status);
}

async function readForm(c: PageContext, token: string): Promise<Record<string, string> | Response> {
  const p = page(c, token);
  if (!/^application\/x-www-form-urlencoded\s*(;.*)?$/i.test(c.req.header('Content-Type') ?? '')) {
    return html(c, <MessagePage {...p} title={p.t.errorTitle} message={p.t.error} />, p.lang, 415);
  }
  if (Number(c.req.header('Content-Length') ?? '0') > MAX_FORM_BYTES) return html(c, <MessagePage {...p} title={p.t.errorTitle} message={p.t.error} />, p.lang, 413);
  const body = await c.req.text();
  if (body.length > MAX_FORM_BYTES) return html(c, <MessagePage {...p} title={p.t.errorTitle} message={p.t.error} />, p.lang, 413);
  return parseForm(body);
}

/** The sign form's problems in the page's words, at their fields. */
function signErrors(lang: Lang, values: Record<string, string>, violations: Violation[]): FormState {
  const t = TEXTS[lang];
  const errors: Record<string, string> = {};
  for (const v of violations) {
    if (v.propertyPath === 'code') errors.code = v.code === 'invalid_code' ? t.wrongCode : t.codeFormat;
    else if (v.propertyPath === 'fullName') errors.fullName = t.nameRequired;
    else if (v.propertyPath === 'accept') errors.accept = t.acceptRequired;
  }
  return { values, errors, general: [] };
}

/** What the sign form must hold before the service is asked (the JSON route's schema says the same). */
function signFormViolations(form: Record<string, string>): Violation[] {
  const violations: Violation[] = [];
  if (!/^\d{6}$/.test((form.code ?? '').trim())) violations.push({ propertyPath: 'code', message: 'Must be the 6-digit code from the e-mail.', code: 'invalid_format' });
  const name = (form.fullName ?? '').trim();
  if (name.length < 2 || name.length > 200) violations.push({ propertyPath: 'fullName', message: 'Type your full name.', code: 'required' });
  if (form.accept !== '1') violations.push({ propertyPath: 'accept', message: 'Confirm that you accept the offer.', code: 'required' });
  return violations;
}

export const offerPages = new Hono<AppEnv>();

offerPages.get('/offer-assets/:file', (c) => {
  const m = /^offer\.([0-9a-f]{8})\.css$/.exec(c.req.param('file'));
  if (!m) return c.text('Not found', 404);
  // An old hash still gets today's file, briefly cached, so a page open during a deployment keeps working.
  const current = OFFER_CSS.hash === m[1];
  return new Response(OFFER_CSS.text, {
    headers: { 'Content-Type': OFFER_CSS.type, 'Cache-Control': current ? 'public, max-age=31536000, immutable' : 'public, max-age=60', 'X-Content-Type-Options': 'nosniff' },
  });
});

offerPages.get('/offer/:token', (c) => limited(c, 'public', async () => {
  const token = c.req.param('token');
  if (!TOKEN.test(token)) return errorPage(c, token, ApiError.notFound('Offer'));
  try {
    const offer = await viewOffer(c.env, token, visitorOf(c), new URL(c.req.url).origin);
    return offerPage(c, token, offer, signState(offer));
  } catch (err) {
    return errorPage(c, token, err);
  }
}));

offerPages.post('/offer/:token/code', (c) => limited(c, 'public-create', async () => {
  const token = c.req.param('token');
  if (!TOKEN.test(token)) return errorPage(c, token, ApiError.notFound('Offer'));
  const form = await readForm(c, token);
  if (form instanceof Response) return form;
  try {
    await requestSigningCode(c.env, token, visitorOf(c));
    return toPage(c, token, '#sign');
  } catch (err) {
    if (err instanceof ApiError && err.status === 429) {
      const offer = await viewOffer(c.env, token, visitorOf(c), new URL(c.req.url).origin, { log: false });
      return offerPage(c, token, offer, signState(offer, emptyForm(), TEXTS[page(c, token, offer.locale).lang].tooMany), 429);
    }
    // Not signable (any more): the page shows where the offer stands.
    if (err instanceof ApiError && (err.status === 409 || err.status === 403)) return toPage(c, token);
    return errorPage(c, token, err);
  }
}));

offerPages.post('/offer/:token/sign', (c) => limited(c, 'public', async () => {
  const token = c.req.param('token');
  if (!TOKEN.test(token)) return errorPage(c, token, ApiError.notFound('Offer'));
  const form = await readForm(c, token);
  if (form instanceof Response) return form;
  const values = { fullName: form.fullName ?? '', code: form.code ?? '', accept: form.accept ?? '' };
  try {
    const origin = new URL(c.req.url).origin;
    const problems = signFormViolations(values);
    if (problems.length) {
      const offer = await viewOffer(c.env, token, visitorOf(c), origin, { log: false });
      return offerPage(c, token, offer, signState(offer, signErrors(page(c, token, offer.locale).lang, values, problems)), 422);
    }
    try {
      await signOffer(c.env, token, { code: values.code.trim(), fullName: values.fullName }, visitorOf(c), origin);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 422) throw err;
      const offer = await viewOffer(c.env, token, visitorOf(c), origin, { log: false });
      return offerPage(c, token, offer, signState(offer, signErrors(page(c, token, offer.locale).lang, values, err.violations ?? [])), 422);
    }
    return toPage(c, token);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 409 || err.status === 403)) return toPage(c, token);
    return errorPage(c, token, err);
  }
}));
