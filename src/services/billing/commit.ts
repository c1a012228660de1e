// Writes a composed invoice: the invoice, its positions, the ledger rows (UNIQUE per item, period
// start and ledger kind), the items' billing state, coupon intervals and events in one D1 batch,
// numbered through the Numbering port. A rerun, an overlapping run or a retry after a crash cannot
// bill anything twice: the second attempt at a ledger key fails its whole batch.
import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { PlannedLine } from '../../billing/plan';
import { inJson, isUniqueViolation, runBatch } from '../../db/client';
import { insertRows } from '../../db/insert';
import { appliedDiscounts, billingLedger, invoicePositions, invoices, itemChanges, subscriptionItems, subscriptions } from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import type { ServiceContext } from '../context';
import { finalizationRequest } from '../invoices/finalize';
import type { Composed } from './compose';
import { CLEARED_FAILURE } from './failures';

export interface BillResult {
  invoiceId: string | null;
  /** The invoice was finalized (not left as a draft for approval): its files are to be rendered. */
  finalized: boolean;
  lines: number;
  skipped: 'nothing_due' | 'already_billed' | null;
  /** The subscription has instant_metered items (billed per push, see billInstantUsage). */
  hasInstantUsage?: boolean;
}

const iso = (d: Date) => d.toISOString();

/** Ledger rows of the lines: the invoice that billed them, or null for skipped periods. */
function ledgerStatements(ctx: ServiceContext, lines: PlannedLine[], invoiceId: string | null, now: Date): BatchItem<'sqlite'>[] {
  const rows = lines.map((l) => ({
    tenantId: ctx.tenant.id,
    subscriptionItemId: l.itemId,
    periodStart: iso(l.periodStart),
    kind: l.ledgerKind,
    periodEnd: l.periodEnd ? iso(l.periodEnd) : null,
    invoiceId,
    createdAt: now.toISOString(),
  }));
  return insertRows(ctx.db, billingLedger, rows);
}

/** The items' last billed period and the item changes now accounted for. */
function billingStateStatements(ctx: ServiceContext, lines: PlannedLine[], now: Date): BatchItem<'sqlite'>[] {
  const statements: BatchItem<'sqlite'>[] = [];
  const billedChanges = [...new Set(lines.flatMap((l) => l.changeIds))];
  if (billedChanges.length) {
    statements.push(
      ctx.db.update(itemChanges).set({ billedAt: now.toISOString() }).where(and(eq(itemChanges.tenantId, ctx.tenant.id), inJson(itemChanges.id, billedChanges))),
    );
  }
  const lastByItem = new Map<string, PlannedLine>();
  for (const l of lines.filter((x) => x.advancesBilling)) {
    const prev = lastByItem.get(l.itemId);
    if (!prev || l.periodStart > prev.periodStart) lastByItem.set(l.itemId, l);
  }
  for (const [itemId, l] of lastByItem) {
    statements.push(
      ctx.db
        .update(subscriptionItems)
        .set({ lastBilledFrom: iso(l.periodStart), lastBilledTo: l.periodEnd ? iso(l.periodEnd) : iso(l.periodStart), lastBilledAt: now.toISOString() })
        .where(and(eq(subscriptionItems.tenantId, ctx.tenant.id), eq(subscriptionItems.id, itemId))),
    );
  }
  return statements;
}

async function batchOrAlreadyBilled(work: () => Promise<unknown>): Promise<'ok' | 'already_billed'> {
  try {
    await work();
    return 'ok';
  } catch (err) {
    if (isUniqueViolation(err, 'billing_ledger')) return 'already_billed';
    throw err;
  }
}

/**
 * Writes a composed invoice with its ledger rows, billing state and events in one batch and
 * finalizes it (unless it awaits approval). Only skipped periods: ledger rows and billing state.
 */
export async function commitComposed(ctx: ServiceContext, composed: Composed, asOf: Date): Promise<BillResult> {
  if (composed.skipOnly) {
    const { lines, now } = composed;
    const statements = [...ledgerStatements(ctx, lines, null, now), ...billingStateStatements(ctx, lines, now)];
    const outcome = await batchOrAlreadyBilled(() => runBatch(ctx.db, statements));
    return outcome === 'already_billed' ? { invoiceId: null, finalized: false, lines: 0, skipped: 'already_billed' } : { invoiceId: null, finalized: false, lines: lines.length, skipped: null };
  }
  const { row, resource, positions, lines, planned, appliedCoupons, approval, now, payer } = composed;
  const invoiceId = row.id;
  const statements: BatchItem<'sqlite'>[] = [ctx.db.insert(invoices).values(row), ...insertRows(ctx.db, invoicePositions, positions)];
  statements.push(...ledgerStatements(ctx, lines, invoiceId, now), ...billingStateStatements(ctx, lines, now));
  for (const id of appliedCoupons) {
    statements.push(
      ctx.db
        .update(appliedDiscounts)
        .set({ appliedIntervals: sql`${appliedDiscounts.appliedIntervals} + 1` })
        .where(and(eq(appliedDiscounts.tenantId, ctx.tenant.id), eq(appliedDiscounts.id, id))),
    );
  }
  for (const { agg, lines: own } of planned) {
    statements.push(
      ctx.db
        .update(subscriptions)
        .set({ lastBillingAt: now.toISOString(), ...CLEARED_FAILURE })
        .where(and(eq(subscriptions.tenantId, ctx.tenant.id), eq(subscriptions.id, agg.row.id))),
      insertEvent(ctx.db, {
        tenantId: ctx.tenant.id,
        type: 'subscription.billed',
        resourceId: agg.row.id,
        data: { subscriptionId: agg.row.id, invoiceId, lines: own.length, asOf: iso(asOf) },
        now,
      }),
    );
  }
  statements.push(insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'invoice.created', resourceId: invoiceId, data: resource, now }));
  if (approval) statements.push(insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'invoice.requires_approval', resourceId: invoiceId, data: resource, now }));
  // The draft and its ledger rows go in with the numbering (one batch inside the TenantObject, see
  // the Numbering port); a draft awaiting approval is only written.
  const outcome = await batchOrAlreadyBilled(async () => {
    if (approval) return runBatch(ctx.db, statements);
    const { request } = await finalizationRequest(ctx, { row, positions, customer: payer }, null);
    const result = await ctx.numbering.finalize(request, statements);
    if (!result.ok) throw new Error(`invoice ${invoiceId} was changed while it was being written`);
  });
  if (outcome === 'already_billed') return { invoiceId: null, finalized: false, lines: 0, skipped: 'already_billed' };
  // The caller asks for the renders, one queue send per chunk rather than one per invoice.
  return { invoiceId, finalized: !approval, lines: lines.length, skipped: null };
}
