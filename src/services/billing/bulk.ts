// A billing run's chunk in bulk (docs/decisions.md, Invoices and billing: billing runs in bulk):
// every subscription of the chunk is planned and composed exactly as it would be alone (compose.ts,
// from the chunk's preload), then all their invoices, positions, ledger rows, billing state and
// events are written in ONE batch, numbered as a block by the TenantObject. The ledger's UNIQUE key
// still guards every period: if another path billed one of them meanwhile, the batch fails whole,
// nothing is written, and the run bills that chunk one subscription at a time instead.
import type { ServiceContext } from '../context';
import type { SubscriptionRow } from '../subscriptions/aggregate';
import { finalizationRequest } from '../invoices/finalize';
import type { FinalizeRequest } from '../ports/numbering';
import { runBatch } from '../../db/client';
import { logError } from '../../lib/log';
import { yieldToRequests } from '../../lib/yield';
import { batchOrAlreadyBilled, billedRows, billingStatements, numberedRows, type BilledRows } from './commit';
import { composeDue, type Composed } from './compose';
import type { BillingPreload } from './inputs';

export interface ChunkOutcome {
  /** Lines billed (or skipped periods recorded). */
  items: number;
  invoices: number;
  /** Invoices finalized: their files are to be rendered. */
  finalized: string[];
  /** Those of them with a payment method that may collect them (the others have nothing to collect with). */
  collectable: string[];
  /** Subscriptions with nothing due (a failure recorded earlier is over). */
  nothingDue: SubscriptionRow[];
  /** Subscriptions that could not be composed, with the reason (recorded by the caller). */
  failed: { row: SubscriptionRow; err: unknown }[];
  /** Subscriptions left to the one-by-one path: billing groups, instant usage, or a chunk that met another billing. */
  oneByOne: SubscriptionRow[];
}

/** Billing groups bill siblings together and instant usage bills per push: those go one by one. */
function billsAlone(row: SubscriptionRow, preload: BillingPreload): boolean {
  if (row.billingGroupId !== null) return false;
  const agg = preload.aggregates.get(row.id);
  return agg !== undefined && agg.items.every((i) => preload.prices.get(i.pricePlanId)?.type !== 'instant_metered');
}

type Ready = { row: SubscriptionRow; composed: Composed; rows: BilledRows; request: FinalizeRequest | null };

/** Bills the chunk's plain subscriptions in one batch; the rest is left to the caller's one-by-one path. */
export async function billChunk(ctx: ServiceContext, chunk: SubscriptionRow[], preload: BillingPreload, asOf: Date, runId: string): Promise<ChunkOutcome> {
  const out: ChunkOutcome = { items: 0, invoices: 0, finalized: [], collectable: [], nothingDue: [], failed: [], oneByOne: [] };
  const finalizeBlock = ctx.numbering.finalizeBlock;
  if (!finalizeBlock) return { ...out, oneByOne: chunk };
  const ready: Ready[] = [];
  for (const row of chunk) {
    if (!billsAlone(row, preload)) {
      out.oneByOne.push(row);
      continue;
    }
    try {
      const composed = await composeDue(ctx, row.id, asOf, runId, preload);
      if (!composed) {
        out.nothingDue.push(row);
        continue;
      }
      // Checked now, so that a document that cannot be finalized fails alone, before the batch.
      const request = composed.skipOnly || composed.approval ? null : (await finalizationRequest(ctx, { row: composed.row, embeds: composed.embeds, positions: composed.positions, customer: composed.payer }, null)).request;
      ready.push({ row, composed, rows: billedRows(ctx, composed, asOf), request });
    } catch (err) {
      out.failed.push({ row, err });
    }
  }
  if (ready.length === 0) return out;
  await yieldToRequests();
  const numbered = ready.filter((r): r is Ready & { request: FinalizeRequest } => r.request !== null);
  const now = ctx.now;
  const outcome = await batchOrAlreadyBilled(async () => {
    if (numbered.length === 0) return runBatch(ctx.db, billingStatements(ctx, ready.map((r) => r.rows), now));
    // The i-th document to number takes the i-th number of the block.
    let next = 0;
    const slot = ready.map((r) => (r.request ? next++ : -1));
    return finalizeBlock(
      numbered.map((r) => r.request),
      (numbers) => billingStatements(ctx, ready.map((r, i) => (r.request ? numberedRows(r.rows, r.request, numbers[slot[i]!]!) : r.rows)), now),
    );
  }).catch((err) => {
    // Anything else that refused the chunk (a statement D1 would not take) is met again one by one,
    // where each subscription records its own failure.
    logError({ job: 'billing-chunk', tenantId: ctx.tenant.id, subscriptions: chunk.length }, err);
    return 'already_billed' as const;
  });
  if (outcome === 'already_billed') return { ...out, oneByOne: [...out.oneByOne, ...ready.map((r) => r.row)] };
  for (const { composed } of ready) {
    out.items += composed.lines.length;
    if (composed.skipOnly) continue;
    out.invoices++;
    if (composed.approval) continue;
    out.finalized.push(composed.row.id);
    // The invoice's method, else the payer's default: a customer billed for itself without any method
    // has nothing a job could collect with (a method added later is found by the collection sweeper).
    const { agg } = composed.planned[0]!;
    if (agg.partner !== null || agg.paymentMethod !== null) out.collectable.push(composed.row.id);
  }
  return out;
}
