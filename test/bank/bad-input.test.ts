import { describe, expect, it } from 'vitest';
import { countRows, expectProblem, expectStatus, get, post, put, violations, type TestTenant } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { GENKGO_XML, HBCI_XML, OWN_XML } from '../fixtures/camt/fixtures';
import { importCamt, invoiceOf, ownStatementScenario } from './builders';

// Bad input is a 422 naming each problem, and nothing is written; every fixture we have imports
// or is refused with a reason, never a 500.

const MARCH = OWN_XML['own-statement-2026-03.xml']!;

const bankRows = async (t: TestTenant) => [
  await countRows('bank_statement_imports', t),
  await countRows('bank_account_transactions', t),
  await countRows('bank_account_transaction_assignments', t),
  await countRows('transactions', t),
  await countRows('invoice_payments', t),
];

describe('statements that cannot be imported', () => {
  const cases: [string, string, string[]][] = [
    ['not XML', 'Kontoauszug März', ['Document: not_xml']],
    ['truncated', MARCH.slice(0, 5000), ['Document: not_xml']],
    ['a pain.008 file', '<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.008.001.02"><CstmrDrctDbtInitn/></Document>', ['Document: not_camt']],
    ['an amount with more decimals than EUR has', MARCH.replace('<Amt Ccy="EUR">17.85</Amt>', '<Amt Ccy="EUR">17.855</Amt>'), ['Stmt[0].Ntry[7].Amt: too_many_decimals']],
    // Below the document limit (10^12 EUR) as every amount of the API; 90,071,992,547,409.92 EUR is beyond what minor units can hold exactly.
    ['an amount beyond what can be stored exactly', MARCH.replace('<Amt Ccy="EUR">42.00</Amt>', '<Amt Ccy="EUR">90071992547409.92</Amt>'), ['Stmt[0].Ntry[8].Amt: too_large']],
    ['an amount at the document limit, and a charge beyond it', MARCH.replace('<Amt Ccy="EUR">42.00</Amt>', '<Amt Ccy="EUR">1000000000000.00</Amt>').replace('<Amt Ccy="EUR">3.00</Amt>', '<Amt Ccy="EUR">999999999999999.99</Amt>'), ['Stmt[0].Ntry[4].NtryDtls.TxDtls[0].Chrgs: too_large', 'Stmt[0].Ntry[8].Amt: too_large']],
    ['a negative amount and an unknown currency', MARCH.replace('<Amt Ccy="EUR">42.00</Amt>', '<Amt Ccy="EUR">-42.00</Amt>').replace('<Amt Ccy="EUR">9.90</Amt>', '<Amt Ccy="EURO">9.90</Amt>'), ['Stmt[0].Ntry[6].Amt: invalid_currency', 'Stmt[0].Ntry[8].Amt: invalid_amount']],
  ];

  it.each(cases)('%s: 422 with the problem, nothing imported', async (_name, xml, expected) => {
    const t = await createTenant();
    await ownStatementScenario(t);
    const before = await bankRows(t);
    const res = await importCamt(t, xml);
    expectProblem(res, 422, '/problems/validation-failed');
    expect(violations(res)).toEqual(expected);
    expect(await bankRows(t)).toEqual(before);
  });

  it('the JSON body needs the file, in base64', async () => {
    const t = await createTenant();
    const missing = await post(t, '/payment/bank-account-transactions/import', {});
    expectProblem(missing, 422);
    expect(violations(missing)).toEqual(['file: invalid_type']);
    const notBase64 = await post(t, '/payment/bank-account-transactions/import', { file: 'this is not base64!' });
    expect(violations(notBase64)).toEqual(['file: invalid_base64']);
    const unknown = await post(t, '/payment/bank-account-transactions/import', { file: 'eA==', format: 'camt' });
    expect(violations(unknown)).toEqual(['format: unknown_field']);
    expect(await countRows('bank_statement_imports', t)).toBe(0);
  });

  it('a line in another currency than the invoice it names matches nothing (and is no error)', async () => {
    const t = await createTenant();
    const s = await ownStatementScenario(t);
    const usd = MARCH.replace('<Amt Ccy="EUR">178.50</Amt>', '<Amt Ccy="USD">178.50</Amt>');
    const res = await importCamt(t, usd);
    expectStatus(res, 201);
    const line = (await get(t, '/payment/bank-account-transactions?limit=100')).body.data.find((l: { remittanceInformation: string }) => l.remittanceInformation.startsWith('Rechnungen'));
    expect(line).toMatchObject({ status: 'STATUS_MANUAL_MATCHING_REQUIRED', amount: { amount: '178.50', currencyCode: 'USD' }, assignments: [] });
    expect((await get(t, `/invoices/${s.inv[1]!.id}`)).body.unpaidAmount.amount).toBe('119.00');
  });
});

