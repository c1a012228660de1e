import { sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { inJson, tenantRowsById } from '../../db/client';
import { events, paymentMethods } from '../../db/schema';
import { pain008Xml, type Pain008Version, type SepaDirectDebit, type SequenceType } from '../../documents/sepa';
import { EVENT_VERSION, type EventType } from '../../events/catalogue';
import { newId } from '../../lib/ids';
import type { SepaSkipped } from '../../schemas/sepa';
import type { ServiceContext } from '../context';
import { loadSettings } from '../platform/settings';
import { payingMethodJoin } from './paying-method';
import { owedSql } from '../invoices/owed';
import { openSql } from '../invoices/status';
import { creditorIdOf } from './methods';
import { renderPaymentMethod } from './methods-render';
import { insertJsonRows } from '../../db/insert';
import { endToEndId, holderName, SEPA_CURRENCY, sepaAmountText, writeLeavingOut, type SepaFileFrame, type SepaFilePlan, type TransactionInsert } from './sepa-plan';

// The due direct debits of a tenant and the pain.008 file that collects them (docs/decisions.md,
// Payments, "SEPA files").

interface DueDebit {
  invoiceId: string;
  number: string | null;
  customerId: string;
  /** Minor units to collect. */
  amount: number;
  /** Earlier payment transactions of the invoice (every gateway): this debit is attempt + 1. */
  attempts: number;
  methodId: string;
  iban: string;
  details: string | null;
  mandateReference: string | null;
  mandateSignedAt: string | null;
  mandateFirstUsedAt: string | null;
  companyName: string | null;
  firstName: string | null;
  lastName: string | null;
}

/**
 * Open invoices (unpaid or reminded, EUR, something left to pay) whose payment method — the
 * invoice's own, else the customer's default — is an active, enabled SEPA mandate with an IBAN, and
 * that no live collection holds (the partial unique index transactions_live_payment_uq says the same
 * when the file is written). The due date does not matter: a debit is collected as soon as its
 * invoice is issued, as Fynn does. The amount is what the invoice owes (`owedSql`: gross − paid −
 * credit notes, the API's unpaidAmount), never its dunning fees. Oldest invoices first.
 */
async function dueDebits(ctx: ServiceContext): Promise<DueDebit[]> {
  const t = ctx.tenant.id;
  // `+x.tenant_id` keeps the tenant as a filter on primary-key lookups (docs/decisions.md, Auth and tenancy).
  return ctx.db.all<DueDebit>(sql`
    SELECT i.id AS invoiceId, i.number AS number, i.customer_id AS customerId, ${owedSql(t, 'i')} AS amount,
      (SELECT count(*) FROM transactions p WHERE p.tenant_id = ${t} AND p.invoice_id = i.id AND p.type = 'payment') AS attempts,
      m.id AS methodId, m.iban AS iban, m.details AS details, m.mandate_reference AS mandateReference,
      m.mandate_signed_at AS mandateSignedAt, m.mandate_first_used_at AS mandateFirstUsedAt,
      c.company_name AS companyName, c.first_name AS firstName, c.last_name AS lastName
    FROM invoices i
    JOIN payment_methods m ON ${payingMethodJoin(t)}
    JOIN customers c ON +c.tenant_id = ${t} AND c.id = i.customer_id
    WHERE i.tenant_id = ${t} AND ${openSql('i')} AND i.type = 'TYPE_INVOICE'
      AND i.currency_code = ${SEPA_CURRENCY} AND ${owedSql(t, 'i')} > 0
      AND m.type = 'sepa_debit' AND m.status = 'active' AND m.enabled = 1 AND m.iban IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM transactions l WHERE l.tenant_id = ${t} AND l.invoice_id = i.id AND l.type = 'payment'
        AND l.status IN ('pending', 'processing', 'action_required'))
    ORDER BY i.finalization_date, i.id`);
}

interface PlannedDebit {
  due: DueDebit;
  transactionId: string;
  sequenceType: SequenceType;
  debit: SepaDirectDebit;
}

const SEQUENCE_ORDER: SequenceType[] = ['FRST', 'RCUR'];

const parseDetails = (json: string | null): unknown => {
  try {
    return json ? JSON.parse(json) : null;
  } catch {
    return null;
  }
};

/**
 * The pain.008 of every due debit, one PmtInf per sequence type: FRST for a mandate never used
 * before (every debit of it in this file), RCUR after. End-to-end id: the invoice number (what the
 * bank statement shows back, and what matching looks for in transactions.reference_id).
 */
export async function planDebits(ctx: ServiceContext, frame: SepaFileFrame): Promise<SepaFilePlan> {
  const skipped: SepaSkipped[] = [];
  const taken = new Set<string>();
  const planned: PlannedDebit[] = [];
  const max = (await loadSettings(ctx.db, ctx.tenant.id))['sepa.maxDebitsPerFile'];
  for (const due of await dueDebits(ctx)) {
    // A file holds at most `sepa.maxDebitsPerFile` debits; the rest stay due for the next file.
    if (planned.length >= max) break;
    const skip = (reason: string) => skipped.push({ invoice: { id: due.invoiceId, number: due.number }, transactionId: null, reason });
    if (due.amount <= 0) continue;
    if (!due.mandateReference || !due.mandateSignedAt) {
      skip('The SEPA payment method has no mandate reference or signing date.');
      continue;
    }
    const signedOn = due.mandateSignedAt.slice(0, 10);
    if (signedOn > frame.date) {
      skip(`The mandate is signed on ${signedOn}, after the collection date.`);
      continue;
    }
    const transactionId = newId();
    const details = parseDetails(due.details);
    const bic = typeof details === 'object' && details !== null ? (details as { bic?: unknown }).bic : undefined;
    planned.push({
      due,
      transactionId,
      sequenceType: due.mandateFirstUsedAt ? 'RCUR' : 'FRST',
      debit: {
        endToEndId: endToEndId(due.number, due.attempts + 1, transactionId, taken),
        amount: sepaAmountText(due.amount),
        mandateId: due.mandateReference,
        mandateSignedOn: signedOn,
        debtor: { name: holderName(details, due), iban: due.iban, bic: typeof bic === 'string' && bic ? bic : undefined },
        remittance: due.number ?? undefined,
      },
    });
  }
  const layout = (items: PlannedDebit[]) => SEQUENCE_ORDER.map((s) => items.filter((p) => p.sequenceType === s)).filter((g) => g.length > 0);
  const written = writeLeavingOut(
    planned,
    layout,
    (groups) =>
      pain008Xml(
        {
          messageId: frame.messageId,
          createdAt: frame.createdAt,
          creditor: { ...frame.account, creditorId: frame.creditorId },
          groups: groups.map((g) => ({ collectionDate: frame.date, sequenceType: g[0]!.sequenceType, debits: g.map((p) => p.debit) })),
        },
        frame.format as Pain008Version,
      ),
    (p, reason) => skipped.push({ invoice: { id: p.due.invoiceId, number: p.due.number }, transactionId: null, reason }),
  );
  if (!written) return { xml: '', inserts: [], statements: [], amounts: [], skipped };
  const nowIso = ctx.now.toISOString();
  const inserts = written.written.map(
    (p): TransactionInsert => ({
      id: p.transactionId,
      tenantId: ctx.tenant.id,
      customerId: p.due.customerId,
      invoiceId: p.due.invoiceId,
      paymentMethodId: p.due.methodId,
      type: 'payment',
      gateway: 'sepa_debit',
      status: 'processing',
      description: `SEPA direct debit ${frame.messageId}`,
      documentNumber: p.due.number,
      currencyCode: SEPA_CURRENCY,
      amount: p.due.amount,
      referenceId: p.debit.endToEndId,
      idempotencyKey: `sepa:${p.due.invoiceId}:${p.due.attempts + 1}`,
      attempt: p.due.attempts + 1,
      sepaFileId: frame.fileId,
      sepaSequenceType: p.sequenceType,
      collectionDate: frame.date,
      createdAt: nowIso,
      updatedAt: nowIso,
    }),
  );
  const firstUses = [...new Set(written.written.filter((p) => p.sequenceType === 'FRST').map((p) => p.due.methodId))];
  return { xml: written.xml, inserts, statements: await firstUseStatements(ctx, firstUses, nowIso), amounts: inserts.map((r) => r.amount), skipped };
}

/**
 * Mandates used for the first time: `mandateFirstUsedAt` is set (a plain update, updatedAt kept:
 * the method's own writes never set this column), and since the method now shows
 * `sepaMandate.sequenceType: RCUR`, each gets its `payment_method.updated`, inserted in bulk.
 */
async function firstUseStatements(ctx: ServiceContext, methodIds: string[], nowIso: string): Promise<BatchItem<'sqlite'>[]> {
  if (methodIds.length === 0) return [];
  const t = ctx.tenant.id;
  const [rows, creditorId] = await Promise.all([ctx.db.select().from(paymentMethods).where(tenantRowsById(paymentMethods, t, methodIds)), creditorIdOf(ctx)]);
  const eventRows = rows.map((row) => ({
    id: newId(),
    tenantId: t,
    type: 'payment_method.updated' satisfies EventType,
    version: EVENT_VERSION,
    resourceId: row.id,
    data: renderPaymentMethod({ ...row, mandateFirstUsedAt: nowIso }, creditorId),
    createdAt: nowIso,
  }));
  return [
    ctx.db
      .update(paymentMethods)
      .set({ mandateFirstUsedAt: nowIso })
      .where(sql`${paymentMethods.tenantId} = ${t} AND ${paymentMethods.mandateFirstUsedAt} IS NULL AND ${inJson(paymentMethods.id, methodIds)}`),
    ...insertJsonRows(ctx.db, events, eventRows),
  ];
}
