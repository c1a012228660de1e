import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, download, violations, dbOf } from '../support/api';
import { pdfText } from '../support/oracles';
import { countedStatus, createCustomer, createTenant, keyWith } from '../support/builders';
import { draft, finalized, line } from './builders';

// Invoices through the API: drafts and their totals, finalization and numbering, reading, payments,
// cancellation and credit notes, and the other operations on a document. Storage is shared by every
// test file, so every test works in a fresh tenant of its own.

describe('draft invoices and totals', () => {
  it('computes nets per line and tax per rate on the summed nets, to the cent', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    // 3 × 0.35 at 19 %: per-line taxes would be 3 × 0.0665 → 3 × 0.07 = 0.21; on the sum 1.05 × 0.19 = 0.1995 → 0.20.
    // 1234 × 0.0125 = 15.425 → 15.43 at 7 % → 1.0801 → 1.08.
    const inv = await draft(t, c.id, [line('0.35'), line('0.35'), line('0.35'), { name: 'Usage', unitPrice: '0.0125', quantity: '1234', taxRate: '7' }]);
    expect(inv.status).toBe('STATUS_DRAFT');
    expect(inv.number).toBeNull();
    expect(inv.positions.map((p: any) => p.netAmount.amount)).toEqual(['0.35', '0.35', '0.35', '15.43']);
    expect(inv.netAmount).toEqual({ amount: '16.48', currencyCode: 'EUR' });
    expect(inv.taxes.map((x: any) => [x.rate, x.taxableAmount.amount, x.taxAmount.amount])).toEqual([
      ['7', '15.43', '1.08'],
      ['19', '1.05', '0.20'],
    ]);
    expect(inv.taxAmount.amount).toBe('1.28');
    expect(inv.grossAmount.amount).toBe('17.76');
    expect(inv.unpaidAmount.amount).toBe('17.76');
    const stored = await (await dbOf(t)).prepare('SELECT net_amount, tax_amount, gross_amount FROM invoices WHERE id = ?').bind(inv.id).first();
    expect(stored).toEqual({ net_amount: 1648, tax_amount: 128, gross_amount: 1776 });
  });

  it('resolves tax from a tax group for the customer (reverse charge for an EU business)', async () => {
    const t = await createTenant();
    const group = (await api('/tax-groups', { token: t.key, body: { type: 'standard' } })).body;
    const fr = await createCustomer(t, { countryCode: 'FR', companyName: 'Acme SARL', vatId: 'FR40303265045' });
    const inv = await draft(t, fr.id, [{ name: 'Consulting', unitPrice: '100.00', taxGroup: group.id }]);
    expect(inv.positions[0]).toMatchObject({ taxRate: '0', taxCategory: 'AE' });
    expect(inv.positions[0].taxNote).toMatch(/reverse charge/i);
    expect(inv.grossAmount.amount).toBe('100.00');
  });

  it('validates positions and keeps the tree at most two levels deep', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const bad = await api('/invoices', {
      token: t.key,
      body: { customer: c.id, positions: [{ name: 'A', unitPrice: '1' }, { name: 'B', unitPrice: 'x', taxRate: '19' }, { name: 'C', unitPrice: '1', taxRate: '19', parent: '1' }] },
    });
    // Shape first (docs/decisions.md: two phases), then the rules that need more than the shape.
    expect(violations(bad)).toEqual(['positions[1].unitPrice: invalid_format']);
    const missingTax = await api('/invoices', { token: t.key, body: { customer: c.id, positions: [{ name: 'A', unitPrice: '1' }] } });
    expect(violations(missingTax)).toEqual(['positions[0].taxRate: required']);
    const deep = await api('/invoices', {
      token: t.key,
      body: { customer: c.id, positions: [line('1'), { ...line('1'), parent: '0' }, { ...line('1'), parent: '1' }] },
    });
    expect(violations(deep)).toEqual(['positions[2].parent: invalid_parent']);
    expect((await api('/invoices', { token: t.key })).body.meta.pagination.totalItems).toBe(0);
  });

  it('edits drafts only: positions, replace, delete', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const inv = await draft(t, c.id, [line('10.00')]);
    const added = await api(`/invoices/${inv.id}/position-items`, { token: t.key, body: { positions: [line('5.00', '2')] } });
    expect(added.status).toBe(200);
    expect(added.body.netAmount.amount).toBe('20.00');
    const pos = added.body.positions[1].id;
    const changed = await api(`/invoice-position-items/${pos}`, { method: 'PUT', token: t.key, body: line('1.00', '3') });
    expect(changed.body.netAmount.amount).toBe('13.00');
    const removed = await api(`/invoice-position-items/${pos}`, { method: 'DELETE', token: t.key });
    expect(removed.body.netAmount.amount).toBe('10.00');
    const fin = await api(`/invoices/${inv.id}/finalize`, { method: 'POST', token: t.key });
    expect(fin.status).toBe(201); // Fynn answers finalize with 201
    for (const [method, path, body] of [
      ['PUT', `/invoices/${inv.id}`, { customer: c.id, positions: [line('1')] }],
      ['DELETE', `/invoices/${inv.id}`, undefined],
      ['POST', `/invoices/${inv.id}/position-items`, { positions: [line('1')] }],
      ['POST', `/invoices/${inv.id}/finalize`, undefined],
    ] as const) {
      const res = await api(path, { method, token: t.key, body });
      expect(res.status, `${method} ${path}`).toBe(409);
    }
  });
});

