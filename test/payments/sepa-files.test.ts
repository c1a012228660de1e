import { describe, expect, it } from 'vitest';
import { api, countRows, download, eventsOf, expect422, expectProblem, expectStatus, get, ids, post, put, query, unique, type TestTenant, dbOf } from '../support/api';
import { countedStatus, created, createCustomer, createTenant, ok, setClock } from '../support/builders';
import { finalizedInvoice, line, SETTINGS } from '../documents/builders';
import { BIC, CREDITOR_ID, IBAN, OTHER_IBAN, paymentSettings, sepaMethod, testingMethod } from './builders';
import { validateSepa } from '../support/oracles';

// POST /sepa-xml and the files it writes (docs/decisions.md, Payments, "SEPA files"). Amounts are
// written by hand: a 100.00 line at 19 % is 119.00, 33.33 is 39.66 (6.3327 tax → 6.33), 0.10 is
// 0.12 (0.019 → 0.02). The tenant's clock stands on Monday 2026-11-23, so the next possible
// collection date is Tuesday 2026-11-24.

const MONDAY = '2026-11-23';
const TUESDAY = '2026-11-24';
const PAYER_BIC = 'BYLADEM1001';

async function sepaTenant(options: { creditorId?: string | null; documents?: boolean; day?: string } = {}) {
  const t = await createTenant();
  await setClock(t, `${options.day ?? MONDAY}T09:00:00Z`);
  if (options.documents !== false) await ok(put(t, '/settings/documents', SETTINGS));
  if (options.creditorId !== null) await paymentSettings(t, { 'sepa.creditorId': options.creditorId ?? CREDITOR_ID });
  return t;
}

/** A customer paying by SEPA direct debit (its first method, so its default). */
async function sepaPayer(t: TestTenant, accountHolder = 'Erika Mustermann', iban = OTHER_IBAN) {
  const c = await createCustomer(t, { firstName: 'Erika', lastName: 'Mustermann' });
  const method = await sepaMethod(t, c.id, { sepaDebit: { iban, bic: PAYER_BIC, accountHolder } });
  return { c, method };
}

const invoiceOf = (t: TestTenant, customerId: string, ...prices: string[]) => finalizedInvoice(t, customerId, prices.map((p) => line(p)));

const createFile = (t: TestTenant, body: Record<string, unknown> = {}) => post(t, '/sepa-xml', body);

