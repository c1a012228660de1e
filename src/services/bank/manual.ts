import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { BANK_STATUS, byDueDate, spreadAmount, type ItemPlan, type PlannedAssignment } from '../../billing/bank-matching';
import { checkDecimal, currencyScale, documentAmountLimit, fromMinorUnits, toMinorUnitsSafe, withinDocumentLimit } from '../../billing/money';
import { guardedUpdate, nextUpdatedAt } from '../../db/commit';
import { inJson, isGuardFailure, requirePreviousChange, runBatch, tenantRowsById } from '../../db/client';
import { bankAccountTransactionAssignments, bankAccountTransactions, invoicePayments, transactions } from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import { ApiError, Violations } from '../../http/errors';
import { newId } from '../../lib/ids';
import type { ServiceContext } from '../context';
import { isOpen } from '../invoices/status';
import { unpaymentChange } from '../invoices/payments';
import { loadInvoice } from '../invoices/read';
import { owedOf } from '../invoices/owed';
import type { InvoiceAggregate } from '../invoices/render';
import { receivableOf } from '../invoices/payments';
import { commitInvoiceChange } from '../invoices/write';
import { renderTransaction, type TransactionRow } from '../payments/transaction-render';
import { applyPlans, loadInvoiceAggregates, type ItemWork } from './apply';
import { getAssignment, getBankTransaction, loadAssignment, loadBankRow, renderBankTransactions, type AssignmentRow, type BankRow } from './read';

// What a person does with bank lines: accept suggestions, assign invoices by hand, remove an
// assignment, ignore a line. Every payment goes through the same writer as the import (./apply.ts),
// strictly: a plan that no longer fits the invoices is a 409 and nothing is written.

const plan = (row: BankRow, certain: PlannedAssignment[]): ItemPlan => {
  const remainder = row.amount - row.assignedAmount - certain.reduce((s, a) => s + a.amount, 0);
  return { itemId: row.id, status: remainder === 0 ? BANK_STATUS.booked : BANK_STATUS.manual, certain, suggestions: [], returns: [], remainder };
};

async function assignmentsOfLine(ctx: ServiceContext, lineId: string): Promise<AssignmentRow[]> {
  const a = bankAccountTransactionAssignments;
  return ctx.db
    .select()
    .from(a)
    .where(and(eq(a.tenantId, ctx.tenant.id), eq(a.bankAccountTransactionId, lineId)));
}

/**
 * PUT /payment/bank-account-transactions/accept-suggestions: suggested assignments become payments.
 * `ids` name bank account transactions (all their suggestions) or suggestions themselves; without
 * ids, every suggestion of the tenant. A suggestion whose invoice no longer owes anything (paid
 * meanwhile) is dropped; one it owes less is accepted for what is still owed.
 */
export async function acceptSuggestions(ctx: ServiceContext, ids: string[] | undefined) {
  const a = bankAccountTransactionAssignments;
  const suggested = await ctx.db
    .select()
    .from(a)
    .where(and(eq(a.tenantId, ctx.tenant.id), eq(a.status, 'suggested'), ids ? sql`(${inJson(a.bankAccountTransactionId, ids)} OR ${inJson(a.id, ids)})` : undefined));
  if (ids) {
    const lines = await ctx.db
      .select({ id: bankAccountTransactions.id })
      .from(bankAccountTransactions)
      .where(tenantRowsById(bankAccountTransactions, ctx.tenant.id, ids));
    const known = new Set([...lines.map((l) => l.id), ...suggested.map((s) => s.id)]);
    const v = new Violations();
    ids.forEach((id, i) => known.has(id) || v.add(`ids[${i}]`, 'No such bank account transaction or suggested assignment.', 'not_found'));
    v.throwIfAny();
  }
  const lineIds = [...new Set(suggested.map((s) => s.bankAccountTransactionId))];
  if (lineIds.length === 0) return { accepted: 0, dropped: 0, data: [] };
  const [lines, invoices] = await Promise.all([
    ctx.db.select().from(bankAccountTransactions).where(tenantRowsById(bankAccountTransactions, ctx.tenant.id, lineIds)),
    loadInvoiceAggregates(ctx, [...new Set(suggested.map((s) => s.invoiceId))]),
  ]);
  const owed = new Map([...invoices].map(([id, agg]) => [id, isOpen(agg.row) ? receivableOf(agg) : 0]));
  let accepted = 0;
  let dropped = 0;
  const works: ItemWork[] = lines.map((row) => {
    const mine = suggested.filter((s) => s.bankAccountTransactionId === row.id);
    let left = row.amount - row.assignedAmount;
    const certain: PlannedAssignment[] = [];
    for (const s of mine) {
      const agg = invoices.get(s.invoiceId);
      const amount = Math.min(s.amount, owed.get(s.invoiceId) ?? 0, left);
      if (!agg || amount <= 0 || agg.row.currencyCode !== row.currencyCode) {
        dropped++;
        continue;
      }
      certain.push({ invoiceId: s.invoiceId, amount, matchedBy: s.matchedBy as PlannedAssignment['matchedBy'], collectionId: null, confirmed: false, assignmentId: s.id });
      owed.set(s.invoiceId, owed.get(s.invoiceId)! - amount);
      left -= amount;
      accepted++;
    }
    return { row, plan: plan(row, certain), remove: mine.map((s) => s.id) };
  });
  const written = await applyPlans(ctx, works, { strict: true });
  return { accepted, dropped, data: await renderBankTransactions(ctx, written) };
}

