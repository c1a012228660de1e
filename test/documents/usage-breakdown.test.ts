import { describe, expect, it } from 'vitest';
import { api, download, post, query, dbOf } from '../support/api';
import { MAX_BREAKDOWN_EVENTS } from '../../src/services/documents/usage-breakdown';
import { created, createCustomer, createTenant, ok, tick } from '../support/builders';
import { invoicesOf, local, subscribe, tenantAt } from '../billing/scenario';
import { finalizedInvoice, line } from './builders';

// The usage behind a document's metered positions: a public URL with an unguessable token on the
// invoice (usageBreakdownUrl), as JSON and as CSV. The CSV is opened in spreadsheets, so no cell
// may start a formula.

/** A customer billed in arrears for metered calls; the product name and event ids are hostile. */
async function meteredInvoice() {
  const { t, c } = await tenantAt(local('2025-01-01'));
  const product = await created(post(t, '/catalogue/products', { name: '=HYPERLINK("http://evil.example","Calls")', type: 'product', productFamilies: [c.family.id], measurement: c.calls.id, taxGroup: c.tax.id }));
  const price = await created(post(t, '/price-plans', { product: product.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '0.10' }, billingInterval: '1M' }));
  const customer = await createCustomer(t);
  const sub = await subscribe(t, customer.id, [{ product: product.id, pricePlan: price.id, quantity: '1' }]);
  await tick(t, local('2025-01-25'));
  const itemId = sub.items[0].id;
  const events = [
    { id: '=1+1', quantity: '100', measuredAt: local('2025-01-05') },
    { id: '+SUM(A1:A9)', quantity: '20', measuredAt: local('2025-01-10') },
    { id: '-2+3', quantity: '3', measuredAt: local('2025-01-12') },
    { id: '@cmd', quantity: '0.5', measuredAt: local('2025-01-15') },
    { id: 'plain, "quoted"', quantity: '1', measuredAt: local('2025-01-20') },
  ];
  const res = await ok(post(t, '/subscriptions/measurements', { events: events.map((e) => ({ ...e, subscriptionItem: itemId })) }));
  expect(res).toMatchObject({ accepted: events.length, rejected: [] });
  await tick(t, local('2025-02-05'));
  // February's usage belongs to February's invoice, not to January's breakdown.
  await ok(post(t, '/subscriptions/measurements', { events: [{ id: 'february', quantity: '7', measuredAt: local('2025-02-03'), subscriptionItem: itemId }] }));
  const withUsage = (await invoicesOf(t, sub.id)).filter((i) => i.usageBreakdownUrl);
  expect(withUsage).toHaveLength(1);
  return { t, invoice: withUsage[0], events };
}

/** The test client calls paths on its own origin. */
const pathOf = (url: string) => new URL(url).pathname;

