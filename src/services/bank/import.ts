import { and, count, eq, sql } from 'drizzle-orm';
import { BANK_STATUS, normalizeIban } from '../../billing/bank-matching';
import { checkDecimal, currencyScale, documentAmountLimit, toMinorUnitsSafe, withinDocumentLimit } from '../../billing/money';
import { isUniqueViolation } from '../../db/client';
import { bankAccountTransactionAssignments, bankAccountTransactions, bankStatementImports } from '../../db/schema';
import { CamtInputError, camtBankItems, decodeCamtBytes, parseCamt, type BankItem, type CamtDocument, type CamtViolation } from '../../documents/camt';
import { ApiError, Violations } from '../../http/errors';
import { sha256Hex } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { CURRENCY_MINOR_UNITS } from '../../reference/iso';
import type { BankImportResultResource } from '../../schemas/bank';
import type { ServiceContext } from '../context';
import { insertJsonRows } from '../../db/insert';
import { matchLines } from './matching';
import type { BankRow } from './read';

// Importing booked lines: a camt file (POST /payment/bank-account-transactions/import) or an
// open-banking pull, one path. The whole file is read and checked before anything is written; the
// file's SHA-256 makes a second import of the same bytes a no-op, and each line's fingerprint
// makes overlapping statements add each booking once.

/** The largest statement accepted (a month of a busy account is a few MB). */
export const MAX_STATEMENT_BYTES = 20 * 1024 * 1024;

export interface BankItemSource {
  /** `camt.053.001.02` and the like, or `open_banking`. */
  format: string;
  /** Identifies the batch: the same batch imported again adds nothing and answers the earlier import. */
  sha256: string;
  openBankingAccountId?: string | null;
}

export interface ImportOutcome {
  /** False when the same batch was imported before. */
  created: boolean;
  result: BankImportResultResource;
}

type ImportRow = typeof bankStatementImports.$inferSelect;
type LineInsert = typeof bankAccountTransactions.$inferInsert;

/** A camt file's problems as the API's violations, each at the XML path it names. */
export function camtViolations(err: CamtInputError): ApiError {
  return ApiError.validation(
    err.violations.map((v) => ({ propertyPath: v.path, message: v.message, code: v.rule })),
    `The file is not a bank statement that can be imported: ${err.violations.map((v) => `${v.path}: ${v.message}`).join('; ')}`,
  );
}

/** POST /payment/bank-account-transactions/import: a camt.052/053/054 file as bytes. */
export async function importStatement(ctx: ServiceContext, bytes: Uint8Array): Promise<ImportOutcome> {
  if (bytes.byteLength > MAX_STATEMENT_BYTES) throw new ApiError(413, 'body-too-large', `The statement exceeds ${MAX_STATEMENT_BYTES} bytes.`);
  let items: BankItem[];
  let format: string;
  try {
    const doc = parseCamt(decodeCamtBytes(bytes));
    checkDocumentAmounts(doc);
    items = camtBankItems(doc);
    format = doc.format;
  } catch (err) {
    if (err instanceof CamtInputError) throw camtViolations(err);
    throw err;
  }
  return importBankItems(ctx, items, { format, sha256: await sha256Hex(bytes) });
}

/**
 * Amounts the API can hold: below the document limit of their currency (docs/decisions.md,
 * Invoices and billing), as every other amount. The camt schema allows 18 digits; a booking
 * beyond the limit is no bank account's, and could not be stored exactly.
 */
function checkDocumentAmounts(doc: CamtDocument) {
  const violations: CamtViolation[] = [];
  const check = (amount: { amount: string; currency: string } | null, path: string) => {
    if (amount && !withinDocumentLimit(amount.amount, amount.currency)) {
      violations.push({ path, rule: 'too_large', message: `${amount.amount.replace(/^-/, '')} ${amount.currency} is beyond what can be booked (below ${documentAmountLimit(amount.currency).toFixed(0)} ${amount.currency}).` });
    }
  };
  for (const s of doc.statements) {
    for (const e of s.entries) {
      check(e, `${e.path}.Amt`);
      check(e.charges, `${e.path}.Chrgs`);
      for (const d of e.details) {
        check(d.amount !== null && d.currency !== null ? { amount: d.amount, currency: d.currency } : null, `${d.path}.Amt`);
        check(d.charges, `${d.path}.Chrgs`);
      }
    }
  }
  if (violations.length > 0) throw new CamtInputError(violations);
}

