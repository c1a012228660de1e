import { DurableObject } from 'cloudflare:workers';
import type { BatchItem } from 'drizzle-orm/batch';
import { and, eq, max } from 'drizzle-orm';
import { formatNumber } from '../billing/numbering';
import { isGuardFailure, isUniqueViolation, type Db } from '../db/client';
import { DIRECTORY_CACHE_MS, openTenant, tenantDb, TenantMovingError } from '../db/directory';
import { guardedUpdate } from '../db/commit';
import { billingRuns, dunningDocuments, events, invoices, offers } from '../db/schema';
import type { Env } from '../env';
import { createServiceContext, type ServiceContext } from '../services/context';
import type { DunningIssueRequest, DunningIssueResult, FinalizeRequest, FinalizeResult, NumberedDocument, Numbering, OfferIssueRequest, OfferIssueResult } from '../services/ports/numbering';
import { offerIssueStatements } from '../services/offers/numbering';
import { openSql } from '../services/invoices/status';
import { tenantNow } from '../lib/clock';
import { continueRun, createRun, getRun, renderRun, type RunBudget } from '../services/billing/runs';
import { newId } from '../lib/ids';
import type { BillingRunView, DunningRunSummary, RunBillingOptions, TenantObjectApi } from './tenant-object-api';
import { runDunningFor } from '../services/dunning/run';

/**
 * Work per invocation before a run continues in the next alarm: a few seconds, well inside an
 * invocation's CPU and wall-clock limits, and 16 chunks (4,000 subscriptions, some 50 D1 statements
 * per chunk with its publishing) stay below the 1,000 queries an invocation may send to D1.
 */
const RUN_BUDGET: RunBudget = { ms: 10_000, chunks: 16 };


/**
 * A JSON value with the allocated number filled in: strings that are exactly `{number}` (a
 * document's number field), or with `inText` also `{number}` inside texts (a dunning title).
 */
function fillNumber<T>(data: T, number: string, inText = false): T {
  const json = JSON.stringify(data);
  const filled = inText ? json.replaceAll('{number}', JSON.stringify(number).slice(1, -1)) : json.replaceAll('"{number}"', JSON.stringify(number));
  return JSON.parse(filled);
}

/** A background run in progress: what its next alarm continues. */
interface StoredRun {
  tenantId: string;
  runId: string;
  asOf: string;
  cursor: string;
}

function runBudget(env: Env): RunBudget {
  const chunks = Number(env.BILLING_RUN_CHUNKS_PER_INVOCATION);
  return Number.isInteger(chunks) && chunks > 0 ? { ...RUN_BUDGET, chunks } : RUN_BUDGET;
}

/**
 * One per tenant (docs/decisions.md, Foundations): the place for work that must be serial within a
 * tenant. It owns the gap-free document number ranges (the in-object side of the Numbering port)
 * and runs billing (synchronously for the test clock, otherwise in chunks continued by alarms).
 */
export class TenantObject extends DurableObject<Env> implements TenantObjectApi {
  /** Calls that allocate numbers run one after the other: D1 awaits would otherwise interleave them. */
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * Billing work (a synchronous run, an alarm's chunks) runs one after the other, for the same
   * reason: interleaved, a run that planned several periods of a subscription lost its whole batch
   * to the ledger row another run had just written for the first of them (docs/decisions.md,
   * Invoices and billing). A separate queue from numbering, which billing itself waits for.
   */
  private billingQueue: Promise<unknown> = Promise.resolve();

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Dunning runs of the tenant, one after the other: each sees the documents the one before made. */
  private dunningQueue: Promise<unknown> = Promise.resolve();

  /**
   * Runs dunning for the tenant (the daily cron, a test-clock move, an invoice whose dunning was
   * resumed): one run at a time per tenant, at most one level per invoice per run.
   */
  runDunning(tenantId: string, options: { asOf?: string; invoiceId?: string }): Promise<DunningRunSummary> {
    const run = this.dunningQueue.then(async () => runDunningFor(await this.context(tenantId, options.asOf ? new Date(options.asOf) : undefined), { invoiceId: options.invoiceId }));
    this.dunningQueue = run.catch(() => undefined);
    return run;
  }

  private billingSerial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.billingQueue.then(work, work);
    this.billingQueue = run.catch(() => undefined);
    return run;
  }

