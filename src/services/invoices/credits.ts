import { and, eq, inArray, sql } from 'drizzle-orm';
import { creditableAmount, positionTotals, type TaxBreakdown } from '../../billing/invoice-totals';
import { Dec, formatMoney, fromMinorUnits, toMinorUnitsSafe } from '../../billing/money';
import { invoices } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { newId } from '../../lib/ids';
import { buildPositions, checkedTotals } from './build-positions';
import { finalizeInvoice } from './finalize';
import { creditNoteTitle } from './reversal-titles';
import { requireCustomerPaymentMethod } from '../customers/payment-methods';
import { money, requireStatus } from './operations';
import { isOpen } from './status';
import type { PositionItem } from './position-input';
import { loadInvoice } from './read';
import { type InvoiceAggregate, type InvoiceRow, type PositionRow } from './render';
import { issueReversal, reversed } from './reversals';
import { commitInvoiceChange } from './write';
import { owedOf } from './owed';
import type { EventType } from '../../events/catalogue';
import { settleDunningStatements } from '../dunning/documents';
import { cartPaidStatements } from '../checkout/paid-later';

/** Fynn's credit reasons, with the words the credit note's title shows for them. */
export const CREDIT_REASONS: Record<string, string | null> = {
  duplicate: 'duplicate invoice',
  incorrect: 'incorrect invoice',
  product_unsatisfactory: 'product unsatisfactory',
  order_change: 'order changed',
  other: null,
};

/** A line to credit: a new line (positive amounts), or a position of the invoice (all of it, or `quantity` of it). */
export type CreditPosition = { line: Omit<PositionItem, 'children' | 'parent'> } | { ref: { id: string; quantity: string | null } };

export interface CreditInput {
  /** Null or empty: everything not yet credited. */
  positions: CreditPosition[] | null;
  /** One of Fynn's reason codes (`CREDIT_REASONS`) or free text. */
  reason: string | null;
  comment: string | null;
  paymentMethod: string | null;
  customIntroduction: string | null;
  customClosing: string | null;
}

export const groupKey = (category: string, rate: string) => `${category}|${new Dec(rate).toString()}`;

/** Σ taxable amount (minor units) per tax group of the given breakdowns. */
export function taxableByGroup(breakdowns: readonly (readonly TaxBreakdown[])[], currency: string) {
  const out = new Map<string, number>();
  for (const t of breakdowns.flat()) out.set(groupKey(t.category, t.rate), (out.get(groupKey(t.category, t.rate)) ?? 0) + toMinorUnitsSafe(t.taxableAmount, currency));
  return out;
}

/** The finalized credit notes and refund documents of an invoice: their gross (a magnitude) and tax groups. */
export async function earlierCredits(ctx: ServiceContext, id: string) {
  const rows = await ctx.db
    .select({ gross: invoices.grossAmount, taxes: invoices.taxBreakdown })
    .from(invoices)
    .where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.referencedInvoiceId, id), inArray(invoices.type, ['TYPE_CREDIT', 'TYPE_REFUND']), sql`${invoices.status} <> 'STATUS_DRAFT'`));
  return { gross: rows.reduce((sum, r) => sum + Math.abs(r.gross), 0), taxes: rows.map((r) => r.taxes ?? []) };
}

/** A part of a position: its net and discount scaled by quantity, each rounded once (half-up), negated. */
function creditOfPosition(ctx: ServiceContext, creditId: string, p: PositionRow, quantity: Dec): PositionRow {
  const whole = new Dec(p.quantity).abs();
  const [full] = reversed(ctx, creditId, [{ ...p, parentId: null }]);
  if (quantity.eq(whole)) return full!;
  const part = (minor: number) => -new Dec(minor).times(quantity).div(whole).toDecimalPlaces(0, Dec.ROUND_HALF_UP).toNumber();
  return { ...full!, quantity: quantity.times(new Dec(p.quantity).isNegative() ? 1 : -1).toString(), netAmount: part(p.netAmount), discountAmount: part(p.discountAmount) };
}

