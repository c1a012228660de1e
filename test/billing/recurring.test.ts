import { describe, expect, it } from 'vitest';
import { post, query } from '../support/api';
import { created, createCustomer, tick } from '../support/builders';
import { duplicateLedgerRows, expectInvoices, I, invoicesOf, item, L, ledgerRows, local, offer, subscribe, tenantAt } from './scenario';

// Billing scenarios: recurring fees, in advance and in arrears, prorated and after a trial. Every
// expected invoice is written out by hand; scenario.ts has the builders and the conventions the
// expectations rely on.

describe('recurring fees', () => {
  it('monthly in advance over 14 months: one invoice per period, numbered gap-free, to the cent; a rerun bills nothing twice', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '24.99');
    const customer = await createCustomer(t, { firstName: 'Ada', lastName: 'Lovelace' });
    const sub = await subscribe(t, customer.id, [item(pro, '2')], { name: 'Team Pro' });

    const months = ['2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06', '2025-07', '2025-08', '2025-09', '2025-10', '2025-11', '2025-12', '2026-01', '2026-02', '2026-03'];
    for (const m of months.slice(0, 14)) await tick(t, local(`${m}-01`));

    // Each month: 2 × 24.99 = 49.98 net; 49.98 × 19 % = 9.4962 → 9.50 tax; gross 59.48.
    // Numbers come from one range per tenant, in Fynn's format RE-{number:10} (no year).
    const expected = months.slice(0, 14).map((m, i) =>
      I({
        number: `RE-${String(i + 1).padStart(10, '0')}`,
        at: local(`${m}-01`),
        groups: [['Team Pro', [L('Pro', local(`${m}-01`), local(`${months[i + 1]}-01`), '2', '49.98')]]],
        taxes: [['19', 'S', '49.98', '9.50']],
        net: '49.98',
        tax: '9.50',
        gross: '59.48',
      }),
    );
    const invoices = await invoicesOf(t, sub.id);
    expectInvoices(invoices, expected);
    expect(invoices[0]).toMatchObject({
      type: 'TYPE_INVOICE',
      customer: { id: customer.id },
      subscription: sub.id,
      finalizationDate: local('2025-01-01'),
      // Payment term 14 days: 2024-12-31T23:00Z + 14 d.
      dueDate: '2025-01-14T23:00:00.000Z',
      unpaidAmount: { amount: '59.48', currencyCode: 'EUR' },
      serviceDateFrom: local('2025-01-01'),
      serviceDateTo: local('2025-02-01'),
    });

    // A rerun at the same instant bills nothing; the ledger holds one row per billed period.
    await tick(t, local('2026-02-01'));
    expect(await invoicesOf(t, sub.id)).toHaveLength(14);
    const ledger = await ledgerRows(t, sub.id);
    expect(ledger.map((r) => r.period_start)).toEqual(months.slice(0, 14).map((m) => local(`${m}-01`)));
    expect(new Set(ledger.map((r) => r.invoice_id))).toEqual(new Set(invoices.map((i) => i.id)));
    expect(await duplicateLedgerRows(t)).toBe(0);

    // Billing's own events; invoice.updated follows in the background when a document's files are stored.
    const events = await query<{ type: string; n: number }>(
      t,
      "SELECT type, count(*) AS n FROM events WHERE tenant_id = ? AND type LIKE 'invoice.%' AND type <> 'invoice.updated' GROUP BY type ORDER BY type",
      t.id,
    );
    expect(events).toEqual([
      { type: 'invoice.created', n: 14 },
      { type: 'invoice.finalized', n: 14 },
      { type: 'invoice.pdf.generation_requested', n: 14 },
      { type: 'invoice.unpaid', n: 14 },
    ]);
  });

  it('yearly in advance: one invoice a year, nothing in the months between', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const suite = await offer(t, c, 'Suite', '1188.00', '1Y');
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(suite)], { name: 'Suite yearly' });
    for (const m of ['2025-01', '2025-02', '2025-05', '2025-08', '2025-11', '2025-12', '2026-01', '2026-02', '2026-06', '2026-12']) await tick(t, local(`${m}-01`));

    // 1 × 1,188.00 = 1,188.00 net; × 19 % = 225.72 tax; gross 1,413.72.
    expectInvoices(await invoicesOf(t, sub.id), [
      I({
        number: 'RE-0000000001',
        at: local('2025-01-01'),
        groups: [['Suite yearly', [L('Suite', local('2025-01-01'), local('2026-01-01'), '1', '1188.00')]]],
        taxes: [['19', 'S', '1188.00', '225.72']],
        net: '1188.00',
        tax: '225.72',
        gross: '1413.72',
      }),
      I({
        number: 'RE-0000000002',
        at: local('2026-01-01'),
        groups: [['Suite yearly', [L('Suite', local('2026-01-01'), local('2027-01-01'), '1', '1188.00')]]],
        taxes: [['19', 'S', '1188.00', '225.72']],
        net: '1188.00',
        tax: '225.72',
        gross: '1413.72',
      }),
    ]);
  });

  it('in arrears (payInAdvance false): each period is billed when it ends', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const support = await offer(t, c, 'Support', '30.00', '1M', { payInAdvance: false });
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(support)], { name: 'Support' });
    await tick(t, local('2025-01-01'));
    await tick(t, local('2025-01-15'));
    expect(await invoicesOf(t, sub.id)).toEqual([]);
    for (const m of ['2025-02', '2025-03', '2025-04']) await tick(t, local(`${m}-01`));

    // Each month: 30.00 net; × 19 % = 5.70; gross 35.70 — billed at the period's end.
    const month = (n: number, from: string, to: string) =>
      I({
        number: `RE-000000000${n}`,
        at: local(to),
        groups: [['Support', [L('Support', local(from), local(to), '1', '30.00')]]],
        taxes: [['19', 'S', '30.00', '5.70']],
        net: '30.00',
        tax: '5.70',
        gross: '35.70',
      });
    expectInvoices(await invoicesOf(t, sub.id), [month(1, '2025-01-01', '2025-02-01'), month(2, '2025-02-01', '2025-03-01'), month(3, '2025-03-01', '2025-04-01')]);
  });

  it('proRata start mid-month in a start_of_month billing group: the partial first period is billed, prorated by days', async () => {
    const { t, c } = await tenantAt(local('2025-01-15'));
    const pro = await offer(t, c, 'Pro', '49.99');
    const group = await created(post(t, '/billing-groups', { name: 'On the 1st', type: 'start_of_month' }));
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Pro monthly', billingGroup: group.id });
    for (const day of ['2025-01-15', '2025-02-01', '2025-03-01']) await tick(t, local(day));

    // Activated on 15 January; the group bills on the 1st. The time from activation to the first
    // group day is a partial period [15 Jan, 1 Feb) of the period [1 Jan, 1 Feb): 17 of 31 days.
    // 49.99 × 17 / 31 = 27.41387… → 27.41 net; × 19 % = 5.2079 → 5.21; gross 32.62. Billed in advance,
    // i.e. at activation. Then full months: 49.99 net; × 19 % = 9.4981 → 9.50; gross 59.49.
    expectInvoices(await invoicesOf(t, sub.id), [
      I({
        number: 'RE-0000000001',
        at: local('2025-01-15'),
        groups: [['Pro monthly', [L('Pro', local('2025-01-15'), local('2025-02-01'), '1', '27.41')]]],
        taxes: [['19', 'S', '27.41', '5.21']],
        net: '27.41',
        tax: '5.21',
        gross: '32.62',
      }),
      I({
        number: 'RE-0000000002',
        at: local('2025-02-01'),
        groups: [['Pro monthly', [L('Pro', local('2025-02-01'), local('2025-03-01'), '1', '49.99')]]],
        taxes: [['19', 'S', '49.99', '9.50']],
        net: '49.99',
        tax: '9.50',
        gross: '59.49',
      }),
      I({
        number: 'RE-0000000003',
        at: local('2025-03-01'),
        groups: [['Pro monthly', [L('Pro', local('2025-03-01'), local('2025-04-01'), '1', '49.99')]]],
        taxes: [['19', 'S', '49.99', '9.50']],
        net: '49.99',
        tax: '9.50',
        gross: '59.49',
      }),
    ]);
  });

  it('trial then paid: nothing during the 14-day trial, then monthly from the trial end', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '29.00');
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Pro trial' }, { trialDays: 14 });
    expect(sub.trialEndsOn).toBe(local('2025-01-15'));
    for (const day of ['2025-01-01', '2025-01-10']) await tick(t, local(day));
    expect(await invoicesOf(t, sub.id)).toEqual([]);
    for (const day of ['2025-01-15', '2025-02-01', '2025-02-15', '2025-03-15']) await tick(t, local(day));

    // 29.00 net; × 19 % = 5.51; gross 34.51 per period [15th, 15th).
    const period = (n: number, from: string, to: string) =>
      I({
        number: `RE-000000000${n}`,
        at: local(from),
        groups: [['Pro trial', [L('Pro', local(from), local(to), '1', '29.00')]]],
        taxes: [['19', 'S', '29.00', '5.51']],
        net: '29.00',
        tax: '5.51',
        gross: '34.51',
      });
    expectInvoices(await invoicesOf(t, sub.id), [period(1, '2025-01-15', '2025-02-15'), period(2, '2025-02-15', '2025-03-15'), period(3, '2025-03-15', '2025-04-15')]);
  });
});
