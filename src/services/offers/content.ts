import { Dec, formatDecimal, formatMoney, fromMinorUnits, currencyScale, type WireMoney } from '../../billing/money';
import { priceFor } from '../../billing/pricing';
import { billingGroups, coupons, plans, pricePlans, products } from '../../db/schema';
import { and, eq, inArray } from 'drizzle-orm';
import type { OfferContent, OfferProspect, OfferSubscriptionDraft } from '../../db/schema/offers';
import type { ServiceContext } from '../context';
import { firstInvoice } from '../billing/estimates';
import { pricingOf } from '../catalogue/price-plans';
import { loadDocumentSettings } from '../documents/settings';
import { itemRow, withPrice } from '../subscriptions/create';
import type { SubscriptionAggregate, SubscriptionRow } from '../subscriptions/aggregate';
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

/** The subscription a prospect's offer will start, held in memory only, for pricing. */
export async function prospectSubscription(ctx: ServiceContext, draft: OfferSubscriptionDraft, prospect: OfferProspect | null): Promise<SubscriptionAggregate> {
  const t = ctx.tenant.id;
  const productIds = [...new Set(draft.items.map((i) => i.product))];
  const priceIds = [...new Set(draft.items.map((i) => i.pricePlan))];
  const [productRows, priceRows, planRows, groupRows, couponRows] = await ctx.db.batch([
    ctx.db.select().from(products).where(and(eq(products.tenantId, t), inArray(products.id, productIds.length ? productIds : ['']))),
    ctx.db.select().from(pricePlans).where(and(eq(pricePlans.tenantId, t), inArray(pricePlans.id, priceIds.length ? priceIds : ['']))),
    ctx.db.select().from(plans).where(and(eq(plans.tenantId, t), eq(plans.id, draft.plan ?? ''))),
    ctx.db.select().from(billingGroups).where(and(eq(billingGroups.tenantId, t), eq(billingGroups.id, draft.billingGroup ?? ''))),
    ctx.db.select().from(coupons).where(and(eq(coupons.tenantId, t), inArray(coupons.code, draft.coupons.length ? draft.coupons : ['']))),
  ]);
  const catalogue = { products: new Map(productRows.map((p) => [p.id, p])), prices: new Map(priceRows.map((p) => [p.id, p])) };
  const now = ctx.now.toISOString();
  const id = 'prospect';
  const row: SubscriptionRow = {
    id,
    tenantId: t,
    number: draft.number ?? '',
    externalId: draft.externalId,
    name: draft.name ?? planRows[0]?.name ?? '',
    customerId: '',
    planId: draft.plan,
    status: 'offer',
    billingGroupId: draft.billingGroup,
    paymentMethodId: null,
    invoiceAddressId: null,
    poNumber: draft.poNumber,
    contractStart: draft.contractStart ?? now,
    contractPeriod: draft.contractPeriod ?? planRows[0]?.contractPeriod ?? null,
    cancellationPeriod: draft.cancellationPeriod ?? planRows[0]?.cancellationPeriod ?? null,
    contractPeriodCount: 1,
    billingAnchor: null,
    billingResumeAt: null,
    trialDays: draft.trialDays,
    trialEndsOn: null,
    trialExpiredAt: null,
    activatedAt: null,
    pausedAt: null,
    lastBillingAt: null,
    cancellationDate: null,
    cancelledAt: null,
    cancellationReasonId: null,
    cancellationReasonText: null,
    terminatedAt: null,
    lastBillingErrorAt: null,
    lastBillingErrorCode: null,
    lastBillingErrorMessage: null,
    customFields: draft.customFields,
    createdAt: now,
    updatedAt: now,
  };
  // Item ids in the order given, so the line items keep it.
  const items = draft.items.map((i, k) => ({ ...withPrice(itemRow(ctx, id, i, catalogue.products.get(i.product), catalogue.prices.get(i.pricePlan)), catalogue), id: `item-${k + 1}` }));
  return {
    row,
    customer: prospectPayer(ctx, prospect),
    partner: null,
    plan: planRows[0] ?? null,
    billingGroup: groupRows[0] ?? null,
    paymentMethod: null,
    invoiceAddress: null,
    reason: null,
    items,
    discounts: couponRows.map((c) => ({ d: { id: `coupon-${c.id}`, tenantId: t, subscriptionId: id, couponId: c.id, status: 'active' as const, appliedIntervals: 0, createdAt: now }, c })),
  };
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
