import type { ItemPlan } from '../../billing/bank-matching';
import { nextUpdatedAt } from '../../db/commit';
import type { bankAccountTransactionAssignments, events, invoicePayments, transactions } from '../../db/schema';
import { EVENT_VERSION, type EventType } from '../../events/catalogue';
import { newId } from '../../lib/ids';
import type { ServiceContext } from '../context';
import { OPEN } from '../invoices/operations';
import { paymentChange, unpaymentChange } from '../invoices/payments';
import { renderLoaded } from '../invoices/read';
import type { InvoiceAggregate, InvoiceRow } from '../invoices/render';
import { newTransactionRow, renderTransaction, type TransactionRow } from '../payments/transaction-render';
import type { AssignmentRow, BankRow } from './read';

// What one bank line's matching plan writes: the payments on invoices (through paymentChange /
// unpaymentChange, the one payment path), the transactions behind them, the assignments and the
// line's new state, with their events, computed on the state a chunk has left so far. The chunk
// (./apply.ts) writes many such deltas in one guarded batch.

/** A bank line and what matching decided for it. */
export interface ItemWork {
  row: BankRow;
  plan: ItemPlan;
  /** Assignments (suggestions) of the line to remove first: accepted ones keep their id, superseded ones go. */
  remove?: string[];
}

export interface CollectionState {
  row: TransactionRow;
  /** Whether its payment is on the invoice (an invoice_payments row names it). */
  paidOnInvoice: boolean;
}

export interface ApplyState {
  invoices: Map<string, InvoiceAggregate>;
  collections: Map<string, CollectionState>;
}

/** Invoice columns a payment changes. */
export const INVOICE_COLUMNS = new Set(['paidAmount', 'status', 'payDate']);

export type TransactionInsert = typeof transactions.$inferInsert;
export type PaymentInsert = typeof invoicePayments.$inferInsert;
export type EventInsert = typeof events.$inferInsert;

/** What one line adds to a chunk's batch. */
export interface LineDelta {
  invoices: Map<string, InvoiceAggregate>;
  collections: Map<string, CollectionState>;
  payments: PaymentInsert[];
  inserts: TransactionInsert[];
  assignments: (typeof bankAccountTransactionAssignments.$inferInsert)[];
  events: EventInsert[];
  bank: { status: string; assignedAmount: number };
}

/** The day the bank booked it, as the moment of payment (else now). */
export const paidAt = (ctx: ServiceContext, row: BankRow) => (row.bookingDate ? `${row.bookingDate}T00:00:00.000Z` : ctx.now.toISOString());

export function event(ctx: ServiceContext, type: EventType, resourceId: string, data: unknown): EventInsert {
  return { id: newId(), tenantId: ctx.tenant.id, type, version: EVENT_VERSION, resourceId, data, createdAt: ctx.now.toISOString() };
}

/**
 * What a line's plan writes, computed on the state as the chunk has left it so far; null when the
 * plan no longer fits (an invoice paid or changed meanwhile, a collection moved on). Nothing in
 * `state` changes here: the chunk takes the delta over when it keeps the line.
 */
