import { sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { inJson, rawStatement } from '../../db/client';
import { pain001Xml, type Pain001Version, type SepaCreditTransfer } from '../../documents/sepa';
import { newId } from '../../lib/ids';
import type { SepaSkipped } from '../../schemas/sepa';
import type { ServiceContext } from '../context';
import { holderName, SEPA_CURRENCY, sepaAmountText, transferEndToEndId, writeLeavingOut, type SepaFileFrame, type SepaFilePlan, type TransactionInsert } from './sepa-plan';

// Money the tenant pays back by credit transfer (pain.001): refunds of SEPA and bank-transfer
// payments, which wait as `pending` refund transactions, and credit notes whose invoice was paid
// beyond what is still owed (docs/decisions.md, Payments, "SEPA files").

/** The customer's account: where the refunded money came from, else the customer's SEPA mandate. */
interface Payee {
  customerId: string;
  /** The refund's own SEPA method, else the statement line that paid, else the customer's mandate. */
  ownIban: string | null;
  ownDetails: string | null;
  statementIban: string | null;
  statementName: string | null;
  mandateId: string | null;
  mandateIban: string | null;
  mandateDetails: string | null;
  companyName: string | null;
  firstName: string | null;
  lastName: string | null;
}

interface PendingRefund extends Payee {
  id: string;
  invoiceId: string | null;
  documentNumber: string | null;
  amount: number;
}

interface CreditNote extends Payee {
  id: string;
  number: string | null;
  invoiceId: string;
  invoiceNumber: string | null;
  /** The credit's magnitude, minor units. */
  credit: number;
  /** What the customer still owes on the invoice (negative: what the tenant owes back). */
  balance: number;
  attempts: number;
}

/** Columns of the payee: the customer, its preferred SEPA mandate with an IBAN, the statement line. */
const payeeColumns = sql`
  d.id AS mandateId, d.iban AS mandateIban, d.details AS mandateDetails, b.counterparty_iban AS statementIban, b.counterparty_name AS statementName,
  c.company_name AS companyName, c.first_name AS firstName, c.last_name AS lastName`;
const mandateJoin = (t: string, customer: SQL) => sql`
  JOIN customers c ON +c.tenant_id = ${t} AND c.id = ${customer}
  LEFT JOIN payment_methods d ON +d.tenant_id = ${t} AND d.id = (SELECT x.id FROM payment_methods x WHERE x.tenant_id = ${t}
    AND x.customer_id = ${customer} AND x.type = 'sepa_debit' AND x.iban IS NOT NULL AND x.enabled = 1 AND x.status <> 'revoked'
    ORDER BY x.is_default DESC, x.created_at DESC LIMIT 1)`;

async function pendingRefunds(ctx: ServiceContext): Promise<PendingRefund[]> {
  const t = ctx.tenant.id;
  return ctx.db.all<PendingRefund>(sql`
    SELECT r.id AS id, r.customer_id AS customerId, r.invoice_id AS invoiceId, r.document_number AS documentNumber, r.amount AS amount,
      m.iban AS ownIban, m.details AS ownDetails, ${payeeColumns}
    FROM transactions r
    ${mandateJoin(t, sql.raw('r.customer_id'))}
    LEFT JOIN payment_methods m ON +m.tenant_id = ${t} AND m.id = r.payment_method_id AND m.type = 'sepa_debit' AND m.iban IS NOT NULL
    LEFT JOIN bank_account_transactions b ON +b.tenant_id = ${t} AND b.id = (SELECT a.bank_account_transaction_id
      FROM bank_account_transaction_assignments a WHERE a.tenant_id = ${t} AND a.invoice_id = r.invoice_id AND a.transaction_id = r.parent_transaction_id LIMIT 1)
    WHERE r.tenant_id = ${t} AND r.type = 'refund' AND r.status = 'pending' AND r.sepa_file_id IS NULL
      AND r.gateway IN ('sepa_debit', 'bank_transfer') AND r.currency_code = ${SEPA_CURRENCY} AND r.amount > 0
    ORDER BY r.created_at, r.id`);
}

/**
 * Credit notes that owe the customer money: the credited invoice's balance (gross − credit notes
 * and refund documents − payments + refunds paid back + payouts made) is below zero, and the credit
 * note has no live payout yet. `balance` is per invoice; the caller spreads it over its credit notes.
 */
async function creditNotes(ctx: ServiceContext): Promise<CreditNote[]> {
  const t = ctx.tenant.id;
  return ctx.db.all<CreditNote>(sql`
    WITH corrected AS (
      SELECT referenced_invoice_id AS invoice_id, sum(-gross_amount) AS amount FROM invoices
      WHERE tenant_id = ${t} AND type IN ('TYPE_CREDIT', 'TYPE_REFUND') AND status <> 'STATUS_DRAFT' AND referenced_invoice_id IS NOT NULL
      GROUP BY referenced_invoice_id),
    paid_out AS (
      SELECT x.referenced_invoice_id AS invoice_id, sum(p.amount) AS amount FROM transactions p
      JOIN invoices x ON +x.tenant_id = ${t} AND x.id = p.invoice_id AND x.type = 'TYPE_CREDIT'
      WHERE p.tenant_id = ${t} AND p.type = 'refund' AND p.status IN ('pending', 'processing', 'succeeded')
      GROUP BY x.referenced_invoice_id)
    SELECT n.id AS id, n.number AS number, n.customer_id AS customerId, -n.gross_amount AS credit,
      i.id AS invoiceId, i.number AS invoiceNumber,
      i.gross_amount - coalesce(k.amount, 0) - i.paid_amount + coalesce(o.amount, 0)
        + (SELECT coalesce(sum(p.refunded_amount), 0) FROM transactions p WHERE p.tenant_id = ${t} AND p.invoice_id = i.id AND p.type = 'payment' AND p.status = 'succeeded') AS balance,
      (SELECT count(*) FROM transactions p WHERE p.tenant_id = ${t} AND p.invoice_id = n.id AND p.type = 'refund') AS attempts,
      NULL AS ownIban, NULL AS ownDetails, ${payeeColumns}
    FROM invoices n
    JOIN invoices i ON +i.tenant_id = ${t} AND i.id = n.referenced_invoice_id
    ${mandateJoin(t, sql.raw('n.customer_id'))}
    LEFT JOIN corrected k ON k.invoice_id = i.id
    LEFT JOIN paid_out o ON o.invoice_id = i.id
    LEFT JOIN bank_account_transactions b ON +b.tenant_id = ${t} AND b.id = (SELECT a.bank_account_transaction_id
      FROM bank_account_transaction_assignments a WHERE a.tenant_id = ${t} AND a.invoice_id = i.id ORDER BY a.matched_at DESC LIMIT 1)
    WHERE n.tenant_id = ${t} AND n.type = 'TYPE_CREDIT' AND n.status <> 'STATUS_DRAFT' AND n.currency_code = ${SEPA_CURRENCY} AND i.paid_amount > 0
      AND NOT EXISTS (SELECT 1 FROM transactions l WHERE l.tenant_id = ${t} AND l.invoice_id = n.id AND l.type = 'refund'
        AND l.status IN ('pending', 'processing', 'succeeded'))
    ORDER BY n.finalization_date, n.id`);
}

const parse = (json: string | null): unknown => {
  try {
    return json ? JSON.parse(json) : null;
  } catch {
    return null;
  }
};

/** Where the money goes: the first IBAN known of the payee, with its holder's name and BIC (and the mandate, when the IBAN is the customer's mandate's). */
function account(p: Payee): { creditor: SepaCreditTransfer['creditor']; methodId: string | null } | null {
  const fromMethod = (methodId: string | null, iban: string | null, json: string | null) => {
    if (!iban) return null;
    const details = parse(json);
    const bic = typeof details === 'object' && details !== null ? (details as { bic?: unknown }).bic : undefined;
    return { creditor: { name: holderName(details, p), iban, bic: typeof bic === 'string' && bic ? bic : undefined }, methodId };
  };
  return (
    fromMethod(null, p.ownIban, p.ownDetails) ??
    (p.statementIban ? { creditor: { name: p.statementName || holderName(null, p), iban: p.statementIban }, methodId: null } : null) ??
    fromMethod(p.mandateId, p.mandateIban, p.mandateDetails)
  );
}

interface PlannedTransfer {
  /** A pending refund taken into the file, or a credit note's new payout. */
  refundId: string | null;
  payout: TransactionInsert | null;
  amount: number;
  skipped: SepaSkipped;
  transfer: SepaCreditTransfer;
}

const NO_ACCOUNT = "No IBAN of the customer is known: no SEPA mandate, and no bank-statement line paid the invoice. Pay it by hand, or add the customer's account as a sepa_debit payment method.";

/**
 * The pain.001 of every pending refund and due credit-note payout, in one PmtInf on the execution
 * date. End-to-end id: the transaction id (without dashes), kept as its reference.
 */
export async function planTransfers(ctx: ServiceContext, frame: SepaFileFrame): Promise<SepaFilePlan> {
  const skipped: SepaSkipped[] = [];
  const planned: PlannedTransfer[] = [];
  const nowIso = ctx.now.toISOString();
  for (const r of await pendingRefunds(ctx)) {
    const entry: SepaSkipped = { invoice: r.invoiceId ? { id: r.invoiceId, number: r.documentNumber } : null, transactionId: r.id, reason: '' };
    const payee = account(r);
    if (!payee) {
      skipped.push({ ...entry, reason: NO_ACCOUNT });
      continue;
    }
    const remittance = `Refund ${r.documentNumber ?? ''}`.trim();
    planned.push({ refundId: r.id, payout: null, amount: r.amount, skipped: entry, transfer: { endToEndId: transferEndToEndId(r.id), amount: sepaAmountText(r.amount), creditor: payee.creditor, remittance } });
  }
  // What each invoice owes back, spent by its credit notes in order.
  const owedBack = new Map<string, number>();
  for (const n of await creditNotes(ctx)) {
    const left = owedBack.get(n.invoiceId) ?? -n.balance;
    const amount = Math.min(n.credit, left);
    if (amount <= 0) continue;
    const entry: SepaSkipped = { invoice: { id: n.id, number: n.number }, transactionId: null, reason: '' };
    const payee = account(n);
    if (!payee) {
      skipped.push({ ...entry, reason: NO_ACCOUNT });
      continue;
    }
    owedBack.set(n.invoiceId, left - amount);
    const id = newId();
    const payout: TransactionInsert = {
      id,
      tenantId: ctx.tenant.id,
      customerId: n.customerId,
      invoiceId: n.id,
      paymentMethodId: payee.methodId,
      type: 'refund',
      gateway: 'bank_transfer',
      status: 'processing',
      description: `Payout of credit note ${n.number ?? ''} for ${n.invoiceNumber ?? ''}`.replace(/\s+/g, ' ').trim(),
      documentNumber: n.number,
      currencyCode: SEPA_CURRENCY,
      amount,
      referenceId: transferEndToEndId(id),
      idempotencyKey: `payout:${n.id}:${n.attempts + 1}`,
      attempt: n.attempts + 1,
      sepaFileId: frame.fileId,
      collectionDate: frame.date,
      createdAt: nowIso,
      updatedAt: nowIso,
    };
    const remittance = `Credit note ${n.number ?? ''} ${n.invoiceNumber ?? ''}`.replace(/\s+/g, ' ').trim();
    planned.push({ refundId: null, payout, amount, skipped: entry, transfer: { endToEndId: payout.referenceId!, amount: sepaAmountText(amount), creditor: payee.creditor, remittance } });
  }
  const written = writeLeavingOut(
    planned,
    (items) => [items],
    ([transfers]) =>
      pain001Xml(
        { messageId: frame.messageId, createdAt: frame.createdAt, payer: frame.account, groups: [{ executionDate: frame.date, transfers: transfers!.map((p) => p.transfer) }] },
        frame.format as Pain001Version,
      ),
    (p, reason) => skipped.push({ ...p.skipped, reason }),
  );
  if (!written) return { xml: '', inserts: [], statements: [], amounts: [], skipped };
  const taken = written.written.filter((p) => p.refundId !== null);
  const statements: BatchItem<'sqlite'>[] = [];
  if (taken.length) {
    // Each pending refund moves into this file once: a refund another file took meanwhile makes
    // the count differ, and the whole batch fails (then the file is planned again).
    statements.push(
      rawStatement(
        ctx.db,
        sql`UPDATE transactions SET status = 'processing', sepa_file_id = ${frame.fileId}, collection_date = ${frame.date}, updated_at = ${nowIso},
          reference_id = replace(id, '-', '')
          WHERE tenant_id = ${ctx.tenant.id} AND status = 'pending' AND sepa_file_id IS NULL AND ${inJson(sql.raw('id'), taken.map((p) => p.refundId!))}`,
      ),
      rawStatement(ctx.db, sql`SELECT json(CASE WHEN changes() = ${taken.length} THEN '1' ELSE 'guard_failed' END)`),
    );
  }
  const inserts = written.written.flatMap((p) => (p.payout ? [p.payout] : []));
  return { xml: written.xml, inserts, statements, amounts: written.written.map((p) => p.amount), skipped };
}