/** The file's XML, through its signed download link (as a tenant downloads it). */
async function xmlOf(t: TestTenant, fileId: string): Promise<string> {
  const link = await ok(put(t, `/sepa-xml/${fileId}/download-link?secondsValid=60`));
  const url = new URL(link.url);
  const res = await download(`${url.pathname}${url.search}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('Content-Type')).toBe('application/xml');
  return new TextDecoder().decode(res.bytes);
}

/** Every text of an element, in document order. */
const texts = (xml: string, element: string) => [...xml.matchAll(new RegExp(`<${element}(?: [^>]*)?>([^<]*)</${element}>`, 'g'))].map((m) => m[1]!);

const liveDebits = (t: TestTenant, invoiceId: string) =>
  query<{ id: string; status: string; sepa_file_id: string | null; reference_id: string; sepa_sequence_type: string; collection_date: string; amount: number; attempt: number; idempotency_key: string }>(
    t,
    "SELECT * FROM transactions WHERE tenant_id = ? AND invoice_id = ? AND type = 'payment' AND status IN ('pending', 'processing', 'action_required')",
    t.id,
    invoiceId,
  );

describe('POST /sepa-xml: direct debits', () => {
  it('carries at most sepa.maxDebitsPerFile debits, the oldest first; the rest stay due for the next file', async () => {
    const t = await sepaTenant();
    await paymentSettings(t, { 'sepa.maxDebitsPerFile': 2 });
    const erika = await sepaPayer(t);
    const first = await invoiceOf(t, erika.c.id, '10.00');
    const second = await invoiceOf(t, erika.c.id, '20.00');
    const third = await invoiceOf(t, erika.c.id, '30.00');
    const a = await created(createFile(t));
    expect(a).toMatchObject({ numberOfTransactions: 2, controlSum: '35.70' });
    expect((await ok(get(t, `/sepa-xml/${a.id}`))).transactions.map((x: any) => x.invoice.id)).toEqual([first.id, second.id]);
    const b = await created(createFile(t));
    expect(b).toMatchObject({ numberOfTransactions: 1, controlSum: '35.70' });
    expect((await ok(get(t, `/sepa-xml/${b.id}`))).transactions.map((x: any) => x.invoice.id)).toEqual([third.id]);
    expect((await createFile(t)).status).toBe(409);
    expect422(await api('/settings', { token: t.key, method: 'PATCH', body: { settings: [{ key: 'sepa.maxDebitsPerFile', value: 10001 }] } }), ['settings[0].value']);
  });

  it('collects every open SEPA invoice in one pain.008 file, FRST for new mandates, to the cent', async () => {
    const t = await sepaTenant();
    const erika = await sepaPayer(t);
    const max = await sepaPayer(t, 'Max Müller-Lüdenscheidt', IBAN);
    const a = await invoiceOf(t, erika.c.id, '100.00'); // 119.00
    const b = await invoiceOf(t, erika.c.id, '33.33'); // 39.66
    const c = await invoiceOf(t, max.c.id, '0.10'); // 0.12
    // Partly paid: 119.00 − 19.00 = 100.00 is debited.
    const d = await invoiceOf(t, max.c.id, '100.00');
    await created(post(t, `/invoices/${d.id}/payments`, { amount: '19.00' }));
    // Partly credited: 119.00 − 23.80 (20.00 + 19 %) = 95.20 is left to pay.
    const e = await invoiceOf(t, max.c.id, '100.00');
    await created(post(t, `/invoices/${e.id}/credit`, { positions: [line('20.00')] }));

    // Not collected: paid, draft, another method, a revoked mandate, an invoice told to use a transfer.
    const paid = await invoiceOf(t, erika.c.id, '10.00');
    await created(post(t, `/invoices/${paid.id}/payments`, { amount: '11.90' }));
    await created(post(t, '/invoices', { customer: erika.c.id, positions: [line('50.00')] }));
    const card = await createCustomer(t);
    await testingMethod(t, card.id);
    const cardInvoice = await invoiceOf(t, card.id, '10.00');
    const revoked = await sepaPayer(t, 'Revoked Payer');
    const revokedInvoice = await invoiceOf(t, revoked.c.id, '10.00');
    await ok(put(t, `/payment-methods/${revoked.method.id}/revoke`));
    const transfer = await createCustomer(t);
    const transferMethod = await created(post(t, '/payment-methods', { customer: transfer.id, type: 'bank_transfer' }));
    const mandateOfTransfer = await sepaMethod(t, transfer.id, { default: true });
    const toldToTransfer = await invoiceOf(t, transfer.id, '10.00');
    await created(post(t, `/invoices/${toldToTransfer.id}/payment-method`, { paymentMethod: transferMethod.id }));
    expect(mandateOfTransfer.default).toBe(true);

    const res = await createFile(t);
    expectStatus(res, 201);
    const file = res.body;
    expect(file).toEqual({
      id: expect.any(String),
      type: 'direct_debit',
      format: 'pain.008.001.02',
      messageId: expect.stringMatching(/^DD-20261124-[0-9a-f]{23}$/),
      collectionDate: TUESDAY,
      numberOfTransactions: 5,
      controlSum: '353.98', // 119.00 + 39.66 + 0.12 + 100.00 + 95.20
      currencyCode: 'EUR',
      createdAt: `${MONDAY}T09:00:00.000Z`,
      file: expect.objectContaining({ mimeType: 'application/xml', fileExtension: 'xml', fileName: `${file.messageId}.xml`, isPrivate: true }),
      skipped: [],
    });

    // Each debit is a processing transaction of its invoice, which stays open until the bank pays.
    const expected: [any, string][] = [
      [a, '119.00'],
      [b, '39.66'],
      [c, '0.12'],
      [d, '100.00'],
      [e, '95.20'],
    ];
    for (const [invoice, amount] of expected) {
      const [tx, ...more] = await liveDebits(t, invoice.id);
      expect(more).toEqual([]);
      expect(tx).toMatchObject({ status: 'processing', sepa_file_id: file.id, reference_id: invoice.number, sepa_sequence_type: 'FRST', collection_date: TUESDAY, attempt: 1 });
      expect((tx!.amount / 100).toFixed(2)).toBe(amount);
      expect(countedStatus(await ok(get(t, `/invoices/${invoice.id}`)))).toBe('STATUS_UNPAID');
    }
    for (const other of [paid, cardInvoice, revokedInvoice, toldToTransfer]) expect(await liveDebits(t, other.id)).toEqual([]);
    const [used] = await query<{ mandate_first_used_at: string | null }>(t, 'SELECT mandate_first_used_at FROM payment_methods WHERE id = ?', erika.method.id);
    expect(used!.mandate_first_used_at).toBe(`${MONDAY}T09:00:00.000Z`);
    // The mandate now shows RCUR for its next debit, announced once per mandate.
    const updates = (await eventsOf(t, erika.method.id)).filter((ev) => ev.type === 'payment_method.updated');
    expect(updates.map((ev) => ev.data.sepaMandate.sequenceType)).toEqual(['RCUR']);
    expect((await ok(get(t, `/payment-methods/${erika.method.id}`))).sepaMandate.sequenceType).toBe('RCUR');
    expect(JSON.stringify(updates)).not.toContain(OTHER_IBAN);

    // The file itself: group header and one FRST PmtInf, the invoices' numbers as end-to-end ids.
    const xml = await xmlOf(t, file.id);
    expect(xml).toContain('urn:iso:std:iso:20022:tech:xsd:pain.008.001.02');
    expect(texts(xml, 'MsgId')).toEqual([file.messageId]);
    expect(texts(xml, 'NbOfTxs')).toEqual(['5', '5']);
    expect(texts(xml, 'CtrlSum')).toEqual(['353.98', '353.98']);
    expect(texts(xml, 'SeqTp')).toEqual(['FRST']);
    expect(texts(xml, 'ReqdColltnDt')).toEqual([TUESDAY]);
    expect(texts(xml, 'EndToEndId')).toEqual([a.number, b.number, c.number, d.number, e.number]);
    expect(texts(xml, 'InstdAmt')).toEqual(['119.00', '39.66', '0.12', '100.00', '95.20']);
    expect(texts(xml, 'Ustrd')).toEqual([a.number, b.number, c.number, d.number, e.number]);
    expect(texts(xml, 'MndtId')).toEqual([erika.method.referenceId, erika.method.referenceId, max.method.referenceId, max.method.referenceId, max.method.referenceId]);
    // Creditor: the settings' seller, account and creditor id; debtors as their mandates name them (SEPA letters).
    expect(texts(xml, 'Nm')).toEqual(['Letterhead GmbH', 'Letterhead GmbH', 'Erika Mustermann', 'Erika Mustermann', 'Max Mueller-Luedenscheidt', 'Max Mueller-Luedenscheidt', 'Max Mueller-Luedenscheidt']);
    expect(texts(xml, 'Id')).toContain(CREDITOR_ID);
    expect(texts(xml, 'IBAN')).toEqual([IBAN, OTHER_IBAN, OTHER_IBAN, IBAN, IBAN, IBAN]);
    expect(texts(xml, 'BIC')).toEqual([BIC, PAYER_BIC, PAYER_BIC, PAYER_BIC, PAYER_BIC, PAYER_BIC]);

    // GET shows the transactions with masked IBANs; no answer carries a full IBAN.
    const detail = await ok(get(t, `/sepa-xml/${file.id}`));
    expect(detail.transactions).toHaveLength(5);
    expect(detail.transactions.find((x: any) => x.invoice.id === a.id)).toEqual({
      id: expect.any(String),
      type: 'payment',
      status: 'processing',
      customer: { id: erika.c.id },
      invoice: { id: a.id, number: a.number },
      amount: '119.00',
      sequenceType: 'FRST',
      endToEndId: a.number,
      mandateReference: erika.method.referenceId,
      iban: 'DE02**************2051',
    });
    const { skipped: _, ...listed } = file;
    expect((await ok(get(t, '/sepa-xml'))).data).toEqual([listed]);
    for (const body of [file, detail]) expect(JSON.stringify(body)).not.toMatch(new RegExp(`${IBAN}|${OTHER_IBAN}`));
  });

  it('takes an invoice into one file only; the next file has the new ones, RCUR for used mandates', async () => {
    const t = await sepaTenant();
    const erika = await sepaPayer(t);
    const first = await invoiceOf(t, erika.c.id, '100.00');
    const one = await created(createFile(t));
    expect(one.numberOfTransactions).toBe(1);

    const again = await createFile(t);
    expectProblem(again, 409, '/problems/nothing-to-collect');
    expect(await countRows('sepa_files', t)).toBe(1);

    const second = await invoiceOf(t, erika.c.id, '33.33');
    const max = await sepaPayer(t, 'Max Mustermann', IBAN);
    const third = await invoiceOf(t, max.c.id, '0.10');
    const two = await created(createFile(t));
    expect(two).toMatchObject({ numberOfTransactions: 2, controlSum: '39.78' });
    const xml = await xmlOf(t, two.id);
    // One PmtInf per sequence type: the new mandate first, then the used one.
    expect(texts(xml, 'SeqTp')).toEqual(['FRST', 'RCUR']);
    expect(texts(xml, 'NbOfTxs')).toEqual(['2', '1', '1']);
    expect(texts(xml, 'CtrlSum')).toEqual(['39.78', '0.12', '39.66']);
    expect(texts(xml, 'EndToEndId')).toEqual([third.number, second.number]);
    expect((await liveDebits(t, first.id))[0]!.sepa_file_id).toBe(one.id);
    expect((await liveDebits(t, second.id))[0]).toMatchObject({ sepa_file_id: two.id, sepa_sequence_type: 'RCUR' });
    expect(ids(await get(t, '/sepa-xml'))).toEqual([two.id, one.id]);
  });

  it('puts each invoice in exactly one file when two files are made at the same time', async () => {
    const t = await sepaTenant();
    const payers = await Promise.all([sepaPayer(t), sepaPayer(t, 'Max Mustermann', IBAN)]);
    const invoices = [];
    for (const p of payers) for (const price of ['10.00', '20.00', '30.00']) invoices.push(await invoiceOf(t, p.c.id, price));

    const answers = await Promise.all([createFile(t), createFile(t)]);
    const made = answers.filter((r) => r.status === 201);
    for (const r of answers.filter((r) => r.status !== 201)) expectProblem(r, 409);
    expect(made.length).toBeGreaterThanOrEqual(1);
    expect(made.reduce((n, r) => n + r.body.numberOfTransactions, 0)).toBe(6);
    for (const invoice of invoices) expect(await liveDebits(t, invoice.id)).toHaveLength(1);
    expect(await countRows('transactions', t, "AND type = 'payment'")).toBe(6);
    expect(await countRows('sepa_files', t)).toBe(made.length);
  });

  it('writes pain.008.001.08 when asked, and as the setting says', async () => {
    const t = await sepaTenant();
    const erika = await sepaPayer(t);
    await invoiceOf(t, erika.c.id, '100.00');
    const asked = await created(createFile(t, { format: 'pain.008.001.08', collectionDate: '2026-12-24' }));
    expect(asked).toMatchObject({ format: 'pain.008.001.08', collectionDate: '2026-12-24' });
    const xml = await xmlOf(t, asked.id);
    expect(xml).toContain('urn:iso:std:iso:20022:tech:xsd:pain.008.001.08');
    expect(texts(xml, 'BICFI')).toEqual([BIC, PAYER_BIC]);

    await paymentSettings(t, { 'sepa.format': 'pain.008.001.08' });
    await invoiceOf(t, erika.c.id, '10.00');
    expect((await created(createFile(t))).format).toBe('pain.008.001.08');
  });

  it('leaves out a debit the file cannot carry, names why, and writes the rest', async () => {
    const t = await sepaTenant();
    const erika = await sepaPayer(t);
    const ok1 = await invoiceOf(t, erika.c.id, '100.00');
    // A holder name without one letter of the SEPA set and a customer without a name to fall back on.
    const nameless = await createCustomer(t);
    const method = await sepaMethod(t, nameless.id);
    await (await dbOf(t)).prepare("UPDATE payment_methods SET details = json_set(details, '$.accountHolder', '李明') WHERE id = ?").bind(method.id).run();
    const noName = await invoiceOf(t, nameless.id, '10.00');
    // A mandate signed after the collection date.
    const late = await sepaPayer(t, 'Late Signer', IBAN);
    await (await dbOf(t)).prepare("UPDATE payment_methods SET mandate_signed_at = '2026-12-01' WHERE id = ?").bind(late.method.id).run();
    const lateInvoice = await invoiceOf(t, late.c.id, '10.00');

    const file = await created(createFile(t));
    expect(file).toMatchObject({ numberOfTransactions: 1, controlSum: '119.00' });
    // Found while reading (the mandate's date), then by the writer's own rules (the name).
    expect(file.skipped).toEqual([
      { invoice: { id: lateInvoice.id, number: lateInvoice.number }, transactionId: null, reason: 'The mandate is signed on 2026-12-01, after the collection date.' },
      { invoice: { id: noName.id, number: noName.number }, transactionId: null, reason: 'debtor.name: Must contain at least one letter or digit of the SEPA character set.' },
    ]);
    expect(await liveDebits(t, ok1.id)).toHaveLength(1);
    expect(await liveDebits(t, noName.id)).toEqual([]);
    // Left out, not consumed: a later file takes it once it can be written.
    const [unused] = await query<{ mandate_first_used_at: string | null }>(t, 'SELECT mandate_first_used_at FROM payment_methods WHERE id = ?', method.id);
    expect(unused!.mandate_first_used_at).toBeNull();
  });
});

describe('POST /sepa-xml: what is refused', () => {
  it.each([
    ['a malformed date', { collectionDate: '24.11.2026' }, ['collectionDate'], null],
    ['an impossible date', { collectionDate: '2026-02-30' }, ['collectionDate'], null],
    ['today', { collectionDate: MONDAY }, ['collectionDate'], 'too_early'],
    ['a past date', { collectionDate: '2026-11-20' }, ['collectionDate'], 'too_early'],
    ['a Saturday', { collectionDate: '2026-11-28' }, ['collectionDate'], 'not_business_day'],
    ['Christmas Day', { collectionDate: '2026-12-25' }, ['collectionDate'], 'not_business_day'],
    ['Good Friday', { collectionDate: '2027-03-26' }, ['collectionDate'], 'not_business_day'],
    ['a credit-transfer format for debits', { format: 'pain.001.001.03' }, ['format'], 'format_mismatch'],
    ['a debit format for transfers', { type: 'credit_transfer', format: 'pain.008.001.02' }, ['format'], 'format_mismatch'],
    ['an unknown type', { type: 'cheque' }, ['type'], null],
    ['an unknown field', { amount: '1.00' }, ['amount'], 'unknown_field'],
  ])('%s', async (_, body, paths, code) => {
    const t = await sepaTenant();
    const erika = await sepaPayer(t);
    await invoiceOf(t, erika.c.id, '100.00');
    const res = await createFile(t, body);
    expect422(res, paths);
    if (code) expect(res.body.violations[0].code).toBe(code);
    expect(await countRows('sepa_files', t)).toBe(0);
    expect(await countRows('transactions', t)).toBe(0);
  });

  it('needs the creditor identifier and the bank account, and names what to set', async () => {
    const noCreditor = await sepaTenant({ creditorId: null });
    const res = await createFile(noCreditor);
    expect422(res, ['sepa.creditorId']);
    expect(res.body.violations[0].message).toMatch(/PATCH \/settings/);

    const badCreditor = await sepaTenant({ creditorId: 'DE00ZZZ09999999999' });
    expect(violationCodes(await createFile(badCreditor))).toEqual(['sepa.creditorId: invalid_creditor_id']);

    const noAccount = await sepaTenant({ documents: false });
    expect422(await createFile(noAccount), ['bankAccount']);
    expect422(await createFile(await sepaTenant({ documents: false, creditorId: null })), ['bankAccount', 'sepa.creditorId']);
    // Transfers need no creditor identifier, only the account they are paid from.
    expectProblem(await createFile(noCreditor, { type: 'credit_transfer' }), 409, '/problems/nothing-to-collect');
  });

  it('chooses the next TARGET business day when no date is given', async () => {
    for (const [day, next] of [
      ['2026-11-27', '2026-11-30'],
      ['2026-12-24', '2026-12-28'],
      ['2027-03-25', '2027-03-30'],
    ]) {
      const t = await sepaTenant({ day });
      const erika = await sepaPayer(t);
      await invoiceOf(t, erika.c.id, '10.00');
      expect((await created(createFile(t))).collectionDate).toBe(next);
    }
  });

  it('answers 409 when nothing is due', async () => {
    const t = await sepaTenant();
    const res = await createFile(t);
    expectProblem(res, 409, '/problems/nothing-to-collect');
    expect(await countRows('sepa_files', t)).toBe(0);
    expect(await countRows('media', t)).toBe(0);
  });
});

const violationCodes = (res: { body: any }) => (res.body.violations as { propertyPath: string; code: string }[]).map((v) => `${v.propertyPath}: ${v.code}`);

describe('POST /sepa-xml: credit transfers', () => {
  it('pays out pending refunds and credit notes of paid invoices in one pain.001 file', async () => {
    const t = await sepaTenant();
    const erika = await sepaPayer(t);
    const invoice = await invoiceOf(t, erika.c.id, '100.00');
    // A pending refund of a SEPA payment, as POST /transactions/{id}/refund leaves it.
    const refundId = crypto.randomUUID();
    await (await dbOf(t)).prepare(
      `INSERT INTO transactions (id, tenant_id, customer_id, invoice_id, payment_method_id, type, gateway, status, currency_code, amount, document_number, idempotency_key, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'refund', 'sepa_debit', 'pending', 'EUR', 2500, ?, ?, ?, ?)`,
    )
      .bind(refundId, t.id, erika.c.id, invoice.id, erika.method.id, invoice.number, `refund:${unique()}`, `${MONDAY}T08:00:00.000Z`, `${MONDAY}T08:00:00.000Z`)
      .run();
    // A paid invoice credited by 23.80 owes the customer 23.80; a credit on an unpaid invoice owes nothing.
    const paid = await invoiceOf(t, erika.c.id, '100.00');
    await created(post(t, `/invoices/${paid.id}/payments`, { amount: '119.00' }));
    const credit = await created(post(t, `/invoices/${paid.id}/credit`, { positions: [line('20.00')] }));
    const open = await invoiceOf(t, erika.c.id, '100.00');
    await created(post(t, `/invoices/${open.id}/credit`, { positions: [line('20.00')] }));

    const file = await created(createFile(t, { type: 'credit_transfer' }));
    expect(file).toMatchObject({ type: 'credit_transfer', format: 'pain.001.001.03', collectionDate: TUESDAY, numberOfTransactions: 2, controlSum: '48.80', skipped: [] });
    expect(file.messageId).toMatch(/^CT-20261124-/);
    const [refund] = await query<Record<string, any>>(t, 'SELECT * FROM transactions WHERE id = ?', refundId);
    expect(refund).toMatchObject({ status: 'processing', sepa_file_id: file.id, reference_id: refundId.replace(/-/g, ''), collection_date: TUESDAY });
    const [payout, ...more] = await query<Record<string, any>>(t, "SELECT * FROM transactions WHERE tenant_id = ? AND invoice_id = ? AND type = 'refund'", t.id, credit.id);
    expect(more).toEqual([]);
    expect(payout).toMatchObject({ status: 'processing', amount: 2380, gateway: 'bank_transfer', sepa_file_id: file.id, document_number: credit.number, payment_method_id: erika.method.id });

    const xml = await xmlOf(t, file.id);
    expect(xml).toContain('urn:iso:std:iso:20022:tech:xsd:pain.001.001.03');
    expect(texts(xml, 'NbOfTxs')).toEqual(['2', '2']);
    expect(texts(xml, 'CtrlSum')).toEqual(['48.80', '48.80']);
    expect(texts(xml, 'ReqdExctnDt')).toEqual([TUESDAY]);
    expect(texts(xml, 'InstdAmt')).toEqual(['25.00', '23.80']);
    expect(texts(xml, 'EndToEndId')).toEqual([refundId.replace(/-/g, ''), payout!.reference_id]);
    expect(texts(xml, 'IBAN')).toEqual([IBAN, OTHER_IBAN, OTHER_IBAN]);

    const detail = await ok(get(t, `/sepa-xml/${file.id}`));
    expect(detail.transactions.map((x: any) => [x.type, x.amount, x.invoice?.number, x.iban])).toEqual(
      expect.arrayContaining([
        ['refund', '25.00', invoice.number, 'DE02**************2051'],
        ['refund', '23.80', credit.number, 'DE02**************2051'],
      ]),
    );
    // Paid out once: nothing is left for a second file.
    expectProblem(await createFile(t, { type: 'credit_transfer' }), 409, '/problems/nothing-to-collect');
    expect(ids(await get(t, '/sepa-xml?type=credit_transfer'))).toEqual([file.id]);
    expect(ids(await get(t, '/sepa-xml?type=direct_debit'))).toEqual([]);
  });
});

describe('GET /sepa-xml and the download link', () => {
  it('pages the list, and hides other tenants’ files', async () => {
    const t = await sepaTenant();
    const erika = await sepaPayer(t);
    const made = [];
    for (const price of ['10.00', '20.00', '30.00']) {
      await invoiceOf(t, erika.c.id, price);
      made.push(await created(createFile(t)));
    }
    const page = await ok(get(t, '/sepa-xml?limit=2&page=2'));
    expect(page.meta.pagination).toEqual({ totalItems: 3, itemsPerPage: 2, currentPage: 2, lastPage: 2, pageTotalItems: 1 });
    expect(page.data.map((f: any) => f.id)).toEqual([made[0].id]);

    const other = await sepaTenant();
    expectProblem(await get(other, `/sepa-xml/${made[0].id}`), 404);
    expectProblem(await put(other, `/sepa-xml/${made[0].id}/download-link`), 404);
    expect((await ok(get(other, '/sepa-xml'))).data).toEqual([]);

    // A tampered link is refused like every document link.
    const link = await ok(put(t, `/sepa-xml/${made[0].id}/download-link`));
    const url = new URL(link.url);
    expect((await download(`${url.pathname}?expires=${url.searchParams.get('expires')}&signature=${'0'.repeat(64)}`)).status).toBe(403);
    expect(link.expiresAt).toEqual(expect.any(String));
  });

  it('needs sepa-xml permissions', async () => {
    const t = await sepaTenant();
    const readOnly = await created(api('/api-keys', { token: t.key, body: { name: 'reader', permissions: ['sepa-xml:read'] } }));
    expectStatus(await api('/sepa-xml', { token: readOnly.key, body: {} }), 403);
    expectStatus(await api('/sepa-xml', { token: readOnly.key }), 200);
  });
});

describe('the files pass the ISO 20022 schemas (and the German banks’ restricted ones)', () => {
  it('pain.008.001.02, pain.008.001.08, pain.001.001.03 and pain.001.001.09', async () => {
    const t = await sepaTenant();
    const erika = await sepaPayer(t);
    const max = await sepaPayer(t, 'Zoë Ødegård & Söhne', IBAN);
    const files: { name: string; xml: string; strict?: boolean }[] = [];
    await invoiceOf(t, erika.c.id, '100.00');
    await invoiceOf(t, max.c.id, '33.33');
    files.push({ name: 'dd-02', xml: await xmlOf(t, (await created(createFile(t))).id), strict: true });
    await invoiceOf(t, erika.c.id, '0.10');
    files.push({ name: 'dd-08', xml: await xmlOf(t, (await created(createFile(t, { format: 'pain.008.001.08' }))).id) });
    for (const [name, format, strict] of [
      ['ct-03', 'pain.001.001.03', true],
      ['ct-09', 'pain.001.001.09', false],
    ] as const) {
      const paid = await invoiceOf(t, max.c.id, '10.00');
      await created(post(t, `/invoices/${paid.id}/payments`, { amount: '11.90' }));
      await created(post(t, `/invoices/${paid.id}/credit`, {}));
      files.push({ name, xml: await xmlOf(t, (await created(createFile(t, { type: 'credit_transfer', format }))).id), strict });
    }
    const verdicts = await validateSepa(files);
    for (const f of files) expect(verdicts[f.name], f.name).toEqual({ valid: true, errors: [] });
  });
});
