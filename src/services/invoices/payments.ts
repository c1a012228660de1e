import { splitPayment } from '../../billing/invoice-totals';
import { Dec, documentAmountLimit, roundMoney, toMinorUnitsSafe, withinDocumentLimit } from '../../billing/money';
import { invoicePayments } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { newId } from '../../lib/ids';
import { commitInvoiceChange } from './write';
import { loadInvoice } from './read';
import { type InvoiceRow } from './render';
import { OPEN, money, requireStatus } from './operations';

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

/** Records a (partial) payment; a payment covering the rest makes the invoice paid. Overpayments are refused. */
export async function addPayment(ctx: ServiceContext, id: string, input: PaymentInput) {
  const before = await loadInvoice(ctx, id);
  requireStatus(before, OPEN, 'record a payment on');
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
  const unpaid = money(before.row.grossAmount - before.row.paidAmount, currency);
  const split = splitPayment(unpaid, input.amount, currency);
  if (new Dec(split.overpayment).gt(0)) {
    throw ApiError.violation('amount', `The payment exceeds the unpaid amount of ${unpaid} ${currency}.`, 'overpayment');
  }
  const paidAmount = before.row.paidAmount + toMinorUnitsSafe(input.amount, currency);
  const settled = paidAmount >= before.row.grossAmount;
  const payment = {
    id: newId(),
    tenantId: ctx.tenant.id,
    invoiceId: id,
    amount: toMinorUnitsSafe(input.amount, currency),
    paymentDate: (input.paymentDate ? new Date(input.paymentDate) : ctx.now).toISOString(),
    description: input.description,
    paymentMethod: input.paymentMethod,
    createdAt: ctx.now.toISOString(),
    feeAmount: input.feeAmount === null ? null : toMinorUnitsSafe(input.feeAmount, currency),
  };
  const changes: Partial<InvoiceRow> = settled ? { paidAmount, status: 'STATUS_PAID', payDate: payment.paymentDate } : { paidAmount };
  return commitInvoiceChange(ctx, before, changes, settled ? ['invoice.updated', 'invoice.paid'] : ['invoice.updated'], {
    statements: [ctx.db.insert(invoicePayments).values(payment)],
  });
}