describe('finalization and numbering', () => {
  it('numbers in the tenant format, sets due date and status, emits invoice.finalized', async () => {
    const t = await createTenant();
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2026-03-10T10:00:00Z' } });
    const c = await createCustomer(t);
    const inv = await draft(t, c.id, [line('100.00')]);
    const fin = await api(`/invoices/${inv.id}/finalize`, { method: 'POST', token: t.key });
    // Fynn's default format for new tenants: RE-{number:10}.
    expect(fin.body).toMatchObject({ number: 'RE-0000000001', status: 'STATUS_FINALIZING', finalizationDate: '2026-03-10T10:00:00.000Z', dueDate: '2026-03-24T10:00:00.000Z' });
    const second = await draft(t, c.id, [line('1.00')]);
    expect((await api(`/invoices/${second.id}/finalize`, { method: 'POST', token: t.key, body: { dueDate: '2026-04-01T00:00:00Z' } })).body).toMatchObject({
      number: 'RE-0000000002',
      dueDate: '2026-04-01T00:00:00.000Z',
    });
    const ev = await (await dbOf(t)).prepare(`SELECT data FROM events WHERE tenant_id = ? AND type = 'invoice.finalized' ORDER BY created_at, id`).bind(t.id).all<{ data: string }>();
    expect(ev.results.map((r) => JSON.parse(r.data).number)).toEqual(['RE-0000000001', 'RE-0000000002']);
  });

  it("supports Fynn's placeholders: {yearLong} is the four-digit year, {year} the two-digit one", async () => {
    const t = await createTenant();
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2026-03-10T10:00:00Z' } });
    const set = await api('/settings', {
      method: 'PATCH',
      token: t.key,
      body: {
        settings: [
          { key: 'invoice.numberFormat', value: 'R{year}{month}{day}-{number:4}' },
          { key: 'credit.numberFormat', value: 'GS/{yearLong}/{customerNumber}/{number}' },
        ],
      },
    });
    expect(set.status).toBe(200);
    const c = await createCustomer(t);
    const inv = await finalized(t, c.id, [line('10.00')]);
    expect(inv.number).toBe('R260310-0001');
    const credit = await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [line('1.00')] } });
    expect(credit.body.number).toBe(`GS/2026/${c.customerNumber}/1`);
  });

  it('gives 200 concurrent finalizations 200 distinct consecutive numbers, no gap when some fail validation', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const good = await Promise.all(Array.from({ length: 200 }, (_, i) => draft(t, c.id, [line(`${i + 1}.00`)])));
    // Drafts without positions fail validation at finalization.
    const bad = await Promise.all(Array.from({ length: 20 }, () => draft(t, c.id, [])));
    const order = [...good, ...bad].sort(() => Math.random() - 0.5);
    const results = await Promise.all(order.map((inv) => api(`/invoices/${inv.id}/finalize`, { method: 'POST', token: t.key })));
    const ok = results.filter((r) => r.status === 201);
    expect(ok).toHaveLength(200);
    expect(results.filter((r) => r.status === 422)).toHaveLength(20);
    const seqs = ok.map((r) => Number(r.body.number.split('-').pop())).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    const stored = await (await dbOf(t)).prepare(`SELECT count(DISTINCT number) AS n, max(number_seq) AS max FROM invoices WHERE tenant_id = ? AND number IS NOT NULL`).bind(t.id).first();
    expect(stored).toEqual({ n: 200, max: 200 });
  });

  it('keeps the range gap-free when the object lost its counter (resynchronises from D1)', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const a = await draft(t, c.id, [line('1')]);
    await api(`/invoices/${a.id}/finalize`, { method: 'POST', token: t.key });
    // Simulate an object whose counter lags behind D1 (an instance that overlapped a restart).
    const { runInDurableObject } = await import('cloudflare:test');
    await runInDurableObject(env.TENANT.getByName(t.id), async (obj) => {
      (obj as unknown as { counters: Map<string, number> }).counters.set('document:TYPE_INVOICE', 0);
    });
    const b = await draft(t, c.id, [line('1')]);
    const fin = await api(`/invoices/${b.id}/finalize`, { method: 'POST', token: t.key });
    expect(fin.body.number).toBe('RE-0000000002');
  });

  it('keeps the range gap-free across a restart (the counters live in memory, read from D1 on first use)', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    for (let i = 0; i < 3; i++) {
      const d = await draft(t, c.id, [line('1')]);
      expect((await api(`/invoices/${d.id}/finalize`, { method: 'POST', token: t.key })).status).toBe(201);
    }
    const { runInDurableObject } = await import('cloudflare:test');
    await runInDurableObject(env.TENANT.getByName(t.id), async (obj) => {
      (obj as unknown as { counters: Map<string, unknown> }).counters.clear();
    });
    const next = await draft(t, c.id, [line('1')]);
    expect((await api(`/invoices/${next.id}/finalize`, { method: 'POST', token: t.key })).body.number).toBe('RE-0000000004');
    const numbers = await (await dbOf(t)).prepare(`SELECT number_seq AS n FROM invoices WHERE tenant_id = ? ORDER BY number_seq`).bind(t.id).all<{ n: number }>();
    expect(numbers.results.map((r) => r.n)).toEqual([1, 2, 3, 4]);
  });
});

