// The invoice composer: planned lines → positions. Item price → coupon discount → tax, converted to
// the invoice currency at the ECB rate of the invoice date. Pure: rates, tax groups and coupons come
// in preloaded; ids come from the caller.
import { applyCoupons, type CouponInput } from './discounts';
import { lineNet, positionTotals } from './invoice-totals';
import { Dec, exceedsLineAmount, fromMinorUnits, maxLineAmount, MAX_UNIT_PRICE_DECIMALS, toMinorUnitsSafe, withinDocumentLimit } from './money';
import type { PlannedLine } from './plan';
import { resolveTax, TaxRateUnavailableError, type ReverseChargeType, type TaxGroupType, type TaxRateOverride } from './tax';

export const BILLING_ERROR_CODES = ['no_exchange_rate', 'no_tax_rate', 'amount_out_of_range', 'concurrent_billing'] as const;
export type BillingErrorCode = (typeof BILLING_ERROR_CODES)[number];

/**
 * Why what is due cannot be billed as the data stands (no rate for the invoice day, no tax rate, an
 * amount beyond what a line may bill): the tenant is told (the subscription's lastBillingError, the
 * event subscription.billing_failed) and the next run tries again.
 */
export class BillingError extends Error {
  constructor(
    readonly code: BillingErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BillingError';
  }
}

/** One subscription's part of an invoice: its lines under a header with its name. */
export interface ComposeSubscription {
  header: { name: string; description: string };
  planId: string | null;
  /** The subscription's active coupons, as `applyCoupons` takes them. */
  coupons: CouponInput[];
  lines: PlannedLine[];
}

export interface TaxGroupInput {
  type: TaxGroupType;
  reverseChargeType: ReverseChargeType;
  /** The tenant's own rates for the group (they override the EU table). */
  overrides: readonly TaxRateOverride[];
}

/** Who is taxed how: the seller's country, the payer, and each product's tax group. */
export interface TaxContext {
  sellerCountry: string;
  payer: { countryCode: string; vatIdValid: boolean; isBusiness: boolean; taxExempt: 'auto' | 'exempt' };
  /** A product's tax group id; a product without one is billed tax-exempt (E, 0 %). */
  productTaxGroups: ReadonlyMap<string, string | null>;
  taxGroups: ReadonlyMap<string, TaxGroupInput>;
}

/** An ECB reference rate (1 EUR = `rate` units) and the day it was published. */
export interface RateOnDay {
  rate: string;
  date: string;
}

export interface ComposeInput {
  currency: string;
  subscriptions: ComposeSubscription[];
  tax: TaxContext;
  /** The rate in force on the invoice day of the invoice currency and of every other line currency (`currenciesToConvert`). */
  rates: ReadonlyMap<string, RateOnDay>;
  /** The invoice date (the tenant's calendar day), for messages. */
  invoiceDay: string;
  newId: () => string;
}

export interface ComposedPosition {
  id: string;
  parentId: string | null;
  sort: number;
  name: string;
  description: string | null;
  quantity: string;
  unitPrice: string;
  /** Minor units of the invoice currency. */
  discountAmount: number;
  netAmount: number;
  taxRate: string;
  taxCategory: string;
  taxNote: string | null;
  serviceFrom: string | null;
  serviceTo: string | null;
  kind: string;
  productId: string | null;
  subscriptionItemId: string | null;
}

export type AppliedExchangeRate = {
  sourceCurrencyCode: string;
  destinationCurrencyCode: string;
  exchangeRate: string;
  exchangeRateDate: string | undefined;
};

export interface ComposedInvoice {
  /** More credit than charge (a large downgrade) makes a credit note. */
  type: 'TYPE_INVOICE' | 'TYPE_CREDIT';
  currency: string;
  positions: ComposedPosition[];
  totals: ReturnType<typeof positionTotals>;
  exchangeRates: AppliedExchangeRate[];
  /** Applied-discount ids whose coupon took effect (their interval count moves on). */
  appliedCoupons: string[];
}

/** The currencies whose rates composing needs: the invoice's and those of lines priced in another. */
export function currenciesToConvert(currency: string, lines: readonly Pick<PlannedLine, 'currencyCode'>[]): string[] {
  const others = [...new Set(lines.map((l) => l.currencyCode))].filter((c) => c !== currency);
  return others.length ? [currency, ...others] : [];
}

const iso = (d: Date) => d.toISOString();

