import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, type TestTenant, dbOf } from '../support/api';
import { createCustomer, createTenant, flatMonthlyFee } from '../support/builders';

// Billing runs (POST /billing-runs, and the TenantObject that runs them): every subscription is
// billed exactly once, through crashes, alarms, overlapping runs and invoices finalized meanwhile.
// Storage is shared by every test file, so every test works in a fresh tenant of its own.

/** A service context for the tenant, as the worker builds one (no in-object numbering). */
async function workerContext(t: TestTenant, now: string) {
  const { openTenant } = await import('../../src/db/directory');
  const { createServiceContext } = await import('../../src/services/context');
  // The tenant's row and database, through the one door to its shard.
  const { db, tenant } = (await openTenant(env, t.id))!;
  return createServiceContext({ env, db, tenant, now: new Date(now) });
}

describe('billing runs: exactly once', () => {
  const catalogue = (t: TestTenant) => flatMonthlyFee(t, '10.00', 'Plan');

  async function activeSubscriptions(t: TestTenant, n: number) {
    const { product, price } = await catalogue(t);
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const c = await createCustomer(t);
      const s = (await api('/subscriptions', { token: t.key, body: { customer: c.id, items: [{ product: product.id, pricePlan: price.id }] } })).body;
      expect((await api(`/subscriptions/${s.id}/activate`, { method: 'PUT', token: t.key, body: {} })).status).toBe(200);
      ids.push(s.id);
    }
    return ids;
  }

  // The status each invoice counts as: a finalizing one (its files still rendering) as the status the render gives it.
  const invoiceCounts = async (t: TestTenant) =>
    (
      await (await dbOf(t)).prepare(`SELECT subscription_id AS s, count(*) AS n, group_concat(CASE WHEN status = 'STATUS_FINALIZING' THEN (CASE WHEN paid_amount >= gross_amount THEN 'STATUS_PAID' ELSE 'STATUS_UNPAID' END) ELSE status END) AS statuses FROM invoices WHERE tenant_id = ? GROUP BY subscription_id`)
        .bind(t.id)
        .all<{ s: string; n: number; statuses: string }>()
    ).results;

  it('finishes a run that died half-way without billing anything twice', async () => {
    const t = await createTenant();
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2025-03-01T10:00:00Z' } });
    const subs = await activeSubscriptions(t, 6);
    // Billing outside the TenantObject (instant usage pushed through the API) writes the draft, then
    // numbers it through the object. Here two subscriptions are billed that way and the worker dies
    // before the third invoice is numbered.
    const { billSubscription } = await import('../../src/services/billing/bill');
    const ctx = await workerContext(t, '2025-03-01T10:00:00Z');
    for (const id of subs.slice(0, 2)) expect((await billSubscription(ctx, id, ctx.now, 'crashed-run')).invoiceId).toEqual(expect.any(String));
    // The third invoice is written, then the object that numbers it is gone: the worker dies there.
    const { stubNumbering } = await import('../../src/services/ports/numbering');
    const deadObject = { ...env, TENANT: { getByName: () => ({ finalizeDocument: () => Promise.reject(new Error('worker died')) }) } } as never;
    const dying = { ...ctx, numbering: stubNumbering(deadObject, ctx.db) };
    await expect(billSubscription(dying, subs[2]!, ctx.now, 'crashed-run')).rejects.toThrow('worker died');
    const { composeDue } = await import('../../src/services/billing/compose');
    expect(await composeDue(ctx, subs[0]!, ctx.now, null)).toBeNull();
    expect((await invoiceCounts(t)).map((c) => c.statuses).sort()).toEqual(['STATUS_DRAFT', 'STATUS_UNPAID', 'STATUS_UNPAID']);
    // The next run (the test clock moving on) picks up from there.
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2025-03-01T11:00:00Z' } });
    const counts = await invoiceCounts(t);
    expect(counts).toHaveLength(6);
    for (const c of counts) expect(c).toMatchObject({ n: 1, statuses: 'STATUS_UNPAID' });
    const numbers = (await (await dbOf(t)).prepare(`SELECT number_seq AS n FROM invoices WHERE tenant_id = ? ORDER BY number_seq`).bind(t.id).all<{ n: number }>()).results.map((r) => r.n);
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6]);
    const ledger = await (await dbOf(t)).prepare(`SELECT count(*) AS n FROM billing_ledger WHERE tenant_id = ?`).bind(t.id).first();
    expect(ledger).toEqual({ n: 6 });
  });

  it('inside the object writes a draft and its number in one batch: a failure leaves nothing to bill twice', async () => {
    const t = await createTenant();
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2025-03-01T10:00:00Z' } });
    const subs = await activeSubscriptions(t, 3);
    const { billSubscription } = await import('../../src/services/billing/bill');
    const base = await workerContext(t, '2025-03-01T10:00:00Z');
    // The numbering batch fails (the object is reset, D1 refuses): neither draft nor ledger row stays.
    const failing = { ...base, numbering: { ...base.numbering, finalize: () => Promise.reject(new Error('D1 went away')) } };
    await expect(billSubscription(failing, subs[0]!, base.now, 'failing-run')).rejects.toThrow('D1 went away');
    expect(await invoiceCounts(t)).toEqual([]);
    expect(await (await dbOf(t)).prepare(`SELECT count(*) AS n FROM billing_ledger WHERE tenant_id = ?`).bind(t.id).first()).toEqual({ n: 0 });
    // The object's run bills all three, each numbered in the batch that writes it.
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2025-03-01T11:00:00Z' } });
    const counts = await invoiceCounts(t);
    expect(counts).toHaveLength(3);
    for (const c of counts) expect(c).toMatchObject({ n: 1, statuses: 'STATUS_UNPAID' });
    const finalized = await (await dbOf(t)).prepare(`SELECT count(*) AS n FROM events WHERE tenant_id = ? AND type = 'invoice.finalized'`).bind(t.id).first();
    expect(finalized).toEqual({ n: 3 });
  });

  it('runs a background run through alarms, chunk by chunk, and starts no second one meanwhile', async () => {
    const t = await createTenant();
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2025-03-01T10:00:00Z' } });
    await activeSubscriptions(t, 30);
    // POST only schedules the run; the tests work one chunk of 25 per alarm (BILLING_RUN_CHUNKS_PER_INVOCATION).
    const started = await api('/billing-runs', { token: t.key, method: 'POST' });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: 'running', trigger: 'api', invoicesCreated: 0, itemsBilled: 0, errors: 0, finishedAt: null });
    const again = await api('/billing-runs', { token: t.key, method: 'POST' });
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(started.body.id);
    const stub = env.TENANT.getByName(t.id);
    const seen: number[] = [];
    let run = started.body;
    for (let i = 0; i < 10 && run.status === 'running'; i++) {
      await runDurableObjectAlarm(stub);
      run = (await api(`/billing-runs/${started.body.id}`, { token: t.key })).body;
      seen.push(run.invoicesCreated);
    }
    expect(seen).toEqual([25, 30]);
    expect(run).toMatchObject({ status: 'completed', invoicesCreated: 30, itemsBilled: 30, errors: 0, finishedAt: expect.any(String) });
    // Nothing left to continue; the next POST starts a new run.
    expect(await runDurableObjectAlarm(stub)).toBe(false);
    const next = await api('/billing-runs', { token: t.key, method: 'POST' });
    expect(next.body.id).not.toBe(started.body.id);
    await runDurableObjectAlarm(stub);
    const counts = await invoiceCounts(t);
    expect(counts).toHaveLength(30);
    for (const c of counts) expect(c).toMatchObject({ n: 1, statuses: 'STATUS_UNPAID' });
    const numbers = (await (await dbOf(t)).prepare(`SELECT number_seq AS n FROM invoices WHERE tenant_id = ? ORDER BY number_seq`).bind(t.id).all<{ n: number }>()).results;
    expect(numbers.map((r) => r.n)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('numbers billed invoices and invoices finalized through the API from one gap-free range', async () => {
    const t = await createTenant();
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2025-03-01T10:00:00Z' } });
    await activeSubscriptions(t, 8);
    const c = await createCustomer(t);
    const drafts: string[] = [];
    for (let i = 0; i < 8; i++) {
      const d = await api('/invoices', { token: t.key, body: { customer: c.id, positions: [{ name: 'Setup', unitPrice: '10.00', taxRate: '19' }] } });
      drafts.push(d.body.id);
    }
    expect((await api('/billing-runs', { token: t.key, method: 'POST' })).status).toBe(202);
    const [ran, ...finalizations] = await Promise.all([
      runDurableObjectAlarm(env.TENANT.getByName(t.id)),
      ...drafts.map((id) => api(`/invoices/${id}/finalize`, { token: t.key, method: 'POST' })),
    ]);
    expect(ran).toBe(true);
    expect(finalizations.map((f) => f.status)).toEqual(drafts.map(() => 201));
    const rows = (await (await dbOf(t)).prepare(`SELECT number_seq AS n, source_type AS source FROM invoices WHERE tenant_id = ? ORDER BY number_seq`).bind(t.id).all<{ n: number; source: string }>()).results;
    expect(rows.map((r) => r.n)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(rows.filter((r) => r.source === 'subscription')).toHaveLength(8);
  });

  it('bills nothing twice when runs overlap or repeat', async () => {
    const t = await createTenant();
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2025-03-01T10:00:00Z' } });
    await activeSubscriptions(t, 5);
    const stub = env.TENANT.getByName(t.id);
    expect((await api('/billing-runs', { token: t.key, method: 'POST' })).status).toBe(202);
    const runs = await Promise.all([stub.runBilling(t.id, { trigger: 'test', sync: true }), stub.runBilling(t.id, { trigger: 'test', sync: true }), runDurableObjectAlarm(stub)]);
    expect(runs).toHaveLength(3);
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2025-03-01T12:00:00Z' } });
    const counts = await invoiceCounts(t);
    expect(counts).toHaveLength(5);
    for (const c of counts) expect(c.n).toBe(1);
    const listed = await api('/billing-runs', { token: t.key });
    expect(listed.body.data.reduce((sum: number, r: any) => sum + r.invoicesCreated, 0)).toBe(5);
    expect(listed.body.data.every((r: any) => r.status === 'completed')).toBe(true);
  });
});

