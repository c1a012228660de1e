import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { eventsOf, get, patch, post, query } from '../support/api';
import { countedStatus, created, createCustomer, ok, tick } from '../support/builders';
import { item, local, offer, subscribe, tenantAt } from './scenario';
import type { ServiceContext } from '../../src/services/context';

// Billing runs write a chunk of subscriptions in one batch (src/services/billing/bulk.ts): these
// tests put every kind of subscription into one chunk and check that each is billed as it would be
// alone, that a chunk meeting other billing falls back to one subscription at a time, and that the
// events a finalized invoice carries share one stored document. The tests' chunks hold 25
// subscriptions (BILLING_RUN_CHUNK_SIZE in vitest.workers.config.ts).

/** The tenant's context inside its TenantObject, where the block numbering lives. */
async function inObject<T>(tenantId: string, asOf: string, work: (ctx: ServiceContext) => Promise<T>): Promise<T> {
  return runInDurableObject(env.TENANT.getByName(tenantId), async (obj) => {
    const ctx = await (obj as unknown as { context(id: string, asOf: Date): Promise<ServiceContext> }).context(tenantId, new Date(asOf));
    return work(ctx);
  });
}

describe('billing runs in bulk', () => {
  it('bill a chunk of plain, grouped, approval and failing subscriptions each as they would be billed alone', async () => {
    const start = local('2025-01-01');
    const { t, c } = await tenantAt(start);
    const pro = await offer(t, c, 'Pro', '10.00');
    // Three plain subscriptions: written together, numbered as a block.
    const plain = [];
    for (let i = 0; i < 3; i++) plain.push(await subscribe(t, (await createCustomer(t)).id, [item(pro)], { name: `Plain ${i}` }));
    // Two subscriptions of one customer in a billing group: one invoice for both (billed on their own path).
    const group = await created(post(t, '/billing-groups', { name: 'On the 1st', type: 'start_of_month' }));
    const grouped = await createCustomer(t);
    await subscribe(t, grouped.id, [item(pro)], { name: 'Grouped A', billingGroup: group.id });
    await subscribe(t, grouped.id, [item(pro, '2')], { name: 'Grouped B', billingGroup: group.id });
    // A customer whose invoices wait for approval: a draft, no number.
    const careful = await createCustomer(t);
    await ok(patch(t, `/customers/${careful.id}/settings/billing`, { requiresManualInvoiceApproval: true }));
    const approval = await subscribe(t, careful.id, [item(pro)], { name: 'Approval' });
    // A customer billed in a currency without an ECB rate: the subscription fails alone.
    const foreign = await createCustomer(t, { currencyCode: 'COP' });
    const failing = await subscribe(t, foreign.id, [item(pro)], { name: 'No rate' });

    await tick(t, start);

    const invoices: any[] = (await ok(get(t, '/invoices?limit=100&order[creationDate]=asc'))).data;
    const finalized = invoices.filter((i) => i.status !== 'STATUS_DRAFT');
    // 3 plain + 1 consolidated group invoice, numbered 1…4 without a gap.
    expect(finalized.map((i) => i.number).sort()).toEqual(['RE-0000000001', 'RE-0000000002', 'RE-0000000003', 'RE-0000000004']);
    for (const s of plain) {
      const [own] = finalized.filter((i) => i.subscription === s.id);
      // 10.00 net, 19 % = 1.90, 11.90 gross.
      expect({ ...own, status: countedStatus(own!) }).toMatchObject({ status: 'STATUS_UNPAID', netAmount: { amount: '10.00' }, taxAmount: { amount: '1.90' }, grossAmount: { amount: '11.90' } });
    }
    // The group's invoice: 1 × 10.00 + 2 × 10.00 = 30.00 net, 5.70 tax, 35.70 gross.
    expect(finalized.filter((i) => i.customer.id === grouped.id)).toEqual([expect.objectContaining({ netAmount: { amount: '30.00', currencyCode: 'EUR' }, grossAmount: { amount: '35.70', currencyCode: 'EUR' } })]);
    // The approval draft: written in the same chunk, without a number.
    const drafts = invoices.filter((i) => i.status === 'STATUS_DRAFT');
    expect(drafts).toEqual([expect.objectContaining({ subscription: approval.id, number: null, grossAmount: { amount: '11.90', currencyCode: 'EUR' } })]);
    expect(await eventsOf(t, drafts[0].id)).toEqual([
      expect.objectContaining({ type: 'invoice.created', data: expect.objectContaining({ status: 'STATUS_DRAFT' }) }),
      expect.objectContaining({ type: 'invoice.requires_approval', data: expect.objectContaining({ status: 'STATUS_DRAFT' }) }),
    ]);
    // The failing subscription shows why; nothing of it was written.
    const failed = await ok(get(t, `/subscriptions/${failing.id}`));
    expect(failed.lastBillingError).toMatchObject({ code: 'no_exchange_rate' });
    expect(invoices.filter((i) => i.customer.id === foreign.id)).toEqual([]);
    // The run counts all of it: 5 invoices (4 finalized, 1 draft), 6 items billed, 1 error.
    const [run] = (await ok(get(t, '/billing-runs?limit=1'))).data;
    expect(run).toMatchObject({ status: 'completed', invoicesCreated: 5, itemsBilled: 6, errors: 1 });
    // Every period once in the ledger.
    const [ledger] = await query<{ n: number; distinct: number }>(t, 'SELECT count(*) AS n, count(DISTINCT subscription_item_id) AS "distinct" FROM billing_ledger WHERE tenant_id = ?', t.id);
    expect(ledger).toEqual({ n: 6, distinct: 6 });
  });

  it('store the document of a finalized invoice once for its finalized, unpaid and file-requested events, with its number', async () => {
    const start = local('2025-01-01');
    const { t, c } = await tenantAt(start);
    const pro = await offer(t, c, 'Pro', '10.00');
    const s = await subscribe(t, (await createCustomer(t)).id, [item(pro)], { name: 'One' });
    await tick(t, start);
    const [invoice] = (await ok(get(t, `/invoices?subscription=${s.id}`))).data;
    const stored = await query<{ type: string; own: number; document_id: string | null }>(t, // The render that follows (invoice.updated) may have run already: it is not the run's.
      "SELECT type, data IS NOT NULL AS own, document_id FROM events WHERE tenant_id = ? AND resource_id = ? AND type <> 'invoice.updated' ORDER BY created_at, rowid",
      t.id,
      invoice.id,
    );
    expect(stored.map((e) => e.type)).toEqual(['invoice.created', 'invoice.finalized', 'invoice.unpaid', 'invoice.pdf.generation_requested']);
    // invoice.created carries the draft on its own; the three others point to one shared document.
    expect(stored[0]).toMatchObject({ own: 1, document_id: null });
    const shared = new Set(stored.slice(1).map((e) => e.document_id));
    expect(shared.size).toBe(1);
    expect([...shared][0]).toEqual(expect.any(String));
    const [documents] = await query<{ n: number }>(t, 'SELECT count(*) AS n FROM event_documents WHERE tenant_id = ?', t.id);
    expect(documents!.n).toBe(1);
    // What a webhook receives: the finalized invoice with its number in every one of them.
    const withData = (await eventsOf(t, invoice.id)).slice(1).filter((e: { type: string }) => e.type !== 'invoice.updated');
    // The finalization's events show the document finalizing (its files render after them).
    for (const e of withData) expect(e.data).toMatchObject({ id: invoice.id, number: 'RE-0000000001', status: 'STATUS_FINALIZING' });
  });

  it('bill a chunk that met other billing between its read and its write one subscription at a time, each once', async () => {
    const start = local('2025-01-01');
    const { t, c } = await tenantAt(start);
    const pro = await offer(t, c, 'Pro', '10.00');
    const subs = [];
    for (let i = 0; i < 3; i++) subs.push(await subscribe(t, (await createCustomer(t)).id, [item(pro)], { name: `Sub ${i}` }));
    const { preloadChunk } = await import('../../src/services/billing/inputs');
    const { billChunk } = await import('../../src/services/billing/bulk');
    const { billSubscription } = await import('../../src/services/billing/bill');
    const { subscriptions } = await import('../../src/db/schema');
    const outcome = await inObject(t.id, start, async (ctx) => {
      // The run reads its chunk…
      const rows = await ctx.db.select().from(subscriptions).where(eq(subscriptions.tenantId, t.id)).orderBy(subscriptions.id);
      const stale = await preloadChunk(ctx, rows, ctx.now);
      // …another path bills the middle one before the run writes…
      expect((await billSubscription(ctx, rows[1]!.id, ctx.now, null)).lines).toBe(1);
      // …and the chunk's batch meets that subscription's ledger row: nothing of it is written.
      return billChunk(ctx, rows, stale, ctx.now, 'stale-run');
    });
    expect(outcome).toMatchObject({ invoices: 0, finalized: [], failed: [] });
    expect(outcome.oneByOne).toHaveLength(3);
    const [before] = await query<{ n: number }>(t, 'SELECT count(*) AS n FROM invoices WHERE tenant_id = ?', t.id);
    expect(before!.n).toBe(1);
    // The run bills what is left one by one: each subscription once, numbers 1…3 without a gap.
    await tick(t, start);
    const numbers = await query<{ s: string; n: string }>(t, 'SELECT subscription_id AS s, number AS n FROM invoices WHERE tenant_id = ? ORDER BY number_seq', t.id);
    expect(numbers.map((r) => r.n)).toEqual(['RE-0000000001', 'RE-0000000002', 'RE-0000000003']);
    expect(new Set(numbers.map((r) => r.s)).size).toBe(3);
  });

  it('number more invoices than a chunk holds in run order, gap-free, continuing a range other documents use', async () => {
    const start = local('2025-01-01');
    const { t, c } = await tenantAt(start);
    const pro = await offer(t, c, 'Pro', '10.00');
    // One invoice finalized through the API takes number 1 first.
    const manual = await created(post(t, '/invoices', { customer: (await createCustomer(t)).id, positions: [{ name: 'Setup', unitPrice: '5.00', taxRate: '19' }] }));
    expect((await post(t, `/invoices/${manual.id}/finalize`)).status).toBe(201);
    const customer = await createCustomer(t);
    for (let i = 0; i < 30; i++) await subscribe(t, customer.id, [item(pro)], { name: `Seat ${i}` });
    await tick(t, start);
    // Two chunks (25 + 5): numbers 2…31, each subscription's invoice once.
    const rows = await query<{ seq: number; sub: string | null }>(t, "SELECT number_seq AS seq, subscription_id AS sub FROM invoices WHERE tenant_id = ? AND type = 'TYPE_INVOICE' ORDER BY number_seq", t.id);
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    expect(new Set(rows.slice(1).map((r) => r.sub)).size).toBe(30);
  });
});
