import { sql, type SQL } from 'drizzle-orm';
import { owedAmount } from '../../billing/owed';
import type { InvoiceAggregate } from './render';

/** What the invoice of a loaded aggregate still asks for (its credit notes loaded with it). */
export function owedOf(agg: Pick<InvoiceAggregate, 'row' | 'credited'>): number {
  return owedAmount({ grossAmount: agg.row.grossAmount, paidAmount: agg.row.paidAmount, creditedAmount: agg.credited ?? 0 });
}

/** What finalized credit notes took off the invoice row `alias` (minor units, positive), in SQL. */
export function creditedSql(tenantId: string, alias: string): SQL {
  const a = sql.raw(`"${alias}"`);
  return sql`coalesce((SELECT sum(-cn.gross_amount) FROM invoices cn WHERE cn.tenant_id = ${tenantId} AND cn.referenced_invoice_id = ${a}.id
    AND cn.type = 'TYPE_CREDIT' AND cn.status <> 'STATUS_DRAFT'), 0)`;
}

/**
 * `owedAmount` in SQL for the invoice row `alias` of a query (`invoices` when the query names the
 * table itself): gross − paid − credited by finalized credit notes, never below 0.
 */
export function owedSql(tenantId: string, alias: string): SQL {
  const a = sql.raw(`"${alias}"`);
  return sql`max(0, ${a}.gross_amount - ${a}.paid_amount - ${creditedSql(tenantId, alias)})`;
}