describe('reading invoices', () => {
  it('filters, sorts and restricts customer sessions to their own finalized documents', async () => {
    const t = await createTenant();
    const me = await createCustomer(t);
    const other = await createCustomer(t);
    const mine = await draft(t, me.id, [line('30.00')]);
    await api(`/invoices/${mine.id}/finalize`, { method: 'POST', token: t.key });
    const myDraft = await draft(t, me.id, [line('5.00')]);
    const theirs = await draft(t, other.id, [line('10.00')]);
    await api(`/invoices/${theirs.id}/finalize`, { method: 'POST', token: t.key });

    const byGross = await api('/invoices?order[grossAmount]=asc', { token: t.key });
    expect(byGross.body.data.map((i: any) => i.grossAmount.amount)).toEqual(['5.95', '11.90', '35.70']);
    expect((await api('/invoices?status=STATUS_DRAFT', { token: t.key })).body.data.map((i: any) => i.id)).toEqual([myDraft.id]);
    expect((await api(`/invoices?customer=${other.id}`, { token: t.key })).body.data.map((i: any) => i.id)).toEqual([theirs.id]);

    const session = (await api(`/customers/${me.id}/authenticate`, { method: 'POST', token: t.key })).body.data.accessToken;
    const own = await api('/invoices', { token: session });
    expect(own.status).toBe(200);
    expect(own.body.data.map((i: any) => i.id)).toEqual([mine.id]);
    expect((await api(`/invoices/${theirs.id}`, { token: session })).status).toBe(404);
    expect((await api(`/invoices/${myDraft.id}`, { token: session })).status).toBe(404);
    expect((await api(`/invoices/${mine.id}`, { token: session })).status).toBe(200);
    expect((await api('/invoices', { token: session, body: { customer: me.id, positions: [] } })).status).toBe(403);
  });

  it('needs invoice permissions', async () => {
    const t = await createTenant();
    expect((await api('/invoices', { token: await keyWith(t, ['customer:read']) })).status).toBe(403);
    expect((await api('/invoices', { token: await keyWith(t, ['invoice:read']) })).status).toBe(200);
  });
});

