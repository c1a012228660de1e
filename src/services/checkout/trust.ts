// What a buyer needs to know whom they buy from and what they agree to (docs/decisions.md, Hosted
// checkout page): the seller as the tenant's letterhead names it, the pages of its own site (terms,
// privacy, withdrawal, imprint), and what recurs after the first invoice.
import { Dec, formatDecimal, currencyScale, roundMoney } from '../../billing/money';
import type { PublicCart } from '../../schemas/checkout';
import type { ServiceContext } from '../context';
import { loadDocumentSettings } from '../documents/settings';
import { loadSettings } from '../platform/settings';

/** The seller as the cart keeps it from when it was opened (a later letterhead edit does not move an open cart). */
export interface CartSellerState {
  name: string;
  address: string[];
  countryCode: string;
  hasLogo: boolean;
  termsUrl: string | null;
  privacyUrl: string | null;
  withdrawalUrl: string | null;
  imprintUrl: string | null;
}

/** The seller from the tenant's letterhead (its name falls back to the tenant's) and its checkout settings. */
export async function sellerOf(ctx: ServiceContext): Promise<CartSellerState> {
  const [letterhead, settings] = await Promise.all([loadDocumentSettings(ctx.db, ctx.tenant.id), loadSettings(ctx.db, ctx.tenant.id)]);
  const s = letterhead.seller;
  const place = [s.zip, s.city].filter(Boolean).join(' ');
  return {
    name: s.tradingName || s.name || ctx.tenant.name,
    address: [s.street, s.addition, place].filter((line): line is string => !!line),
    countryCode: ctx.tenant.countryCode,
    hasLogo: letterhead.logoMediaId !== null,
    termsUrl: settings['checkout.termsUrl'],
    privacyUrl: settings['checkout.privacyUrl'],
    withdrawalUrl: settings['checkout.withdrawalUrl'],
    imprintUrl: settings['checkout.imprintUrl'],
  };
}

/** The public view of the seller; the logo is served from the cart's page (same origin, so the page's CSP allows it). */
export function sellerView(cartId: string, seller: CartSellerState | null | undefined): PublicCart['seller'] {
  if (!seller) return null;
  const { hasLogo, ...rest } = seller;
  return { ...rest, logoUrl: hasLogo ? `/checkout/cart/${encodeURIComponent(cartId)}/logo` : null };
}

/**
 * What recurs: the items that renew with the first recurring item's interval, their amount per
 * interval net and with the tax of today's rates (a rate's tax rounded once, as an invoice does),
 * and the subscription's minimum term and notice period. Null when nothing recurs.
 */
export function renewalOf(items: PublicCart['items'], currency: string, periods: { contractPeriod: string | null; cancellationPeriod: string | null }): PublicCart['renewal'] {
  const first = items.find((i) => i.price.recurring)?.price.recurring;
  if (!first) return null;
  const same = items.filter((i) => i.price.recurring && i.price.recurring.interval === first.interval && i.price.recurring.intervalCount === first.intervalCount);
  const byRate = new Map<string, Dec>();
  for (const i of same) byRate.set(i.price.taxRate, (byRate.get(i.price.taxRate) ?? new Dec(0)).plus(i.price.recurring!.recurringAmount));
  let net = new Dec(0);
  let gross = new Dec(0);
  for (const [rate, amount] of byRate) {
    const netOfRate = roundMoney(amount, currency);
    net = net.plus(netOfRate);
    gross = gross.plus(netOfRate).plus(roundMoney(netOfRate.times(rate).div(100), currency));
  }
  const scale = currencyScale(currency);
  return {
    interval: first.interval,
    intervalCount: first.intervalCount,
    amount: formatDecimal(gross, scale),
    netAmount: formatDecimal(net, scale),
    currencyCode: currency,
    contractPeriod: periods.contractPeriod,
    cancellationPeriod: periods.cancellationPeriod,
  };
}
