import { currencyScale, fromMinorUnits, Dec, documentAmountLimit, roundMoney, toMinorUnitsSafe, withinDocumentLimit } from '../../billing/money';
import type { BatchItem } from 'drizzle-orm/batch';
import { and, eq, inArray } from 'drizzle-orm';
import { invoicePayments, transactions } from '../../db/schema';
import type { EventType } from '../../events/catalogue';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { newId } from '../../lib/ids';
import { commitInvoiceChange } from './write';
import { settleDunningStatements } from '../dunning/documents';
import { cartPaidStatements } from '../checkout/paid-later';
import { loadInvoice } from './read';
import { owedOf } from './owed';
import { effectiveStatus } from './status';
import { type InvoiceAggregate, type InvoiceRow } from './render';
import { OPEN, requireStatus } from './operations';

export interface PaymentInput {
  amount: string;
  /** Null: now. */
  paymentDate: string | null;
  description: string | null;
  paymentMethod: string | null;
  /** Null or the invoice currency: payments are recorded in the invoice currency only. */
  currencyCode: string | null;
  /** The provider's fee, informational: stored, it does not change what is paid. */
  feeAmount: string | null;
}

/** What a payment on an invoice is, on every path (API, gateway, SEPA, bank matching). Minor units. */
export interface InvoicePaymentRecord {
  /** All the money received: what the invoice owes first, then its open dunning fees. */
  amount: number;
  paymentDate: string;
  description: string | null;
  paymentMethod: string | null;
  feeAmount: number | null;
  transactionId: string | null;
}

/** The dunning fees the invoice's open dunning documents ask for (minor units; none without its documents loaded). */
export const dunningFeesOwed = (agg: Pick<InvoiceAggregate, 'openDunning'>) => (agg.openDunning ?? []).reduce((sum, d) => sum + d.feeAmount, 0);

/** What a collection already sent may still pay of the invoice: gross − paid (credit notes not off; see paymentChange). */
export const collectableOf = (agg: Pick<InvoiceAggregate, 'row'>) => Math.max(0, agg.row.grossAmount - agg.row.paidAmount);

/** What a payment may bring at most: what the invoice owes plus its open dunning fees (docs/decisions.md, Dunning, "Fees are receivable"). */
export const receivableOf = (agg: InvoiceAggregate) => owedOf(agg) + dunningFeesOwed(agg);

/**
 * The one way a payment lands on an invoice: the invoice_payments row, `paidAmount`, and once it is
 * covered STATUS_PAID with `payDate` and `invoice.paid`. Callers commit it through
 * `commitInvoiceChange` (guarded by the invoice's updatedAt), adding their own statements.
 * The payment pays what is owed (`owedOf`) first; what it brings beyond, up to the open dunning
 * documents' fees, pays those fees (`dunningFeeAmount` of the row). Throws 422 `overpayment` when
 * it would pay more than both. `collected`: money a SEPA debit already took (confirmed by the
 * statement) pays the invoice up to gross − paid even beyond what credit notes left owed — the
 * bank moved it; the credit note then owes the excess back (credit transfers) — and never fees.
 */
export function paymentChange(ctx: ServiceContext, before: InvoiceAggregate, p: InvoicePaymentRecord, path = 'amount', opts: { collected?: boolean } = {}) {
  const row = before.row;
  const owed = opts.collected ? Math.max(owedOf(before), collectableOf(before)) : owedOf(before);
  const fees = opts.collected ? 0 : dunningFeesOwed(before);
  if (p.amount > owed + fees) {
    const text = (minor: number) => `${fromMinorUnits(minor, row.currencyCode).toFixed(currencyScale(row.currencyCode))} ${row.currencyCode}`;
    throw ApiError.violation(path, `The payment exceeds the unpaid amount of ${text(owed)}${fees > 0 ? ` plus dunning fees of ${text(fees)}` : ''}.`, 'overpayment');
  }
  const toInvoice = Math.min(p.amount, owed);
  const paidAmount = row.paidAmount + toInvoice;
  // What credit notes took off is not owed (owedOf): paying the rest settles the invoice.
  const settled = toInvoice >= owedOf(before);
  const payment = { id: newId(), tenantId: ctx.tenant.id, invoiceId: row.id, createdAt: ctx.now.toISOString(), ...p, amount: toInvoice, dunningFeeAmount: p.amount - toInvoice };
  const changes: Partial<InvoiceRow> = settled ? { paidAmount, status: 'STATUS_PAID', payDate: p.paymentDate } : { paidAmount };
  const events: EventType[] = settled ? ['invoice.updated', 'invoice.paid'] : ['invoice.updated'];
  // Paid in full, on whatever path: its dunning ends (docs/decisions.md, Dunning), a checkout cart
  // it was the first invoice of is paid (Checkout). Bulk writers
  // (bank matching) insert the payment their own way and take `settlement` as it is.
  const settlement = settled ? [...settleDunningStatements(ctx, row, before.openDunning ?? []), ...(row.sourceType === 'cart' ? cartPaidStatements(ctx, row.id) : [])] : [];
  const statements: BatchItem<'sqlite'>[] = [ctx.db.insert(invoicePayments).values(payment), ...settlement];
  return { changes, events, statements, settlement, payment };
}

