import { env } from 'cloudflare:workers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eventsOf, get, put, query, type TestTenant } from '../support/api';
import { createCustomer, createTenant, ok } from '../support/builders';
import { pdfText } from '../support/oracles';
import type { DocumentJob } from '../../src/env';
import { consumeDocumentJobs, requestRendering } from '../../src/services/documents/jobs';
import { ensureRendered } from '../../src/services/documents/render';
import { renderInvoices } from '../../src/services/documents/render-batch';
import { contextOf, draftInvoice, downloadLinks, fetchLink, finalizedInvoice, line, LETTERHEAD, renderedInvoice, renderState, storedObjects } from './builders';

// The render queue's consumer takes a batch of jobs and renders each tenant's documents together
// (src/services/documents/render-batch.ts). Whatever the batch holds, every document is rendered
// and recorded once, a failing one fails alone, and a document another render recorded meanwhile
// keeps what that render stored.

/** Invoices of a fresh tenant with a letterhead, finalized; their background jobs have run. */
async function tenantWithInvoices(count: number) {
  const t = await createTenant();
  await ok(put(t, '/settings/documents', LETTERHEAD));
  const c = await createCustomer(t, { companyName: 'Łukasiewicz & Şahin Sp. z o.o.', street: 'Żółta', houseNumber: '3', zip: '00-001', city: 'Łódź', countryCode: 'PL', vatId: 'PL5260250274' });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await finalizedInvoice(t, c.id, [line(`${10 + i}.00`, `Beratung ${i + 1}`), line('5.00', 'Offline-Pflege')])).id);
  for (const id of ids) await renderedInvoice(t, id);
  return { t, c, ids };
}

/**
 * Makes documents unrendered again, files and records gone, as they were before their job ran
 * (their jobs have run, so none comes again on its own).
 */
async function unrender(t: TestTenant, ids: string[]) {
  for (const id of ids) {
    const objects = await storedObjects(t, id);
    await env.DOCUMENTS.delete(objects.map((o) => o.key));
    await query(t, 'UPDATE invoices SET file_id = NULL, xml_file_id = NULL, render_attempts = 0, render_error = NULL WHERE id = ?', id);
    await query(t, 'DELETE FROM media WHERE owner_id = ?', id);
  }
}

function batchOf(jobs: DocumentJob[]) {
  const ackAll = vi.fn();
  const messages = jobs.map((body, i) => ({ id: String(i), timestamp: new Date(), body, attempts: 1, ack: vi.fn(), retry: vi.fn() }));
  return { batch: { queue: 'edge-billing-documents', messages, ackAll, retryAll: vi.fn() } as unknown as MessageBatch<DocumentJob>, ackAll };
}

/** The invoice.updated events that announce the document's current files. */
async function announcements(t: TestTenant, id: string) {
  const inv = await ok(get(t, `/invoices/${id}`));
  return (await eventsOf(t, id)).filter((e) => e.type === 'invoice.updated' && e.data.file?.id === inv.file?.id);
}