describe('payments, cancellation, credit notes', () => {
  it('takes partial payments until paid, refuses overpayment', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const inv = await finalized(t, c.id, [line('100.00')]); // 119.00 gross
    const first = await api(`/invoices/${inv.id}/payments`, { token: t.key, body: { amount: '50.00', paymentDate: '2026-01-05T00:00:00Z' } });
    expect({ ...first.body, status: countedStatus(first.body) }).toMatchObject({ status: 'STATUS_UNPAID', unpaidAmount: { amount: '69.00', currencyCode: 'EUR' } });
    const over = await api(`/invoices/${inv.id}/payments`, { token: t.key, body: { amount: '69.01', paymentDate: '2026-01-06T00:00:00Z' } });
    expect(violations(over)).toEqual(['amount: overpayment']);
    expect(violations(await api(`/invoices/${inv.id}/payments`, { token: t.key, body: { amount: '1.001', paymentDate: '2026-01-06T00:00:00Z' } }))).toEqual([
      'amount: too_many_decimals',
    ]);
    const rest = await api(`/invoices/${inv.id}/payments`, { token: t.key, body: { amount: '69.00', paymentDate: '2026-01-07T00:00:00Z' } });
    expect(rest.body).toMatchObject({ status: 'STATUS_PAID', payDate: '2026-01-07T00:00:00.000Z', unpaidAmount: { amount: '0.00' } });
    expect((await api(`/invoices/${inv.id}/payments`, { token: t.key, body: { amount: '1.00', paymentDate: '2026-01-08T00:00:00Z' } })).status).toBe(409);
    const paidEvents = await (await dbOf(t)).prepare(`SELECT count(*) AS n FROM events WHERE tenant_id = ? AND type = 'invoice.paid'`).bind(t.id).first();
    expect(paidEvents).toEqual({ n: 1 });
  });

  it('cancels with a numbered cancellation document that reverses every line', async () => {
    const t = await createTenant();
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2026-05-01T10:00:00Z' } });
    const c = await createCustomer(t);
    const inv = await finalized(t, c.id, [line('10.00', '3'), line('5.00', '1', '7')]); // 30 + 5.70 + 5 + 0.35 = 41.05
    const res = await api(`/invoices/${inv.id}/cancel`, { token: t.key, method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('STATUS_CANCELLED');
    expect(res.body.cancellationDocument.number).toBe('ST-0000000001');
    const doc = (await api(`/invoices/${res.body.cancellationDocument.id}`, { token: t.key })).body;
    expect(doc).toMatchObject({ type: 'TYPE_CANCEL', referencedInvoice: { id: inv.id, type: 'TYPE_INVOICE', number: inv.number }, grossAmount: { amount: '-41.05' }, netAmount: { amount: '-35.00' }, taxAmount: { amount: '-6.05' } });
    expect(doc.positions.map((p: any) => [p.quantity, p.netAmount.amount])).toEqual([
      ['-3', '-30.00'],
      ['-1', '-5.00'],
    ]);
    expect((await api(`/invoices/${inv.id}/cancel`, { token: t.key, method: 'POST' })).status).toBe(409);
  });

  it('credits parts and never more than what is left', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const inv = await finalized(t, c.id, [line('100.00')]); // 119.00
    const part = await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [line('40.00')], reason: 'Goodwill' } });
    expect(part.status).toBe(201);
    expect(part.body).toMatchObject({ type: 'TYPE_CREDIT', number: 'GS-0000000001', grossAmount: { amount: '-47.60' }, title: `Credit note for ${inv.number}: Goodwill` });
    const tooMuch = await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [line('60.01')] } });
    expect(violations(tooMuch)).toEqual(['positions: exceeds_creditable']);
    // Without positions: exactly the rest: 100 − 40 = 60.00 net, 11.40 tax, 71.40 gross.
    const rest = await api(`/invoices/${inv.id}/credit`, { token: t.key, body: {} });
    expect(rest.status).toBe(201);
    expect(rest.body).toMatchObject({ netAmount: { amount: '-60.00' }, taxAmount: { amount: '-11.40' }, grossAmount: { amount: '-71.40' } });
    expect((await api(`/invoices/${inv.id}`, { token: t.key })).body.status).toBe('STATUS_CLOSED');
    expect(violations(await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [line('0.01')] } }))).toEqual(['positions: exceeds_creditable']);
  });
});