/**
 * Takes back money that had paid an invoice (a returned debit, a refund that reopens it): `paidAmount`
 * goes down and a paid invoice is unpaid again (`invoice.unpaid`). `reopen: false` (a refund that
 * settles the invoice by a refund document) only lowers what was received.
 */
export function unpaymentChange(before: InvoiceAggregate, amount: number, reopen = true) {
  const row = before.row;
  const paidAmount = Math.max(0, row.paidAmount - amount);
  if (!reopen || effectiveStatus(row) !== 'STATUS_PAID') return { changes: { paidAmount } as Partial<InvoiceRow>, events: ['invoice.updated'] as EventType[] };
  return { changes: { paidAmount, status: 'STATUS_UNPAID', payDate: null } as Partial<InvoiceRow>, events: ['invoice.updated', 'invoice.unpaid'] as EventType[] };
}

/** Records a (partial) payment; a payment covering the rest makes the invoice paid. Overpayments are refused. */
export async function addPayment(ctx: ServiceContext, id: string, input: PaymentInput) {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, OPEN, 'record a payment on');
  // Money that is on its way (a card charge without its answer, a debit in a SEPA file) would pay
  // the invoice a second time: the tenant waits for it, or for its failure or return.
  const moving = await ctx.db
    .select({ gateway: transactions.gateway, status: transactions.status })
    .from(transactions)
    .where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.invoiceId, id), eq(transactions.type, 'payment'), inArray(transactions.status, ['pending', 'processing'])))
    .get();
  if (moving) {
    throw ApiError.conflict(`A ${moving.gateway === 'sepa_debit' ? 'SEPA direct debit' : 'payment'} of this invoice is ${moving.status}; record other payments once it has failed or come back.`, 'collection-in-progress');
  }
  const currency = before.row.currencyCode;
  const v = new Violations();
  if (!roundMoney(input.amount, currency).eq(new Dec(input.amount))) v.add('amount', `Has more decimals than ${currency} allows.`, 'too_many_decimals');
  if (new Dec(input.amount).lte(0)) v.add('amount', 'Must be greater than 0.', 'too_small');
  if (input.currencyCode !== null && input.currencyCode !== currency) v.add('currencyCode', `Must be the invoice currency ${currency}.`, 'currency_mismatch');
  if (input.feeAmount !== null) {
    if (!roundMoney(input.feeAmount, currency).eq(new Dec(input.feeAmount))) v.add('feeAmount', `Has more decimals than ${currency} allows.`, 'too_many_decimals');
    else if (!withinDocumentLimit(input.feeAmount, currency)) v.add('feeAmount', `Must stay below ${documentAmountLimit(currency).toFixed(0)} ${currency}.`, 'too_large');
  }
  v.throwIfAny();
  // paymentChange refuses more than the open amount and the dunning fees asked for (422 overpayment).
  const change = paymentChange(ctx, before, {
    amount: toMinorUnitsSafe(input.amount, currency),
    paymentDate: (input.paymentDate ? new Date(input.paymentDate) : ctx.now).toISOString(),
    description: input.description,
    paymentMethod: input.paymentMethod,
    feeAmount: input.feeAmount === null ? null : toMinorUnitsSafe(input.feeAmount, currency),
    transactionId: null,
  });
  return commitInvoiceChange(ctx, before, change.changes, change.events, { statements: change.statements });
}
