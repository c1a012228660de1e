// Writes composed invoices: the invoice, its positions, the ledger rows (UNIQUE per item, period
// start and ledger kind), the items' billing state, coupon intervals and events in one D1 batch,
// numbered through the Numbering port. One billed unit (commitComposed) and a billing run's whole
// chunk (bulk.ts) are written by the same statements, one or two per table however many units:
// the rows travel as one JSON parameter each (docs/decisions.md, Invoices and billing). A rerun, an
// overlapping run or a retry after a crash cannot bill anything twice: the second attempt at a
// ledger key fails its whole batch.
import { sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { PlannedLine } from '../../billing/plan';
import { isUniqueViolation, rawStatement, runBatch, tenantRowsById } from '../../db/client';
import { insertJsonRows } from '../../db/insert';
import { appliedDiscounts, billingLedger, invoicePositions, invoices, itemChanges, subscriptions } from '../../db/schema';
import { EVENT_VERSION, type EventType } from '../../events/catalogue';
import { insertEventGroups, type EventGroup } from '../../events/outbox';
import { newId } from '../../lib/ids';
import type { ServiceContext } from '../context';
import { finalizationRequest } from '../invoices/finalize';
import type { InvoiceRow, PositionRow } from '../invoices/render';
import type { FinalizeRequest } from '../ports/numbering';
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

type LedgerRow = typeof billingLedger.$inferInsert;

/** What one composed billing writes, as rows: the same shape for one unit and for a run's chunk. */
export interface BilledRows {
  invoice: InvoiceRow | null;
  positions: PositionRow[];
  ledger: LedgerRow[];
  /** The items' new last billed period: [item id, from, to]. */
  billedPeriods: [string, string, string][];
  /** Item changes now accounted for. */
  changeIds: string[];
  /** Applied discounts that used up one more interval. */
  discountIds: string[];
  /** Subscriptions billed (their lastBillingAt moves, a recorded failure is over). */
  subscriptionIds: string[];
  events: EventGroup[];
}

const iso = (d: Date) => d.toISOString();

/** Events of `types` that carry the same document. */
function eventGroup(data: unknown, types: EventType[], resourceId: string, now: Date): EventGroup {
  return { data, events: types.map((type) => ({ id: newId(), type, version: EVENT_VERSION, resourceId, createdAt: iso(now) })) };
}

/** The items' last billed period: the latest line of each item that moves billing on. */
function billedPeriods(lines: PlannedLine[]): [string, string, string][] {
  const lastByItem = new Map<string, PlannedLine>();
  for (const l of lines) {
    if (!l.advancesBilling) continue;
    const prev = lastByItem.get(l.itemId);
    if (!prev || l.periodStart > prev.periodStart) lastByItem.set(l.itemId, l);
  }
  return [...lastByItem.values()].map((l) => [l.itemId, iso(l.periodStart), l.periodEnd ? iso(l.periodEnd) : iso(l.periodStart)]);
}

/** The rows a composed billing writes before any finalization: the draft (if any) and its events. */
export function billedRows(ctx: ServiceContext, composed: Composed, asOf: Date): BilledRows {
  const { lines, now } = composed;
  const invoiceId = composed.skipOnly ? null : composed.row.id;
  const base = {
    ledger: lines.map((l) => ({
      tenantId: ctx.tenant.id,
      subscriptionItemId: l.itemId,
      periodStart: iso(l.periodStart),
      kind: l.ledgerKind,
      periodEnd: l.periodEnd ? iso(l.periodEnd) : null,
      invoiceId,
      createdAt: iso(now),
    })),
    billedPeriods: billedPeriods(lines),
    changeIds: [...new Set(lines.flatMap((l) => l.changeIds))],
  };
  if (composed.skipOnly) return { invoice: null, positions: [], discountIds: [], subscriptionIds: [], events: [], ...base };
  const { row, resource, planned, approval } = composed;
  const rowEvents = planned.map(({ agg, lines: own }) =>
    eventGroup({ subscriptionId: agg.row.id, invoiceId: row.id, lines: own.length, asOf: iso(asOf) }, ['subscription.billed'], agg.row.id, now),
  );
  rowEvents.push(eventGroup(resource, approval ? ['invoice.created', 'invoice.requires_approval'] : ['invoice.created'], row.id, now));
  return {
    invoice: row,
    positions: composed.positions,
    discountIds: composed.appliedCoupons,
    subscriptionIds: planned.map(({ agg }) => agg.row.id),
    events: rowEvents,
    ...base,
  };
}

/**
 * A billed unit as finalized with its number: the row with the finalization's columns, and the
 * finalization's events with the number filled in. Their document is serialized once for all of
 * them, with the number put into the text.
 */
export function numberedRows(rows: BilledRows, request: FinalizeRequest, number: { number: string; numberSeq: number }): BilledRows {
  const groups = new Map<unknown, EventGroup>();
  const filled = JSON.stringify(number.number);
  for (const e of request.events) {
    let group = groups.get(e.data);
    if (!group) groups.set(e.data, (group = { data: JSON.stringify(e.data).replaceAll('"{number}"', filled), events: [] }));
    group.events.push({ id: e.id, type: e.type, version: e.version, resourceId: e.resourceId, createdAt: e.createdAt });
  }
  return {
    ...rows,
    invoice: { ...rows.invoice!, ...(request.set as Partial<InvoiceRow>), number: number.number, numberSeq: number.numberSeq },
    events: [...rows.events, ...groups.values()],
  };
}

/** The statements that write any number of billed units: one or a few per table, not per unit. */
export function billingStatements(ctx: ServiceContext, units: readonly BilledRows[], now: Date): BatchItem<'sqlite'>[] {
  const t = ctx.tenant.id;
  const all = <T>(pick: (u: BilledRows) => readonly T[]) => units.flatMap(pick);
  const statements: BatchItem<'sqlite'>[] = [
    ...insertJsonRows(ctx.db, invoices, all((u) => (u.invoice ? [u.invoice] : []))),
    ...insertJsonRows(ctx.db, invoicePositions, all((u) => u.positions)),
    ...insertJsonRows(ctx.db, billingLedger, all((u) => u.ledger)),
  ];
  const periods = all((u) => u.billedPeriods);
  if (periods.length) {
    statements.push(
      rawStatement(
        ctx.db,
        // `+tenant_id`: SQLite would otherwise walk all the tenant's items once per JSON row (see tenantRowsById).
        sql`UPDATE subscription_items SET last_billed_from = json_extract(j.value, '$[1]'), last_billed_to = json_extract(j.value, '$[2]'), last_billed_at = ${iso(now)}
          FROM json_each(${JSON.stringify(periods)}) AS j WHERE +subscription_items.tenant_id = ${t} AND subscription_items.id = json_extract(j.value, '$[0]')`,
      ),
    );
  }
  const changeIds = all((u) => u.changeIds);
  if (changeIds.length) statements.push(ctx.db.update(itemChanges).set({ billedAt: iso(now) }).where(tenantRowsById(itemChanges, t, changeIds)));
  const discountIds = all((u) => u.discountIds);
  if (discountIds.length) {
    const ids = JSON.stringify(discountIds);
    statements.push(
      ctx.db
        .update(appliedDiscounts)
        .set({ appliedIntervals: sql`${appliedDiscounts.appliedIntervals} + (SELECT count(*) FROM json_each(${ids}) WHERE value = ${appliedDiscounts.id})` })
        .where(tenantRowsById(appliedDiscounts, t, discountIds)),
    );
  }
  const subscriptionIds = all((u) => u.subscriptionIds);
  if (subscriptionIds.length) {
    statements.push(ctx.db.update(subscriptions).set({ lastBillingAt: iso(now), ...CLEARED_FAILURE }).where(tenantRowsById(subscriptions, t, subscriptionIds)));
  }
  statements.push(...insertEventGroups(ctx.db, t, all((u) => u.events)));
  return statements;
}

/** Runs a billing write; a ledger key another path holds means what was planned is (partly) billed. */
export async function batchOrAlreadyBilled(work: () => Promise<unknown>): Promise<'ok' | 'already_billed'> {
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
  const statements = billingStatements(ctx, [billedRows(ctx, composed, asOf)], composed.now);
  if (composed.skipOnly) {
    const outcome = await batchOrAlreadyBilled(() => runBatch(ctx.db, statements));
    return outcome === 'already_billed' ? { invoiceId: null, finalized: false, lines: 0, skipped: 'already_billed' } : { invoiceId: null, finalized: false, lines: composed.lines.length, skipped: null };
  }
  const { row, positions, lines, approval, payer, embeds } = composed;
  // The draft and its ledger rows go in with the numbering (one batch inside the TenantObject, see
  // the Numbering port); a draft awaiting approval is only written.
  const outcome = await batchOrAlreadyBilled(async () => {
    if (approval) return runBatch(ctx.db, statements);
    const { request } = await finalizationRequest(ctx, { row, embeds, positions, customer: payer }, null);
    const result = await ctx.numbering.finalize(request, statements);
    if (!result.ok) throw new Error(`invoice ${row.id} was changed while it was being written`);
  });
  if (outcome === 'already_billed') return { invoiceId: null, finalized: false, lines: 0, skipped: 'already_billed' };
  // The caller asks for the renders, one queue send per chunk rather than one per invoice.
  return { invoiceId: row.id, finalized: !approval, lines: lines.length, skipped: null };
}
