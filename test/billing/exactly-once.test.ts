import { describe, expect, it } from 'vitest';
import { get, post, put, query } from '../support/api';
import { createCustomer, ok, tick } from '../support/builders';
import { anyNumber, duplicateLedgerRows, expectInvoices, I, insertRates, invoiceCount, invoicesOf, item, L, ledgerRows, local, offer, shape, subscribe, tenantAt } from './scenario';

// Billing scenarios: every period is billed exactly once, however runs overlap or fail. Every
// expected invoice is written out by hand; scenario.ts has the builders and the conventions the
// expectations rely on.

describe('exactly once', () => {
  it('overlapping runs (two PUT /test-clock and two POST /billing-runs at once) bill every subscription once', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '10.00');
    const customer = await createCustomer(t);
    // 30 subscriptions: more than one chunk of a run (25).
    const subs: any[] = [];
    for (let i = 0; i < 3; i++) subs.push(...(await Promise.all(Array.from({ length: 10 }, () => subscribe(t, customer.id, [item(pro)], { name: 'Seat' })))));

    const results = await Promise.all([
      put(t, '/test-clock', { now: local('2025-01-01') }),
      put(t, '/test-clock', { now: local('2025-01-01') }),
      post(t, '/billing-runs'),
      post(t, '/billing-runs'),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 202, 202]);
    // The object may still work on an API-triggered run in the background; wait until it is done.
    for (let i = 0; i < 50; i++) {
      const runs = (await ok(get(t, '/billing-runs?limit=100'))).data;
      if (runs.every((r: any) => r.status !== 'running')) break;
      await new Promise((r) => setTimeout(r, 100));
    }

    // 10.00 net; × 19 % = 1.90; gross 11.90, once per subscription, numbered 1…30 without a gap.
    const check = async (count: number, from: string, to: string) => {
      const invoices: any[] = (await ok(get(t, `/invoices?customer=${customer.id}&limit=100`))).data;
      expect(invoices).toHaveLength(count);
      expect(await invoiceCount(t)).toBe(count);
      expect(invoices.map((i) => i.number).sort()).toEqual(Array.from({ length: count }, (_, i) => `RE-${String(i + 1).padStart(10, '0')}`));
      for (const s of subs) {
        const mine = await invoicesOf(t, s.id);
        expect(mine.map((i) => i.number)).toHaveLength(count / subs.length);
        expect(shape(mine[mine.length - 1])).toEqual(
          I({
            number: anyNumber(2025),
            at: local(from),
            groups: [['Seat', [L('Pro', local(from), local(to), '1', '10.00')]]],
            taxes: [['19', 'S', '10.00', '1.90']],
            net: '10.00',
            tax: '1.90',
            gross: '11.90',
          }),
        );
      }
      const [ledger] = await query<{ n: number }>(t, 'SELECT count(*) AS n FROM billing_ledger WHERE tenant_id = ?', t.id);
      expect(ledger!.n).toBe(count);
      expect(await duplicateLedgerRows(t)).toBe(0);
      const [created] = await query<{ n: number }>(t, "SELECT count(*) AS n FROM events WHERE tenant_id = ? AND type = 'invoice.created'", t.id);
      expect(created!.n).toBe(count);
    };
    await check(30, '2025-01-01', '2025-02-01');

    await Promise.all([put(t, '/test-clock', { now: local('2025-02-01') }), put(t, '/test-clock', { now: local('2025-02-01') })]);
    await check(60, '2025-02-01', '2025-03-01');
  });

  it('a run that fails half-way records the error, bills the others, and a rerun bills the failed one exactly once', async () => {
    // 14 March 2014, 12:00 in Berlin: before the first rate of the fixture (17 March).
    const start = '2014-03-14T11:00:00.000Z';
    const { t, c } = await tenantAt(start);
    const [before] = await query<{ n: number }>(t, "SELECT count(*) AS n FROM exchange_rates WHERE currency = 'USD' AND date <= '2014-03-14'");
    expect(before!.n, 'precondition: no USD rate on or before 2014-03-14').toBe(0);
    const pro = await offer(t, c, 'Pro', '49.99');
    const eur1 = await createCustomer(t);
    const usd = await createCustomer(t, { currencyCode: 'USD' });
    const eur2 = await createCustomer(t);
    const s1 = await subscribe(t, eur1.id, [item(pro)], { name: 'EUR one' });
    const sUsd = await subscribe(t, usd.id, [item(pro)], { name: 'USD' });
    const s2 = await subscribe(t, eur2.id, [item(pro)], { name: 'EUR two' });

    await tick(t, start);
    const runs = async () => (await ok(get(t, '/billing-runs?limit=100'))).data as any[];
    expect((await runs()).filter((r) => r.errors > 0)).toEqual([
      expect.objectContaining({ trigger: 'test_clock', status: 'completed', invoicesCreated: 2, itemsBilled: 2, errors: 1, lastError: expect.stringContaining(sUsd.id) }),
    ]);
    expect(await invoicesOf(t, sUsd.id)).toEqual([]);
    expect(await ledgerRows(t, sUsd.id)).toEqual([]);
    // Still no rate: a rerun fails the same subscription again and bills nothing twice.
    await tick(t, start);
    expect(await invoiceCount(t)).toBe(2);

    // The rate arrives (ECB, 17 March 2014: 1 EUR = 1.3906 USD); the next run bills the failed one once.
    await insertRates([['2014-03-17', '1.3906']]);
    await tick(t, '2014-03-17T11:00:00.000Z');
    await tick(t, '2014-03-17T11:00:00.000Z');
    expect(await invoiceCount(t)).toBe(3);
    expect((await runs())[0]).toMatchObject({ errors: 0, invoicesCreated: 0 });

    // EUR: 49.99 net; × 19 % = 9.4981 → 9.50; gross 59.49. Period [14 Mar 12:00, 14 Apr 12:00) Berlin.
    const period: [string, string] = [start, '2014-04-14T10:00:00.000Z'];
    for (const [s, name] of [
      [s1, 'EUR one'],
      [s2, 'EUR two'],
    ] as const) {
      expectInvoices(await invoicesOf(t, s.id), [
        I({ number: anyNumber(2014), at: start, groups: [[name, [L('Pro', ...period, '1', '49.99')]]], taxes: [['19', 'S', '49.99', '9.50']], net: '49.99', tax: '9.50', gross: '59.49' }),
      ]);
    }
    // USD, billed on 17 March: 49.99 × 1.3906 = 69.516094 → 69.52; × 19 % = 13.2088 → 13.21; gross 82.73.
    const usdInvoices = await invoicesOf(t, sUsd.id);
    expectInvoices(usdInvoices, [
      I({
        number: 'RE-0000000003',
        at: '2014-03-17T11:00:00.000Z',
        currency: 'USD',
        groups: [['USD', [L('Pro', ...period, '1', '69.52')]]],
        taxes: [['19', 'S', '69.52', '13.21']],
        net: '69.52',
        tax: '13.21',
        gross: '82.73',
      }),
    ]);
    expect(usdInvoices[0].applicatedExchangeRates).toEqual([{ sourceCurrencyCode: 'EUR', destinationCurrencyCode: 'USD', exchangeRate: '1.3906', exchangeRateDate: '2014-03-17' }]);
    expect(await ledgerRows(t, sUsd.id)).toHaveLength(1);
    expect(await duplicateLedgerRows(t)).toBe(0);
  });
});
