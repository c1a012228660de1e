import { describe, expect, it } from 'vitest';
import { countRows, eventsOf, expectStatus, get, query, type TestTenant } from '../support/api';
import { countedStatus, createTenant } from '../support/builders';
import { OWN_XML } from '../fixtures/camt/fixtures';
import type { BankItem } from '../../src/documents/camt';
import { importBankItems } from '../../src/services/bank/import';
import { contextOf } from '../documents/builders';
import { importCamt, invoiceState, ownStatementScenario, type Scenario, type BankLine } from './builders';

// Our own camt.053 (test/fixtures/camt/own-statement-2026-03.xml) against invoices made through
// the API: what each line becomes, what the invoices owe afterwards (to the cent), the
// transactions, assignments and events, and that importing it again adds nothing.

const MARCH = OWN_XML['own-statement-2026-03.xml']!;
const APRIL = OWN_XML['own-statement-2026-04.xml']!;

type Line = BankLine;

async function lines(t: TestTenant): Promise<Line[]> {
  const res = await get(t, '/payment/bank-account-transactions?limit=100');
  expectStatus(res, 200);
  return (res.body.data as Line[]).sort((a, b) => a.remittanceInformation!.localeCompare(b.remittanceInformation!));
}

const byText = (all: Line[], text: string) => all.find((l) => l.remittanceInformation?.startsWith(text))!;
const summary = (l: Line) => [l.status, l.amount.amount, l.assignedAmount.amount, l.remainder.amount, l.assignments.map((a) => `${a.status} ${a.matchedBy} ${a.invoice.number} ${a.amount.amount} fee ${a.fee.amount}`)];

async function owed(t: TestTenant, s: Scenario) {
  const out: Record<number, string> = {};
  for (const n of Object.keys(s.inv).map(Number)) {
    const res = await get(t, `/invoices/${s.inv[n]!.id}`);
    out[n] = `${countedStatus(res.body)} ${res.body.unpaidAmount.amount}`;
  }
  return out;
}

