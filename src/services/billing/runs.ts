import { and, desc, eq, isNotNull, sql } from 'drizzle-orm';
import { BillingError } from '../../billing/compose';
import { fetchPage } from '../../db/paging';
import { billingRuns, customers, invoices as invoiceTable } from '../../db/schema';
import { finalizeInvoice } from '../invoices/finalize';
import { loadSettings } from '../platform/settings';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import type { Page } from '../../http/pagination';
import type { BillingRunView } from '../../objects/tenant-object-api';
import { billInstantUsage, billSubscription, candidateSubscriptions } from './bill';
import { billingRenderDelay } from '../documents/jobs';
import { afterFinalization } from '../invoices/after-finalization';
import { clearBillingFailure, recordBillingFailure } from './failures';
import { preloadChunk, type BillingPreload } from './inputs';
import { billChunk } from './bulk';
import type { SubscriptionRow } from '../subscriptions/aggregate';
import { logError, safeErrorMessage } from '../../lib/log';
import { tenantObject } from '../../objects/tenant-stub';
import { yieldToRequests } from '../../lib/yield';
import { PUBLISH_BATCH, publishOutbox } from '../../events/publish';
import { logD1Meter } from '../../db/meter';

type RunRow = typeof billingRuns.$inferSelect;

/** Schedules a background run in the tenant's TenantObject (or returns the one under way). */
export function startBillingRun(ctx: ServiceContext, trigger: string): Promise<BillingRunView> {
  return tenantObject(ctx.env, ctx.tenant.id).runBilling(ctx.tenant.id, { trigger, sync: false });
}

export function renderRun(r: RunRow): BillingRunView {
  return {
    id: r.id,
    status: r.status,
    asOf: r.asOf,
    trigger: r.trigger,
    itemsBilled: r.itemsBilled,
    invoicesCreated: r.invoicesCreated,
    errors: r.errors,
    lastError: r.lastError,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
  };
}

export async function createRun(ctx: ServiceContext, asOf: Date, trigger: string, id: string): Promise<RunRow> {
  const row: RunRow = {
    id,
    tenantId: ctx.tenant.id,
    status: 'running',
    asOf: asOf.toISOString(),
    trigger,
    itemsBilled: 0,
    invoicesCreated: 0,
    errors: 0,
    lastError: null,
    startedAt: ctx.now.toISOString(),
    finishedAt: null,
  };
  await ctx.db.insert(billingRuns).values(row);
  return row;
}

/**
 * Subscriptions billed per chunk (Env.BILLING_RUN_CHUNK_SIZE): a chunk is read in a handful of
 * queries and written in one batch (bulk.ts), so larger chunks cost less per invoice; its JSON
 * parameters stay far below D1's limits at this size.
 */
const RUN_CHUNK = 250;

export function runChunkSize(env: ServiceContext['env']): number {
  const n = Number(env.BILLING_RUN_CHUNK_SIZE);
  return Number.isInteger(n) && n > 0 ? Math.min(n, 1000) : RUN_CHUNK;
}

/** How much of a run one invocation works before it continues in the next. */
export interface RunBudget {
  ms: number;
  /** Chunks; bounds the D1 queries of one invocation (a few dozen per chunk). */
  chunks: number;
}

/** What a part of a run billed, added to the run's row when the part ends. */
interface Tally {
  items: number;
  invoices: number;
  errors: number;
  lastError: string | null;
}

/** Records a subscription's failure and counts it: never silent, the tenant is told once per cause. */
async function failed(ctx: ServiceContext, tally: Tally, row: SubscriptionRow, err: unknown, runId: string, asOf: Date) {
  tally.errors++;
  tally.lastError = `${row.id}: ${err instanceof BillingError ? err.message : safeErrorMessage(err)}`.slice(0, 500);
  await recordBillingFailure(ctx, row, err, runId, asOf).catch((e) => logError({ job: 'billing', subscriptionId: row.id }, e));
}

/** Bills one subscription on its own (and its instant usage): billing groups, and chunks that met other billing. */
async function billOne(ctx: ServiceContext, tally: Tally, row: SubscriptionRow, asOf: Date, runId: string, preload: BillingPreload | undefined, finalized: string[]) {
  try {
    const result = await billSubscription(ctx, row.id, asOf, runId, preload);
    tally.items += result.lines;
    if (result.invoiceId) tally.invoices++;
    if (result.finalized) finalized.push(result.invoiceId!);
    // Pushes of instant usage that were not billed when they arrived.
    if (result.hasInstantUsage) {
      const instant = await billInstantUsage(ctx, row.id, asOf, runId);
      tally.invoices += instant.invoices;
      finalized.push(...instant.finalized);
    }
    // Billed, or nothing due: a failure recorded earlier is over (the invoice's batch cleared it too).
    if (!result.invoiceId) await clearBillingFailure(ctx, row);
  } catch (err) {
    await failed(ctx, tally, row, err, runId, asOf);
  }
}

/**
 * Works a run forward from `cursor` until it is done or the budget is used up; returns the cursor
 * to continue from (null when done). Each chunk is written in one batch (or, when it meets other
 * billing, each subscription in its own), so stopping anywhere — or dying — loses nothing and
 * bills nothing twice on the next attempt.
 */