/** A credit line that still has something to assign, or the 422 saying why not. */
function requireAssignable(row: BankRow, path: string) {
  if (row.amount <= 0) throw ApiError.violation(path, 'Only a credit (money in) can pay invoices.', 'not_a_credit');
  if (row.amount - row.assignedAmount <= 0) throw ApiError.violation(path, 'The bank account transaction is fully assigned.', 'fully_assigned');
}

/** PUT /payment/bank-account-transactions/{id}/assign-invoices (Fynn's `{invoiceIds}`): what is left of the line paid to them, oldest due first. */
export async function assignInvoices(ctx: ServiceContext, lineId: string, invoiceIds: string[]) {
  const row = await loadBankRow(ctx, lineId);
  requireAssignable(row, 'invoiceIds');
  const [invoices, existing] = await Promise.all([loadInvoiceAggregates(ctx, invoiceIds), assignmentsOfLine(ctx, row.id)]);
  const v = new Violations();
  invoiceIds.forEach((id, i) => {
    const at = `invoiceIds[${i}]`;
    const agg = invoices.get(id);
    if (invoiceIds.indexOf(id) !== i) v.add(at, 'The invoice is named twice.', 'duplicate');
    else if (!agg) v.add(at, 'No such invoice.', 'not_found');
    else if (!isOpen(agg.row) || owedOf(agg) <= 0) v.add(at, `The invoice is not open for payment (status ${agg.row.status}).`, 'not_open');
    else if (agg.row.currencyCode !== row.currencyCode) v.add(at, `The invoice is in ${agg.row.currencyCode}, the bank account transaction in ${row.currencyCode}.`, 'currency_mismatch');
    else if (existing.some((e) => e.invoiceId === id && e.status === 'accepted')) v.add(at, 'The invoice is assigned to this bank account transaction already; remove that assignment first.', 'already_assigned');
  });
  v.throwIfAny();
  const ordered = invoiceIds.map((id) => invoices.get(id)!).sort((x, y) => byDueDate(openOf(x), openOf(y)));
  const { parts } = spreadAmount(
    row.amount - row.assignedAmount,
    // A line that covers them pays their dunning fees too (paymentChange).
    ordered.map((agg) => ({ id: agg.row.id, unpaid: receivableOf(agg) })),
  );
  const certain = parts.map((p): PlannedAssignment => ({ invoiceId: p.invoiceId, amount: p.amount, matchedBy: 'manual', collectionId: null, confirmed: false }));
  const suggestions = existing.filter((e) => e.status === 'suggested');
  await applyPlans(ctx, [{ row, plan: plan(row, certain), remove: suggestions.map((s) => s.id) }], { strict: true });
  return getBankTransaction(ctx, row.id);
}

const openOf = (agg: InvoiceAggregate) => ({
  id: agg.row.id,
  number: agg.row.number,
  customerId: agg.row.customerId,
  currency: agg.row.currencyCode,
  unpaid: owedOf(agg),
  dueDate: agg.row.dueDate,
});

export interface AssignmentInput {
  bankAccountTransaction: string;
  invoice: string;
  /** Decimal string; default: what the line and the invoice both still have. */
  amount: string | null;
  fee: string | null;
}

