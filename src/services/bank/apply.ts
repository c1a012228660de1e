import { and, asc, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { BANK_STATUS, type ItemPlan } from '../../billing/bank-matching';
import { nextUpdatedAt } from '../../db/commit';
import { inJson, isGuardFailure, isUniqueViolation, outer, rawStatement, runBatch, tenantRowsById } from '../../db/client';
import { bankAccountTransactionAssignments, bankAccountTransactions, customers, events, invoicePayments, invoicePositions, invoices, media, transactions } from '../../db/schema';
import { EVENT_VERSION, type EventType } from '../../events/catalogue';
import { ApiError } from '../../http/errors';
import { newId } from '../../lib/ids';
import type { ServiceContext } from '../context';
import { OPEN } from '../invoices/operations';
import { paymentChange, unpaymentChange } from '../invoices/payments';
import { renderLoaded } from '../invoices/read';
import type { InvoiceAggregate, InvoiceRow } from '../invoices/render';
import { renderTransaction, type TransactionRow } from '../payments/transaction-render';
import { guardedBulkUpdate } from '../../db/commit';
import { insertJsonRows } from '../../db/insert';
import type { AssignmentRow, BankRow } from './read';

// Writes matching plans: payments on invoices (through paymentChange / unpaymentChange, the one
// payment path), the transactions behind them, the assignments and the bank lines' new state, with
// their events. Many lines go into one D1 batch (a chunk), every row in it guarded by what was read
// (invoices and bank lines by updatedAt, collections by their status) in bulk statements, so a
// statement of 10,000 lines costs a few hundred queries. A chunk that loses a race is split in
// halves and tried again from a fresh read, down to the single line, so one invoice changed
// meanwhile never costs the others their payment; a line that still cannot be written is left to a
// person (STATUS_MANUAL_MATCHING_REQUIRED).

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

interface ApplyState {
  invoices: Map<string, InvoiceAggregate>;
  collections: Map<string, CollectionState>;
}

/** Lines per batch: about 400 invoices' events and rows stay a few dozen statements. */
const CHUNK_ITEMS = 400;
const INVOICE_COLUMNS = new Set(['paidAmount', 'status', 'payDate']);

type TransactionInsert = typeof transactions.$inferInsert;
type PaymentInsert = typeof invoicePayments.$inferInsert;
type EventInsert = typeof events.$inferInsert;

/** What one line adds to a chunk's batch. */
interface LineDelta {
  invoices: Map<string, InvoiceAggregate>;
  collections: Map<string, CollectionState>;
  payments: PaymentInsert[];
  inserts: TransactionInsert[];
  assignments: (typeof bankAccountTransactionAssignments.$inferInsert)[];
  events: EventInsert[];
  bank: { status: string; assignedAmount: number };
}

/** The day the bank booked it, as the moment of payment (else now). */
const paidAt = (ctx: ServiceContext, row: BankRow) => (row.bookingDate ? `${row.bookingDate}T00:00:00.000Z` : ctx.now.toISOString());

function event(ctx: ServiceContext, type: EventType, resourceId: string, data: unknown): EventInsert {
  return { id: newId(), tenantId: ctx.tenant.id, type, version: EVENT_VERSION, resourceId, data, createdAt: ctx.now.toISOString() };
}

/**
 * What a line's plan writes, computed on the state as the chunk has left it so far; null when the
 * plan no longer fits (an invoice paid or changed meanwhile, a collection moved on). Nothing in
 * `state` changes here: the chunk takes the delta over when it keeps the line.
 */
function lineDelta(ctx: ServiceContext, state: ApplyState, work: ItemWork): LineDelta | null {
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
      const tx: TransactionRow = {
        id: newId(),
        tenantId: ctx.tenant.id,
        customerId: agg.row.customerId,
        invoiceId: agg.row.id,
        paymentMethodId: null,
        type: 'payment',
        gateway: 'bank_transfer',
        status: 'succeeded',
        description: row.counterpartyName ? `Bank transfer from ${row.counterpartyName}` : 'Bank transfer',
        documentNumber: agg.row.number,
        currencyCode: agg.row.currencyCode,
        amount: a.amount,
        refundedAmount: 0,
        chargedAmount: a.amount,
        feeAmount: a.fee ?? 0,
        failReason: null,
        referenceId: row.id,
        idempotencyKey: `bank:${row.id}:${agg.row.id}`,
        parentTransactionId: null,
        attempt: 1,
        nextRetryAt: null,
        sepaFileId: null,
        sepaSequenceType: null,
        collectionDate: null,
        createdAt: nowIso,
        updatedAt: nowIso,
        paidAt: paidAt(ctx, row),
      };
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
    const back: TransactionRow = {
      ...next,
      id: newId(),
      type: 'return',
      status: 'succeeded',
      description: 'Returned direct debit',
      amount: c.row.amount,
      refundedAmount: 0,
      chargedAmount: c.row.amount,
      feeAmount: r.fee,
      failReason: r.reason,
      referenceId: row.endToEndId ?? c.row.referenceId,
      idempotencyKey: `return:${c.row.id}`,
      parentTransactionId: c.row.id,
      attempt: 1,
      sepaFileId: null,
      sepaSequenceType: null,
      collectionDate: null,
      createdAt: nowIso,
      paidAt: paidAt(ctx, row),
    };
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
  const out = new Map<string, InvoiceAggregate>();
  if (ids.length === 0) return out;
  const rows = await ctx.db.select().from(invoices).where(tenantRowsById(invoices, ctx.tenant.id, ids));
  if (rows.length === 0) return out;
  const customerIds = [...new Set(rows.map((r) => r.customerId))];
  const [positions, customerRows, files] = await ctx.db.batch([
    ctx.db
      .select()
      .from(invoicePositions)
      .where(and(eq(invoicePositions.tenantId, ctx.tenant.id), inJson(invoicePositions.invoiceId, ids)))
      .orderBy(asc(invoicePositions.sort)),
    ctx.db.select().from(customers).where(tenantRowsById(customers, ctx.tenant.id, customerIds)),
    ctx.db.select().from(media).where(and(eq(media.tenantId, ctx.tenant.id), eq(media.ownerType, 'invoice'), inJson(media.ownerId, ids))),
  ]);
  const byInvoice = new Map<string, typeof positions>();
  for (const p of positions) {
    const list = byInvoice.get(p.invoiceId);
    if (list) list.push(p);
    else byInvoice.set(p.invoiceId, [p]);
  }
  const customerMap = new Map(customerRows.map((c) => [c.id, c]));
  const filesOf = new Map<string, typeof files>();
  for (const f of files) filesOf.set(f.ownerId, [...(filesOf.get(f.ownerId) ?? []), f]);
  for (const row of rows) {
    out.set(row.id, { row, positions: byInvoice.get(row.id) ?? [], customer: customerMap.get(row.customerId)!, media: filesOf.get(row.id) ?? [] });
  }
  return out;
}

/** Transactions by id, with whether their payment is on the invoice. */
export async function loadCollections(ctx: ServiceContext, ids: string[]): Promise<Map<string, CollectionState>> {
  const out = new Map<string, CollectionState>();
  if (ids.length === 0) return out;
  const rows = await ctx.db
    .select({
      row: transactions,
      paid: sql<number>`EXISTS (SELECT 1 FROM invoice_payments p WHERE p.tenant_id = ${outer(transactions.tenantId)} AND p.invoice_id = ${outer(transactions.invoiceId)} AND p.transaction_id = ${outer(transactions.id)})`,
    })
    .from(transactions)
    .where(tenantRowsById(transactions, ctx.tenant.id, ids));
  for (const r of rows) out.set(r.row.id, { row: r.row, paidOnInvoice: Boolean(r.paid) });
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
  const state: ApplyState = { invoices: new Map(), collections: options.collections ?? new Map() };
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

  // Each line on the state the lines before it leave; a line whose plan no longer fits is left to a person.
  const invoicesBefore = new Map<string, string>();
  const collectionsBefore = new Map<string, string>();
  const view: ApplyState = { invoices: new Map(state.invoices), collections: new Map(state.collections) };
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
        return { id, expected, set: { status: r.status, chargedAmount: r.chargedAmount, paidAt: r.paidAt, failReason: r.failReason, nextRetryAt: r.nextRetryAt, updatedAt: r.updatedAt } };
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

/** Deletes the assignments the works replace; the batch fails unless every one of them is still there. */
function removals(ctx: ServiceContext, works: ItemWork[]): BatchItem<'sqlite'>[] {
  const ids = works.flatMap((w) => w.remove ?? []);
  if (ids.length === 0) return [];
  const a = bankAccountTransactionAssignments;
  return [
    ctx.db.delete(a).where(and(eq(a.tenantId, ctx.tenant.id), inJson(a.id, ids))),
    rawStatement(ctx.db, sql`SELECT json(CASE WHEN changes() = ${ids.length} THEN '1' ELSE 'guard_failed' END)`),
  ];
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