describe('every camt fixture imports or is refused with a reason', () => {
  it('genkgo/camt and hbci4java files', async () => {
    const t = await createTenant();
    const outcomes: Record<string, string> = {};
    for (const [name, xml] of [...Object.entries(GENKGO_XML), ...Object.entries(HBCI_XML)].sort()) {
      const res = await importCamt(t, xml);
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
      outcomes[name] = res.status === 422 ? `422 ${violations(res).join(', ')}` : `${res.status} ${res.body.import.format} +${res.body.added}`;
    }
    expect(outcomes).toMatchObject({
      'camt052.v1.xml': '422 Document: unsupported_version',
      'camt053.v2.wrong.xml': '422 BkToCstmrStmt.Stmt: missing',
      'camt053.v2.five.decimals.xml': expect.stringMatching(/^201 camt\.053\.001\.02/),
      'camt053.v2.multi.statement.xml': expect.stringMatching(/^201 camt\.053\.001\.02/),
      // The same booking (account and account servicer reference) as camt054.v4.xml: imported once.
      'camt054.v4.xml': '201 camt.054.001.04 +1',
      'camt054.v8.xml': '201 camt.054.001.08 +0',
      'test-camt-parse-invalid.xml': '422 Document: not_camt',
      'test-camt-parse-none.xml': '422 Document: not_camt',
      'test-camt-ruecklastschrift.xml': '201 camt.052.001.02 +1',
    });
    const refused = Object.values(outcomes).filter((o) => o.startsWith('422')).length;
    expect(refused).toBe(4);
    // The return hbci4java books names no collection of this tenant: it waits for a person.
    const manual = await get(t, '/payment/bank-account-transactions?status=STATUS_MANUAL_MATCHING_REQUIRED&limit=100');
    expect(manual.body.data.map((l: { amount: { amount: string }; returnReason: string; returnFee: { amount: string } | null }) => [l.amount.amount, l.returnReason, l.returnFee?.amount])).toContainEqual(['-53.00', 'MS03', '3.00']);
  });
});

describe('assignments that cannot be made', () => {
  async function setup() {
    const t = await createTenant();
    const s = await ownStatementScenario(t);
    expectStatus(await importCamt(t, MARCH), 201);
    const all = (await get(t, '/payment/bank-account-transactions?limit=100')).body.data as { id: string; remittanceInformation: string }[];
    const line = (text: string) => all.find((l) => l.remittanceInformation.startsWith(text))!.id;
    const usd = await invoiceOf(t, (await createCustomer(t)).id, '10.00', { currencyCode: 'USD' });
    return { t, s, line, usd };
  }

  it('POST: amounts, currencies, states and references are each named', async () => {
    const { t, s, line, usd } = await setup();
    const gift = line('Spende');
    const before = await bankRows(t);
    const cases: [Record<string, unknown>, string[]][] = [
      [{ bankAccountTransaction: gift, invoice: s.inv[9]!.id, amount: '-5.00' }, ['amount: negative']],
      [{ bankAccountTransaction: gift, invoice: s.inv[9]!.id, amount: '1.005' }, ['amount: too_many_decimals']],
      [{ bankAccountTransaction: gift, invoice: s.inv[9]!.id, amount: '0' }, ['amount: too_small']],
      [{ bankAccountTransaction: gift, invoice: s.inv[3]!.id, amount: '42.01' }, ['amount: exceeds_remainder']],
      [{ bankAccountTransaction: gift, invoice: s.inv[9]!.id, amount: '23.81' }, ['amount: overpayment']],
      [{ bankAccountTransaction: gift, invoice: usd.id }, ['invoice: currency_mismatch']],
      [{ bankAccountTransaction: gift, invoice: s.inv[1]!.id }, ['invoice: not_open']],
      [{ bankAccountTransaction: gift, invoice: 'nope' }, ['invoice: not_found']],
      [{ bankAccountTransaction: 'nope', invoice: s.inv[9]!.id }, ['bankAccountTransaction: not_found']],
      [{ bankAccountTransaction: line('Kontofuehrung'), invoice: s.inv[9]!.id }, ['bankAccountTransaction: not_a_credit']],
      [{ bankAccountTransaction: line('Rechnungen'), invoice: s.inv[9]!.id }, ['bankAccountTransaction: fully_assigned']],
      [{ bankAccountTransaction: gift, invoice: s.inv[9]!.id, fee: '0.001' }, ['fee: too_many_decimals']],
      // Beyond the document limit (and beyond what minor units hold exactly): named, not a 500.
      [{ bankAccountTransaction: gift, invoice: s.inv[9]!.id, amount: '99999999999999' }, ['amount: too_large']],
      [{ bankAccountTransaction: gift, invoice: s.inv[9]!.id, amount: '10.00', fee: '99999999999999' }, ['fee: too_large']],
      [{ bankAccountTransaction: gift, invoice: s.inv[9]!.id, amount: '1000000000000' }, ['amount: too_large']],
    ];
    for (const [body, expected] of cases) {
      const res = await post(t, '/payment/bank-account-transaction-assignments', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(violations(res), JSON.stringify(body)).toEqual(expected);
    }
    expect(await bankRows(t)).toEqual(before);
  });

  it('assign-invoices: each invoice that cannot be paid is named', async () => {
    const { t, s, line, usd } = await setup();
    const before = await bankRows(t);
    const res = await put(t, `/payment/bank-account-transactions/${line('Spende')}/assign-invoices`, { invoiceIds: [s.inv[9]!.id, 'nope', s.inv[1]!.id, usd.id, s.inv[9]!.id] });
    expectProblem(res, 422);
    expect(violations(res)).toEqual(['invoiceIds[1]: not_found', 'invoiceIds[2]: not_open', 'invoiceIds[3]: currency_mismatch', 'invoiceIds[4]: duplicate']);
    expect(violations(await put(t, `/payment/bank-account-transactions/${line('Spende')}/assign-invoices`, { invoiceIds: [] }))).toEqual(['invoiceIds: too_small']);
    expect(violations(await put(t, `/payment/bank-account-transactions/${line('Kontofuehrung')}/assign-invoices`, { invoiceIds: [s.inv[9]!.id] }))).toEqual(['invoiceIds: not_a_credit']);
    expectProblem(await put(t, '/payment/bank-account-transactions/nope/assign-invoices', { invoiceIds: [s.inv[9]!.id] }), 404);
    expect(await bankRows(t)).toEqual(before);
  });
});
