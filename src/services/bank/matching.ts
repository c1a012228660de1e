import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import { normalizeIban, planBankMatching, type Collection, type MatchItem, type OpenInvoice } from '../../billing/bank-matching';
import { inJson, outer } from '../../db/client';
import { bankAccountTransactionAssignments, bankAccountTransactions, invoices, paymentMethods, transactions } from '../../db/schema';
import type { ServiceContext } from '../context';
import { openSql } from '../invoices/status';
import { owedSql } from '../invoices/owed';
import { applyPlans, withRefunds, type CollectionState } from './apply';
import { settlePayouts } from './payouts';
import type { BankRow } from './read';

// Matching of received bank lines: the inputs are read once for all lines (open invoices, the
// collections the lines name, the IBANs customers pay from), planned in memory by the pure planner
// (src/billing/bank-matching.ts), then written in chunks (./apply.ts).

/** A stored line as the planner sees it; `isReturn` as the file told (or, read back, its return reason or fee). */
export function matchItem(row: BankRow, isReturn = row.amount < 0 && (row.returnReason !== null || row.returnFee !== null)): MatchItem {
  return {
    id: row.id,
    amount: row.amount,
    assigned: row.assignedAmount,
    currency: row.currencyCode,
    text: row.remittanceInformation,
    endToEndId: row.endToEndId,
    mandateId: row.mandateReference,
    counterpartyIban: row.counterpartyIban,
    isReturn,
    returnReason: row.returnReason,
    returnFee: row.returnFee,
  };
}

/** Open invoices (finalized, not fully paid), the documents a credit can pay, and whether a payment of each is on its way. */
async function openInvoices(ctx: ServiceContext): Promise<OpenInvoice[]> {
  const rows = await ctx.db
    .select({
      id: invoices.id,
      number: invoices.number,
      customerId: invoices.customerId,
      currency: invoices.currencyCode,
      owed: owedSql(ctx.tenant.id, 'invoices').mapWith(Number),
      collectable: sql<number>`max(0, ${invoices.grossAmount} - ${invoices.paidAmount})`.mapWith(Number),
      fees: sql<number>`coalesce((SELECT sum(d.fee_amount) FROM dunning_documents d WHERE d.tenant_id = ${outer(invoices.tenantId)} AND d.invoice_id = ${outer(invoices.id)} AND d.status = 'open'), 0)`.mapWith(Number),
      dueDate: invoices.dueDate,
      collecting: sql<number>`EXISTS (SELECT 1 FROM transactions t WHERE t.tenant_id = ${outer(invoices.tenantId)} AND t.invoice_id = ${outer(invoices.id)} AND t.type = 'payment' AND t.status IN ('pending', 'processing', 'action_required'))`,
    })
    .from(invoices)
    .where(and(eq(invoices.tenantId, ctx.tenant.id), openSql('invoices'), eq(invoices.type, 'TYPE_INVOICE'), sql`${owedSql(ctx.tenant.id, 'invoices')} > 0`));
  return rows.map((r) => ({ id: r.id, number: r.number, customerId: r.customerId, currency: r.currency, unpaid: r.owed, collectable: r.collectable, fees: r.fees, dueDate: r.dueDate, collecting: Boolean(r.collecting) }));
}

/**
 * The live SEPA collections the lines name by end-to-end id or mandate, with whether each is paid
 * on its invoice, the lines that accounted for it, its refunds and what its invoice still owes.
 */
async function namedCollections(ctx: ServiceContext, items: MatchItem[]): Promise<{ collections: Collection[]; states: Map<string, CollectionState> }> {
  const endToEnd = [...new Set(items.flatMap((i) => (i.endToEndId ? [i.endToEndId] : [])))];
  const mandates = [...new Set(items.flatMap((i) => (i.mandateId ? [i.mandateId] : [])))];
  if (endToEnd.length === 0 && mandates.length === 0) return { collections: [], states: new Map() };
  const rows = await ctx.db
    .select({
      row: transactions,
      mandate: paymentMethods.mandateReference,
      paid: sql<number>`EXISTS (SELECT 1 FROM invoice_payments p WHERE p.tenant_id = ${outer(transactions.tenantId)} AND p.invoice_id = ${outer(transactions.invoiceId)} AND p.transaction_id = ${outer(transactions.id)})`,
      invoiceUnpaid: sql<number>`coalesce((SELECT CASE WHEN ${openSql('i')} THEN max(0, i.gross_amount - i.paid_amount) ELSE 0 END FROM invoices i WHERE i.tenant_id = ${outer(transactions.tenantId)} AND i.id = ${outer(transactions.invoiceId)}), 0)`,
    })
    .from(transactions)
    .leftJoin(paymentMethods, and(eq(paymentMethods.tenantId, transactions.tenantId), eq(paymentMethods.id, transactions.paymentMethodId)))
    .where(
      and(
        eq(transactions.tenantId, ctx.tenant.id),
        eq(transactions.type, 'payment'),
        eq(transactions.gateway, 'sepa_debit'),
        inArray(transactions.status, ['processing', 'succeeded']),
        sql`(${inJson(transactions.referenceId, endToEnd)} OR ${inJson(paymentMethods.mandateReference, mandates)})`,
      ),
    );
  const [states, assigned] = await Promise.all([
    withRefunds(
      ctx,
      rows.map((r) => ({ row: r.row, paidOnInvoice: Boolean(r.paid) })),
    ),
    acceptedLinesOf(
      ctx,
      rows.map((r) => r.row),
    ),
  ]);
  const collections = rows.map((r): Collection => {
    const refunds = states.get(r.row.id)!.refundIds.map((id) => states.get(id)!.row);
    return {
      id: r.row.id,
      invoiceId: r.row.invoiceId,
      referenceId: r.row.referenceId,
      mandateReference: r.mandate,
      amount: r.row.amount,
      currency: r.row.currencyCode,
      status: r.row.status as Collection['status'],
      paidOnInvoice: Boolean(r.paid),
      assignedTo: assigned.get(r.row.id) ?? [],
      givenBack: refunds.filter((f) => f.status !== 'pending').reduce((s, f) => s + f.amount, 0),
      invoiceUnpaid: r.invoiceUnpaid,
    };
  });
  return { collections, states };
}

