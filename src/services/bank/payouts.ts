import { and, eq, inArray } from 'drizzle-orm';
import { BANK_STATUS } from '../../billing/bank-matching';
import { inJson, isGuardFailure, requirePreviousChange } from '../../db/client';
import { bankAccountTransactionAssignments, bankAccountTransactions, transactions } from '../../db/schema';
import { newId } from '../../lib/ids';
import type { ServiceContext } from '../context';
import { applyRefundOutcome } from '../payments/refunds';
import type { BankRow } from './read';

/**
 * Outgoing credit transfers on the statement: a debit line whose end-to-end id is that of a refund
 * or credit-note payout in a pain.001 file (`processing`) of the same amount settles it, as a
 * SEPA collection's credit settles its debit. The payout becomes `succeeded` (the invoice gets its
 * refund document and `invoice.refunded`), the line is booked against the document it paid out.
 * Returns the ids of the lines it booked; the others go on to matching.
 */
export async function settlePayouts(ctx: ServiceContext, lines: { row: BankRow; isReturn?: boolean }[]): Promise<Set<string>> {
  const debits = lines.filter((l) => l.row.amount < 0 && !l.isReturn && l.row.endToEndId);
  const booked = new Set<string>();
  if (debits.length === 0) return booked;
  const refunds = await ctx.db
    .select()
    .from(transactions)
    .where(
      and(
        eq(transactions.tenantId, ctx.tenant.id),
        eq(transactions.type, 'refund'),
        eq(transactions.status, 'processing'),
        inArray(transactions.gateway, ['sepa_debit', 'bank_transfer']),
        inJson(transactions.referenceId, debits.map((l) => l.row.endToEndId!)),
      ),
    );
  const byReference = new Map(refunds.map((r) => [r.referenceId!, r]));
  for (const { row } of debits) {
    const refund = byReference.get(row.endToEndId!);
    if (!refund || refund.amount !== -row.amount || refund.currencyCode !== row.currencyCode || !refund.invoiceId) continue;
    byReference.delete(row.endToEndId!);
    const nowIso = ctx.now.toISOString();
    try {
      // The line first, guarded as read: a line booked by another request keeps its booking.
      await ctx.db.batch([
        ctx.db
          .update(bankAccountTransactions)
          .set({ status: BANK_STATUS.booked, assignedAmount: row.amount, updatedAt: nowIso })
          .where(and(eq(bankAccountTransactions.tenantId, ctx.tenant.id), eq(bankAccountTransactions.id, row.id), eq(bankAccountTransactions.updatedAt, row.updatedAt))),
        requirePreviousChange(ctx.db),
        ctx.db.insert(bankAccountTransactionAssignments).values({
          id: newId(),
          tenantId: ctx.tenant.id,
          bankAccountTransactionId: row.id,
          invoiceId: refund.invoiceId,
          transactionId: refund.id,
          amount: row.amount,
          fee: 0,
          status: 'accepted',
          matchedBy: 'end_to_end',
          matchedAt: nowIso,
        }),
      ]);
    } catch (err) {
      if (isGuardFailure(err)) continue;
      throw err;
    }
    await applyRefundOutcome(ctx, refund, { status: 'succeeded', referenceId: refund.referenceId! });
    booked.add(row.id);
  }
  return booked;
}
