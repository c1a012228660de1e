// What the offer tests share: a catalogue to sell (seats at 10.00 EUR a month and a one-time setup
// fee, 19 % VAT in DE), offers made through the API, and the recipient's side (links, codes from the
// mail outbox).
import { expect } from 'vitest';
import { api, expectStatus, get, post, query, type ApiResponse, type TestTenant } from '../support/api';
import { created, ok } from '../support/builders';

async function make(t: TestTenant, path: string, body: unknown) {
  return created(post(t, path, body));
}

export interface OfferCatalogue {
  seats: { product: any; price: any };
  setup: { product: any; price: any };
}

export async function offerCatalogue(t: TestTenant): Promise<OfferCatalogue> {
  const fam = await make(t, '/product-families', { name: 'Software' });
  const unit = await make(t, '/units', { name: 'Seat', code: 'seat' });
  const seatsM = await make(t, '/measurements', { unit: unit.id, code: 'seats', aggregationType: 'last_value', type: 'recurring' });
  const tg = await make(t, '/tax-groups', { type: 'standard' });
  const seatsP = await make(t, '/catalogue/products', { name: 'Team seats', type: 'product', productFamilies: [fam.id], measurement: seatsM.id, taxGroup: tg.id });
  const seatsPrice = await make(t, '/price-plans', { product: seatsP.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '10.00' }, billingInterval: '1M' });
  const setupP = await make(t, '/catalogue/products', { name: 'Onboarding', type: 'charge', productFamilies: [fam.id], measurement: seatsM.id, taxGroup: tg.id });
  const setupPrice = await make(t, '/price-plans', { product: setupP.id, calculationType: 'flat_fee', currencyCode: 'EUR', price: { amount: '250.00' } });
  return { seats: { product: seatsP, price: seatsPrice }, setup: { product: setupP, price: setupPrice } };
}

/** The subscription body an offer sells: 5 seats and the onboarding fee. */
export const offerSubscription = (c: OfferCatalogue, extra: Record<string, unknown> = {}) => ({
  items: [
    { product: c.seats.product.id, pricePlan: c.seats.price.id, quantity: '5' },
    { product: c.setup.product.id, pricePlan: c.setup.price.id, quantity: '1' },
  ],
  ...extra,
});

export const createOffer = (t: TestTenant, body: Record<string, unknown>): Promise<ApiResponse> => post(t, '/offers', body);

export async function addRecipient(t: TestTenant, offerId: string, body: Record<string, unknown>) {
  return created(post(t, `/offers/${offerId}/recipients`, body));
}

/** The recipient's link token, as GET /offers/{id} shows it. */
export async function linkOf(t: TestTenant, offerId: string, email: string): Promise<string> {
  const offer = await ok(get(t, `/offers/${offerId}`));
  const r = offer.recipients.find((x: any) => x.email === email);
  expect(r, `recipient ${email}`).toBeDefined();
  expect(r.link).toMatch(/^http:\/\/billing\.test\/offer\/[0-9a-f-]{36}\.[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
  return r.link.slice(r.link.lastIndexOf('/') + 1);
}

/** Mails the local mail interface recorded for an address, oldest first. */
export async function mailsTo(t: TestTenant, to: string) {
  return query<{ subject: string; body: string }>(t, 'SELECT subject, body FROM outgoing_mails WHERE tenant_id = ? AND "to" = ? ORDER BY created_at, rowid', t.id, to);
}

/** The last signing code mailed to an address. */
export async function lastCode(t: TestTenant, to: string): Promise<string> {
  const mails = await mailsTo(t, to);
  const code = /(?:lautet|is) (\d{6})\./.exec(mails.at(-1)?.body ?? '')?.[1];
  expect(code, `a code mailed to ${to}`).toBeDefined();
  return code!;
}

/** The browser a test signs from. Its address is new for each test (newVisitorAddress): public routes are rate limited per address. */
export const visitor = { 'CF-Connecting-IP': '203.0.113.7', 'User-Agent': 'OfferTest/1.0' };
let visitors = 0;
export function newVisitorAddress() {
  visitors++;
  visitor['CF-Connecting-IP'] = `203.0.${113 + (visitors >> 8)}.${visitors & 255}`;
}
export const publicGet = (token: string) => api(`/public/offers/${token}`, { headers: visitor });
export const requestCode = (token: string) => api(`/public/offers/${token}/signing-code`, { method: 'POST', headers: visitor });
export const sign = (token: string, body: Record<string, unknown>) => api(`/public/offers/${token}/sign`, { method: 'POST', body, headers: visitor });

/** A signer signs: asks for a code, reads it from the mail outbox, signs with it. */
export async function signAs(t: TestTenant, token: string, email: string, fullName: string) {
  expectStatus(await requestCode(token), 200);
  const res = await sign(token, { code: await lastCode(t, email), fullName, accept: true });
  expectStatus(res, 200);
  return res.body;
}