/** The bank lines whose accepted assignment names each of these transactions (found through their invoices' index). */
async function acceptedLinesOf(ctx: ServiceContext, rows: { id: string; invoiceId: string | null }[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const invoiceIds = [...new Set(rows.flatMap((r) => (r.invoiceId ? [r.invoiceId] : [])))];
  if (invoiceIds.length === 0) return out;
  const a = bankAccountTransactionAssignments;
  const found = await ctx.db
    .select({ transactionId: a.transactionId, line: a.bankAccountTransactionId })
    .from(a)
    .where(
      and(
        eq(a.tenantId, ctx.tenant.id),
        inJson(a.invoiceId, invoiceIds),
        eq(a.status, 'accepted'),
        inJson(
          a.transactionId,
          rows.map((r) => r.id),
        ),
      ),
    );
  for (const f of found) out.set(f.transactionId!, [...(out.get(f.transactionId!) ?? []), f.line]);
  return out;
}

/** Whose IBANs the lines come from: customers' SEPA mandates, and payers of lines matched before. */
async function payerIbans(ctx: ServiceContext, items: MatchItem[]): Promise<{ customerId: string; iban: string }[]> {
  const ibans = [...new Set(items.flatMap((i) => (i.counterpartyIban && i.amount > 0 ? [normalizeIban(i.counterpartyIban)] : [])))];
  if (ibans.length === 0) return [];
  const a = bankAccountTransactionAssignments;
  const b = bankAccountTransactions;
  const [methods, earlier] = await ctx.db.batch([
    ctx.db
      .select({ customerId: paymentMethods.customerId, iban: paymentMethods.iban })
      .from(paymentMethods)
      .where(and(eq(paymentMethods.tenantId, ctx.tenant.id), inJson(paymentMethods.iban, ibans))),
    ctx.db
      .selectDistinct({ customerId: invoices.customerId, iban: b.counterpartyIban })
      .from(a)
      .innerJoin(b, and(eq(b.tenantId, a.tenantId), eq(b.id, a.bankAccountTransactionId)))
      .innerJoin(invoices, and(eq(invoices.tenantId, a.tenantId), eq(invoices.id, a.invoiceId)))
      .where(and(eq(a.tenantId, ctx.tenant.id), eq(a.status, 'accepted'), gt(a.amount, 0), inJson(b.counterpartyIban, ibans))),
  ]);
  return [...methods, ...earlier].flatMap((r) => (r.iban ? [{ customerId: r.customerId, iban: r.iban }] : []));
}

/**
 * Plans and writes received lines: certain matches are booked, returns applied, suggestions
 * stored, and every line gets its status. Returns the lines as stored afterwards.
 */
export async function matchLines(ctx: ServiceContext, all: { row: BankRow; isReturn?: boolean }[]): Promise<BankRow[]> {
  // Payouts of our own credit-transfer files are settled first; the planner sees the rest.
  const payouts = await settlePayouts(ctx, all);
  const lines = all.filter((l) => !payouts.has(l.row.id));
  if (lines.length === 0) return [];
  const items = lines.map((l) => matchItem(l.row, l.isReturn));
  const credits = items.some((i) => i.amount > 0);
  const [invoicesOpen, named, ibans] = await Promise.all([credits ? openInvoices(ctx) : Promise.resolve([]), namedCollections(ctx, items), payerIbans(ctx, items)]);
  const plans = planBankMatching({ items, invoices: invoicesOpen, collections: named.collections, payerIbans: ibans });
  return applyPlans(
    ctx,
    lines.map((l, i) => ({ row: l.row, plan: plans[i]! })),
    { collections: named.states },
  );
}
