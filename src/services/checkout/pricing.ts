// A cart's price: what the first invoice of the subscription the cart would start is, computed by
// the billing planner and composer themselves (planSubscription → priceFor, composeInvoice →
// applyCoupons, resolveTax) from the catalogue snapshot the cart holds. Pure: no D1, no clock of
// its own, so the cart can be priced again after every change without reading the catalogue.
import { BillingError, composeInvoice, type TaxContext } from '../../billing/compose';
import type { CouponInput } from '../../billing/discounts';
import { parseDuration } from '../../billing/durations';
import { formatDecimal, fromMinorUnits, currencyScale } from '../../billing/money';
import { activationSchedule, localDay } from '../../billing/periods';
import { planSubscription, type PlanItem, type PlanPrice } from '../../billing/plan';
import { priceFor } from '../../billing/pricing';
import { resolveTax, TaxRateUnavailableError } from '../../billing/tax';
import { ApiError } from '../../http/errors';
import type { PublicCart } from '../../schemas/checkout';
import { pricingOf } from '../catalogue/price-plans';
import type { CartState } from './state';

const money = (minor: number, currency: string) => formatDecimal(fromMinorUnits(minor, currency), currencyScale(currency));
const decimal = (amount: string, currency: string) => formatDecimal(amount, currencyScale(currency));

function planPrice(item: CartState['items'][number]): PlanPrice {
  const p = item.price;
  return { id: p.id, type: p.type, pricing: pricingOf(p), currencyCode: p.currencyCode, billingInterval: p.billingInterval, payInAdvance: p.payInAdvance, proRata: p.proRata };
}

/** How the buyer is taxed: the address given (else the prefilled or the seller's country), as billing taxes a customer. */
export function cartTaxContext(state: Omit<CartState, 'view'>): TaxContext {
  const a = state.invoiceAddress;
  return {
    sellerCountry: state.sellerCountry,
    payer: {
      countryCode: a?.countryCode ?? state.sellerCountry,
      vatIdValid: a?.vatIdValid ?? false,
      isBusiness: !!(a?.companyName || a?.vatId),
      taxExempt: 'auto',
    },
    productTaxGroups: new Map(state.items.map((i) => [i.productId, i.taxGroupId])),
    taxGroups: new Map(Object.entries(state.taxGroups)),
  };
}

function couponInputs(state: Omit<CartState, 'view'>): CouponInput[] {
  return state.coupon ? [{ ...state.coupon.input, id: 'cart-coupon', appliedIntervals: 0 }] : [];
}

function recurringOf(item: CartState['items'][number], trialDays: number): PublicCart['items'][number]['price']['recurring'] {
  const d = item.price.billingInterval ? parseDuration(item.price.billingInterval) : null;
  if (!d || item.price.type === 'one_time' || item.price.type === 'instant_metered') return null;
  const [interval, intervalCount] =
    d.years && !d.months && !d.weeks && !d.days
      ? (['year', d.years] as const)
      : d.weeks && !d.years && !d.months && !d.days
        ? (['week', d.weeks] as const)
        : d.days && !d.years && !d.months && !d.weeks
          ? (['day', d.days] as const)
          : (['month', d.years * 12 + d.months] as const);
  const amount = item.price.calculationType === 'percentage' ? '0' : priceFor(pricingOf(item.price), String(item.quantity)).amount;
  return { interval, intervalCount: intervalCount || 1, trialPeriodDays: item.price.applyTrial ? trialDays : 0, recurringAmount: decimal(amount, item.price.currencyCode) };
}