export async function continueRun(ctx: ServiceContext, run: RunRow, cursor: string, budget: RunBudget, clock: () => number): Promise<string | null> {
  const started = clock();
  const metering = ctx.env.D1_METER === '1';
  if (metering) logD1Meter({ billingRun: run.id, at: 'invocation start' });
  const tally: Tally = { items: 0, invoices: 0, errors: 0, lastError: null };
  if (cursor === '') {
    // A run that died between writing an invoice and finalizing it left a draft behind: finish it.
    const left = await finalizeLeftDrafts(ctx);
    tally.errors += left.errors;
    tally.lastError = left.lastError;
  }
  const size = runChunkSize(ctx.env);
  const asOf = new Date(run.asOf);
  let next: string | null = cursor;
  for (let chunks = 0; next !== null && chunks < budget.chunks && clock() - started < budget.ms; chunks++) {
    if (chunks > 0) await yieldToRequests();
    const chunk = await candidateSubscriptions(ctx, next, size);
    // Should the chunk's read fail, each subscription reads for itself and records its own error.
    const preload = chunk.length ? await preloadChunk(ctx, chunk, asOf).catch(() => undefined) : undefined;
    await yieldToRequests();
    const bulk = preload
      ? await billChunk(ctx, chunk, preload, asOf, run.id)
      : { items: 0, invoices: 0, finalized: [], collectable: [], nothingDue: [], failed: [], oneByOne: chunk };
    tally.items += bulk.items;
    tally.invoices += bulk.invoices;
    const alone: string[] = [];
    for (const { row, err } of bulk.failed) await failed(ctx, tally, row, err, run.id, asOf);
    for (const row of bulk.nothingDue) await clearBillingFailure(ctx, row);
    for (const row of bulk.oneByOne) await billOne(ctx, tally, row, asOf, run.id, preload, alone);
    // One send for the chunk's documents, rendered after the burst and collected; one that fails
    // is left to the sweepers.
    await afterFinalization(ctx.env, ctx.tenant.id, [...bulk.finalized, ...alone], {
      renderDelaySeconds: billingRenderDelay(ctx.env),
      collect: [...bulk.collectable, ...alone],
    });
    await yieldToRequests();
    await publishRunEvents(ctx);
    next = chunk.length < size ? null : chunk[chunk.length - 1]!.id;
  }
  const { items, invoices, errors, lastError } = tally;
  await ctx.db
    .update(billingRuns)
    .set({
      itemsBilled: sql`${billingRuns.itemsBilled} + ${items}`,
      invoicesCreated: sql`${billingRuns.invoicesCreated} + ${invoices}`,
      errors: sql`${billingRuns.errors} + ${errors}`,
      ...(lastError ? { lastError } : {}),
      ...(next === null ? { status: errors > 0 && invoices === 0 && items === 0 ? ('failed' as const) : ('completed' as const), finishedAt: ctx.now.toISOString() } : {}),
    })
    .where(and(eq(billingRuns.tenantId, ctx.tenant.id), eq(billingRuns.id, run.id)));
  if (metering) logD1Meter({ billingRun: run.id, at: 'invocation end', invoices });
  return next;
}

/**
 * The chunk's events go to the tenant's webhooks now (deliveries written and queued), not at the
 * next sweep: a chunk writes about five events per invoice, a publish takes a thousand. Bounded,
 * so a backlog from elsewhere cannot hold the run; the sweeper takes what is left.
 */
async function publishRunEvents(ctx: ServiceContext) {
  try {
    for (let i = 0; i < 8 && (await publishOutbox(ctx.env, ctx.tenant.id)) === PUBLISH_BATCH; i++);
  } catch (err) {
    logError({ job: 'publish', tenantId: ctx.tenant.id }, err);
  }
}


/** Billing drafts that need no approval but were not finalized (their run died in between). */
export async function finalizeLeftDrafts(ctx: ServiceContext) {
  const settings = await loadSettings(ctx.db, ctx.tenant.id);
  const drafts = await ctx.db
    .select({ id: invoiceTable.id, approval: customers.requiresManualInvoiceApproval })
    .from(invoiceTable)
    .innerJoin(customers, and(eq(customers.tenantId, invoiceTable.tenantId), eq(customers.id, invoiceTable.customerId)))
    .where(and(eq(invoiceTable.tenantId, ctx.tenant.id), eq(invoiceTable.status, 'STATUS_DRAFT'), eq(invoiceTable.sourceType, 'subscription'), isNotNull(invoiceTable.billingRunId)));
  let errors = 0;
  let lastError: string | null = null;
  for (const d of drafts) {
    if (d.approval ?? settings.requiresManualInvoiceApproval) continue;
    try {
      await finalizeInvoice(ctx, d.id, null);
    } catch (err) {
      errors++;
      lastError = `${d.id}: ${safeErrorMessage(err)}`.slice(0, 500);
    }
  }
  return { finalized: drafts.length - errors, errors, lastError };
}

export async function listRuns(ctx: ServiceContext, page: Page) {
  return fetchPage(ctx.db, billingRuns, eq(billingRuns.tenantId, ctx.tenant.id), [desc(billingRuns.startedAt), desc(billingRuns.id)], page, renderRun);
}

export async function getRun(ctx: ServiceContext, id: string) {
  const row = await ctx.db.select().from(billingRuns).where(and(eq(billingRuns.tenantId, ctx.tenant.id), eq(billingRuns.id, id))).get();
  if (!row) throw ApiError.notFound('Billing run');
  return renderRun(row);
}