describe('other operations', () => {
  it('closes, toggles dunning, sets notes, duplicates, comments, previews and resends', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { invoiceEmail: 'ap@example.com' });
    const inv = await finalized(t, c.id, [line('10.00')]);
    expect((await api(`/invoices/${inv.id}/dunning`, { method: 'PUT', token: t.key, body: { dunningDisabled: true } })).body.dunningDisabled).toBe(true);
    expect((await api(`/invoices/${inv.id}/note`, { method: 'PUT', token: t.key, body: { internalNote: 'Called' } })).body.internalNote).toBe('Called');
    const copy = await api(`/invoices/${inv.id}/duplicate`, { token: t.key, method: 'POST' });
    expect(copy.body).toMatchObject({ status: 'STATUS_DRAFT', number: null, grossAmount: { amount: '11.90' } });
    expect((await api(`/invoices/${inv.id}/comments`, { token: t.key, body: { text: 'Reminder sent' } })).status).toBe(201);
    expect((await api(`/invoices/${inv.id}/comments`, { token: t.key })).body.data.map((x: any) => x.text)).toEqual(['Reminder sent']);
    expect((await api(`/invoices/${copy.body.id}/preview`, { token: t.key })).body.grossAmount.amount).toBe('11.90');
    const sent = await api(`/invoices/${inv.id}/resend`, { token: t.key, method: 'POST' });
    expect(sent.body.lastSentAt).toEqual(expect.any(String));
    // Fynn resends with PUT.
    const again = await api(`/invoices/${inv.id}/resend`, { token: t.key, method: 'PUT' });
    expect(again.status).toBe(200);
    expect((await (await dbOf(t)).prepare('SELECT count(*) AS n FROM outgoing_mails WHERE tenant_id = ?').bind(t.id).first())?.n).toBe(2);
    const mail = await (await dbOf(t)).prepare('SELECT "to", subject FROM outgoing_mails WHERE tenant_id = ? LIMIT 1').bind(t.id).first();
    expect(mail).toEqual({ to: 'ap@example.com', subject: inv.number });
    const closed = await api(`/invoices/${inv.id}/close`, { method: 'PUT', token: t.key });
    expect(closed.body.status).toBe('STATUS_CLOSED');
    expect((await api(`/invoices/${inv.id}/close`, { method: 'PUT', token: t.key })).status).toBe(409);
    expect((await api(`/invoices/${copy.body.id}/resend`, { token: t.key, method: 'POST' })).status).toBe(409);
  });

  it('hands out signed, expiring download links to the stored document', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const inv = await finalized(t, c.id, [line('10.00')]);
    const link = await api(`/invoices/${inv.id}/download-link?secondsValid=60`, { method: 'PUT', token: t.key });
    expect(link.status).toBe(200);
    const url = new URL(link.body.url);
    const doc = await download(`${url.pathname}${url.search}`);
    expect(doc.status).toBe(200);
    expect(doc.headers.get('Content-Type')).toBe('application/pdf');
    expect(await pdfText(doc.bytes)).toContain(inv.number);
    const tampered = url.search.replace(/signature=[0-9a-f]/, (m) => (m.endsWith('0') ? m.slice(0, -1) + '1' : m.slice(0, -1) + '0'));
    expect((await download(`${url.pathname}${tampered}`)).status).toBe(403);
    const draftInv = await draft(t, c.id, [line('1')]);
    expect((await api(`/invoices/${draftInv.id}/download-link`, { method: 'PUT', token: t.key })).status).toBe(409);
  });

  it('lets links expire on the real clock, whatever the test clock says', async () => {
    for (const clock of ['2020-01-01T00:00:00Z', '2099-01-01T00:00:00Z']) {
      const t = await createTenant();
      await api('/test-clock', { method: 'PUT', token: t.key, body: { now: clock } });
      const c = await createCustomer(t);
      const inv = await finalized(t, c.id, [line('10.00')]);
      const before = Date.now();
      const link = await api(`/invoices/${inv.id}/download-link?secondsValid=60`, { method: 'PUT', token: t.key });
      const expires = Date.parse(link.body.expiresAt);
      // 60 s from the real now (whole seconds), not from 2020 (already expired) or 2099 (valid for 73 years).
      expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 60_000);
      expect(expires).toBeLessThanOrEqual(Date.now() + 60_000);
      const url = new URL(link.body.url);
      expect((await api(`${url.pathname}${url.search}`)).status, clock).toBe(200);
    }
  });
});