  /**
   * The last number of each range, in memory only. D1 is the truth (UNIQUE (tenant, type,
   * number_seq), MAX(number_seq)): a range is read from it on first use in the object's lifetime,
   * and every number after that is allocated here, so the counter is exact. Should it ever lag (an
   * overlapping instance during a restart), the batch meets the UNIQUE key and the range is read
   * again — no gap, no repeat. (Kept in the object's storage before; each write was a disk commit
   * on the billing run's hot path.)
   */
  private counters = new Map<string, number>();

  private async currentNumber(range: string, storedMax: (range: string) => Promise<number>): Promise<number> {
    let value = this.counters.get(range);
    if (value === undefined) this.counters.set(range, (value = await storedMax(range)));
    return value;
  }

  /**
   * Finalizes a draft: takes the next number of its type's range and writes it with the status
   * change and the events in one D1 batch. The range only moves when that batch commits, so a
   * refused or failed finalization leaves no gap; D1's UNIQUE (tenant, type, number_seq) is the
   * backstop if the object's counter ever lags behind D1 (it then resynchronises and retries).
   */
  finalizeDocument(req: FinalizeRequest): Promise<FinalizeResult> {
    return this.serial(() => this.commitNumbered(req, []));
  }

  /**
   * The finalization batch, with `leading` statements (a billing run's draft, ledger rows and
   * state) written in front of it: the draft and its number commit together or not at all.
   * Callers hold the serial queue.
   */
  private async commitNumbered(req: FinalizeRequest, leading: BatchItem<'sqlite'>[]): Promise<FinalizeResult> {
    const db = await this.db(req.tenantId);
    return this.allocate(
      `document:${req.type}`,
      req,
      (number, next) => [
        ...leading,
        ...guardedUpdate(db, {
          table: invoices,
          tenantId: req.tenantId,
          id: req.invoiceId,
          expectedUpdatedAt: req.expectedUpdatedAt,
          set: { ...req.set, number, numberSeq: next },
          where: eq(invoices.status, 'STATUS_DRAFT'),
        }),
        ...req.events.map((e) => db.insert(events).values({ ...e, tenantId: req.tenantId, data: fillNumber(e.data, number) })),
      ],
      (err) => (isGuardFailure(err) ? { ok: false as const, reason: 'not_draft' as const } : null),
      'invoices.number_seq',
      async () => (await db.select({ max: max(invoices.numberSeq) }).from(invoices).where(and(eq(invoices.tenantId, req.tenantId), eq(invoices.type, req.type))).get())?.max ?? 0,
    );
  }

  /**
   * Issues a dunning document (docs/decisions.md, Dunning): the next number of the type's own
   * range, the document, the invoice's new level and the events in one batch. The invoice's
   * updatedAt guards it (a payment in between refuses it), UNIQUE (invoice, level) makes a level
   * once whatever runs meanwhile.
   */
  issueDunningDocument(req: DunningIssueRequest): Promise<DunningIssueResult> {
    return this.serial(async () => {
      const db = await this.db(req.tenantId);
      return this.allocate(
        `dunning:${req.type}`,
        req,
        (number, next) => [
          db.insert(dunningDocuments).values({ ...(fillNumber(req.document, number, true) as typeof dunningDocuments.$inferInsert), number, numberSeq: next }),
          ...guardedUpdate(db, {
            table: invoices,
            tenantId: req.tenantId,
            id: req.invoiceId,
            expectedUpdatedAt: req.expectedUpdatedAt,
            set: req.invoiceSet,
            where: openSql('invoices'),
          }),
          ...req.events.map((e) => db.insert(events).values({ ...e, tenantId: req.tenantId, data: fillNumber(e.data, number, true) })),
        ],
        (err) => {
          if (isGuardFailure(err)) return { ok: false as const, reason: 'invoice_changed' as const };
          if (isUniqueViolation(err, 'dunning_documents.level')) return { ok: false as const, reason: 'level_exists' as const };
          return null;
        },
        'dunning_documents.number_seq',
        async () =>
          (await db.select({ max: max(dunningDocuments.numberSeq) }).from(dunningDocuments).where(and(eq(dunningDocuments.tenantId, req.tenantId), eq(dunningDocuments.type, req.type))).get())?.max ?? 0,
      );
    });
  }

