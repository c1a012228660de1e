import { describe, expect, it } from 'vitest';
import { api, countRows, del, eventsOf, expectProblem, expectStatus, get, post, put, query, type TestTenant } from '../support/api';
import { countedStatus, createTenant, keyWith } from '../support/builders';
import { OWN_XML } from '../fixtures/camt/fixtures';
import { importCamt, ownStatementScenario, type Scenario } from './builders';

// What a person does after an import: accept suggestions, assign invoices by hand, create and
// remove assignments, ignore a line.

interface Line {
  id: string;
  status: string;
  remittanceInformation: string | null;
  assignedAmount: { amount: string };
  remainder: { amount: string };
  assignments: { id: string; status: string; matchedBy: string; invoice: { id: string; number: string }; amount: { amount: string }; fee: { amount: string }; transaction: { id: string } | null }[];
}

async function imported(): Promise<{ t: TestTenant; s: Scenario; line: (text: string) => Promise<Line> }> {
  const t = await createTenant();
  const s = await ownStatementScenario(t);
  expectStatus(await importCamt(t, OWN_XML['own-statement-2026-03.xml']!), 201);
  const line = async (text: string) => {
    const res = await get(t, '/payment/bank-account-transactions?limit=100');
    return (res.body.data as Line[]).find((l) => l.remittanceInformation?.startsWith(text))!;
  };
  return { t, s, line };
}

const unpaid = async (t: TestTenant, id: string) => {
  const inv = (await get(t, `/invoices/${id}`)).body;
  return `${countedStatus(inv)} ${inv.unpaidAmount.amount}`;
};

describe('accepting suggestions', () => {
  it('turns every suggestion into a payment: an under-payment pays part, an over-payment leaves a remainder on the line', async () => {
    const { t, s, line } = await imported();
    const suggestionIds = [(await line('RE0000000003')).assignments[0]!.id, (await line('Invoice re-0000000004')).assignments[0]!.id, (await line('Danke')).assignments[0]!.id];
    const res = await put(t, '/payment/bank-account-transactions/accept-suggestions');
    expectStatus(res, 200);
    expect(res.body.accepted).toBe(3);
    expect(res.body.dropped).toBe(0);
    expect((res.body.data as Line[]).map((l) => [l.status, l.assignedAmount.amount, l.remainder.amount]).sort()).toEqual([
      ['STATUS_BOOKED', '17.85', '0.00'],
      ['STATUS_BOOKED', '200.00', '0.00'],
      ['STATUS_MANUAL_MATCHING_REQUIRED', '95.20', '4.80'],
    ]);
    expect(await unpaid(t, s.inv[3]!.id)).toBe('STATUS_UNPAID 38.00');
    expect(await unpaid(t, s.inv[4]!.id)).toBe('STATUS_PAID 0.00');
    expect(await unpaid(t, s.inv[10]!.id)).toBe('STATUS_PAID 0.00');
    // An accepted suggestion keeps its id and now names its payment.
    for (const id of suggestionIds) {
      const a = await get(t, `/payment/bank-account-transaction-assignments/${id}`);
      expectStatus(a, 200);
      expect(a.body.status).toBe('accepted');
      expect(a.body.transaction).not.toBeNull();
    }
    expect(await countRows('bank_account_transaction_assignments', t, "AND status = 'suggested'")).toBe(0);
    // Nothing left to accept.
    expect((await put(t, '/payment/bank-account-transactions/accept-suggestions', {})).body).toEqual({ accepted: 0, dropped: 0, data: [] });
  });

  it('accepts only the lines named; a suggestion whose invoice was paid meanwhile is dropped', async () => {
    const { t, s, line } = await imported();
    expectStatus(await post(t, `/invoices/${s.inv[4]!.id}/payments`, { amount: '95.20' }), 201);
    const over = await line('Invoice re-0000000004');
    const res = await put(t, '/payment/bank-account-transactions/accept-suggestions', { ids: [over.id] });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ accepted: 0, dropped: 1 });
    expect(res.body.data[0]).toMatchObject({ status: 'STATUS_MANUAL_MATCHING_REQUIRED', assignments: [], remainder: { amount: '100.00' } });
    // The other lines' suggestions wait.
    expect(await countRows('bank_account_transaction_assignments', t, "AND status = 'suggested'")).toBe(2);
    // A suggestion can be named by its own id too.
    const danke = await line('Danke');
    const one = await put(t, '/payment/bank-account-transactions/accept-suggestions', { ids: [danke.assignments[0]!.id] });
    expect(one.body).toMatchObject({ accepted: 1, dropped: 0, data: [{ id: danke.id, status: 'STATUS_BOOKED' }] });
    const unknown = await put(t, '/payment/bank-account-transactions/accept-suggestions', { ids: ['nope'] });
    expectProblem(unknown, 422);
    expect(unknown.body.violations).toEqual([expect.objectContaining({ propertyPath: 'ids[0]', code: 'not_found' })]);
  });
});