export function lineDelta(ctx: ServiceContext, state: ApplyState, work: ItemWork): LineDelta | null {
  const { row, plan } = work;
  const nowIso = ctx.now.toISOString();
  const d: LineDelta = { invoices: new Map(), collections: new Map(), payments: [], inserts: [], assignments: [], events: [], bank: { status: plan.status, assignedAmount: row.assignedAmount } };
  const invoice = (id: string) => d.invoices.get(id) ?? state.invoices.get(id);
  const collection = (id: string) => d.collections.get(id) ?? state.collections.get(id);
  const assign = (a: Omit<AssignmentRow, 'id' | 'tenantId' | 'bankAccountTransactionId' | 'matchedAt'>, id = newId()) =>
    d.assignments.push({ id, tenantId: ctx.tenant.id, bankAccountTransactionId: row.id, matchedAt: nowIso, ...a });
  const change = (agg: InvoiceAggregate, changes: Partial<InvoiceRow>, types: EventType[]) => {
    for (const key of Object.keys(changes)) if (!INVOICE_COLUMNS.has(key)) throw new Error(`Bank matching cannot write invoices.${key}.`);
    const next: InvoiceAggregate = { ...agg, row: { ...agg.row, ...changes, updatedAt: nextUpdatedAt(ctx.now, agg.row.updatedAt) } };
    d.invoices.set(agg.row.id, next);
    const data = renderLoaded(next);
    for (const type of types) d.events.push(event(ctx, type, agg.row.id, data));
  };

  for (const a of plan.certain) {
    if (a.confirmed) {
      const c = a.collectionId ? collection(a.collectionId) : undefined;
      if (!c || c.row.status !== 'succeeded') return null;
      assign({ invoiceId: a.invoiceId, transactionId: c.row.id, amount: a.amount, fee: 0, status: 'accepted', matchedBy: a.matchedBy });
      d.bank.assignedAmount += a.amount;
      continue;
    }
    const agg = invoice(a.invoiceId);
    if (!agg || !OPEN.includes(agg.row.status) || agg.row.currencyCode !== row.currencyCode || agg.row.grossAmount - agg.row.paidAmount < a.amount) return null;
    let txId: string;
    if (a.collectionId) {
      const c = collection(a.collectionId);
      if (!c || c.row.status !== 'processing' || c.row.amount !== a.amount || c.row.invoiceId !== a.invoiceId) return null;
      const next: TransactionRow = { ...c.row, status: 'succeeded', chargedAmount: c.row.amount, paidAt: paidAt(ctx, row), failReason: null, nextRetryAt: null, updatedAt: nowIso };
      d.collections.set(c.row.id, { row: next, paidOnInvoice: true });
      d.events.push(event(ctx, 'transaction.succeeded', next.id, renderTransaction(next)));
      txId = next.id;
    } else {
      const tx = newTransactionRow(ctx, {
        customerId: agg.row.customerId,
        invoiceId: agg.row.id,
        type: 'payment',
        gateway: 'bank_transfer',
        status: 'succeeded',
        description: row.counterpartyName ? `Bank transfer from ${row.counterpartyName}` : 'Bank transfer',
        documentNumber: agg.row.number,
        currencyCode: agg.row.currencyCode,
        amount: a.amount,
        chargedAmount: a.amount,
        feeAmount: a.fee ?? 0,
        referenceId: row.id,
        idempotencyKey: `bank:${row.id}:${agg.row.id}`,
        paidAt: paidAt(ctx, row),
      });
      d.inserts.push(tx);
      d.events.push(event(ctx, 'transaction.succeeded', tx.id, renderTransaction(tx)));
      txId = tx.id;
    }
    const fee = a.fee ?? 0;
    const record = {
      amount: a.amount,
      paymentDate: paidAt(ctx, row),
      description: row.remittanceInformation?.slice(0, 255) ?? null,
      paymentMethod: a.collectionId ? 'sepa_debit' : 'bank_transfer',
      feeAmount: fee || null,
      transactionId: txId,
    };
    const paid = paymentChange(ctx, agg, record);
    d.payments.push(paid.payment);
    change(agg, paid.changes, paid.events);
    assign({ invoiceId: a.invoiceId, transactionId: txId, amount: a.amount, fee, status: 'accepted', matchedBy: a.matchedBy }, a.assignmentId);
    d.bank.assignedAmount += a.amount;
  }

  for (const r of plan.returns) {
    const c = collection(r.collectionId);
    if (!c || (c.row.status !== 'processing' && c.row.status !== 'succeeded')) return null;
    const unpay = c.row.status === 'succeeded' && c.paidOnInvoice && c.row.invoiceId !== null;
    const next: TransactionRow = { ...c.row, status: 'returned', failReason: r.reason, nextRetryAt: null, updatedAt: nowIso };
    d.collections.set(c.row.id, { row: next, paidOnInvoice: false });
    const back = newTransactionRow(ctx, {
      customerId: c.row.customerId,
      invoiceId: c.row.invoiceId,
      paymentMethodId: c.row.paymentMethodId,
      type: 'return',
      gateway: c.row.gateway,
      status: 'succeeded',
      description: 'Returned direct debit',
      documentNumber: c.row.documentNumber,
      currencyCode: c.row.currencyCode,
      amount: c.row.amount,
      chargedAmount: c.row.amount,
      feeAmount: r.fee,
      failReason: r.reason,
      referenceId: row.endToEndId ?? c.row.referenceId,
      idempotencyKey: `return:${c.row.id}`,
      parentTransactionId: c.row.id,
      paidAt: paidAt(ctx, row),
    });
    d.inserts.push(back);
    d.events.push(event(ctx, 'transaction.returned', next.id, renderTransaction(next)));
    if (unpay) {
      const agg = invoice(c.row.invoiceId!);
      if (!agg) return null;
      const taken = unpaymentChange(agg, c.row.amount);
      change(agg, taken.changes, taken.events);
    }
    if (c.row.invoiceId) assign({ invoiceId: c.row.invoiceId, transactionId: back.id, amount: -c.row.amount, fee: r.fee, status: 'accepted', matchedBy: r.matchedBy });
  }
  if (plan.returns.length > 0) d.bank.assignedAmount = row.amount;

  for (const s of plan.suggestions) assign({ invoiceId: s.invoiceId, transactionId: null, amount: s.amount, fee: 0, status: 'suggested', matchedBy: s.matchedBy });
  return d;
}

/** The invoices a chunk's plans touch, and the collections whose invoice a return may take money off. */