describe('the render queue consumer', () => {
  beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}));
  afterEach(() => vi.restoreAllMocks());

  it("renders a batch's documents of several tenants, each once, and acknowledges the batch", async () => {
    const a = await tenantWithInvoices(3);
    const b = await tenantWithInvoices(2);
    const draft = await draftInvoice(a.t, a.c.id);
    await unrender(a.t, a.ids);
    await unrender(b.t, b.ids);
    // Messages of one document (API finalizations) and of a tenant's batch (a billing run's chunk).
    const jobs: DocumentJob[] = [
      ...a.ids.map((invoiceId) => ({ tenantId: a.t.id, invoiceId })),
      { tenantId: b.t.id, invoiceIds: b.ids },
      { tenantId: a.t.id, invoiceId: a.ids[0]! },
      { tenantId: a.t.id, invoiceId: draft.id },
      { tenantId: b.t.id, invoiceId: 'no-such-invoice' },
    ];
    const { batch, ackAll } = batchOf(jobs);
    await consumeDocumentJobs(batch, env);
    expect(ackAll).toHaveBeenCalledOnce();
    for (const { t, ids } of [a, b]) {
      for (const id of ids) {
        const inv = await ok(get(t, `/invoices/${id}`));
        expect(inv.file?.fileName).toBe(`${inv.number}.pdf`);
        expect(inv.xmlFile?.fileName).toBe(`${inv.number}.xml`);
        expect(await announcements(t, id)).toHaveLength(1);
        expect((await storedObjects(t, id)).map((o) => o.key).sort()).toEqual([inv.file.storageFileName, inv.xmlFile.storageFileName].sort());
        const text = await pdfText((await fetchLink((await downloadLinks(t, id)).url)).bytes);
        expect(text).toContain(inv.number);
        expect(text).toContain('Łukasiewicz & Şahin Sp. z o.o.');
        expect(text).toContain('Offline-Pflege');
      }
    }
    // A draft has no document: its render failed and is counted, as on demand.
    expect((await renderState(a.t, draft.id))[0]).toMatchObject({ file_id: null, render_attempts: 1 });
  });

  it('queues renders as one message per tenant and up to 25 documents, dunning deliveries one each', async () => {
    const sent: { body: DocumentJob; delaySeconds?: number }[][] = [];
    const queue = { sendBatch: async (messages: { body: DocumentJob }[], options?: { delaySeconds?: number }) => void sent.push(messages.map((m) => ({ ...m, ...options }))) };
    const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
    await requestRendering({ ...env, DOCUMENT_JOBS: queue } as never, [
      ...ids('a', 60).map((invoiceId) => ({ tenantId: 'tenant-a', invoiceId })),
      { tenantId: 'tenant-a', dunningDocumentId: 'dunning-1' },
      ...ids('b', 3).map((invoiceId) => ({ tenantId: 'tenant-b', invoiceId })),
    ], { delaySeconds: 60 });
    const messages = sent.flat();
    expect(messages.map((m) => m.body)).toEqual([
      { tenantId: 'tenant-a', dunningDocumentId: 'dunning-1' },
      { tenantId: 'tenant-a', invoiceIds: ids('a', 60).slice(0, 25) },
      { tenantId: 'tenant-a', invoiceIds: ids('a', 60).slice(25, 50) },
      { tenantId: 'tenant-a', invoiceIds: ids('a', 60).slice(50) },
      { tenantId: 'tenant-b', invoiceIds: ids('b', 3) },
    ]);
    expect(messages.every((m) => m.delaySeconds === 60)).toBe(true);
  });

  it('renders documents already rendered not again', async () => {
    const { t, ids } = await tenantWithInvoices(2);
    const before = await Promise.all(ids.map((id) => ok(get(t, `/invoices/${id}`))));
    const outcomes = await renderInvoices(await contextOf(t), ids);
    expect([...outcomes.values()]).toEqual(['rendered', 'rendered']);
    for (const [i, id] of ids.entries()) {
      expect((await ok(get(t, `/invoices/${id}`))).file.id).toBe(before[i]!.file.id);
      expect(await announcements(t, id)).toHaveLength(1);
    }
  });

  it('records the rest of a batch when another render recorded one of its documents meanwhile; that one keeps its first files', async () => {
    const { t, ids } = await tenantWithInvoices(3);
    await unrender(t, ids);
    const ctx = await contextOf(t);
    const [raced] = ids;
    // A download renders the first document on demand while the batch is writing its PDF.
    let other: Promise<unknown> | null = null;
    const bucket = env.DOCUMENTS;
    const racing = {
      ...ctx,
      env: {
        ...ctx.env,
        DOCUMENTS: new Proxy(bucket, {
          get: (target, prop) => {
            if (prop !== 'put') return Reflect.get(target, prop).bind(target);
            return async (key: string, ...rest: Parameters<R2Bucket['put']> extends [string, ...infer R] ? R : never) => {
              if (!other && key.includes(raced!)) {
                other = ensureRendered(await contextOf(t), raced!);
                await other;
              }
              return target.put(key, ...rest);
            };
          },
        }),
      },
    };
    const outcomes = await renderInvoices(racing, ids);
    expect([...outcomes.values()]).toEqual(['rendered', 'rendered', 'rendered']);
    for (const id of ids) {
      expect(await query(t, 'SELECT purpose FROM media WHERE owner_id = ? ORDER BY purpose', id)).toEqual([{ purpose: 'pdf' }, { purpose: 'xml' }]);
      expect(await announcements(t, id)).toHaveLength(1);
    }
    const first = await ok(get(t, `/invoices/${raced}`));
    const links = await downloadLinks(t, raced!);
    expect(new URL(links.url).pathname).toBe(`/public/documents/${first.file.id}`);
    expect(await pdfText((await fetchLink(links.url)).bytes)).toContain(first.number);
  });

  it('fails a document that cannot be rendered alone: the others of its batch are recorded', async () => {
    const { t, ids } = await tenantWithInvoices(3);
    await unrender(t, ids);
    const [, broken] = ids;
    // A stored position the document cannot state (not a number).
    await query(t, "UPDATE invoice_positions SET quantity = 'many' WHERE invoice_id = ?", broken!);
    const outcomes = await renderInvoices(await contextOf(t), ids);
    expect(Object.fromEntries(outcomes)).toEqual({ [ids[0]!]: 'rendered', [broken!]: 'failed', [ids[2]!]: 'rendered' });
    expect((await renderState(t, broken!))[0]).toMatchObject({ file_id: null, render_attempts: 1, render_error: expect.any(String) });
    expect(await storedObjects(t, broken!)).toEqual([]);
    for (const id of [ids[0]!, ids[2]!]) expect((await renderState(t, id))[0]).toMatchObject({ file_id: expect.any(String), render_attempts: 0, render_error: null });
  });
});