describe('importing our own camt.053', () => {
  it('books certain matches, applies returns, suggests the rest and ignores fees', async () => {
    const t = await createTenant();
    const s = await ownStatementScenario(t);
    const eventsBefore = (await eventsOf(t)).length;
    const res = await importCamt(t, MARCH);
    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      import: { format: 'camt.053.001.02', entries: 12 },
      added: 12,
      booked: 7,
      manualMatchingRequired: 4,
      ignored: 1,
      suggestions: 3,
    });

    const all = await lines(t);
    expect(all).toHaveLength(12);
    expect(summary(byText(all, 'Rechnungen'))).toEqual([
      'STATUS_BOOKED',
      '178.50',
      '178.50',
      '0.00',
      ['accepted reference RE-0000000001 119.00 fee 0.00', 'accepted reference RE-0000000002 59.50 fee 0.00'],
    ]);
    expect(summary(byText(all, 'RE0000000003'))).toEqual(['STATUS_MANUAL_MATCHING_REQUIRED', '200.00', '0.00', '200.00', ['suggested reference RE-0000000003 200.00 fee 0.00']]);
    expect(summary(byText(all, 'Invoice re-0000000004'))).toEqual(['STATUS_MANUAL_MATCHING_REQUIRED', '100.00', '0.00', '100.00', ['suggested reference RE-0000000004 95.20 fee 0.00']]);
    expect(summary(byText(all, 'Abo E2E-0005'))).toEqual(['STATUS_BOOKED', '35.70', '35.70', '0.00', ['accepted end_to_end RE-0000000005 35.70 fee 0.00']]);
    expect(summary(byText(all, 'Abo E2E-0006'))).toEqual(['STATUS_BOOKED', '47.60', '47.60', '0.00', ['accepted end_to_end RE-0000000006 47.60 fee 0.00']]);
    expect(summary(byText(all, 'Abo E2E-0007'))).toEqual(['STATUS_BOOKED', '14.28', '14.28', '0.00', ['accepted end_to_end RE-0000000007 14.28 fee 0.00']]);
    expect(summary(byText(all, 'Abo E2E-0008'))).toEqual(['STATUS_BOOKED', '29.75', '29.75', '0.00', ['accepted end_to_end RE-0000000008 29.75 fee 0.00']]);
    expect(summary(byText(all, 'RUECKLASTSCHRIFT Widerspruch'))).toEqual(['STATUS_BOOKED', '-32.75', '-32.75', '0.00', ['accepted end_to_end RE-0000000008 -29.75 fee 3.00']]);
    expect(summary(byText(all, 'RUECKLASTSCHRIFT Konto'))).toEqual(['STATUS_BOOKED', '-26.80', '-26.80', '0.00', ['accepted mandate RE-0000000009 -23.80 fee 3.00']]);
    expect(summary(byText(all, 'Kontofuehrung'))).toEqual(['STATUS_IGNORED', '-9.90', '0.00', '-9.90', []]);
    expect(summary(byText(all, 'Danke'))).toEqual(['STATUS_MANUAL_MATCHING_REQUIRED', '17.85', '0.00', '17.85', ['suggested amount_iban RE-0000000010 17.85 fee 0.00']]);
    expect(summary(byText(all, 'Spende'))).toEqual(['STATUS_MANUAL_MATCHING_REQUIRED', '42.00', '0.00', '42.00', []]);
    // The payer's IBAN is shown masked only.
    expect(byText(all, 'Rechnungen').counterpartyIban).toBe('DE89**************3000');
    expect(JSON.stringify(all)).not.toContain('DE89370400440532013000');

    expect(await owed(t, s)).toEqual({
      1: 'STATUS_PAID 0.00',
      2: 'STATUS_PAID 0.00',
      3: 'STATUS_UNPAID 238.00',
      4: 'STATUS_UNPAID 95.20',
      5: 'STATUS_PAID 0.00',
      6: 'STATUS_PAID 0.00',
      7: 'STATUS_PAID 0.00',
      // Collected, then returned (MD06) in the same statement: owed again.
      8: 'STATUS_UNPAID 29.75',
      9: 'STATUS_UNPAID 23.80',
      10: 'STATUS_UNPAID 17.85',
      11: 'STATUS_UNPAID 11.90',
    });
    expect((await invoiceState(t, s.inv[1]!.id)).pay_date).toBe('2026-03-02T00:00:00.000Z');

    const txs = await query<{ invoice_id: string; type: string; gateway: string; status: string; amount: number; fee_amount: number; fail_reason: string | null; parent_transaction_id: string | null; paid_at: string | null }>(
      t,
      'SELECT invoice_id, type, gateway, status, amount, fee_amount, fail_reason, parent_transaction_id, paid_at FROM transactions WHERE tenant_id = ? ORDER BY document_number, type, created_at',
      t.id,
    );
    const number = (id: string) => Object.values(s.inv).find((i) => i.id === id)!.number.slice(-2);
    expect(txs.map((x) => [number(x.invoice_id), x.type, x.gateway, x.status, x.amount, x.fee_amount, x.fail_reason, x.paid_at?.slice(0, 10) ?? null])).toEqual([
      ['01', 'payment', 'bank_transfer', 'succeeded', 11900, 0, null, '2026-03-02'],
      ['02', 'payment', 'bank_transfer', 'succeeded', 5950, 0, null, '2026-03-02'],
      ['05', 'payment', 'sepa_debit', 'succeeded', 3570, 0, null, '2026-03-04'],
      ['06', 'payment', 'sepa_debit', 'succeeded', 4760, 0, null, '2026-03-04'],
      ['07', 'payment', 'sepa_debit', 'succeeded', 1428, 0, null, '2026-03-04'],
      ['08', 'payment', 'sepa_debit', 'returned', 2975, 0, 'MD06', '2026-03-04'],
      ['08', 'return', 'sepa_debit', 'succeeded', 2975, 300, 'MD06', '2026-03-09'],
      ['09', 'payment', 'sepa_debit', 'returned', 2380, 0, 'AM04', null],
      ['09', 'return', 'sepa_debit', 'succeeded', 2380, 300, 'AM04', '2026-03-10'],
    ]);
    const returns = txs.filter((x) => x.type === 'return');
    expect(returns.map((r) => r.parent_transaction_id)).toEqual([s.collections[8], s.collections[9]]);

    // Every payment on an invoice names its transaction; invoice 8's stays as received, then taken back.
    const payments = await query<{ invoice_id: string; amount: number; transaction_id: string | null; payment_method: string }>(
      t,
      'SELECT invoice_id, amount, transaction_id, payment_method FROM invoice_payments WHERE tenant_id = ? ORDER BY amount',
      t.id,
    );
    expect(payments.map((p) => [number(p.invoice_id), p.amount, p.payment_method, p.transaction_id !== null])).toEqual([
      ['07', 1428, 'sepa_debit', true],
      ['08', 2975, 'sepa_debit', true],
      ['05', 3570, 'sepa_debit', true],
      ['06', 4760, 'sepa_debit', true],
      ['02', 5950, 'bank_transfer', true],
      ['01', 11900, 'bank_transfer', true],
    ]);

    const events = (await eventsOf(t)).slice(eventsBefore);
    const of = (type: string) => events.filter((e) => e.type === type);
    expect(of('invoice.paid').map((e) => e.data.number)).toEqual(['RE-0000000001', 'RE-0000000002', 'RE-0000000005', 'RE-0000000006', 'RE-0000000007', 'RE-0000000008']);
    expect(of('invoice.unpaid').map((e) => [e.data.number, e.data.status, e.data.unpaidAmount.amount])).toEqual([['RE-0000000008', 'STATUS_UNPAID', '29.75']]);
    expect(of('transaction.succeeded').map((e) => [e.data.documentNumber, e.data.gateway, e.data.amount])).toEqual([
      ['RE-0000000001', 'bank_transfer', 119],
      ['RE-0000000002', 'bank_transfer', 59.5],
      ['RE-0000000005', 'sepa_debit', 35.7],
      ['RE-0000000006', 'sepa_debit', 47.6],
      ['RE-0000000007', 'sepa_debit', 14.28],
      ['RE-0000000008', 'sepa_debit', 29.75],
    ]);
    expect(of('transaction.returned').map((e) => [e.data.documentNumber, e.data.status, e.data.failReason])).toEqual([
      ['RE-0000000008', 'returned', 'MD06'],
      ['RE-0000000009', 'returned', 'AM04'],
    ]);
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['invoice.updated', 'invoice.paid', 'invoice.unpaid', 'transaction.succeeded', 'transaction.returned']));
    // No secret in any event.
    expect(JSON.stringify(events)).not.toMatch(/DE8937040044|DE7450010517/);
  });

  it('importing the same file again answers the earlier import and adds nothing', async () => {
    const t = await createTenant();
    await ownStatementScenario(t);
    const first = await importCamt(t, MARCH);
    expectStatus(first, 201);
    const counts = async () => [
      await countRows('bank_account_transactions', t),
      await countRows('bank_account_transaction_assignments', t),
      await countRows('transactions', t),
      await countRows('invoice_payments', t),
      await countRows('events', t),
      await countRows('bank_statement_imports', t),
    ];
    const before = await counts();
    const again = await importCamt(t, MARCH);
    expectStatus(again, 200);
    expect(again.body).toEqual({ ...first.body, added: 0 });
    expect(await counts()).toEqual(before);
  });

  it('an overlapping statement adds only the lines not seen before', async () => {
    const t = await createTenant();
    const s = await ownStatementScenario(t);
    expectStatus(await importCamt(t, MARCH), 201);
    const res = await importCamt(t, APRIL);
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ import: { entries: 3 }, added: 1, booked: 1, manualMatchingRequired: 0, ignored: 0, suggestions: 0 });
    expect(await countRows('bank_account_transactions', t)).toBe(13);
    expect((await get(t, `/invoices/${s.inv[11]!.id}`)).body).toMatchObject({ status: 'STATUS_PAID', unpaidAmount: { amount: '0.00' } });
  });
});

