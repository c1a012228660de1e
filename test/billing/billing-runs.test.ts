import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, type TestTenant } from '../support/api';
import { createCustomer, createTenant, flatMonthlyFee } from '../support/builders';

// Billing runs (POST /billing-runs, and the TenantObject that runs them): every subscription is
// billed exactly once, through crashes, alarms, overlapping runs and invoices finalized meanwhile.
// Storage is shared by every test file, so every test works in a fresh tenant of its own.

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

  const invoiceCounts = async (t: TestTenant) =>
    (
      await env.DB.prepare(`SELECT subscription_id AS s, count(*) AS n, group_concat(status) AS statuses FROM invoices WHERE tenant_id = ? GROUP BY subscription_id`)
        .bind(t.id)
        .all<{ s: string; n: number; statuses: string }>()
    ).results;

  /** A service context for the tenant, as the worker builds one (no in-object numbering). */
  async function workerContext(t: TestTenant, now: string) {
    const { createDb } = await import('../../src/db/client');
    const { createServiceContext } = await import('../../src/services/context');
    const db = createDb(env.DB);
    const tenant = (await db.query.tenants.findFirst({ where: (x, { eq }) => eq(x.id, t.id) }))!;
    return createServiceContext({ env, db, tenant, now: new Date(now) });
  }

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
    const numbers = (await env.DB.prepare(`SELECT number_seq AS n FROM invoices WHERE tenant_id = ? ORDER BY number_seq`).bind(t.id).all<{ n: number }>()).results.map((r) => r.n);
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6]);
    const ledger = await env.DB.prepare(`SELECT count(*) AS n FROM billing_ledger WHERE tenant_id = ?`).bind(t.id).first();
    expect(ledger).toEqual({ n: 6 });
  });

  it('inside the object writes a draft and its number in one batch: a failure leaves nothing to bill twice', async () => {
    const t = await createTenant();
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2025-03-01T10:00:00Z' } });
    const subs = await activeSubscriptions(t, 3);
    const { billSubscription } = await import('../../src/services/billing/bill');
    const base = await workerContext(t, '2025-03-01T10:00:00Z');
    // The numbering batch fails (the object is reset, D1 refuses): neither draft nor ledger row stays.
    const failing = { ...base, numbering: { finalize: () => Promise.reject(new Error('D1 went away')) } };
    await expect(billSubscription(failing, subs[0]!, base.now, 'failing-run')).rejects.toThrow('D1 went away');
    expect(await invoiceCounts(t)).toEqual([]);
    expect(await env.DB.prepare(`SELECT count(*) AS n FROM billing_ledger WHERE tenant_id = ?`).bind(t.id).first()).toEqual({ n: 0 });
    // The object's run bills all three, each numbered in the batch that writes it.
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2025-03-01T11:00:00Z' } });
    const counts = await invoiceCounts(t);
    expect(counts).toHaveLength(3);
    for (const c of counts) expect(c).toMatchObject({ n: 1, statuses: 'STATUS_UNPAID' });
    const finalized = await env.DB.prepare(`SELECT count(*) AS n FROM events WHERE tenant_id = ? AND type = 'invoice.finalized'`).bind(t.id).first();
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
    const numbers = (await env.DB.prepare(`SELECT number_seq AS n FROM invoices WHERE tenant_id = ? ORDER BY number_seq`).bind(t.id).all<{ n: number }>()).results;
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
    const rows = (await env.DB.prepare(`SELECT number_seq AS n, source_type AS source FROM invoices WHERE tenant_id = ? ORDER BY number_seq`).bind(t.id).all<{ n: number; source: string }>()).results;
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
