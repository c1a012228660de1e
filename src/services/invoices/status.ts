import { sql, type SQL } from 'drizzle-orm';

// A finalized document is STATUS_FINALIZING while its files render; the render moves it on
// (docs/decisions.md, Invoices and billing, "Document state"). Everything that decides what may
// happen to a document treats it as the status it will become.

interface Amounts {
  status: string;
  grossAmount: number;
  paidAmount: number;
}

/** The status a finalizing document takes once its files exist: paid when nothing of its gross is left, else unpaid. */
export function renderedStatus(row: Omit<Amounts, 'status'>): 'STATUS_PAID' | 'STATUS_UNPAID' {
  return row.paidAmount >= row.grossAmount ? 'STATUS_PAID' : 'STATUS_UNPAID';
}

/** The status that counts for transitions, filters and the money paths. */
export function effectiveStatus(row: Amounts): string {
  return row.status === 'STATUS_FINALIZING' ? renderedStatus(row) : row.status;
}

/** Open for payment: unpaid or reminded (a finalizing invoice not yet paid counts as unpaid). */
export const OPEN = ['STATUS_UNPAID', 'STATUS_REMINDED'];

export const isOpen = (row: Amounts) => OPEN.includes(effectiveStatus(row));

/** `effectiveStatus` in SQL, for the invoice row `alias` (`invoices` when the query names the table itself). */
export function effectiveStatusSql(alias: string): SQL {
  const a = sql.raw(`"${alias}"`);
  return sql`(CASE WHEN ${a}.status = 'STATUS_FINALIZING' THEN (CASE WHEN ${a}.paid_amount >= ${a}.gross_amount THEN 'STATUS_PAID' ELSE 'STATUS_UNPAID' END) ELSE ${a}.status END)`;
}

/** `isOpen` in SQL: the plain status test first, so the status indexes still narrow the rows. */
export function openSql(alias: string): SQL {
  const a = sql.raw(`"${alias}"`);
  return sql`(${a}.status IN ('STATUS_UNPAID', 'STATUS_REMINDED') OR (${a}.status = 'STATUS_FINALIZING' AND ${a}.paid_amount < ${a}.gross_amount))`;
}