/**
 * What is left to credit, per tax group: the invoice's taxable amount minus what credit notes
 * credited in that group, as one line per group (docs/decisions.md, Invoices and billing, "Credit notes").
 */
export function restOf(ctx: ServiceContext, creditId: string, original: InvoiceAggregate, left: Map<string, number>): PositionRow[] {
  const lines = original.positions.filter((p) => p.kind !== 'header');
  return [...left.entries()]
    .filter(([, rest]) => rest !== 0)
    .map(([key, rest], i) => {
      const source = lines.find((p) => groupKey(p.taxCategory, p.taxRate) === key)!;
      return {
        ...reversed(ctx, creditId, [{ ...source, parentId: null }])[0]!,
        sort: i,
        name: `Remaining amount of ${original.row.number} (${source.taxRate} %)`,
        description: null,
        quantity: '-1',
        unitPrice: formatMoney(fromMinorUnits(rest, original.row.currencyCode), original.row.currencyCode).amount,
        discountAmount: 0,
        discountPercentage: null,
        netAmount: -rest,
        unit: null,
        taxGroup: null,
        tax: null,
        serviceFrom: null,
        serviceTo: null,
        productId: null,
        subscriptionItemId: null,
        kind: 'credit',
      };
    });
}

/**
 * A credit note (TYPE_CREDIT) against a finalized invoice: the given lines (positive amounts, at a
 * tax rate of the invoice), positions of the invoice, or everything not yet credited. Per tax group
 * never more than the invoice charged, in all never more than its gross.
 */