/** POST /payment/bank-account-transaction-assignments: one invoice paid by (part of) one line. */
export async function createAssignment(ctx: ServiceContext, input: AssignmentInput) {
  const row = await ctx.db
    .select()
    .from(bankAccountTransactions)
    .where(and(eq(bankAccountTransactions.tenantId, ctx.tenant.id), eq(bankAccountTransactions.id, input.bankAccountTransaction)))
    .get();
  if (!row) throw ApiError.violation('bankAccountTransaction', 'No such bank account transaction.', 'not_found');
  requireAssignable(row, 'bankAccountTransaction');
  const [invoices, existing] = await Promise.all([loadInvoiceAggregates(ctx, [input.invoice]), assignmentsOfLine(ctx, row.id)]);
  const agg = invoices.get(input.invoice);
  if (!agg) throw ApiError.violation('invoice', 'No such invoice.', 'not_found');
  const currency = row.currencyCode;
  const unpaid = owedOf(agg);
  // What the line may pay: the open amount and the open dunning fees (paymentChange).
  const receivable = receivableOf(agg);
  const left = row.amount - row.assignedAmount;
  const v = new Violations();
  if (!isOpen(agg.row) || unpaid <= 0) v.add('invoice', `The invoice is not open for payment (status ${agg.row.status}).`, 'not_open');
  else if (agg.row.currencyCode !== currency) v.add('invoice', `The invoice is in ${agg.row.currencyCode}, the bank account transaction in ${currency}.`, 'currency_mismatch');
  if (existing.some((e) => e.invoiceId === agg.row.id && e.status === 'accepted')) v.add('invoice', 'The invoice is assigned to this bank account transaction already.', 'already_assigned');
  const amount = input.amount === null ? Math.min(left, receivable) : minorUnits(v, 'amount', input.amount, currency);
  const fee = input.fee === null ? 0 : minorUnits(v, 'fee', input.fee, currency, true);
  if (amount !== null && input.amount !== null) {
    if (amount > left) v.add('amount', `Exceeds what is left of the bank account transaction (${fromMinorUnits(left, currency).toFixed(currencyScale(currency))} ${currency}).`, 'exceeds_remainder');
    if (amount > receivable && unpaid > 0) {
      const fees = receivable - unpaid;
      v.add('amount', `Exceeds the unpaid amount of the invoice (${fromMinorUnits(unpaid, currency).toFixed(currencyScale(currency))} ${currency}${fees > 0 ? ` plus dunning fees of ${fromMinorUnits(fees, currency).toFixed(currencyScale(currency))}` : ''}).`, 'overpayment');
    }
  }
  v.throwIfAny();
  const suggestion = existing.find((e) => e.invoiceId === agg.row.id && e.status === 'suggested');
  const id = suggestion?.id ?? newId();
  await applyPlans(
    ctx,
    [{ row, plan: plan(row, [{ invoiceId: agg.row.id, amount: amount!, matchedBy: 'manual', collectionId: null, confirmed: false, assignmentId: id, fee: fee ?? 0 }]), remove: suggestion ? [suggestion.id] : [] }],
    { strict: true },
  );
  return getAssignment(ctx, id);
}

/** A decimal of the API as minor units of the currency, or null after a violation. */
function minorUnits(v: Violations, path: string, value: string, currency: string, zeroAllowed = false): number | null {
  const problem = checkDecimal(value, { maxDecimals: currencyScale(currency), allowNegative: false });
  if (problem) {
    v.add(path, problem.code === 'too_many_decimals' ? `Has more decimals than ${currency} allows.` : problem.message, problem.code === 'negative' ? 'too_small' : problem.code);
    return null;
  }
  if (!withinDocumentLimit(value, currency)) {
    v.add(path, `Must stay below ${documentAmountLimit(currency).toFixed(0)} ${currency}.`, 'too_large');
    return null;
  }
  const minor = toMinorUnitsSafe(value, currency);
  if (minor === 0 && !zeroAllowed) {
    v.add(path, 'Must be greater than 0.', 'too_small');
    return null;
  }
  return minor;
}

/**
 * DELETE /payment/bank-account-transaction-assignments/{id}. A suggestion is removed. An accepted
 * bank-transfer payment is taken back: the invoice is unpaid by its amount again (`invoice.unpaid`
 * when it was paid), its invoice_payments row goes, the payment transaction becomes `failed` with
 * failReason `assignment_removed` (`transaction.failed`), and the line has the amount left to
 * assign again. Returns and confirmed SEPA collections stay (409): the bank did move that money.
 */