describe('usage breakdowns', () => {
  it('list the events behind each metered position, as JSON and as CSV with no cell starting a formula', async () => {
    const { t, invoice, events } = await meteredInvoice();
    // The URL names the tenant, whose shard holds the document (docs/decisions.md, Tenancy and shards).
    // Absolute, on the origin the invoice was read from (docs/decisions.md, Response shapes).
    expect(invoice.usageBreakdownUrl).toMatch(new RegExp(`^http://billing\\.test/public/usage-breakdowns/${t.id}/[A-Za-z0-9_-]{40,}$`));
    const usage = invoice.positions.filter((p: any) => p.quantity === '124.5');
    expect(usage).toHaveLength(1);
    expect(usage[0].netAmount.amount).toBe('12.45');

    // Public: no credentials.
    const json = await ok(api(pathOf(invoice.usageBreakdownUrl)));
    expect(json).toEqual({
      document: { number: invoice.number, currencyCode: 'EUR' },
      positions: [
        {
          position: usage[0].name,
          quantity: '124.5',
          serviceDateFrom: usage[0].serviceDateFrom,
          serviceDateTo: usage[0].serviceDateTo,
          events: events.map((e) => ({ eventId: e.id, measurement: 'calls', measuredAt: e.measuredAt, quantity: e.quantity })),
        },
      ],
      truncated: false,
    });
    expect(json.positions[0].events.reduce((sum: number, e: any) => sum + Number(e.quantity) * 10, 0) / 10).toBe(124.5);

    const csv = await download(`${pathOf(invoice.usageBreakdownUrl)}?format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('Content-Type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('Content-Disposition')).toBe(`attachment; filename="usage-${invoice.number}.csv"; filename*=UTF-8''usage-${invoice.number}.csv`);
    expect(csv.headers.get('Cache-Control')).toBe('private, no-store');
    const rows = parseCsv(new TextDecoder().decode(csv.bytes));
    expect(rows[0]).toEqual(['position', 'service_date_from', 'service_date_to', 'measurement', 'event_id', 'measured_at', 'quantity']);
    expect(rows.slice(1).map((r) => [r[0], r[4], r[6]])).toEqual(events.map((e) => [`'${usage[0].name}`, /^[=+\-@]/.test(e.id) ? `'${e.id}` : e.id, e.quantity]));
    for (const cell of rows.flat()) expect(cell, cell).not.toMatch(/^[=+@\t\r]|^-(?!\d+(\.\d+)?$)/);
  });

  it('says it was cut off when the events stop at the limit before the last position', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const metered = async (name: string) => {
      const product = await created(post(t, '/catalogue/products', { name, type: 'product', productFamilies: [c.family.id], measurement: c.calls.id, taxGroup: c.tax.id }));
      const price = await created(post(t, '/price-plans', { product: product.id, calculationType: 'per_unit', currencyCode: 'EUR', price: { amount: '0.01' }, billingInterval: '1M' }));
      return { product: product.id, pricePlan: price.id, quantity: '1' };
    };
    const sub = await subscribe(t, (await createCustomer(t)).id, [await metered('Calls A'), await metered('Calls B')]);
    await tick(t, local('2025-01-25'));
    await ok(post(t, '/subscriptions/measurements', { events: sub.items.map((i: any, k: number) => ({ id: `only-${k}`, subscriptionItem: i.id, quantity: '1', measuredAt: local('2025-01-02') })) }));
    await tick(t, local('2025-02-05'));
    const [invoice] = (await invoicesOf(t, sub.id)).filter((i) => i.usageBreakdownUrl);
    const before = await ok(api(pathOf(invoice.usageBreakdownUrl)));
    expect(before.positions.map((p: any) => p.events.length)).toEqual([1, 1]);
    // The first position gets exactly MAX_BREAKDOWN_EVENTS events (more, written straight to the
    // store: the API would take 20 requests), so the second one's event is beyond the limit.
    const first = before.positions[0].events[0].eventId;
    const [row] = await query<{ subscription_item_id: string; measurement_id: string }>(t, 'SELECT subscription_item_id, measurement_id FROM usage_events WHERE tenant_id = ? AND event_id = ?', t.id, first);
    await (await dbOf(t)).prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO usage_events (tenant_id, event_id, subscription_item_id, measurement_id, quantity, quantity_micros, measured_at, received_at)
       SELECT ?, 'bulk-' || i, ?, ?, '1', 1000000, ?, ? FROM n`,
    )
      .bind(MAX_BREAKDOWN_EVENTS - 1, t.id, row!.subscription_item_id, row!.measurement_id, local('2025-01-03'), local('2025-01-25'))
      .run();
    const cut = JSON.parse(new TextDecoder().decode((await download(pathOf(invoice.usageBreakdownUrl))).bytes));
    expect(cut.positions.map((p: any) => p.events.length)).toEqual([MAX_BREAKDOWN_EVENTS, 0]);
    expect(cut.truncated).toBe(true);
  });

  it('is not given to invoices without usage, and is 404 for a token nobody was given', async () => {
    const { t } = await tenantAt(local('2025-01-01'));
    const inv = await finalizedInvoice(t, (await createCustomer(t)).id, [line('10.00')]);
    expect(inv.usageBreakdownUrl).toBeNull();
    const res = await api(`/public/usage-breakdowns/${t.id}/${'A'.repeat(43)}`);
    expect(res.status).toBe(404);
    expect((await download(`/public/usage-breakdowns/${t.id}/${'A'.repeat(43)}?format=csv`)).status).toBe(404);
    expect((await api(`/public/usage-breakdowns/${crypto.randomUUID()}/${'A'.repeat(43)}`)).status).toBe(404);
  });

  it("is 404 under another tenant's name", async () => {
    const { invoice } = await meteredInvoice();
    const other = await createTenant();
    const token = invoice.usageBreakdownUrl.split('/').pop();
    expect((await api(`/public/usage-breakdowns/${other.id}/${token}`)).status).toBe(404);
    expect((await api(pathOf(invoice.usageBreakdownUrl))).status).toBe(200);
  });
});

/** RFC 4180 rows (quoted cells with doubled quotes, CRLF line ends). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(cell), (cell = '');
    else if (ch === '\r' && text[i + 1] === '\n') row.push(cell), rows.push(row), (row = []), (cell = ''), i++;
    else cell += ch;
  }
  if (cell || row.length) row.push(cell), rows.push(row);
  return rows;
}