export function composeInvoice(input: ComposeInput): ComposedInvoice {
  const { currency } = input;
  const exchangeRates: AppliedExchangeRate[] = [];
  const convert = (amount: string, from: string): string => {
    if (from === currency) return amount;
    const fromRate = input.rates.get(from);
    const toRate = input.rates.get(currency);
    if (!fromRate || !toRate) throw new BillingError('no_exchange_rate', `No ECB rate for ${from}/${currency} on ${input.invoiceDay}.`);
    const rate = new Dec(toRate.rate).div(fromRate.rate);
    if (!exchangeRates.some((r) => r.sourceCurrencyCode === from)) {
      // The date of the ECB publication used (the euro side has none of its own).
      const published = [from === 'EUR' ? null : fromRate.date, currency === 'EUR' ? null : toRate.date].filter((d): d is string => d !== null).sort();
      exchangeRates.push({ sourceCurrencyCode: from, destinationCurrencyCode: currency, exchangeRate: rate.toDecimalPlaces(10).toString(), exchangeRateDate: published[published.length - 1] });
    }
    // A unit price carries at most 10 decimals (docs/decisions.md, Foundations); a rate of division
    // (1200 USD at 1.0850) does not end, so the converted price is rounded there, half-up.
    return new Dec(amount).times(rate).toDecimalPlaces(MAX_UNIT_PRICE_DECIMALS, Dec.ROUND_HALF_UP).toString();
  };

  const positions: ComposedPosition[] = [];
  const appliedCoupons: string[] = [];
  for (const sub of input.subscriptions) {
    const own = sub.lines.filter((l) => l.kind !== 'skipped');
    if (own.length === 0) continue;
    // Item price → coupon discount → tax: each subscription's coupons on its converted lines.
    const priced = own.map((l) => ({ l, id: input.newId(), amount: convert(l.amount, l.currencyCode) }));
    // Before anything computes with it: an amount beyond a line's bound (stored before the bounds,
    // converted into a currency of many more units) cannot be billed.
    for (const p of priced) {
      if (exceedsLineAmount(p.amount, currency)) {
        throw new BillingError('amount_out_of_range', `${p.l.description}: ${p.amount} ${currency} exceeds the largest amount a line may bill (${maxLineAmount(currency).toString()} ${currency}).`);
      }
    }
    const discounts = applyCoupons(
      priced.map((p) => ({
        id: p.id,
        productId: p.l.productId,
        planId: sub.planId ?? undefined,
        net: p.l.factor ? new Dec(p.amount).times(p.l.factor.usedDays).div(p.l.factor.periodDays).toString() : p.amount,
      })),
      sub.coupons,
      currency,
    );
    appliedCoupons.push(...discounts.coupons.filter((x) => x.applied).map((x) => x.id));
    const discountOf = new Map(discounts.lines.map((x) => [x.id, x.discount]));
    const header: ComposedPosition = {
      id: input.newId(),
      parentId: null,
      sort: positions.length,
      name: sub.header.name,
      description: sub.header.description,
      quantity: '0',
      unitPrice: '0',
      discountAmount: 0,
      netAmount: 0,
      taxRate: '0',
      taxCategory: 'O',
      taxNote: null,
      serviceFrom: null,
      serviceTo: null,
      kind: 'header',
      productId: null,
      subscriptionItemId: null,
    };
    positions.push(header);
    for (const p of priced) {
      const tax = taxOf(input.tax, p.l);
      // The position shows quantity × unit price; its net comes from the exact amount, rounded once.
      const unitPrice = new Dec(p.l.quantity).isZero() ? new Dec(0) : new Dec(p.amount).div(p.l.quantity);
      const exact = lineNet({ quantity: '1', unitPrice: p.amount, discount: discountOf.get(p.id), factor: p.l.factor ?? undefined }, currency);
      positions.push({
        id: p.id,
        parentId: header.id,
        sort: positions.length,
        name: p.l.description,
        description: p.l.factor ? `${p.l.factor.usedDays}/${p.l.factor.periodDays} days` : p.l.kind === 'usage' ? 'Usage' : null,
        quantity: p.l.quantity,
        unitPrice: unitPrice.toDecimalPlaces(10).toString(),
        discountAmount: toMinorUnitsSafe(exact.discount, currency),
        netAmount: toMinorUnitsSafe(exact.net, currency),
        taxRate: tax.rate,
        taxCategory: tax.category,
        taxNote: tax.legalNote,
        serviceFrom: iso(p.l.periodStart),
        serviceTo: p.l.periodEnd ? iso(p.l.periodEnd) : null,
        kind: p.l.kind,
        productId: p.l.productId,
        subscriptionItemId: p.l.itemId,
      });
    }
  }
  const totals = invoiceTotalsOf(positions, currency);
  return { type: totals.grossAmount < 0 ? 'TYPE_CREDIT' : 'TYPE_INVOICE', currency, positions, totals, exchangeRates, appliedCoupons };
}

/**
 * Totals in minor units. Lines that each fit can still add up beyond what a document may hold: the
 * same bound as for invoices written through the API (`documentAmountLimit`, docs/decisions.md,
 * Invoices and billing), so billing never stores a document the API would refuse.
 */
function invoiceTotalsOf(positions: ComposedPosition[], currency: string) {
  const tooLarge = () => new BillingError('amount_out_of_range', `The invoice total exceeds the largest amount an invoice can hold in ${currency}.`);
  let totals: ReturnType<typeof positionTotals>;
  try {
    totals = positionTotals(positions, currency);
  } catch (err) {
    if (!(err instanceof RangeError) || !/safe.integer/.test(err.message)) throw err;
    throw tooLarge();
  }
  for (const minor of [totals.netAmount, totals.grossAmount, totals.discountAmount]) {
    if (!withinDocumentLimit(fromMinorUnits(minor, currency), currency)) throw tooLarge();
  }
  return totals;
}

/** The tax of a line for the payer, at the start of its service period. */
function taxOf(ctx: TaxContext, l: PlannedLine): { rate: string; category: string; legalNote: string | null } {
  const groupId = ctx.productTaxGroups.get(l.productId);
  const group = groupId ? ctx.taxGroups.get(groupId) : undefined;
  if (!group) return { rate: '0', category: 'E', legalNote: null };
  try {
    return resolveTax({
      taxGroup: { type: group.type, reverseChargeType: group.reverseChargeType },
      sellerCountry: ctx.sellerCountry,
      customerCountry: ctx.payer.countryCode,
      vatIdValid: ctx.payer.vatIdValid,
      isBusiness: ctx.payer.isBusiness,
      taxExempt: ctx.payer.taxExempt,
      date: l.periodStart,
      overrides: group.overrides,
    });
  } catch (err) {
    if (!(err instanceof TaxRateUnavailableError)) throw err;
    throw new BillingError('no_tax_rate', `No tax rate for ${err.country}.`);
  }
}