  /**
   * Creates an offer with the next number of the offer range (docs/decisions.md, Offers): the offer,
   * a subscription made with it (or the draft it takes over) and the events in one batch. A
   * reference that went away meanwhile refuses it, and a refused batch uses no number.
   */
  issueOffer(req: OfferIssueRequest): Promise<OfferIssueResult> {
    return this.serial(async () => {
      const db = await this.db(req.tenantId);
      return this.allocate(
        'offer',
        req,
        (number, next) => [
          ...offerIssueStatements(db, req, number, next),
          ...req.events.map((e) => db.insert(events).values({ ...e, tenantId: req.tenantId, data: fillNumber(e.data, number) })),
        ],
        (err) => {
          if (isGuardFailure(err)) return { ok: false as const, reason: 'reference_gone' as const };
          if (isUniqueViolation(err, 'subscriptions.number')) return { ok: false as const, reason: 'subscription_number_taken' as const };
          return null;
        },
        'offers.number_seq',
        async () => (await db.select({ max: max(offers.numberSeq) }).from(offers).where(eq(offers.tenantId, req.tenantId)).get())?.max ?? 0,
      );
    });
  }

  /**
   * The one allocation loop of every number range: formats the range's next number, commits the
   * batch built with it, and moves the counter only when the batch committed, so a refused batch
   * leaves no gap. `refused` maps the failures the caller expects to its answer; a UNIQUE violation
   * of the range's column means D1 is ahead of the counter: it catches up from `storedMax` and tries again.
   */
  private async allocate<Refused extends { ok: false }>(
    range: string,
    req: NumberedDocument,
    build: (number: string, next: number) => BatchItem<'sqlite'>[],
    refused: (err: unknown) => Refused | null,
    seqColumn: string,
    storedMax: () => Promise<number>,
  ): Promise<{ ok: true; number: string; numberSeq: number } | Refused> {
    const answer = await this.allocateBlock(
      [{ ...req, range }],
      (numbers) => build(numbers[0]!.number, numbers[0]!.numberSeq),
      refused,
      seqColumn,
      () => storedMax(),
    );
    return answer.ok ? { ok: true as const, ...answer.numbers[0]! } : answer;
  }

