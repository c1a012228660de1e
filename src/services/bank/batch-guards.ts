import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { inJson, rawStatement, requireCondition } from '../../db/client';
import { bankAccountTransactionAssignments } from '../../db/schema';
import type { ServiceContext } from '../context';
import type { ItemWork } from './line-delta';

// Steps of a matching chunk's batch that fail it (and so roll it back whole) unless what its plans
// relied on still holds when it runs: D1 has no interactive transactions, so what was read is
// checked inside the batch. The checks go before the batch's writes.

/** A batch step that fails unless these invoices still have the updatedAt they were read with. */
export function invoicesUnchanged(ctx: ServiceContext, expected: [string, string][]): BatchItem<'sqlite'>[] {
  if (expected.length === 0) return [];
  return [
    requireCondition(
      ctx.db,
      sql`(SELECT count(*) FROM json_each(${JSON.stringify(expected)}) j JOIN invoices i ON i.id = json_extract(j.value, '$[0]') AND +i.tenant_id = ${ctx.tenant.id} AND i.updated_at = json_extract(j.value, '$[1]')) = ${expected.length}`,
    ),
  ];
}

/** A batch step that fails unless these transactions still hold the refunds they were read with (a refund asked for meanwhile). */
export function refundsUnchanged(ctx: ServiceContext, expected: [string, number][]): BatchItem<'sqlite'>[] {
  if (expected.length === 0) return [];
  return [
    requireCondition(
      ctx.db,
      sql`(SELECT count(*) FROM json_each(${JSON.stringify(expected)}) j JOIN transactions t ON t.id = json_extract(j.value, '$[0]') AND +t.tenant_id = ${ctx.tenant.id} AND t.refunded_amount = json_extract(j.value, '$[1]')) = ${expected.length}`,
    ),
  ];
}

/** A batch step that fails when an accepted assignment (of another line, another request) names one of these collections already. */
export function notAssigned(ctx: ServiceContext, collectionIds: string[]): BatchItem<'sqlite'>[] {
  if (collectionIds.length === 0) return [];
  const a = bankAccountTransactionAssignments;
  return [requireCondition(ctx.db, sql`NOT EXISTS (SELECT 1 FROM ${a} WHERE ${a.tenantId} = ${ctx.tenant.id} AND ${inJson(a.transactionId, collectionIds)} AND ${a.status} = 'accepted')`)];
}

/** A batch step that fails when a payment of one of these invoices is on its way (a charge or a debit in a file). */
export function notCollecting(ctx: ServiceContext, invoiceIds: string[]): BatchItem<'sqlite'>[] {
  if (invoiceIds.length === 0) return [];
  return [
    requireCondition(
      ctx.db,
      sql`NOT EXISTS (SELECT 1 FROM transactions t WHERE t.tenant_id = ${ctx.tenant.id} AND ${inJson(sql.raw('t.invoice_id'), [...new Set(invoiceIds)])} AND t.type = 'payment' AND t.status IN ('pending', 'processing', 'action_required'))`,
    ),
  ];
}

/** Deletes the assignments the works replace; the batch fails unless every one of them is still there. */
export function removals(ctx: ServiceContext, works: ItemWork[]): BatchItem<'sqlite'>[] {
  const ids = works.flatMap((w) => w.remove ?? []);
  if (ids.length === 0) return [];
  const a = bankAccountTransactionAssignments;
  return [
    ctx.db.delete(a).where(and(eq(a.tenantId, ctx.tenant.id), inJson(a.id, ids))),
    rawStatement(ctx.db, sql`SELECT json(CASE WHEN changes() = ${ids.length} THEN '1' ELSE 'guard_failed' END)`),
  ];
}
