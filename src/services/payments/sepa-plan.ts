import type { BatchItem } from 'drizzle-orm/batch';
import { currencyScale, formatDecimal, fromMinorUnits } from '../../billing/money';
import type { transactions } from '../../db/schema';
import { sepaText, SepaInputError, type SepaAccountHolder, type SepaViolation } from '../../documents/sepa';
import { Checker } from '../../documents/sepa/rules';
import { ApiError } from '../../http/errors';
import type { SepaFormat, SepaSkipped } from '../../schemas/sepa';

// What the two kinds of SEPA file share: the file's frame (ids, date, the tenant's account), the
// plan a kind hands back (XML, rows, statements), and how items the writer refuses are left out.

/** The file being made: decided before the due items are read. */
export interface SepaFileFrame {
  fileId: string;
  messageId: string;
  format: SepaFormat;
  /** Collection date (debits) or execution date (transfers), YYYY-MM-DD. */
  date: string;
  createdAt: Date;
  /** The tenant's account: creditor of debits, debtor of transfers. */
  account: Required<Pick<SepaAccountHolder, 'name' | 'iban'>> & { bic?: string };
  /** Direct debits only. */
  creditorId: string;
}

export type TransactionInsert = typeof transactions.$inferInsert;

/** What a kind of file contributes to the one batch that records it. */
export interface SepaFilePlan {
  xml: string;
  /** Transactions the file creates (debits, credit-note payouts). */
  inserts: TransactionInsert[];
  /** Other statements of the batch (mandates marked used, pending refunds taken into the file). */
  statements: BatchItem<'sqlite'>[];
  /** Every transaction of the file (new or taken over), for its totals. */
  amounts: number[];
  skipped: SepaSkipped[];
}

export const SEPA_CURRENCY = 'EUR';

/** Minor units as SEPA writes them: "119.00". */
export const sepaAmountText = (minor: number) => formatDecimal(fromMinorUnits(minor, SEPA_CURRENCY), currencyScale(SEPA_CURRENCY));

/** Whether the writer takes `id` as an identifier (its own rule, asked rather than copied). */
function isSepaId(id: string): boolean {
  const checker = new Checker();
  checker.id('id', id);
  return checker.violations.length === 0;
}

/**
 * An id for EndToEndId from a document number: the number itself when it is a valid SEPA id
 * (1–35 characters of the SEPA set, no spaces, no leading/trailing or double "/"), else the number
 * transliterated with spaces as "-"; `fallback` (a transaction id) when nothing usable is left or
 * the id is taken in this file. Later attempts of the same invoice get "-<attempt>" so a return of
 * an earlier debit never names the new one.
 */
export function endToEndId(number: string | null, attempt: number, fallback: string, taken: Set<string>): string {
  let id = number ?? '';
  if (!isSepaId(id)) {
    id = sepaText(id, 70)
      .replace(/ /g, '-')
      .replace(/\/{2,}/g, '/')
      .replace(/^\/+|\/+$/g, '');
  }
  if (attempt > 1 && id) {
    const suffix = `-${attempt}`;
    id = `${id.slice(0, 35 - suffix.length).replace(/\/+$/, '')}${suffix}`;
  }
  id = id.slice(0, 35).replace(/\/+$/, '');
  if (!isSepaId(id) || taken.has(id)) id = fallback.replace(/-/g, '').slice(0, 35);
  taken.add(id);
  return id;
}

/** A transaction id as an id of the SEPA set (UUID hex without dashes, 32 characters). */
export const transferEndToEndId = (transactionId: string) => transactionId.replace(/-/g, '');

/** The account holder of a payment method, else the customer's company or full name. */
export function holderName(details: unknown, customer: { companyName: string | null; firstName: string | null; lastName: string | null }): string {
  const holder = typeof details === 'object' && details !== null ? (details as { accountHolder?: unknown }).accountHolder : undefined;
  if (typeof holder === 'string' && sepaText(holder, 70)) return holder;
  const full = [customer.firstName, customer.lastName].filter(Boolean).join(' ');
  return customer.companyName || full;
}

/** The file-level fields of the writers' input and where the tenant sets them. */
const SETTING_PATHS: Record<string, { path: string; where: string }> = {
  'creditor.creditorId': { path: 'sepa.creditorId', where: 'the setting sepa.creditorId (PATCH /settings)' },
  'creditor.name': { path: 'seller.name', where: 'the seller name of PUT /settings/documents' },
  'creditor.iban': { path: 'bankAccount.iban', where: 'the bank account of PUT /settings/documents' },
  'creditor.bic': { path: 'bankAccount.bic', where: 'the bank account of PUT /settings/documents' },
  'payer.name': { path: 'seller.name', where: 'the seller name of PUT /settings/documents' },
  'payer.iban': { path: 'bankAccount.iban', where: 'the bank account of PUT /settings/documents' },
  'payer.bic': { path: 'bankAccount.bic', where: 'the bank account of PUT /settings/documents' },
};

const ITEM_PATH = /^groups\[(\d+)\]\.(?:debits|transfers)\[(\d+)\]/;

/**
 * Writes the file with the writer's own rules as the judge: an item it refuses (a name without a
 * letter of the SEPA set, a mandate reference no bank takes) is left out and reported, and the rest
 * is written; a problem of the tenant's settings is a 422 naming the setting. `layout` groups the
 * items as the file will (one group per PmtInf, in order), `render` writes the groups.
 */
export function writeLeavingOut<I>(
  items: I[],
  layout: (items: I[]) => I[][],
  render: (groups: I[][]) => string,
  skip: (item: I, reason: string) => void,
): { xml: string; written: I[] } | null {
  let current = items;
  while (current.length > 0) {
    const groups = layout(current);
    try {
      return { xml: render(groups), written: groups.flat() };
    } catch (err) {
      if (!(err instanceof SepaInputError)) throw err;
      const broken = new Map<I, SepaViolation[]>();
      const fileLevel: SepaViolation[] = [];
      for (const v of err.violations) {
        const m = ITEM_PATH.exec(v.path);
        const item = m ? groups[Number(m[1])]?.[Number(m[2])] : undefined;
        if (item === undefined) fileLevel.push(v);
        else broken.set(item, [...(broken.get(item) ?? []), v]);
      }
      if (fileLevel.length) throw settingsProblem(fileLevel);
      for (const [item, vs] of broken) skip(item, vs.map((v) => `${v.path.replace(ITEM_PATH, '').replace(/^\./, '') || 'item'}: ${v.message}`).join(' '));
      current = current.filter((item) => !broken.has(item));
    }
  }
  return null;
}

/** 422 for broken file-level input: each names the setting to fix. */
function settingsProblem(violations: SepaViolation[]): ApiError {
  return ApiError.validation(
    violations.map((v) => {
      const known = SETTING_PATHS[v.path];
      return known
        ? { propertyPath: known.path, message: `${v.message} Set it in ${known.where}.`, code: v.rule }
        : { propertyPath: v.path, message: v.message, code: v.rule };
    }),
  );
}