/** Whether an item is a debit the payer's bank sent back. */
export const isReturnItem = (item: BankItem) =>
  item.amount.startsWith('-') && (item.returnInfo !== null || item.reversal || item.bankTransactionCode?.subFamily === 'UPDD');

/**
 * Stores already-read items (a camt file's, an open-banking pull's) and matches them: the one
 * path both take. Items whose fingerprint the tenant has already are skipped; items not booked
 * (PDNG, INFO) and zero amounts are stored as STATUS_IGNORED and never matched.
 */
export async function importBankItems(ctx: ServiceContext, items: BankItem[], source: BankItemSource): Promise<ImportOutcome> {
  const earlier = await findImport(ctx, source.sha256);
  if (earlier) return { created: false, result: await resumeImport(ctx, earlier) };
  checkItems(items);
  const nowIso = ctx.now.toISOString();
  const importRow: ImportRow = { id: newId(), tenantId: ctx.tenant.id, sha256: source.sha256, format: source.format, entries: items.length, createdAt: nowIso };
  const fingerprints = await fingerprintsOf(items);
  const returns = new Map<string, boolean>();
  const lines = items.map((item, i): LineInsert => {
    const amount = toMinorUnitsSafe(item.amount, item.currency);
    const isReturn = isReturnItem(item);
    returns.set(fingerprints[i]!, isReturn);
    const remittance = [item.remittance, ...item.structuredReferences].filter((t): t is string => Boolean(t)).join(' ; ');
    return {
      id: newId(),
      tenantId: ctx.tenant.id,
      importId: importRow.id,
      openBankingAccountId: source.openBankingAccountId ?? null,
      fingerprint: fingerprints[i]!,
      status: item.status !== 'BOOK' || amount === 0 ? BANK_STATUS.ignored : BANK_STATUS.received,
      accountIban: item.accountIban ? normalizeIban(item.accountIban) : null,
      bookingDate: item.bookingDate,
      valueDate: item.valueDate,
      amount,
      currencyCode: item.currency,
      counterpartyName: item.counterpartyName,
      counterpartyIban: item.counterpartyIban ? normalizeIban(item.counterpartyIban) : null,
      remittanceInformation: remittance || null,
      endToEndId: item.endToEndId,
      mandateReference: item.mandateId,
      returnReason: item.returnInfo?.reason ?? null,
      returnFee: isReturn && item.charges ? toMinorUnitsSafe(item.charges, item.currency) : null,
      assignedAmount: 0,
      createdAt: nowIso,
      updatedAt: nowIso,
    };
  });
  let added: BankRow[];
  try {
    const [, ...rest] = await ctx.db.batch([
      ctx.db.insert(bankStatementImports).values(importRow),
      ...insertJsonRows(ctx.db, bankAccountTransactions, lines, { ignoreConflicts: true }),
      ctx.db.select().from(bankAccountTransactions).where(and(eq(bankAccountTransactions.tenantId, ctx.tenant.id), eq(bankAccountTransactions.importId, importRow.id))),
    ] as unknown as Parameters<typeof ctx.db.batch>[0]);
    added = rest[rest.length - 1] as BankRow[];
  } catch (err) {
    // The same file, imported by a request that was faster.
    if (!isUniqueViolation(err, 'sha256')) throw err;
    const winner = await findImport(ctx, source.sha256);
    if (!winner) throw err;
    return { created: false, result: await resumeImport(ctx, winner) };
  }
  await matchLines(
    ctx,
    added.filter((r) => r.status === BANK_STATUS.received).map((row) => ({ row, isReturn: returns.get(row.fingerprint) ?? false })),
  );
  return { created: true, result: await importResult(ctx, importRow, added.length) };
}

