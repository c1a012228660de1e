import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureDemo } from '../../scripts/demo/bootstrap.mjs';
import { must, server } from '../pages/harness';

// The demo tenant `npm run dev` seeds through the public API (scripts/demo), against the local
// Worker the browser tests share: what it shows a newcomer, and that a second start adds nothing.

const dir = mkdtempSync(join(tmpdir(), 'demo-seed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** How many of each thing the tenant has (the lists' totals), and how many tenants there are. */
async function counts(key: string) {
  const total = async (path: string, token = key) => (await must('GET', `${path}${path.includes('?') ? '&' : '?'}limit=1`, token)).meta.pagination.totalItems as number;
  return {
    tenants: await total('/admin/tenants', server().adminToken),
    customers: await total('/customers'),
    plans: await total('/plans'),
    subscriptions: await total('/subscriptions'),
    invoices: await total('/invoices'),
    transactions: await total('/transactions'),
    sepaFiles: await total('/sepa-xml'),
    dunningDocuments: await total('/dunning/documents'),
    checkoutLinks: await total('/checkout-links'),
    webhooks: (await must('GET', '/webhooks', key)).data.length as number,
  };
}

describe('the demo tenant of npm run dev', () => {
  const stateFile = join(dir, 'demo-tenant.json');
  const options = { baseUrl: server().url, adminToken: server().adminToken, stateFile, webhookUrl: 'http://localhost:9/webhooks', onlyIntoEmpty: false, log: () => {} };

  it('is seeded once with three months of billing, and a second start adds nothing', async () => {
    const first = await ensureDemo(options);
    expect(first.action).toBe('created');
    const key = first.state.apiKey;
    const before = await counts(key);

    // The catalogue: Starter and Pro, monthly and yearly.
    const plans = (await must('GET', '/plans?limit=10', key)).data.map((p: any) => p.code).sort();
    expect(plans).toEqual(['pro-monthly', 'pro-yearly', 'starter-monthly', 'starter-yearly']);
    // Customers in DE, FR (a business with a VAT id) and the US.
    const customers = (await must('GET', '/customers?limit=10', key)).data;
    expect(customers.map((c: any) => c.countryCode ?? c.invoiceAddress?.countryCode).sort()).toEqual(['DE', 'FR', 'US']);
    // Invoices: SEPA-paid ones, card-paid ones, the French one in dunning, and a credit note.
    const invoices = (await must('GET', '/invoices?limit=100', key)).data as any[];
    const of = (name: string) => invoices.filter((i) => (i.customer.companyName ?? i.customer.lastName) === name);
    expect(of('Mustermann').length).toBe(3);
    expect(of('Mustermann').every((i) => i.status === 'STATUS_PAID')).toBe(true);
    expect(of('Acme Robotics Inc.').some((i) => i.type === 'TYPE_CREDIT')).toBe(true);
    expect(of('Atelier Dubois SARL').map((i) => i.status)).toEqual(['STATUS_REMINDED']);
    const letters = (await must('GET', '/dunning/documents?limit=10', key)).data.map((d: any) => d.type).sort();
    expect(letters).toEqual(['dunning', 'reminder']);
    expect(before.sepaFiles).toBe(3);
    expect(before.webhooks).toBe(1);
    // The links the banner shows open: the hosted checkout page and the invoice's PDF.
    const links = first.state.links!;
    const page = await fetch(links.checkout, { redirect: 'manual' });
    expect([200, 302, 303]).toContain(page.status);
    const pdf = await fetch(links.invoicePdf);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const firstPdf = Buffer.from(await pdf.arrayBuffer());

    const second = await ensureDemo(options);
    expect(second.action).toBe('existing');
    expect(second.state.tenantId).toBe(first.state.tenantId);
    expect(await counts(key)).toEqual(before);
    // Its download links are made afresh (they expire; one made within the same second as the first
    // is the same link), for the same document.
    const again = await fetch(second.state.links!.invoicePdf);
    expect(again.status).toBe(200);
    expect(Buffer.from(await again.arrayBuffer()).equals(firstPdf)).toBe(true);
  });
});