describe('billing runs: concurrent paths', () => {
  it('a background run and the test clock sent together bill every due period', async () => {
    const t = await createTenant();
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2030-01-15T10:00:00Z' } });
    const { product, price } = await flatMonthlyFee(t, '10.00', 'Plan');
    for (let i = 0; i < 5; i++) {
      const c = await createCustomer(t);
      const s = (await api('/subscriptions', { token: t.key, body: { customer: c.id, items: [{ product: product.id, pricePlan: price.id }] } })).body;
      expect((await api(`/subscriptions/${s.id}/activate`, { method: 'PUT', token: t.key, body: {} })).status).toBe(200);
    }
    // The background run (as of 15 January) and the clock's synchronous run (as of 16 March) at once.
    expect((await api('/billing-runs', { token: t.key, method: 'POST' })).status).toBe(202);
    const stub = env.TENANT.getByName(t.id);
    const [, clock] = await Promise.all([runDurableObjectAlarm(stub), api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2030-03-16T10:00:00Z' } })]);
    expect(clock.status).toBe(200);
    for (let i = 0; i < 5 && (await runDurableObjectAlarm(stub)); i++);
    // Activated 15 January, monthly in advance: 15 Jan, 15 Feb and 15 Mar are due by 16 March,
    // 3 periods × 5 subscriptions = 15 ledger rows, each exactly once.
    const ledger = await (await dbOf(t)).prepare(`SELECT period_start AS p, count(*) AS n FROM billing_ledger WHERE tenant_id = ? GROUP BY period_start ORDER BY period_start`)
      .bind(t.id)
      .all<{ p: string; n: number }>();
    expect(ledger.results.map((r) => r.n)).toEqual([5, 5, 5]);
    // 15 periods at 10.00 net: 150.00 net, × 1.19 = 178.50 gross over all invoices.
    const totals = await (await dbOf(t)).prepare(`SELECT sum(net_amount) AS net, sum(gross_amount) AS gross FROM invoices WHERE tenant_id = ?`).bind(t.id).first();
    expect(totals).toEqual({ net: 15000, gross: 17850 });
    // The clock's run waited for the alarm's chunk under way (January of all five), then billed
    // what it left (February and March, one invoice each); both end completed with nothing left.
    const runs = (await api('/billing-runs', { token: t.key })).body.data as any[];
    const summary = (trigger: string, asOf: string) =>
      runs.filter((r) => r.trigger === trigger && r.asOf === asOf).map((r) => ({ status: r.status, invoicesCreated: r.invoicesCreated, itemsBilled: r.itemsBilled, errors: r.errors }));
    expect(summary('api', '2030-01-15T10:00:00.000Z')).toEqual([{ status: 'completed', invoicesCreated: 5, itemsBilled: 5, errors: 0 }]);
    expect(summary('test_clock', '2030-03-16T10:00:00.000Z')).toEqual([{ status: 'completed', invoicesCreated: 5, itemsBilled: 10, errors: 0 }]);
    // The runs did not interleave: the alarm's five invoices took the first numbers of the range.
    const order = await (await dbOf(t)).prepare(`SELECT r.trigger AS t FROM invoices i JOIN billing_runs r ON r.id = i.billing_run_id WHERE i.tenant_id = ? ORDER BY i.number_seq`)
      .bind(t.id)
      .all<{ t: string }>();
    expect(order.results.map((r) => r.t)).toEqual([...Array(5).fill('api'), ...Array(5).fill('test_clock')]);
  });

  it('a run whose plan went stale meanwhile plans again and bills what the other path left', async () => {
    const t = await createTenant();
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2030-01-15T10:00:00Z' } });
    const { product, price } = await flatMonthlyFee(t, '10.00', 'Plan');
    const c = await createCustomer(t);
    const s = (await api('/subscriptions', { token: t.key, body: { customer: c.id, items: [{ product: product.id, pricePlan: price.id }] } })).body;
    expect((await api(`/subscriptions/${s.id}/activate`, { method: 'PUT', token: t.key, body: {} })).status).toBe(200);
    const { billSubscription } = await import('../../src/services/billing/bill');
    const { preloadChunk } = await import('../../src/services/billing/inputs');
    const { subscriptions } = await import('../../src/db/schema');
    const { eq } = await import('drizzle-orm');
    // A run as of 16 March reads its chunk: 15 Jan, 15 Feb and 15 Mar are due.
    const late = await workerContext(t, '2030-03-16T10:00:00Z');
    const rows = await late.db.select().from(subscriptions).where(eq(subscriptions.id, s.id));
    const stale = await preloadChunk(late, rows, late.now);
    // Before it writes, another path bills January (as of 15 January).
    const early = await workerContext(t, '2030-01-15T10:00:00Z');
    expect((await billSubscription(early, s.id, early.now, null)).lines).toBe(1);
    // Its batch for Jan–Mar meets January's ledger row; it plans again and bills February and March.
    const result = await billSubscription(late, s.id, late.now, null, stale);
    expect(result).toMatchObject({ lines: 2, skipped: null, invoiceId: expect.any(String) });
    const ledger = await (await dbOf(t)).prepare(`SELECT period_start AS p FROM billing_ledger WHERE tenant_id = ? ORDER BY period_start`).bind(t.id).all<{ p: string }>();
    // Periods start at the activation instant: 15 Jan, 15 Feb, 15 Mar at 10:00 UTC.
    expect(ledger.results.map((r) => r.p)).toEqual(['2030-01-15T10:00:00.000Z', '2030-02-15T10:00:00.000Z', '2030-03-15T10:00:00.000Z']);
    // 10.00 + 2 × 10.00 net on two invoices; 30.00 × 1.19 = 35.70 gross.
    expect(await (await dbOf(t)).prepare(`SELECT count(*) AS n, sum(net_amount) AS net, sum(gross_amount) AS gross FROM invoices WHERE tenant_id = ?`).bind(t.id).first()).toEqual({ n: 2, net: 3000, gross: 3570 });
  });
});