  /**
   * A block of numbers in one batch: each document takes the next number of its range, in the
   * order given (a billing run's chunk: hundreds of invoices, one batch). All counters move only
   * when the batch committed; a clash with D1 resynchronises every range of the block and retries.
   */
  private async allocateBlock<Refused extends { ok: false }>(
    docs: (NumberedDocument & { range: string })[],
    build: (numbers: { number: string; numberSeq: number }[]) => BatchItem<'sqlite'>[],
    refused: (err: unknown) => Refused | null,
    seqColumn: string,
    storedMax: (range: string) => Promise<number>,
  ): Promise<{ ok: true; numbers: { number: string; numberSeq: number }[] } | Refused> {
    const db = await this.db(docs[0]!.tenantId);
    const ranges = [...new Set(docs.map((d) => d.range))];
    for (let attempt = 0; attempt < 3; attempt++) {
      const last = new Map<string, number>();
      for (const r of ranges) last.set(r, await this.currentNumber(r, storedMax));
      const numbers = docs.map((d) => {
        const next = last.get(d.range)! + 1;
        last.set(d.range, next);
        return { number: formatNumber(d.format, { number: next, date: new Date(d.date), timeZone: d.timeZone, customerNumber: d.customerNumber }), numberSeq: next };
      });
      try {
        await db.batch(build(numbers) as unknown as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
        for (const [r, value] of last) this.counters.set(r, value);
        return { ok: true as const, numbers };
      } catch (err) {
        const answer = refused(err);
        if (answer !== null) return answer;
        if (!isUniqueViolation(err, seqColumn)) throw err;
        // D1 already holds one of these numbers (the object's storage was reset or lags): catch up and retry.
        for (const r of ranges) this.counters.set(r, await storedMax(r));
      }
    }
    throw new Error(`could not allocate numbers of ${ranges.join(', ')} after 3 attempts`);
  }

  /**
   * Writes a billing run's chunk (docs/decisions.md, Invoices and billing: billing runs in bulk):
   * the statements `build` makes with the documents' numbers, in one batch. Only for contexts made
   * inside the object (the run holds the object's billing queue); a failure is thrown to the run,
   * which then bills the chunk one subscription at a time.
   */
  private finalizeBlock(docs: (NumberedDocument & { type: string })[], build: (numbers: { number: string; numberSeq: number }[]) => BatchItem<'sqlite'>[]) {
    const tenantId = docs[0]?.tenantId;
    return this.serial(async () => {
      const db = await this.db(tenantId!);
      const answer = await this.allocateBlock<{ ok: false }>(
        docs.map((d) => ({ ...d, range: `document:${d.type}` })),
        build,
        () => null,
        'invoices.number_seq',
        async (range) =>
          (await db.select({ max: max(invoices.numberSeq) }).from(invoices).where(and(eq(invoices.tenantId, tenantId!), eq(invoices.type, range.slice('document:'.length)))).get())?.max ?? 0,
      );
      if (!answer.ok) throw new Error('a billing chunk cannot be refused');
      return answer.numbers;
    });
  }

  /**
   * The tenant's database, through the one door (docs/decisions.md, Tenancy and shards): the object
   * runs outside any request, so this is its shard's primary. Asked on every call, not kept: the
   * directory's per-isolate cache makes it free, and a tenant moved to another shard is followed.
   */
  private async db(tenantId: string): Promise<Db> {
    const db = await tenantDb(this.env, tenantId);
    if (!db) throw new Error(`unknown tenant ${tenantId}`);
    return db;
  }

  private async context(tenantId: string, asOf?: Date): Promise<ServiceContext> {
    const found = await openTenant(this.env, tenantId);
    if (!found) throw new Error(`unknown tenant ${tenantId}`);
    const { db, tenant } = found;
    // Inside the object, numbering needs no round trip through the stub: the draft, its ledger rows
    // and its number are one batch.
    const numbering: Numbering = {
      finalize: (req, leading = []) => this.serial(() => this.commitNumbered(req, leading)),
      finalizeBlock: (docs, build) => this.finalizeBlock(docs, build),
      issueDunning: (req) => this.issueDunningDocument(req),
      issueOffer: (req) => this.issueOffer(req),
    };
    return createServiceContext({ env: this.env, db, tenant, now: asOf ?? tenantNow(tenant), waitUntil: (p) => this.ctx.waitUntil(p), numbering });
  }

  /**
   * Runs billing for the tenant up to `asOf` (default: the tenant's now). `sync` works the run to
   * the end before answering (the test clock). Otherwise the run is only scheduled: alarms work it
   * in chunks, so a run over 100,000 subscriptions never meets an invocation's limits, and the
   * caller (an API request, the cron dispatcher going through every tenant) never waits for it.
   * While a background run is under way it is returned instead of starting a second one.
   */
  async runBilling(tenantId: string, options: RunBillingOptions): Promise<BillingRunView> {
    const ctx = await this.context(tenantId, options.asOf ? new Date(options.asOf) : undefined);
    if (options.sync) {
      // Waits for an alarm's chunk under way (and the alarm for it), so each bills what the other left.
      return this.billingSerial(async () => {
        const run = await createRun(ctx, ctx.now, options.trigger, newId());
        const unbounded = { ms: Number.POSITIVE_INFINITY, chunks: Number.POSITIVE_INFINITY };
        for (let cursor: string | null = ''; cursor !== null; ) cursor = await continueRun(ctx, run, cursor, unbounded, () => Date.now());
        return getRun(ctx, run.id);
      });
    }
    // Nothing else runs in the object meanwhile (D1 awaits would let events in): two callers cannot
    // both start a run, and the alarm finds the run's row written.
    return this.ctx.blockConcurrencyWhile(async () => {
      const current = await this.ctx.storage.get<StoredRun>('run');
      if (current) {
        // An alarm that gave up after its retries left the run behind: arm it again.
        if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
        return getRun(ctx, current.runId);
      }
      const run = await createRun(ctx, ctx.now, options.trigger, newId());
      await this.ctx.storage.put('run', { tenantId, runId: run.id, asOf: run.asOf, cursor: '' } satisfies StoredRun);
      await this.ctx.storage.setAlarm(Date.now());
      return renderRun(run);
    });
  }

  /**
   * Continues the stored run. Alarms are delivered at least once; a repeated chunk bills nothing
   * twice. While the tenant is moved between shards the run waits (the alarm is set again a minute
   * on) and then continues on the new shard.
   */
  override async alarm() {
    await this.billingSerial(async () => {
      const stored = await this.ctx.storage.get<StoredRun>('run');
      if (!stored) return;
      let ctx: ServiceContext;
      try {
        ctx = await this.context(stored.tenantId, new Date(stored.asOf));
      } catch (err) {
        if (!(err instanceof TenantMovingError)) throw err;
        await this.ctx.storage.setAlarm(Date.now() + DIRECTORY_CACHE_MS);
        return;
      }
      const run = await ctx.db.select().from(billingRuns).where(eq(billingRuns.id, stored.runId)).get();
      if (!run) {
        await this.ctx.storage.delete('run');
        return;
      }
      const cursor = await continueRun(ctx, run, stored.cursor, runBudget(this.env), () => Date.now());
      if (cursor === null) await this.ctx.storage.delete('run');
      else {
        await this.ctx.storage.put('run', { ...stored, cursor });
        await this.ctx.storage.setAlarm(Date.now());
      }
    });
  }
}
