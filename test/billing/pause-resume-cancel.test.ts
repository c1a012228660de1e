import { describe, expect, it } from 'vitest';
import { get, put } from '../support/api';
import { createCustomer, ok, tick } from '../support/builders';
import { anyNumber, expectInvoices, I, invoicesOf, item, L, local, offer, subscribe, tenantAt } from './scenario';

// Billing scenarios: what pausing, resuming and cancelling a subscription bills. Every expected
// invoice is written out by hand; scenario.ts has the builders and the conventions the expectations
// rely on.

describe('pause, resume and cancellation', () => {
  it('pause stops billing; resume without a date bills the missed periods, with nextBillingDate skips them', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const basic = await offer(t, c, 'Basic', '15.00');
    const customer = await createCustomer(t);
    const a = await subscribe(t, customer.id, [item(basic)], { name: 'Catch up' });
    const b = await subscribe(t, customer.id, [item(basic)], { name: 'Skip' });
    for (const day of ['2025-01-01', '2025-02-01', '2025-02-10']) await tick(t, local(day));
    await ok(put(t, `/subscriptions/${a.id}/pause`));
    await ok(put(t, `/subscriptions/${b.id}/pause`));
    for (const day of ['2025-03-01', '2025-04-01', '2025-04-10']) await tick(t, local(day));
    expect(await invoicesOf(t, a.id)).toHaveLength(2);
    expect(await invoicesOf(t, b.id)).toHaveLength(2);

    await ok(put(t, `/subscriptions/${a.id}/resume`, {}));
    await ok(put(t, `/subscriptions/${b.id}/resume`, { nextBillingDate: local('2025-05-01') }));
    for (const day of ['2025-04-10', '2025-05-01', '2025-06-01']) await tick(t, local(day));

    // One month: 15.00 net; × 19 % = 2.85; gross 17.85.
    const one = (name: string, at: string, from: string, to: string) =>
      I({
        number: anyNumber(2025),
        at: local(at),
        groups: [[name, [L('Basic', local(from), local(to), '1', '15.00')]]],
        taxes: [['19', 'S', '15.00', '2.85']],
        net: '15.00',
        tax: '2.85',
        gross: '17.85',
      });
    // Resumed on 10 April without a date: March and April, missed while paused, are billed at once:
    // 2 × 15.00 = 30.00 net; × 19 % = 5.70; gross 35.70.
    expectInvoices(await invoicesOf(t, a.id), [
      one('Catch up', '2025-01-01', '2025-01-01', '2025-02-01'),
      one('Catch up', '2025-02-01', '2025-02-01', '2025-03-01'),
      I({
        number: anyNumber(2025),
        at: local('2025-04-10'),
        groups: [['Catch up', [L('Basic', local('2025-03-01'), local('2025-04-01'), '1', '15.00'), L('Basic', local('2025-04-01'), local('2025-05-01'), '1', '15.00')]]],
        taxes: [['19', 'S', '30.00', '5.70']],
        net: '30.00',
        tax: '5.70',
        gross: '35.70',
      }),
      one('Catch up', '2025-05-01', '2025-05-01', '2025-06-01'),
      one('Catch up', '2025-06-01', '2025-06-01', '2025-07-01'),
    ]);
    // Resumed with nextBillingDate 1 May: March and April are skipped — no invoice (and no empty,
    // numbered zero invoice) on 10 April; billing restarts with May.
    expectInvoices(await invoicesOf(t, b.id), [
      one('Skip', '2025-01-01', '2025-01-01', '2025-02-01'),
      one('Skip', '2025-02-01', '2025-02-01', '2025-03-01'),
      one('Skip', '2025-05-01', '2025-05-01', '2025-06-01'),
      one('Skip', '2025-06-01', '2025-06-01', '2025-07-01'),
    ]);
  });

  it('cancel next_possible with 3 months notice on a 12-month contract: billing stops at the contract end (13 months driven)', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '19.99');
    const customer = await createCustomer(t);
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Contract', periods: { contractPeriod: '12M', cancellationPeriod: '3M' } });
    const months = ['2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06', '2025-07', '2025-08', '2025-09', '2025-10', '2025-11', '2025-12', '2026-01', '2026-02', '2026-03'];
    for (const m of months.slice(0, 9)) await tick(t, local(`${m}-01`));

    // On 20 September the notice deadline of the first term (1 Oct = 1 Jan 2026 − 3 months) has not
    // passed: the next possible end is 1 January 2026.
    await tick(t, local('2025-09-20'));
    const cancelled = await ok(put(t, `/subscriptions/${sub.id}/cancel`, { cancellationDateType: 'next_possible' }));
    expect(cancelled).toMatchObject({ status: 'active', cancellationDate: local('2026-01-01'), isCancellationPending: true });
    for (const m of months.slice(9)) await tick(t, local(`${m}-01`));

    // January to December 2025, then nothing: 19.99 net; × 19 % = 3.7981 → 3.80; gross 23.79.
    expectInvoices(
      await invoicesOf(t, sub.id),
      months.slice(0, 12).map((m, i) =>
        I({
          number: `RE-${String(i + 1).padStart(10, '0')}`,
          at: local(`${m}-01`),
          groups: [['Contract', [L('Pro', local(`${m}-01`), local(`${months[i + 1]}-01`), '1', '19.99')]]],
          taxes: [['19', 'S', '19.99', '3.80']],
          net: '19.99',
          tax: '3.80',
          gross: '23.79',
        }),
      ),
    );
    expect((await ok(get(t, `/subscriptions/${sub.id}`))).status).toBe('cancelled');
  });
});
