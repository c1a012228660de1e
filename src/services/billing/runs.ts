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
import { preloadChunk } from './inputs';
import { logError, safeErrorMessage } from '../../lib/log';
import { tenantObject } from '../../objects/tenant-stub';

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

/** Subscriptions billed per chunk; a chunk is small enough for one invocation's D1 query budget. */
export const RUN_CHUNK = 25;

/** How much of a run one invocation works before it continues in the next. */
export interface RunBudget {
  ms: number;
  /** Chunks; bounds the D1 queries of one invocation (about 1.4 per subscription). */
  chunks: number;
}

/**
 * Works a run forward from `cursor` until it is done or the budget is used up; returns the cursor
 * to continue from (null when done). Each subscription is billed in its own batch, so stopping
 * anywhere — or dying — loses nothing and bills nothing twice on the next attempt.
 */
export async function continueRun(ctx: ServiceContext, run: RunRow, cursor: string, budget: RunBudget, clock: () => number): Promise<string | null> {
  const started = clock();
  let items = 0;
  let invoices = 0;
  let errors = 0;
  let lastError: string | null = null;
  if (cursor === '') {
    // A run that died between writing an invoice and finalizing it left a draft behind: finish it.
    const left = await finalizeLeftDrafts(ctx);
    errors += left.errors;
    lastError = left.lastError;
  }
  let next: string | null = cursor;
  for (let chunks = 0; next !== null && chunks < budget.chunks && clock() - started < budget.ms; chunks++) {
    const chunk = await candidateSubscriptions(ctx, next, RUN_CHUNK);
    const asOf = new Date(run.asOf);
    // Should the chunk's read fail, each subscription reads for itself and records its own error.
    const preload = chunk.length ? await preloadChunk(ctx, chunk, asOf).catch(() => undefined) : undefined;
    const finalized: string[] = [];
    for (const row of chunk) {
      const { id } = row;
      try {
        const result = await billSubscription(ctx, id, asOf, run.id, preload);
        items += result.lines;
        if (result.invoiceId) invoices++;
        if (result.finalized) finalized.push(result.invoiceId!);
        // Pushes of instant usage that were not billed when they arrived.
        if (result.hasInstantUsage) {
          const instant = await billInstantUsage(ctx, id, asOf, run.id);
          invoices += instant.invoices;
          finalized.push(...instant.finalized);
        }
        // Billed, or nothing due: a failure recorded earlier is over (the invoice's batch cleared it too).
        if (!result.invoiceId) await clearBillingFailure(ctx, row);
      } catch (err) {
        errors++;
        lastError = `${id}: ${err instanceof BillingError ? err.message : safeErrorMessage(err)}`.slice(0, 500);
        // Never silent: the subscription shows why, the tenant is told once per cause.
        await recordBillingFailure(ctx, row, err, run.id, asOf).catch((e) => logError({ job: 'billing', subscriptionId: id }, e));
      }
    }
    // One send for the chunk's documents, rendered after the burst and collected; one that fails
    // is left to the sweepers.
    await afterFinalization(ctx.env, ctx.tenant.id, finalized, { renderDelaySeconds: billingRenderDelay(ctx.env) });
    next = chunk.length < RUN_CHUNK ? null : chunk[chunk.length - 1]!.id;
  }
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
  return next;
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
