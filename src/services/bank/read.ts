import { z } from '@hono/zod-openapi';
import { and, asc, count, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import { formatMoney, fromMinorUnits } from '../../billing/money';
import { inJson } from '../../db/client';
import { bankAccountTransactionAssignments, bankAccountTransactions, invoices } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { collection, filterValues, listFilter, pageOffset, paginationQuery } from '../../http/pagination';
import { calendarDate } from '../../http/schemas';
import {
  BANK_ACCOUNT_TRANSACTION_STATUSES,
  type BankAccountTransactionAssignmentResource,
  type BankAccountTransactionResource,
} from '../../schemas/bank';
import type { ServiceContext } from '../context';
import { maskIban } from '../documents/settings';

export type BankRow = typeof bankAccountTransactions.$inferSelect;
export type AssignmentRow = typeof bankAccountTransactionAssignments.$inferSelect;

const money = (minor: number, currency: string) => formatMoney(fromMinorUnits(minor, currency), currency);

export function renderAssignment(a: AssignmentRow, currency: string, invoiceNumber: string | null): BankAccountTransactionAssignmentResource {
  return {
    id: a.id,
    bankAccountTransaction: { id: a.bankAccountTransactionId },
    invoice: { id: a.invoiceId, number: invoiceNumber },
    transaction: a.transactionId ? { id: a.transactionId } : null,
    amount: money(a.amount, currency),
    fee: money(a.fee, currency),
    status: a.status,
    matchedBy: a.matchedBy as BankAccountTransactionAssignmentResource['matchedBy'],
    matchedAt: a.matchedAt,
  };
}

export function renderBankTransaction(r: BankRow, assignments: { row: AssignmentRow; number: string | null }[]): BankAccountTransactionResource {
  const c = r.currencyCode;
  return {
    id: r.id,
    status: r.status as BankAccountTransactionResource['status'],
    import: r.importId ? { id: r.importId } : null,
    openBankingAccount: r.openBankingAccountId ? { id: r.openBankingAccountId } : null,
    accountIban: r.accountIban ? maskIban(r.accountIban) : null,
    bookingDate: r.bookingDate,
    valueDate: r.valueDate,
    amount: money(r.amount, c),
    assignedAmount: money(r.assignedAmount, c),
    remainder: money(r.amount - r.assignedAmount, c),
    currencyCode: c,
    counterpartyName: r.counterpartyName,
    counterpartyIban: r.counterpartyIban ? maskIban(r.counterpartyIban) : null,
    remittanceInformation: r.remittanceInformation,
    endToEndId: r.endToEndId,
    mandateReference: r.mandateReference,
    returnReason: r.returnReason,
    returnFee: r.returnFee === null ? null : money(r.returnFee, c),
    assignments: assignments.map((a) => renderAssignment(a.row, c, a.number)),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** The assignments of these bank lines with their invoices' numbers, by bank line. */
async function assignmentsOf(ctx: ServiceContext, ids: string[]) {
  const out = new Map<string, { row: AssignmentRow; number: string | null }[]>();
  if (ids.length === 0) return out;
  const rows = await ctx.db
    .select({ row: bankAccountTransactionAssignments, number: invoices.number })
    .from(bankAccountTransactionAssignments)
    .leftJoin(invoices, and(eq(invoices.tenantId, bankAccountTransactionAssignments.tenantId), eq(invoices.id, bankAccountTransactionAssignments.invoiceId)))
    .where(and(eq(bankAccountTransactionAssignments.tenantId, ctx.tenant.id), inJson(bankAccountTransactionAssignments.bankAccountTransactionId, ids)))
    .orderBy(asc(bankAccountTransactionAssignments.matchedAt), asc(bankAccountTransactionAssignments.id));
  for (const r of rows) out.set(r.row.bankAccountTransactionId, [...(out.get(r.row.bankAccountTransactionId) ?? []), { row: r.row, number: r.number }]);
  return out;
}

export async function renderBankTransactions(ctx: ServiceContext, rows: BankRow[]): Promise<BankAccountTransactionResource[]> {
  const assignments = await assignmentsOf(
    ctx,
    rows.map((r) => r.id),
  );
  return rows.map((r) => renderBankTransaction(r, assignments.get(r.id) ?? []));
}

export async function loadBankRow(ctx: ServiceContext, id: string): Promise<BankRow> {
  const row = await ctx.db
    .select()
    .from(bankAccountTransactions)
    .where(and(eq(bankAccountTransactions.tenantId, ctx.tenant.id), eq(bankAccountTransactions.id, id)))
    .get();
  if (!row) throw ApiError.notFound('Bank account transaction');
  return row;
}

export async function getBankTransaction(ctx: ServiceContext, id: string) {
  const [resource] = await renderBankTransactions(ctx, [await loadBankRow(ctx, id)]);
  return resource!;
}

const statusFilter = z.enum(BANK_ACCOUNT_TRANSACTION_STATUSES);

/** GET /payment/bank-account-transactions: filters. */
export const bankTransactionListQuery = z.object({
  ...paginationQuery,
  ...listFilter('status', statusFilter),
  'bookingDate[after]': calendarDate.optional().openapi({ description: 'Booked on or after (YYYY-MM-DD)' }),
  'bookingDate[before]': calendarDate.optional().openapi({ description: 'Booked on or before (YYYY-MM-DD)' }),
  import: z.string().max(64).optional(),
});

export async function listBankTransactions(ctx: ServiceContext, q: z.output<typeof bankTransactionListQuery>) {
  const t = bankAccountTransactions;
  const statuses = filterValues(q.status, q['status[]']);
  const filters: (SQL | undefined)[] = [eq(t.tenantId, ctx.tenant.id)];
  if (statuses) filters.push(inJson(t.status, statuses));
  if (q['bookingDate[after]']) filters.push(gte(t.bookingDate, q['bookingDate[after]']));
  if (q['bookingDate[before]']) filters.push(lte(t.bookingDate, q['bookingDate[before]']));
  if (q.import) filters.push(eq(t.importId, q.import));
  const where = and(...filters);
  const [[total], rows] = await ctx.db.batch([
    ctx.db.select({ n: count() }).from(t).where(where),
    ctx.db.select().from(t).where(where).orderBy(desc(t.bookingDate), desc(t.createdAt), desc(t.id)).limit(q.limit).offset(pageOffset(q)),
  ]);
  return collection(await renderBankTransactions(ctx, rows), total?.n ?? 0, q);
}

// ---------------------------------------------------------------------------------------------
// Assignments

export async function loadAssignment(ctx: ServiceContext, id: string) {
  const a = bankAccountTransactionAssignments;
  const found = await ctx.db
    .select({ row: a, number: invoices.number, currency: bankAccountTransactions.currencyCode })
    .from(a)
    .innerJoin(bankAccountTransactions, and(eq(bankAccountTransactions.tenantId, a.tenantId), eq(bankAccountTransactions.id, a.bankAccountTransactionId)))
    .leftJoin(invoices, and(eq(invoices.tenantId, a.tenantId), eq(invoices.id, a.invoiceId)))
    .where(and(eq(a.tenantId, ctx.tenant.id), eq(a.id, id)))
    .get();
  if (!found) throw ApiError.notFound('Bank account transaction assignment');
  return found;
}

export async function getAssignment(ctx: ServiceContext, id: string) {
  const f = await loadAssignment(ctx, id);
  return renderAssignment(f.row, f.currency, f.number);
}

/** GET /payment/bank-account-transaction-assignments: filters. */
export const assignmentListQuery = z.object({
  ...paginationQuery,
  bankAccountTransaction: z.string().max(64).optional(),
  invoice: z.string().max(64).optional(),
  status: z.enum(['suggested', 'accepted']).optional(),
});

export async function listAssignments(ctx: ServiceContext, q: z.output<typeof assignmentListQuery>) {
  const a = bankAccountTransactionAssignments;
  const filters: (SQL | undefined)[] = [eq(a.tenantId, ctx.tenant.id)];
  if (q.bankAccountTransaction) filters.push(eq(a.bankAccountTransactionId, q.bankAccountTransaction));
  if (q.invoice) filters.push(eq(a.invoiceId, q.invoice));
  if (q.status) filters.push(eq(a.status, q.status));
  const where = and(...filters);
  const [[total], rows] = await ctx.db.batch([
    ctx.db.select({ n: count() }).from(a).where(where),
    ctx.db
      .select({ row: a, number: invoices.number, currency: bankAccountTransactions.currencyCode })
      .from(a)
      .innerJoin(bankAccountTransactions, and(eq(bankAccountTransactions.tenantId, a.tenantId), eq(bankAccountTransactions.id, a.bankAccountTransactionId)))
      .leftJoin(invoices, and(eq(invoices.tenantId, a.tenantId), eq(invoices.id, a.invoiceId)))
      .where(where)
      .orderBy(desc(a.matchedAt), desc(a.id))
      .limit(q.limit)
      .offset(pageOffset(q)),
  ]);
  return collection(
    rows.map((r) => renderAssignment(r.row, r.currency, r.number)),
    total?.n ?? 0,
    q,
  );
}
