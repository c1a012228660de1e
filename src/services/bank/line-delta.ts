import type { BatchItem } from 'drizzle-orm/batch';
import { BANK_STATUS, type ItemPlan } from '../../billing/bank-matching';
import { nextUpdatedAt } from '../../db/commit';
import type { bankAccountTransactionAssignments, events, invoicePayments, transactions } from '../../db/schema';
import { EVENT_VERSION, type EventType } from '../../events/catalogue';
import { newId } from '../../lib/ids';
import type { ServiceContext } from '../context';
import { isOpen } from '../invoices/status';
import { collectableOf, paymentChange, receivableOf, unpaymentChange } from '../invoices/payments';
import { owedOf } from '../invoices/owed';
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
  /** Its refunds that have not failed, each a state of its own in the same map. */
  refundIds: string[];
}

export interface ApplyState {
  invoices: Map<string, InvoiceAggregate>;
  /** Collections, and the refunds of them, by id. */
  collections: Map<string, CollectionState>;
  /** Bank-transfer payments written before for a line and an invoice (`<line>:<invoice>`), taken back since: the next one is attempt n + 1. */
  attempts: Map<string, number>;
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
  /** Invoices the delta relies on without writing them (a return that leaves its invoice as it is): unchanged when the batch runs. */
  readInvoices: string[];
  /** Collections it confirms: no accepted assignment may name them when the batch runs. */
  confirmed: string[];
  /** Invoices it pays by a bank-transfer payment. */
  transfers: string[];
  /** What the payments settle besides the invoices (their open dunning documents). */
  settlements: BatchItem<'sqlite'>[];
}

/** What an invoice still owes (0 unless it is open). */
const owes = (agg: InvoiceAggregate) => (isOpen(agg.row) ? owedOf(agg) : 0);

/**
 * The key of a bank-transfer payment: the line and the invoice, so a request repeated (or two
 * racing) cannot pay the pair twice; after the pair's assignment was removed, the next one is a
 * new attempt (`…:2`), as the removed payment keeps its row.
 */
export const bankPaymentKey = (lineId: string, invoiceId: string, earlier: number) => `bank:${lineId}:${invoiceId}${earlier > 0 ? `:${earlier + 1}` : ''}`;

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
  const d: LineDelta = {
    invoices: new Map(),
    collections: new Map(),
    payments: [],
    inserts: [],
    assignments: [],
    events: [],
    bank: { status: plan.status, assignedAmount: row.assignedAmount },
    readInvoices: [],
    confirmed: [],
    transfers: [],
    settlements: [],
  };
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
      d.confirmed.push(c.row.id);
      assign({ invoiceId: a.invoiceId, transactionId: c.row.id, amount: a.amount, fee: 0, status: 'accepted', matchedBy: a.matchedBy });
      d.bank.assignedAmount += a.amount;
      continue;
    }
    const agg = invoice(a.invoiceId);
    if (!agg || !isOpen(agg.row) || agg.row.currencyCode !== row.currencyCode || (a.collectionId ? collectableOf(agg) : receivableOf(agg)) < a.amount) return null;
    let txId: string;
    if (a.collectionId) {
      const c = collection(a.collectionId);
      if (!c || c.row.status !== 'processing' || c.row.amount !== a.amount || c.row.invoiceId !== a.invoiceId) return null;
      const next: TransactionRow = { ...c.row, status: 'succeeded', chargedAmount: c.row.amount, paidAt: paidAt(ctx, row), failReason: null, nextRetryAt: null, updatedAt: nowIso };
      d.collections.set(c.row.id, { ...c, row: next, paidOnInvoice: true });
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
        idempotencyKey: bankPaymentKey(row.id, agg.row.id, state.attempts.get(`${row.id}:${agg.row.id}`) ?? 0),
        paidAt: paidAt(ctx, row),
      });
      d.inserts.push(tx);
      d.transfers.push(agg.row.id);
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
    const paid = paymentChange(ctx, agg, record, 'amount', { collected: a.collectionId !== null });
    d.payments.push(paid.payment);
    d.settlements.push(...paid.settlement);
    change(agg, paid.changes, paid.events);
    assign({ invoiceId: a.invoiceId, transactionId: txId, amount: a.amount, fee, status: 'accepted', matchedBy: a.matchedBy }, a.assignmentId);
    d.bank.assignedAmount += a.amount;
  }

  let review = false;
  for (const r of plan.returns) {
    const c = collection(r.collectionId);
    if (!c || (c.row.status !== 'processing' && c.row.status !== 'succeeded')) return null;
    const refunds = c.refundIds.flatMap((id) => collection(id)?.row ?? []);
    // Refunds not paid out yet have nothing left to give back: they fail and free what they held.
    const pending = refunds.filter((f) => f.status === 'pending');
    const released = pending.reduce((s, f) => s + f.amount, 0);
    const givenBack = c.row.refundedAmount - released > 0 || refunds.some((f) => f.status === 'processing' || f.status === 'succeeded');
    const paid = c.row.status === 'succeeded' && c.paidOnInvoice && c.row.invoiceId !== null;
    let toPerson = r.review || givenBack;
    if (!toPerson && !paid && c.row.invoiceId !== null) {
      // The debit never paid its invoice: it stays as it is only while it still owes the debit's amount.
      const agg = invoice(c.row.invoiceId);
      if (!agg || owes(agg) < c.row.amount) toPerson = true;
      else d.readInvoices.push(agg.row.id);
    }
    review ||= toPerson;
    const next: TransactionRow = { ...c.row, status: 'returned', failReason: r.reason, nextRetryAt: null, refundedAmount: c.row.refundedAmount - released, updatedAt: nowIso };
    d.collections.set(c.row.id, { row: next, paidOnInvoice: false, refundIds: c.refundIds.filter((id) => !pending.some((f) => f.id === id)) });
    for (const f of pending) {
      const failed: TransactionRow = { ...f, status: 'failed', failReason: 'payment_returned', updatedAt: nowIso };
      d.collections.set(f.id, { row: failed, paidOnInvoice: false, refundIds: [] });
      d.events.push(event(ctx, 'transaction.failed', failed.id, renderTransaction(failed)));
    }
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
    if (paid && !toPerson) {
      const agg = invoice(c.row.invoiceId!);
      if (!agg) return null;
      const taken = unpaymentChange(agg, c.row.amount);
      change(agg, taken.changes, taken.events);
    }
    if (c.row.invoiceId && !toPerson) assign({ invoiceId: c.row.invoiceId, transactionId: back.id, amount: -c.row.amount, fee: r.fee, status: 'accepted', matchedBy: r.matchedBy });
  }
  if (plan.returns.length > 0 && !review) d.bank.assignedAmount = row.amount;
  // A return a person has to look at: the bank's movement is recorded, the invoice and the line wait.
  if (review) d.bank.status = BANK_STATUS.manual;

  for (const s of plan.suggestions) assign({ invoiceId: s.invoiceId, transactionId: null, amount: s.amount, fee: 0, status: 'suggested', matchedBy: s.matchedBy });
  return d;
}
