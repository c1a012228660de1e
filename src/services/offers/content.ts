import { Dec, formatDecimal, formatMoney, fromMinorUnits, currencyScale, type WireMoney } from '../../billing/money';
import { priceFor } from '../../billing/pricing';
import type { OfferContent, OfferProspect, OfferSubscriptionDraft } from '../../db/schema/offers';
import type { ServiceContext } from '../context';
import { firstInvoice } from '../billing/estimates';
import { pricingOf } from '../catalogue/price-plans';
import { loadDocumentSettings } from '../documents/settings';
import { Violations } from '../../http/errors';
import { checkNewSubscription, subscriptionAggregate } from '../subscriptions/create';
import type { SubscriptionAggregate } from '../subscriptions/aggregate';
import { renderContactPerson, type OfferAggregate } from './read';

// What an offer says to its reader: its texts and its line items, priced by billing itself (the
// first invoice of its subscription as if it started now, `firstInvoice`), never by a second
// pricing path. Frozen into the offer when signing starts, so every signer reads and signs the
// same content and the signed document shows it (docs/decisions.md, Offers).

export type { OfferContent };

type CustomerRow = SubscriptionAggregate['customer'];

/** A prospect as billing needs a payer: its country (else the seller's), a business when it names a company, never reverse charge. */
function prospectPayer(ctx: ServiceContext, prospect: OfferProspect | null): CustomerRow {
  const now = ctx.now.toISOString();
  return {
    id: '',
    tenantId: ctx.tenant.id,
    customerNumber: '',
    email: '',
    emailKey: '',
    countryCode: prospect?.countryCode ?? ctx.tenant.countryCode,
    timeZone: ctx.tenant.timeZone,
    firstName: null,
    lastName: null,
    currencyCode: null,
    companyName: prospect?.companyName ?? null,
    vatId: null,
    isVatIdValid: false,
    taxExempt: 'auto',
    ledgerId: null,
    commercialRegisterName: null,
    commercialRegisterNumber: null,
    status: 'STATUS_ACTIVE',
    gender: null,
    phone: null,
    language: 'de',
    totalTurnOverRank: null,
    customerGroupId: null,
    contactPersonId: null,
    customFields: null,
    isPartner: false,
    partnerId: null,
    requiresManualInvoiceApproval: null,
    eInvoiceType: null,
    leitwegId: null,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The subscription a prospect's offer will start, held in memory only, for pricing: checked and
 * built as it will be at signing (what no longer passes, a coupon expired since, is left out).
 */
export async function prospectSubscription(ctx: ServiceContext, draft: OfferSubscriptionDraft, prospect: OfferProspect | null): Promise<SubscriptionAggregate> {
  const input = { ...draft, customer: '', paymentMethod: null, invoiceAddress: null };
  const checked = await checkNewSubscription(ctx, input, new Violations(), { prospect: true });
  return subscriptionAggregate(ctx, input, checked, 'offer', draft.number ?? '', prospectPayer(ctx, prospect));
}

const money = (minor: number, currency: string): WireMoney => formatMoney(fromMinorUnits(minor, currency), currency);

/** The subscription's line items and first invoice, priced by billing (`firstInvoice`) as if it started now. */
export async function pricedLineItems(ctx: ServiceContext, agg: SubscriptionAggregate): Promise<Pick<OfferContent, 'offerLineItems' | 'totals' | 'terms'>> {
  const { composed, currency, catalogue, firstBillingDate } = await firstInvoice(ctx, agg);
  const positions = composed?.positions ?? [];
  const offerLineItems = agg.items.map((item) => {
    const price = catalogue.prices.get(item.pricePlanId);
    const own = positions.filter((p) => p.subscriptionItemId === item.id);
    const pricing = price ? pricingOf(price) : null;
    const recurring = price && (price.type === 'recurring') && price.calculationType !== 'percentage' && pricing ? priceFor(pricing, item.quantity).amount : null;
    const unit = price?.calculationType === 'per_unit' || price?.calculationType === 'flat_fee' ? price.priceAmount : null;
    return {
      id: item.id,
      name: item.name,
      description: item.description,
      quantity: new Dec(item.quantity).toString(),
      type: price?.type ?? 'recurring',
      calculationType: price?.calculationType ?? 'flat_fee',
      billingInterval: price?.billingInterval ?? null,
      payInAdvance: price?.payInAdvance ?? true,
      unitPrice: unit === null ? null : formatDecimal(unit, Math.max(currencyScale(currency), new Dec(unit).decimalPlaces())),
      recurringAmount: recurring === null ? null : formatMoney(recurring, currency),
      firstInvoiceAmount: own.length ? money(own.reduce((sum, p) => sum + p.netAmount, 0), currency) : null,
      taxRate: own[0]?.taxRate ?? null,
    };
  });
  const totals = composed?.row;
  return {
    offerLineItems,
    totals: {
      currencyCode: currency,
      netAmount: money(totals?.netAmount ?? 0, currency),
      discountAmount: money(totals?.discountAmount ?? 0, currency),
      taxAmount: money(totals?.taxAmount ?? 0, currency),
      grossAmount: money(totals?.grossAmount ?? 0, currency),
      firstBillingDate: composed ? firstBillingDate.toISOString() : null,
    },
    terms: {
      contractStart: agg.row.contractStart > ctx.now.toISOString() ? agg.row.contractStart : null,
      contractPeriod: agg.row.contractPeriod,
      cancellationPeriod: agg.row.cancellationPeriod,
      trialDays: agg.row.trialDays,
    },
  };
}

/** The offer's content now: frozen once signing started, else its texts and line items as they stand. */
export async function offerContent(ctx: ServiceContext, agg: OfferAggregate): Promise<OfferContent> {
  if (agg.row.content) return agg.row.content;
  return liveContent(ctx, agg);
}

/** The content computed from the offer and its subscription as they are now (what `content` freezes). */
export async function liveContent(ctx: ServiceContext, agg: OfferAggregate): Promise<OfferContent> {
  const r = agg.row;
  const subscription = agg.subscription ?? (r.subscriptionDraft ? await prospectSubscription(ctx, r.subscriptionDraft, r.prospect) : null);
  const priced = subscription ? await pricedLineItems(ctx, subscription) : { offerLineItems: [], totals: null, terms: null };
  return {
    number: r.number,
    name: r.name,
    contactPerson: renderContactPerson(agg.contactPerson),
    description: r.description,
    sections: r.sections,
    ...priced,
    locale: r.locale,
    seller: await sellerName(ctx),
    pricedAt: ctx.now.toISOString(),
  };
}

/** The seller as offers name it: the letterhead's name, else the tenant's. */
export async function sellerName(ctx: ServiceContext): Promise<string> {
  return (await loadDocumentSettings(ctx.db, ctx.tenant.id)).seller.name ?? ctx.tenant.name;
}