/** The price the cart shows and completion charges, at `now` (the tenant's now). */
export function priceCart(state: Omit<CartState, 'view'>, now: Date): Pick<PublicCart, 'price' | 'items'> & { amountDueMinor: number } {
  const currency = state.currency;
  const schedule = activationSchedule({ contractStart: now, trialDays: state.options.trialDays, billingGroup: null, now, timeZone: state.timeZone });
  const items: PlanItem[] = state.items.map((i) => ({
    id: i.id,
    productId: i.productId,
    pricePlanId: i.price.id,
    type: i.price.type === 'one_time' ? 'charge' : 'item',
    status: 'active',
    quantity: String(i.quantity),
    name: i.name,
    billingStart: null,
    startDate: null,
    endDate: null,
    lastBilledTo: null,
    lastBilledAt: null,
  }));
  const lines = planSubscription({
    subscription: {
      id: state.id,
      status: 'active',
      billingAnchor: schedule.billingAnchor.toISOString(),
      pausedAt: null,
      billingResumeAt: null,
      cancellationDate: null,
      trialEndsOn: schedule.trialEndsOn?.toISOString() ?? null,
      activatedAt: now.toISOString(),
      timeZone: state.timeZone,
      billingGroup: null,
      items,
    },
    prices: new Map(state.items.map((i) => [i.price.id, planPrice(i)])),
    changes: [],
    usage: new Map(),
    asOf: now,
  }).lines;
  const tax = cartTaxContext(state);
  let n = 0;
  let composed;
  try {
    composed = composeInvoice({
      currency,
      subscriptions: [{ header: { name: state.planName ?? state.items[0]?.name ?? 'Checkout', description: 'Checkout' }, planId: state.planId, coupons: couponInputs(state), lines }],
      tax,
      rates: new Map(),
      invoiceDay: localDay(now, state.timeZone),
      newId: () => `p${n++}`,
    });
  } catch (err) {
    if (err instanceof BillingError && err.code === 'no_tax_rate') throw ApiError.violation('invoiceAddress.countryCode', `No tax rate is known for this country: ${err.message}`, 'no_tax_rate');
    // Only the quantity makes an amount too large to bill (prices are checked when they are saved).
    if (err instanceof BillingError && err.code === 'amount_out_of_range') throw ApiError.violation('quantity', `Too many: ${err.message}`, 'too_large');
    throw err;
  }
  const totals = composed.totals;
  const taxRateOf = (item: CartState['items'][number]): string => {
    const position = composed.positions.find((p) => p.subscriptionItemId === item.id);
    if (position) return position.taxRate;
    const group = item.taxGroupId ? tax.taxGroups.get(item.taxGroupId) : undefined;
    if (!group) return '0';
    try {
      return resolveTax({
        taxGroup: group,
        sellerCountry: tax.sellerCountry,
        customerCountry: tax.payer.countryCode,
        vatIdValid: tax.payer.vatIdValid,
        isBusiness: tax.payer.isBusiness,
        taxExempt: tax.payer.taxExempt,
        date: schedule.billingAnchor,
        overrides: group.overrides,
      }).rate;
    } catch (err) {
      if (err instanceof TaxRateUnavailableError) return '0';
      throw err;
    }
  };
  return {
    amountDueMinor: totals.grossAmount,
    price: {
      amountDue: money(totals.grossAmount, currency),
      currencyCode: currency,
      netAmount: money(totals.netAmount, currency),
      taxAmount: money(totals.taxAmount, currency),
      taxes: totals.taxBreakdown.map((t) => ({
        netAmount: decimal(t.taxableAmount, currency),
        taxAmount: decimal(t.taxAmount, currency),
        rate: t.rate,
        category: t.category,
        note: composed.positions.find((p) => p.taxCategory === t.category && p.taxRate === t.rate)?.taxNote ?? null,
      })),
      discountDetails:
        state.coupon && totals.discountAmount !== 0 ? [{ code: state.coupon.code, name: state.coupon.name, amount: money(totals.discountAmount, currency) }] : [],
    },
    items: state.items.map((i) => {
      const net = composed.positions.filter((p) => p.subscriptionItemId === i.id).reduce((sum, p) => sum + p.netAmount, 0);
      return {
        id: i.id,
        name: i.name,
        description: i.description,
        quantity: i.quantity,
        quantityDetails: {
          aggregationType: i.aggregationType,
          unit: i.unit,
          description: i.measurementDescription,
          quantityEditable: state.options.quantityEditable,
          minQuantity: i.minQuantity,
          maxQuantity: i.maxQuantity,
        },
        price: {
          currencyCode: currency,
          taxRate: taxRateOf(i),
          totalNetAmount: money(net, currency),
          type: i.price.type,
          calculationType: i.price.calculationType,
          payInAdvance: i.price.payInAdvance,
          price: { amount: i.price.priceAmount },
          recurring: recurringOf(i, state.options.trialDays),
          freeUnits: i.price.freeUnits,
        },
        type: 'product' as const,
        periods: { contractPeriod: i.contractPeriod, cancellationPeriod: i.cancellationPeriod },
      };
    }),
  };
}
