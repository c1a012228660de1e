import { currencyScale, formatDecimal, fromMinorUnits } from '../../billing/money';
import type { transactions } from '../../db/schema';
import { newId } from '../../lib/ids';
import type { TransactionResource } from '../../schemas/transactions';

export type TransactionRow = typeof transactions.$inferSelect;

type Required = 'customerId' | 'type' | 'gateway' | 'status' | 'currencyCode' | 'amount' | 'idempotencyKey';

/** A new transaction row: what the call site names, every other column at its default (as `newInvoiceRow` does for documents). */
export function newTransactionRow(ctx: { tenant: { id: string }; now: Date }, fields: Pick<TransactionRow, Required> & Partial<TransactionRow>): TransactionRow {
  const nowIso = ctx.now.toISOString();
  return {
    id: newId(),
    tenantId: ctx.tenant.id,
    invoiceId: null,
    paymentMethodId: null,
    description: null,
    documentNumber: null,
    refundedAmount: 0,
    chargedAmount: 0,
    feeAmount: 0,
    failReason: null,
    referenceId: null,
    parentTransactionId: null,
    attempt: 1,
    nextRetryAt: null,
    refundDocument: null,
    sepaFileId: null,
    sepaSequenceType: null,
    collectionDate: null,
    createdAt: nowIso,
    updatedAt: nowIso,
    paidAt: null,
    ...fields,
  };
}

/**
 * Minor units as the JSON number the spec shows. The number is made from the exact decimal text
 * (at most 15 significant digits under the document amount limit), so it prints as that text; no
 * arithmetic happens on it.
 */
export function jsonAmount(minor: number, currencyCode: string): number {
  return Number(formatDecimal(fromMinorUnits(minor, currencyCode), currencyScale(currencyCode)));
}

export function renderTransaction(r: TransactionRow): TransactionResource {
  const c = r.currencyCode;
  return {
    id: r.id,
    customer: { id: r.customerId },
    type: r.type,
    paymentMethod: r.paymentMethodId ? { id: r.paymentMethodId } : null,
    gateway: r.gateway,
    status: r.status as TransactionResource['status'],
    description: r.description,
    documentNumber: r.documentNumber,
    currencyCode: c,
    amount: jsonAmount(r.amount, c),
    refundedAmount: jsonAmount(r.refundedAmount, c),
    chargedAmount: jsonAmount(r.chargedAmount, c),
    feeAmount: jsonAmount(r.feeAmount, c),
    createdAt: r.createdAt,
    paidAt: r.paidAt,
    failReason: r.failReason,
    authorized: r.status === 'succeeded' || r.status === 'processing' || r.status === 'returned',
    refundable: r.type === 'payment' && r.status === 'succeeded' && r.refundedAmount < r.amount,
    processing: r.status === 'pending' || r.status === 'processing',
    captured: r.status === 'succeeded' || r.status === 'returned',
    invoice: r.invoiceId ? { id: r.invoiceId, number: r.documentNumber } : null,
    referenceId: r.referenceId,
    parentTransaction: r.parentTransactionId ? { id: r.parentTransactionId } : null,
    attempt: r.attempt,
    nextRetryAt: r.nextRetryAt,
    sepaFile: r.sepaFileId ? { id: r.sepaFileId, sequenceType: r.sepaSequenceType, collectionDate: r.collectionDate } : null,
    updatedAt: r.updatedAt,
  };
}