/** Items from elsewhere than the camt reader (open banking) get the reader's amount rules. */
function checkItems(items: BankItem[]) {
  const v = new Violations();
  items.forEach((item, i) => {
    if (!CURRENCY_MINOR_UNITS.has(item.currency)) {
      v.add(`items[${i}].currency`, 'Must be an ISO 4217 currency code.', 'invalid_currency_code');
      return;
    }
    const limit = `Must stay below ${documentAmountLimit(item.currency).toFixed(0)} ${item.currency}.`;
    const p = checkDecimal(item.amount, { maxDecimals: currencyScale(item.currency) });
    if (p) v.add(`items[${i}].amount`, p.message, p.code);
    else if (!withinDocumentLimit(item.amount, item.currency)) v.add(`items[${i}].amount`, limit, 'too_large');
    if (item.charges !== null) {
      const c = checkDecimal(item.charges, { maxDecimals: currencyScale(item.currency), allowNegative: false });
      if (c) v.add(`items[${i}].charges`, c.message, c.code);
      else if (!withinDocumentLimit(item.charges, item.currency)) v.add(`items[${i}].charges`, limit, 'too_large');
    }
  });
  v.throwIfAny();
}

/**
 * Each item's identity across files: the bank's reference for the booking (account servicer
 * reference) with the transaction's place in a batch (or `entry` for a booking taken whole, so a
 * batch a camt.053 books as one sum and a camt.054 itemizes are told apart), else a hash of what
 * the booking says. An
 * item the same file has twice gets `#2`, `#3`…, so two equal transfers on one day stay two while
 * a second statement repeating both adds neither. Items not booked (PDNG, INFO) carry their status,
 * so the booked line that follows later is a line of its own.
 */
async function fingerprintsOf(items: BankItem[]): Promise<string[]> {
  const seen = new Map<string, number>();
  const out: string[] = [];
  for (const item of items) {
    const account = item.accountIban ? normalizeIban(item.accountIban) : '';
    const status = item.status === 'BOOK' ? '' : `:${item.status}`;
    const base = item.accountServicerReference
      ? `ref:${account}:${item.accountServicerReference}:${item.detailIndex ?? 'entry'}${status}`
      : `hash:${await sha256Hex(
          JSON.stringify([
            account,
            item.bookingDate,
            item.valueDate,
            item.amount,
            item.currency,
            item.endToEndId,
            item.mandateId,
            item.counterpartyIban,
            item.remittance,
            item.structuredReferences,
            item.detailIndex,
          ]),
        )}${status}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    out.push(n === 1 ? base : `${base}#${n}`);
  }
  return out;
}

async function findImport(ctx: ServiceContext, sha256: string) {
  return ctx.db
    .select()
    .from(bankStatementImports)
    .where(and(eq(bankStatementImports.tenantId, ctx.tenant.id), eq(bankStatementImports.sha256, sha256)))
    .get();
}

/** An import seen again: lines a request that died left unmatched are matched now; nothing is added. */
async function resumeImport(ctx: ServiceContext, imported: ImportRow): Promise<BankImportResultResource> {
  const waiting = await ctx.db
    .select()
    .from(bankAccountTransactions)
    .where(and(eq(bankAccountTransactions.tenantId, ctx.tenant.id), eq(bankAccountTransactions.importId, imported.id), eq(bankAccountTransactions.status, BANK_STATUS.received)));
  await matchLines(
    ctx,
    waiting.map((row) => ({ row })),
  );
  return importResult(ctx, imported, 0);
}

async function importResult(ctx: ServiceContext, imported: ImportRow, added: number): Promise<BankImportResultResource> {
  const b = bankAccountTransactions;
  const a = bankAccountTransactionAssignments;
  const [byStatus, [suggested]] = await ctx.db.batch([
    ctx.db
      .select({ status: b.status, n: count() })
      .from(b)
      .where(and(eq(b.tenantId, ctx.tenant.id), eq(b.importId, imported.id)))
      .groupBy(b.status),
    ctx.db
      .select({ n: count() })
      .from(a)
      .where(
        and(
          eq(a.tenantId, ctx.tenant.id),
          eq(a.status, 'suggested'),
          sql`${a.bankAccountTransactionId} IN (SELECT id FROM bank_account_transactions WHERE tenant_id = ${ctx.tenant.id} AND import_id = ${imported.id})`,
        ),
      ),
  ]);
  const n = (status: string) => byStatus.find((s) => s.status === status)?.n ?? 0;
  return {
    import: { id: imported.id, format: imported.format, entries: imported.entries, createdAt: imported.createdAt },
    added,
    booked: n(BANK_STATUS.booked),
    manualMatchingRequired: n(BANK_STATUS.manual),
    ignored: n(BANK_STATUS.ignored),
    suggestions: suggested?.n ?? 0,
  };
}