describe('assigning by hand', () => {
  it('assign-invoices pays what is left of the line; removing the assignment takes the payment back', async () => {
    const { t, s, line } = await imported();
    const gift = await line('Spende');
    const res = await put(t, `/payment/bank-account-transactions/${gift.id}/assign-invoices`, { invoiceIds: [s.inv[9]!.id] });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: 'STATUS_MANUAL_MATCHING_REQUIRED', assignedAmount: { amount: '23.80' }, remainder: { amount: '18.20' } });
    expect(res.body.assignments).toEqual([expect.objectContaining({ status: 'accepted', matchedBy: 'manual', amount: { amount: '23.80', currencyCode: 'EUR' }, invoice: { id: s.inv[9]!.id, number: 'RE-0000000009' } })]);
    expect(await unpaid(t, s.inv[9]!.id)).toBe('STATUS_PAID 0.00');

    const assignment = res.body.assignments[0];
    const before = (await eventsOf(t)).length;
    expectStatus(await del(t, `/payment/bank-account-transaction-assignments/${assignment.id}`), 204);
    expect(await unpaid(t, s.inv[9]!.id)).toBe('STATUS_UNPAID 23.80');
    expect((await get(t, `/payment/bank-account-transactions/${gift.id}`)).body).toMatchObject({ status: 'STATUS_MANUAL_MATCHING_REQUIRED', assignedAmount: { amount: '0.00' }, remainder: { amount: '42.00' }, assignments: [] });
    const [tx] = await query<{ status: string; fail_reason: string }>(t, 'SELECT status, fail_reason FROM transactions WHERE tenant_id = ? AND id = ?', t.id, assignment.transaction.id);
    expect(tx).toEqual({ status: 'failed', fail_reason: 'assignment_removed' });
    expect(await countRows('invoice_payments', t, 'AND transaction_id = ?', assignment.transaction.id)).toBe(0);
    expect((await eventsOf(t)).slice(before).map((e) => e.type)).toEqual(['transaction.failed', 'invoice.updated', 'invoice.unpaid']);
    expectProblem(await get(t, `/payment/bank-account-transaction-assignments/${assignment.id}`), 404);
  });

  it('assign-invoices spreads the line over several invoices oldest due first and replaces the suggestions', async () => {
    const { t, s, line } = await imported();
    const under = await line('RE0000000003');
    // 200.00 over invoice 9 (23.80) and 3 (238.00): same due date, so by number: 3 first.
    const res = await put(t, `/payment/bank-account-transactions/${under.id}/assign-invoices`, { invoiceIds: [s.inv[9]!.id, s.inv[3]!.id] });
    expectStatus(res, 200);
    expect(res.body.assignments.map((a: Line['assignments'][number]) => [a.invoice.number, a.amount.amount, a.status])).toEqual([['RE-0000000003', '200.00', 'accepted']]);
    expect(res.body.status).toBe('STATUS_BOOKED');
    expect(await unpaid(t, s.inv[3]!.id)).toBe('STATUS_UNPAID 38.00');
    expect(await unpaid(t, s.inv[9]!.id)).toBe('STATUS_UNPAID 23.80');
  });

  it('POST creates one assignment with amount and fee; it accepts a suggestion of the same pair', async () => {
    const { t, s, line } = await imported();
    const gift = await line('Spende');
    const res = await post(t, '/payment/bank-account-transaction-assignments', { bankAccountTransaction: gift.id, invoice: s.inv[9]!.id, amount: 10, fee: '0.50' });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ status: 'accepted', matchedBy: 'manual', amount: { amount: '10.00', currencyCode: 'EUR' }, fee: { amount: '0.50', currencyCode: 'EUR' }, bankAccountTransaction: { id: gift.id } });
    expect(await unpaid(t, s.inv[9]!.id)).toBe('STATUS_UNPAID 13.80');
    const [payment] = await query<{ amount: number; fee_amount: number }>(t, 'SELECT amount, fee_amount FROM invoice_payments WHERE tenant_id = ? AND invoice_id = ?', t.id, s.inv[9]!.id);
    expect(payment).toEqual({ amount: 1000, fee_amount: 50 });

    const danke = await line('Danke');
    const suggestion = danke.assignments[0]!;
    const accepted = await post(t, '/payment/bank-account-transaction-assignments', { bankAccountTransaction: danke.id, invoice: s.inv[10]!.id });
    expectStatus(accepted, 201);
    expect(accepted.body).toMatchObject({ id: suggestion.id, status: 'accepted', amount: { amount: '17.85' } });
    expect((await get(t, `/payment/bank-account-transactions/${danke.id}`)).body.status).toBe('STATUS_BOOKED');

    const list = await get(t, `/payment/bank-account-transaction-assignments?invoice=${s.inv[9]!.id}`);
    expectStatus(list, 200);
    // Newest first: this one, then the return of its SEPA collection the statement brought.
    expect(list.body.data.map((a: { id: string; matchedBy: string; amount: { amount: string } }) => [a.id === res.body.id, a.matchedBy, a.amount.amount])).toEqual([
      [true, 'manual', '10.00'],
      [false, 'mandate', '-23.80'],
    ]);
    const ofLine = await get(t, `/payment/bank-account-transaction-assignments?bankAccountTransaction=${danke.id}&status=accepted`);
    expect(ofLine.body.meta.pagination.totalItems).toBe(1);
  });

  it('a suggestion can be removed; returns and collected debits cannot', async () => {
    const { t, line } = await imported();
    const under = await line('RE0000000003');
    expectStatus(await del(t, `/payment/bank-account-transaction-assignments/${under.assignments[0]!.id}`), 204);
    expect((await get(t, `/payment/bank-account-transactions/${under.id}`)).body).toMatchObject({ status: 'STATUS_MANUAL_MATCHING_REQUIRED', assignments: [] });
    const returned = await line('RUECKLASTSCHRIFT Widerspruch');
    expectProblem(await del(t, `/payment/bank-account-transaction-assignments/${returned.assignments[0]!.id}`), 409, '/problems/not-removable');
    const collected = await line('Abo E2E-0005');
    expectProblem(await del(t, `/payment/bank-account-transaction-assignments/${collected.assignments[0]!.id}`), 409, '/problems/not-removable');
  });

  it('ignore: a line without assignments is set aside with its suggestions; one with payments is not', async () => {
    const { t, line } = await imported();
    const danke = await line('Danke');
    const res = await put(t, `/payment/bank-account-transactions/${danke.id}/ignore`);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: 'STATUS_IGNORED', assignments: [] });
    expect((await get(t, '/payment/bank-account-transactions?status=STATUS_IGNORED')).body.meta.pagination.totalItems).toBe(2);
    expectProblem(await put(t, `/payment/bank-account-transactions/${(await line('Rechnungen')).id}/ignore`), 409, '/problems/has-assignments');
  });

  it('lists filter by status and booking date; reading needs bank-account-transaction:read, writing :write', async () => {
    const { t } = await imported();
    const march2 = await get(t, '/payment/bank-account-transactions?bookingDate[after]=2026-03-02&bookingDate[before]=2026-03-02');
    expect(march2.body.meta.pagination.totalItems).toBe(2);
    const manual = await get(t, '/payment/bank-account-transactions?status=STATUS_MANUAL_MATCHING_REQUIRED');
    expect(manual.body.meta.pagination.totalItems).toBe(4);
    expectProblem(await get(t, '/payment/bank-account-transactions?stauts=x'), 400);
    const reader = await keyWith(t, ['bank-account-transaction:read']);
    expectStatus(await api('/payment/bank-account-transactions', { token: reader }), 200);
    expectProblem(await api('/payment/bank-account-transactions/import', { token: reader, body: { file: 'eA==' } }), 403);
    expectProblem(await api('/payment/bank-account-transactions/accept-suggestions', { token: reader, method: 'PUT', body: {} }), 403);
  });
});
