// What the next invoice of a subscription would be, through the same planner and composer as
// billing: nothing is stored.
import { BillingError } from '../../billing/compose';
import { Dec, formatDisplayAmount, formatMoney, fromMinorUnits, type WireMoney } from '../../billing/money';
import { activationSchedule } from '../../billing/periods';
import { ApiError } from '../../http/errors';
import type { EstimatedAmount } from '../../schemas/subscriptions';
import type { ServiceContext } from '../context';
import type { InvoiceAggregate } from '../invoices/render';
import { at } from '../context';
import { customerTimeZone, loadSubscription, renderSubscription, type SubscriptionAggregate } from '../subscriptions/aggregate';
import { composeDue, composePlanned } from './compose';
import { loadCatalogue, pendingChanges, planWithUsage, toPlanPrice, toPlanSubscription } from './inputs';

/**
 * The subscription's next invoice as billing would compose it at its next billing date (usage as
 * measured so far). Nothing is stored.
 */
export async function estimatedInvoice(ctx: ServiceContext, subscriptionId: string) {
  return (await unlessUnbillable(() => nextInvoice(ctx, subscriptionId)))?.resource ?? null;
}

/** The same estimate as a document to render (a PDF preview). */
export async function estimatedInvoiceDocument(ctx: ServiceContext, subscriptionId: string): Promise<InvoiceAggregate | null> {
  const composed = await unlessUnbillable(() => nextInvoice(ctx, subscriptionId));
  return composed && { row: composed.row, embeds: composed.embeds, positions: composed.positions, customer: composed.payer };
}

/**
 * What cannot be billed cannot be estimated either: 409 with the reason billing would give
 * (a missing rate, an amount beyond a line's bound) rather than a 500.
 */
async function unlessUnbillable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof BillingError) throw ApiError.conflict(`The subscription cannot be billed as it stands: ${err.message}`, 'not-billable');
    throw err;
  }
}

async function nextInvoice(ctx: ServiceContext, subscriptionId: string) {
  const agg = await loadSubscription(ctx, subscriptionId);
  const next = renderSubscription(agg, ctx.now).nextBillingDate;
  const when = next && new Date(next) > ctx.now ? new Date(next) : ctx.now;
  const composed = await composeDue(at(ctx, when), subscriptionId, when, null);
  return composed && !composed.skipOnly ? composed : null;
}

/**
 * A draft as it would be if activated now (docs/decisions.md, estimates): its contract start, trial
 * and billing-group day give the first billing date; items with a later start wait.
 */
function asIfActivated(agg: SubscriptionAggregate, now: Date): SubscriptionAggregate {
  const schedule = activationSchedule({
    contractStart: new Date(agg.row.contractStart),
    trialDays: agg.row.trialDays,
    billingGroup: agg.billingGroup,
    now,
    timeZone: customerTimeZone(agg),
  });
  const iso = now.toISOString();
  return {
    ...agg,
    row: {
      ...agg.row,
      status: 'active',
      activatedAt: iso,
      contractStart: schedule.contractStart.toISOString(),
      trialEndsOn: schedule.trialEndsOn?.toISOString() ?? null,
      billingAnchor: schedule.billingAnchor.toISOString(),
    },
    items: agg.items.map((i) => (i.startDate && i.startDate > iso ? i : { ...i, status: 'active', activatedAt: iso })),
  };
}

/**
 * The net amount of a subscription's next invoice, tax not included. A live subscription: the
 * estimated invoice's net. A draft: its first invoice as if activated now, in the currency of its
 * price plans (a draft is priced, not yet converted).
 */
export function estimatedAmount(ctx: ServiceContext, id: string): Promise<EstimatedAmount> {
  return unlessUnbillable(() => nextAmount(ctx, id));
}

async function nextAmount(ctx: ServiceContext, id: string): Promise<EstimatedAmount> {
  const agg = await loadSubscription(ctx, id);
  if (agg.row.billingAnchor) {
    const invoice = await nextInvoice(ctx, id);
    const currency = agg.customer.currencyCode ?? ctx.tenant.defaultCurrency;
    return withDisplay(invoice ? invoice.resource.netAmount : formatMoney(new Dec(0), currency));
  }
  const { composed, currency } = await firstInvoice(ctx, agg);
  const net = composed ? composed.row.netAmount : 0;
  return withDisplay(formatMoney(fromMinorUnits(net, currency), currency));
}

/**
 * The first invoice of a subscription not yet started (a draft, an offer's subscription, a
 * prospect's), as billing would compose it at its first billing date if activated now, in the
 * currency of its price plans. Nothing is stored. Offers price their line items with it.
 */
export async function firstInvoice(ctx: ServiceContext, agg: SubscriptionAggregate) {
  const draft = asIfActivated(agg, ctx.now);
  const asOf = new Date(draft.row.billingAnchor!);
  const items = draft.items;
  const catalogue = await loadCatalogue(ctx, [...new Set(items.map((i) => i.pricePlanId))], [...new Set(items.map((i) => i.productId))]);
  const currency = [...catalogue.prices.values()][0]?.currencyCode ?? agg.customer.currencyCode ?? ctx.tenant.defaultCurrency;
  const prices = new Map([...catalogue.prices].map(([pid, p]) => [pid, toPlanPrice(p)]));
  const lines = await planWithUsage(ctx, { subscription: toPlanSubscription(draft), prices, changes: await pendingChanges(ctx, draft, asOf), asOf });
  const composed = await unlessUnbillable(() =>
    composePlanned(at(ctx, asOf > ctx.now ? asOf : ctx.now), lines.length ? [{ agg: draft, lines }] : [], catalogue.products, null, undefined, { currency }),
  );
  return { composed: composed && !composed.skipOnly ? composed : null, currency, catalogue, firstBillingDate: asOf };
}

const withDisplay = (m: WireMoney): EstimatedAmount => ({ ...m, netAmount: formatDisplayAmount(m.amount, m.currencyCode) });