describe('importBankItems: the path open-banking pulls share', () => {
  const item = (extra: Partial<BankItem> = {}): BankItem => ({
    source: 'provider:1',
    statementId: null,
    accountIban: 'DE09 1001 0010 1234 5678 90',
    amount: '119.00',
    currency: 'EUR',
    bookingDate: '2026-03-02',
    valueDate: '2026-03-02',
    status: 'BOOK',
    accountServicerReference: null,
    detailIndex: null,
    endToEndId: null,
    mandateId: null,
    creditorId: null,
    counterpartyName: 'Erika Mustermann',
    counterpartyIban: 'DE89370400440532013000',
    ultimateCounterpartyName: null,
    remittance: 'RE-0000000001',
    structuredReferences: [],
    returnInfo: null,
    charges: null,
    bankTransactionCode: null,
    reversal: false,
    ...extra,
  });

  it('matches like a file; two equal bookings stay two; the same batch again adds nothing', async () => {
    const t = await createTenant();
    const s = await ownStatementScenario(t);
    const ctx = await contextOf(t);
    const items = [item(), item({ remittance: 'Spende', amount: '5.00' }), item({ remittance: 'Spende', amount: '5.00' }), item({ status: 'PDNG', amount: '7.00' })];
    const first = await importBankItems(ctx, items, { format: 'open_banking', sha256: 'pull-1' });
    expect(first).toMatchObject({ created: true, result: { import: { format: 'open_banking', entries: 4 }, added: 4, booked: 1, manualMatchingRequired: 2, ignored: 1 } });
    expect((await get(t, `/invoices/${s.inv[1]!.id}`)).body.status).toBe('STATUS_PAID');
    const again = await importBankItems(ctx, items, { format: 'open_banking', sha256: 'pull-1' });
    expect(again).toMatchObject({ created: false, result: { import: { id: first.result.import.id }, added: 0 } });
    // A later pull repeating the bookings (another batch) adds only the one booked since.
    const later = await importBankItems(ctx, [...items, item({ status: 'BOOK', amount: '7.00', remittance: 'Spende' })], { format: 'open_banking', sha256: 'pull-2' });
    expect(later.result).toMatchObject({ added: 1, manualMatchingRequired: 1 });
    expect(await countRows('bank_account_transactions', t)).toBe(5);
  });

  it('items with amounts their currency cannot book are refused before anything is written', async () => {
    const t = await createTenant();
    const ctx = await contextOf(t);
    const bad = [
      item({ amount: '1.005' }),
      item({ currency: 'XXX' }),
      item({ amount: '90071992547409.92' }),
      item({ amount: '-1000000000000.00', returnInfo: { reason: 'MD06', additionalInfo: null } }),
      item({ amount: '-26.80', charges: '99999999999999.99', returnInfo: { reason: 'MD06', additionalInfo: null } }),
    ];
    await expect(importBankItems(ctx, bad, { format: 'open_banking', sha256: 'bad' })).rejects.toMatchObject({
      status: 422,
      violations: [
        expect.objectContaining({ propertyPath: 'items[0].amount', code: 'too_many_decimals' }),
        expect.objectContaining({ propertyPath: 'items[1].currency' }),
        expect.objectContaining({ propertyPath: 'items[2].amount', code: 'too_large' }),
        expect.objectContaining({ propertyPath: 'items[3].amount', code: 'too_large' }),
        expect.objectContaining({ propertyPath: 'items[4].charges', code: 'too_large' }),
      ],
    });
    expect(await countRows('bank_statement_imports', t)).toBe(0);
  });

  it('lines a request left unmatched (it died before matching) are matched when the file comes again', async () => {
    const t = await createTenant();
    await ownStatementScenario(t);
    expectStatus(await importCamt(t, MARCH), 201);
    // As if the first request had stored the lines and stopped: the gift line still waits for matching.
    await query(t, "UPDATE bank_account_transactions SET status = 'STATUS_RECEIVED' WHERE tenant_id = ? AND remittance_information = 'Spende'", t.id);
    const again = await importCamt(t, MARCH);
    expectStatus(again, 200);
    expect(again.body).toMatchObject({ added: 0, manualMatchingRequired: 4 });
    expect(await countRows('bank_account_transactions', t, "AND status = 'STATUS_RECEIVED'")).toBe(0);
  });
});