export async function deleteAssignment(ctx: ServiceContext, id: string): Promise<void> {
  const { row: assignment } = await loadAssignment(ctx, id);
  const a = bankAccountTransactionAssignments;
  const line = await loadBankRow(ctx, assignment.bankAccountTransactionId);
  const lineAfter = (assigned: number) => {
    const next = { assignedAmount: assigned, status: assigned === line.amount ? BANK_STATUS.booked : BANK_STATUS.manual, updatedAt: nextUpdatedAt(ctx.now, line.updatedAt) };
    return guardedUpdate(ctx.db, { table: bankAccountTransactions, tenantId: ctx.tenant.id, id: line.id, expectedUpdatedAt: line.updatedAt, set: next });
  };
  const removeAssignment = ctx.db.delete(a).where(and(eq(a.tenantId, ctx.tenant.id), eq(a.id, assignment.id), eq(a.status, assignment.status)));
  if (assignment.status === 'suggested') {
    await removeAssignment;
    return;
  }
  const tx = assignment.transactionId
    ? await ctx.db
        .select()
        .from(transactions)
        .where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.id, assignment.transactionId)))
        .get()
    : undefined;
  if (!tx || tx.type !== 'payment' || tx.gateway !== 'bank_transfer' || tx.status !== 'succeeded' || assignment.amount <= 0) {
    throw ApiError.conflict('Only a bank-transfer payment can be unassigned; a returned or collected direct debit stays as the bank booked it.', 'not-removable');
  }
  // Money given back (or on its way back) of this payment cannot be taken off the invoice with it.
  const refund = await ctx.db
    .select({ id: transactions.id })
    .from(transactions)
    .where(
      and(
        eq(transactions.tenantId, ctx.tenant.id),
        eq(transactions.invoiceId, assignment.invoiceId),
        eq(transactions.type, 'refund'),
        eq(transactions.parentTransactionId, tx.id),
        inJson(transactions.status, ['pending', 'processing', 'succeeded']),
      ),
    )
    .get();
  if (tx.refundedAmount > 0 || refund) {
    throw ApiError.conflict('The payment is refunded (in part, or a refund is on its way); it can no longer be unassigned.', 'not-removable');
  }
  const before = await loadInvoice(ctx, assignment.invoiceId);
  // Only the invoice's part of the payment comes off paidAmount: the rest had paid dunning fees
  // (invoice_payments.dunning_fee_amount).
  const [booked] = await ctx.db
    .select({ amount: sql<number>`coalesce(sum(${invoicePayments.amount}), 0)`.mapWith(Number) })
    .from(invoicePayments)
    .where(and(eq(invoicePayments.tenantId, ctx.tenant.id), eq(invoicePayments.transactionId, tx.id)));
  const taken = unpaymentChange(before, booked?.amount ?? assignment.amount);
  const nowIso = ctx.now.toISOString();
  const failed: TransactionRow = { ...tx, status: 'failed', failReason: 'assignment_removed', updatedAt: nowIso };
  await commitInvoiceChange(ctx, before, taken.changes, taken.events, {
    statements: [
      ctx.db
        .update(transactions)
        .set({ status: failed.status, failReason: failed.failReason, updatedAt: nowIso })
        .where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.id, tx.id), eq(transactions.status, 'succeeded'), eq(transactions.refundedAmount, 0))),
      requirePreviousChange(ctx.db),
      ctx.db.delete(invoicePayments).where(and(eq(invoicePayments.tenantId, ctx.tenant.id), eq(invoicePayments.transactionId, tx.id))),
      removeAssignment,
      ...lineAfter(line.assignedAmount - assignment.amount),
      insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'transaction.failed', resourceId: tx.id, data: renderTransaction(failed), now: ctx.now }),
    ],
  });
}

/** PUT /payment/bank-account-transactions/{id}/ignore: nothing to match (a fee, a private transfer); its suggestions go. */
export async function ignoreLine(ctx: ServiceContext, id: string) {
  const row = await loadBankRow(ctx, id);
  if (row.assignedAmount !== 0) throw ApiError.conflict('The bank account transaction has accepted assignments; remove them first.', 'has-assignments');
  if (row.status !== BANK_STATUS.ignored) {
    const a = bankAccountTransactionAssignments;
    await guardedBatch([
      ...guardedUpdate(ctx.db, {
        table: bankAccountTransactions,
        tenantId: ctx.tenant.id,
        id: row.id,
        expectedUpdatedAt: row.updatedAt,
        set: { status: BANK_STATUS.ignored, updatedAt: nextUpdatedAt(ctx.now, row.updatedAt) },
      }),
      ctx.db.delete(a).where(and(eq(a.tenantId, ctx.tenant.id), eq(a.bankAccountTransactionId, row.id), eq(a.status, 'suggested'))),
    ]);
  }
  return getBankTransaction(ctx, id);

  async function guardedBatch(statements: BatchItem<'sqlite'>[]) {
    try {
      await runBatch(ctx.db, statements);
    } catch (err) {
      if (isGuardFailure(err)) throw ApiError.conflict('The bank account transaction was changed concurrently; reload and retry.', 'concurrent-update');
      throw err;
    }
  }
}
