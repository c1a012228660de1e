import { and, count, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { BANK_STATUS } from '../../billing/bank-matching';
import { nextUpdatedAt } from '../../db/commit';
import { inJson, isGuardFailure, isUniqueViolation, outer, runBatch, tenantRowsById } from '../../db/client';
import { bankAccountTransactionAssignments, bankAccountTransactions, events, invoicePayments, invoices, transactions } from '../../db/schema';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import type { InvoiceAggregate } from '../invoices/render';
import { aggregatesOf } from '../invoices/read';
import { guardedBulkUpdate } from '../../db/commit';
import { insertJsonRows } from '../../db/insert';
import type { TransactionRow } from '../payments/transaction-render';
import type { BankRow } from './read';
import { invoicesUnchanged, notAssigned, notCollecting, refundsUnchanged, removals } from './batch-guards';
import { lineDelta, type ApplyState, type CollectionState, type ItemWork, type LineDelta } from './line-delta';

export type { CollectionState, ItemWork };

// Writes matching plans: payments on invoices (through paymentChange / unpaymentChange, the one
// payment path), the transactions behind them, the assignments and the bank lines' new state, with
// their events. Many lines go into one D1 batch (a chunk), every row in it guarded by what was read
// (invoices and bank lines by updatedAt, collections by their status) in bulk statements, so a
// statement of 10,000 lines costs a few hundred queries. A chunk that loses a race is split in
// halves and tried again from a fresh read, down to the single line, so one invoice changed
// meanwhile never costs the others their payment; a line that still cannot be written is left to a
// person (STATUS_MANUAL_MATCHING_REQUIRED).

/** Lines per batch: about 400 invoices' events and rows stay a few dozen statements. */
const CHUNK_ITEMS = 400;

function invoicesNeeded(works: ItemWork[], state: ApplyState): string[] {
  const ids = new Set<string>();
  for (const { plan } of works) {
    for (const a of plan.certain) if (!a.confirmed) ids.add(a.invoiceId);
    for (const r of plan.returns) {
      const c = state.collections.get(r.collectionId);
      if (c?.row.invoiceId) ids.add(c.row.invoiceId);
    }
  }
  return [...ids].filter((id) => !state.invoices.has(id));
}

/** Invoices with what their events show (positions, customer, files), for the given ids. */
export async function loadInvoiceAggregates(ctx: ServiceContext, ids: string[]): Promise<Map<string, InvoiceAggregate>> {
  if (ids.length === 0) return new Map();
  return aggregatesOf(ctx, await ctx.db.select().from(invoices).where(tenantRowsById(invoices, ctx.tenant.id, ids)));
}

/** Transactions by id, with whether their payment is on the invoice, and the refunds of them a return has to settle. */
export async function loadCollections(ctx: ServiceContext, ids: string[]): Promise<Map<string, CollectionState>> {
  if (ids.length === 0) return new Map();
  const rows = await ctx.db
    .select({
      row: transactions,
      paid: sql<number>`EXISTS (SELECT 1 FROM invoice_payments p WHERE p.tenant_id = ${outer(transactions.tenantId)} AND p.invoice_id = ${outer(transactions.invoiceId)} AND p.transaction_id = ${outer(transactions.id)})`,
    })
    .from(transactions)
    .where(tenantRowsById(transactions, ctx.tenant.id, ids));
  return withRefunds(
    ctx,
    rows.map((r) => ({ row: r.row, paidOnInvoice: Boolean(r.paid) })),
  );
}

/**
 * The collections' states with their refunds that are not failed (pending, processing, succeeded),
 * each refund also a state of its own: a return fails the pending ones. Found through the
 * invoice, which the transactions' index leads to.
 */
export async function withRefunds(ctx: ServiceContext, collections: { row: TransactionRow; paidOnInvoice: boolean }[]): Promise<Map<string, CollectionState>> {
  const out = new Map<string, CollectionState>(collections.map((c) => [c.row.id, { ...c, refundIds: [] }]));
  const invoiceIds = [...new Set(collections.flatMap((c) => (c.row.invoiceId && c.row.type === 'payment' ? [c.row.invoiceId] : [])))];
  if (invoiceIds.length === 0) return out;
  const t = transactions;
  const refunds = await ctx.db
    .select()
    .from(t)
    .where(
      and(
        eq(t.tenantId, ctx.tenant.id),
        inJson(t.invoiceId, invoiceIds),
        eq(t.type, 'refund'),
        inJson(t.status, ['pending', 'processing', 'succeeded']),
        inJson(t.parentTransactionId, [...out.keys()]),
      ),
    );
  for (const r of refunds) {
    out.get(r.parentTransactionId!)!.refundIds.push(r.id);
    out.set(r.id, { row: r, paidOnInvoice: false, refundIds: [] });
  }
  return out;
}

/**
 * Writes the plans of these lines (each line's payments, returns, suggestions and new status) and
 * returns the lines as stored afterwards. `collections` may hold the collections already read for
 * planning. `strict` (a person's request): a plan that no longer fits, or a write that loses a
 * race, is a 409 and nothing is written; otherwise (imports) such a line is left to a person and
 * the others are written.
 */
export async function applyPlans(ctx: ServiceContext, works: ItemWork[], options: { collections?: Map<string, CollectionState>; strict?: boolean } = {}): Promise<BankRow[]> {
  const state: ApplyState = { invoices: new Map(), collections: options.collections ?? new Map(), attempts: new Map() };
  const result = new Map<string, BankRow>();
  for (let i = 0; i < works.length; i += CHUNK_ITEMS) await applyChunk(ctx, works.slice(i, i + CHUNK_ITEMS), state, result, { strict: options.strict ?? false, alone: false });
  return works.map((w) => result.get(w.row.id) ?? w.row);
}

const CONFLICT = 'The invoice or the bank account transaction was changed concurrently; reload and retry.';

async function applyChunk(ctx: ServiceContext, works: ItemWork[], state: ApplyState, result: Map<string, BankRow>, mode: { strict: boolean; alone: boolean }): Promise<void> {
  if (works.length === 0) return;
  const missing = [...new Set(works.flatMap((w) => [...w.plan.certain.map((a) => a.collectionId), ...w.plan.returns.map((r) => r.collectionId)]))].filter(
    (id): id is string => id !== null && !state.collections.has(id),
  );
  for (const [id, c] of await loadCollections(ctx, missing)) state.collections.set(id, c);
  for (const [id, agg] of await loadInvoiceAggregates(ctx, invoicesNeeded(works, state))) state.invoices.set(id, agg);
  state.attempts = await loadAttempts(
    ctx,
    works.filter((w) => w.plan.certain.some((a) => !a.confirmed && !a.collectionId)).map((w) => w.row.id),
  );

  // Each line on the state the lines before it leave; a line whose plan no longer fits is left to a person.
  const invoicesBefore = new Map<string, string>();
  const collectionsBefore = new Map<string, string>();
  const view: ApplyState = { invoices: new Map(state.invoices), collections: new Map(state.collections), attempts: state.attempts };
  const deltas = works.map((work) => {
    const delta = lineDelta(ctx, view, work);
    if (!delta && mode.strict) throw ApiError.conflict(CONFLICT, 'concurrent-update');
    for (const [id, agg] of delta?.invoices ?? []) {
      if (!invoicesBefore.has(id)) invoicesBefore.set(id, state.invoices.get(id)!.row.updatedAt);
      view.invoices.set(id, agg);
    }
    for (const [id, c] of delta?.collections ?? []) {
      if (!collectionsBefore.has(id)) collectionsBefore.set(id, state.collections.get(id)!.row.status);
      view.collections.set(id, c);
    }
    return delta;
  });
  const bankRows = works.map(({ row }, i): BankRow => {
    const delta = deltas[i];
    return { ...row, status: delta ? delta.bank.status : BANK_STATUS.manual, assignedAmount: delta ? delta.bank.assignedAmount : row.assignedAmount, updatedAt: nextUpdatedAt(ctx.now, row.updatedAt) };
  });
  const written = deltas.filter((d): d is LineDelta => d !== null);
  const statements: BatchItem<'sqlite'>[] = [
    // What the plans relied on, as read; checked before anything is written.
    ...invoicesUnchanged(
      ctx,
      [...new Set(written.flatMap((d) => d.readInvoices))].map((id) => [id, state.invoices.get(id)!.row.updatedAt]),
    ),
    ...refundsUnchanged(
      ctx,
      [...collectionsBefore.keys()].map((id) => [id, state.collections.get(id)!.row.refundedAmount]),
    ),
    ...notAssigned(
      ctx,
      written.flatMap((d) => d.confirmed),
    ),
    // An invoice an import pays by transfer has no debit or charge on its way (one may have started since it was read).
    ...(mode.strict
      ? []
      : notCollecting(
          ctx,
          written.flatMap((d) => d.transfers),
        )),
    ...guardedBulkUpdate(
      ctx.db,
      invoices,
      ctx.tenant.id,
      'updatedAt',
      [...invoicesBefore].map(([id, expected]) => {
        const r = view.invoices.get(id)!.row;
        return { id, expected, set: { paidAmount: r.paidAmount, status: r.status, payDate: r.payDate, updatedAt: r.updatedAt } };
      }),
    ),
    ...guardedBulkUpdate(
      ctx.db,
      transactions,
      ctx.tenant.id,
      'status',
      [...collectionsBefore].map(([id, expected]) => {
        const r = view.collections.get(id)!.row;
        return { id, expected, set: { status: r.status, chargedAmount: r.chargedAmount, refundedAmount: r.refundedAmount, paidAt: r.paidAt, failReason: r.failReason, nextRetryAt: r.nextRetryAt, updatedAt: r.updatedAt } };
      }),
    ),
    ...removals(ctx, works),
    ...insertJsonRows(
      ctx.db,
      invoicePayments,
      written.flatMap((d) => d.payments),
    ),
    ...insertJsonRows(
      ctx.db,
      transactions,
      written.flatMap((d) => d.inserts),
    ),
    ...insertJsonRows(
      ctx.db,
      bankAccountTransactionAssignments,
      written.flatMap((d) => d.assignments),
    ),
    ...guardedBulkUpdate(
      ctx.db,
      bankAccountTransactions,
      ctx.tenant.id,
      'updatedAt',
      works.map(({ row }, i) => ({ id: row.id, expected: row.updatedAt, set: { status: bankRows[i]!.status, assignedAmount: bankRows[i]!.assignedAmount, updatedAt: bankRows[i]!.updatedAt } })),
    ),
    ...insertJsonRows(
      ctx.db,
      events,
      written.flatMap((d) => d.events),
    ),
    ...written.flatMap((d) => d.settlements),
  ];
  try {
    await runBatch(ctx.db, statements);
  } catch (err) {
    if (!isGuardFailure(err) && !isUniqueViolation(err)) throw err;
    if (mode.strict) throw ApiError.conflict(CONFLICT, 'concurrent-update');
    // Someone changed an invoice, a collection or a line meanwhile: read again, then try the halves.
    state.invoices = new Map();
    state.collections = new Map();
    const fresh = await reloadLines(
      ctx,
      works.map((w) => w.row.id),
    );
    // A line someone else changed meanwhile is theirs now.
    const again = works.flatMap((w) => {
      const row = fresh.get(w.row.id);
      if (!row || row.updatedAt !== w.row.updatedAt) {
        if (row) result.set(row.id, row);
        return [];
      }
      return [w];
    });
    if (again.length === 1 && mode.alone) return leaveToPerson(ctx, again[0]!.row, result);
    if (again.length === 1) return applyChunk(ctx, again, state, result, { strict: false, alone: true });
    const half = Math.ceil(again.length / 2);
    await applyChunk(ctx, again.slice(0, half), state, result, mode);
    await applyChunk(ctx, again.slice(half), state, result, mode);
    return;
  }
  state.invoices = view.invoices;
  state.collections = view.collections;
  for (const r of bankRows) result.set(r.id, r);
}

/** Bank-transfer payments made before for these lines (taken back since), by `<line>:<invoice>`. */
async function loadAttempts(ctx: ServiceContext, lineIds: string[]): Promise<Map<string, number>> {
  if (lineIds.length === 0) return new Map();
  const t = transactions;
  const rows = await ctx.db
    .select({ line: t.referenceId, invoiceId: t.invoiceId, n: count() })
    .from(t)
    .where(and(eq(t.gateway, 'bank_transfer'), inJson(t.referenceId, lineIds), eq(t.tenantId, ctx.tenant.id), eq(t.type, 'payment')))
    .groupBy(t.referenceId, t.invoiceId);
  return new Map(rows.map((r) => [`${r.line}:${r.invoiceId}`, r.n]));
}

async function reloadLines(ctx: ServiceContext, ids: string[]): Promise<Map<string, BankRow>> {
  const rows = await ctx.db.select().from(bankAccountTransactions).where(tenantRowsById(bankAccountTransactions, ctx.tenant.id, ids));
  return new Map(rows.map((r) => [r.id, r]));
}

/** A line whose plan cannot be written even alone and freshly read: it waits for a person. */
async function leaveToPerson(ctx: ServiceContext, row: BankRow, result: Map<string, BankRow>): Promise<void> {
  const next: BankRow = { ...row, status: BANK_STATUS.manual, updatedAt: nextUpdatedAt(ctx.now, row.updatedAt) };
  try {
    await runBatch(ctx.db, guardedBulkUpdate(ctx.db, bankAccountTransactions, ctx.tenant.id, 'updatedAt', [{ id: row.id, expected: row.updatedAt, set: { status: next.status, updatedAt: next.updatedAt } }]));
    result.set(row.id, next);
  } catch (err) {
    if (!isGuardFailure(err)) throw err;
    const [fresh] = (await reloadLines(ctx, [row.id])).values();
    if (fresh) result.set(fresh.id, fresh);
  }
}