export async function creditInvoice(ctx: ServiceContext, id: string, input: CreditInput) {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, ['STATUS_UNPAID', 'STATUS_REMINDED', 'STATUS_PAID', 'STATUS_CLOSED'], 'credit');
  if (before.row.type !== 'TYPE_INVOICE') throw ApiError.conflict('Only invoices can be credited.', 'invalid-transition');
  if (input.paymentMethod) await requireCustomerPaymentMethod(ctx, before.row.customerId, input.paymentMethod, 'paymentMethod');
  const currency = before.row.currencyCode;
  const creditId = newId();
  const v = new Violations();
  const earlier = await earlierCredits(ctx, id);
  const charged = taxableByGroup([positionTotals(before.positions, currency).taxBreakdown], currency);
  const credited = taxableByGroup(earlier.taxes, currency);
  const left = new Map([...charged].map(([key, net]) => [key, net + (credited.get(key) ?? 0)]));
  const rest = !input.positions?.length;
  let positions: PositionRow[];
  if (rest) {
    positions = earlier.taxes.length ? restOf(ctx, creditId, before, left) : reversed(ctx, creditId, before.positions);
    if (positions.every((p) => p.netAmount === 0)) throw ApiError.violation('positions', 'Nothing is left to credit.', 'required');
  } else {
    positions = [];
    const lines: { at: number; line: Omit<PositionItem, 'children' | 'parent'> }[] = [];
    for (const [i, p] of input.positions!.entries()) {
      if ('line' in p) lines.push({ at: i, line: p.line });
      else {
        const source = before.positions.find((x) => x.id === p.ref.id && x.kind !== 'header');
        const quantity = p.ref.quantity === null ? null : new Dec(p.ref.quantity);
        if (!source) v.add(`positions[${i}].id`, 'No such position of this invoice.', 'not_found');
        else if (quantity && (quantity.lte(0) || quantity.gt(new Dec(source.quantity).abs())))
          v.add(`positions[${i}].quantity`, `Must be above 0 and at most the position's quantity ${new Dec(source.quantity).abs().toString()}.`, 'exceeds_quantity');
        else positions.push({ ...creditOfPosition(ctx, creditId, source, quantity ?? new Dec(source.quantity).abs()), sort: i });
      }
    }
    const built = await buildPositions(
      ctx,
      creditId,
      before.customer,
      currency,
      lines.map(({ at, line }) => ({ ...line, path: `positions[${at}]`, parent: null })),
      v,
      { date: ctx.now },
    );
    built.forEach((p, k) => {
      const key = groupKey(p.taxCategory, p.taxRate);
      if (!charged.has(key)) v.add(`positions[${lines[k]!.at}].taxRate`, `The invoice charged nothing at ${p.taxRate} % (${p.taxCategory}); a credit note credits at the invoice's rates.`, 'not_on_invoice');
      positions.push({ ...p, sort: lines[k]!.at, quantity: new Dec(p.quantity).neg().toString(), netAmount: -p.netAmount, discountAmount: -p.discountAmount, kind: 'credit' });
    });
    positions.sort((a, b) => a.sort - b.sort);
  }
  const totals = checkedTotals(positions, currency, v);
  v.throwIfAny();
  const thisCredit = taxableByGroup([totals!.taxBreakdown], currency);
  if (!rest) {
    // Per tax group, and in all, never more than what is left.
    const over = [...thisCredit].filter(([key, net]) => (left.get(key) ?? 0) + net < 0 && net < 0);
    const gross = Math.abs(totals!.grossAmount);
    const creditable = creditableAmount(money(before.row.grossAmount, currency), [money(earlier.gross, currency)], currency).creditable;
    if (over.length || new Dec(money(gross, currency)).gt(creditable)) {
      throw ApiError.violation('positions', `The credit of ${money(gross, currency)} exceeds the creditable ${creditable} ${currency}${over.length ? ' (or what is left at one of its tax rates)' : ''}.`, 'exceeds_creditable');
    }
    if (gross === 0) throw ApiError.violation('positions', 'A credit note needs an amount.', 'required');
  }
  const label = input.reason === null ? null : Object.hasOwn(CREDIT_REASONS, input.reason) ? CREDIT_REASONS[input.reason as keyof typeof CREDIT_REASONS] : input.reason;
  const credit = await issueReversal(ctx, before, 'TYPE_CREDIT', positions, totals!, {
    title: creditNoteTitle(before.row.number!, label ?? null),
    internalNote: input.comment,
    paymentMethodId: input.paymentMethod ?? before.row.paymentMethodId,
    introduction: input.customIntroduction ?? before.row.introduction,
    closing: input.customClosing ?? before.row.closing,
  });
  const fin = await finalizeInvoice(ctx, credit.id, null);
  const fullyCredited = [...left].every(([key, net]) => net + (thisCredit.get(key) ?? 0) === 0) || earlier.gross + Math.abs(totals!.grossAmount) >= before.row.grossAmount;
  const after = await loadInvoice(ctx, id);
  const settlement = creditSettlement(ctx, after, fullyCredited);
  await commitInvoiceChange(ctx, after, settlement.changes, ['invoice.credited', ...settlement.events], { statements: settlement.statements });
  return fin;
}

/**
 * What is credited is no longer owed (owedOf). An open invoice the credit note leaves owing
 * nothing is settled: STATUS_CLOSED when everything was credited (nothing of it stands), else
 * STATUS_PAID with `invoice.paid`, since payments brought the rest (its dunning ends as on any
 * payment that settles it) (docs/decisions.md, Invoices and billing, "What is owed").
 */
function creditSettlement(ctx: ServiceContext, after: InvoiceAggregate, fullyCredited: boolean) {
  const row = after.row;
  if (!isOpen(row)) return { changes: {}, events: [] as EventType[], statements: [] };
  if (fullyCredited) return { changes: { status: 'STATUS_CLOSED' } as Partial<InvoiceRow>, events: [] as EventType[], statements: [] };
  if (owedOf(after) === 0) {
    const statements = [...settleDunningStatements(ctx, row, after.openDunning ?? []), ...(row.sourceType === 'cart' ? cartPaidStatements(ctx, row.id) : [])];
    return { changes: { status: 'STATUS_PAID', payDate: ctx.now.toISOString() } as Partial<InvoiceRow>, events: ['invoice.paid'] as EventType[], statements };
  }
  return { changes: {}, events: [] as EventType[], statements: [] };
}
