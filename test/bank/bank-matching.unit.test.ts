import { describe, expect, it } from 'vitest';
import { planBankMatching, referenceCandidates, spreadAmount, type Collection, type ItemPlan, type MatchItem, type PlannedAssignment, type OpenInvoice } from '../../src/billing/bank-matching';

// The matching planner, case by case. Amounts are written in cents by hand (11900 is 119.00 EUR).

const item = (id: string, amount: number, extra: Partial<MatchItem> = {}): MatchItem => ({
  id,
  amount,
  assigned: 0,
  currency: 'EUR',
  text: null,
  endToEndId: null,
  mandateId: null,
  counterpartyIban: null,
  isReturn: false,
  returnReason: null,
  returnFee: null,
  ...extra,
});
const invoice = (id: string, number: string, unpaid: number, dueDate: string, extra: Partial<OpenInvoice> = {}): OpenInvoice => ({ id, number, customerId: `cust-${id}`, currency: 'EUR', unpaid, dueDate, ...extra });
const collection = (id: string, invoiceId: string, amount: number, extra: Partial<Collection> = {}): Collection => ({
  id,
  invoiceId,
  referenceId: `E2E-${id}`,
  mandateReference: `MANDATE-${id}`,
  amount,
  currency: 'EUR',
  status: 'processing',
  paidOnInvoice: false,
  assignedTo: [],
  givenBack: 0,
  invoiceUnpaid: amount,
  ...extra,
});
const ref = (invoiceId: string, amount: number): PlannedAssignment => ({ invoiceId, amount, matchedBy: 'reference', collectionId: null, confirmed: false });

const RE1 = invoice('i1', 'RE-0000000001', 11900, '2026-03-01');
const RE2 = invoice('i2', 'RE-0000000002', 5950, '2026-03-15');
const RE3 = invoice('i3', 'RE-0000000003', 23800, '2026-03-01');
const RE4 = invoice('i4', 'RE-0000000004', 9520, '2026-03-01');

interface Case {
  name: string;
  items: MatchItem[];
  invoices?: OpenInvoice[];
  collections?: Collection[];
  payerIbans?: { customerId: string; iban: string }[];
  expected: Partial<ItemPlan>[];
}

const cases: Case[] = [
  {
    name: 'a collection sent before a credit note: its money pays the invoice up to gross − paid (the credit note owes the rest back)',
    items: [item('b1', 11900, { endToEndId: 'E2E-c1' })],
    invoices: [invoice('i1', 'RE-0000000001', 9900, '2026-03-01', { collectable: 11900 })],
    collections: [collection('c1', 'i1', 11900)],
    expected: [{ status: 'STATUS_BOOKED', certain: [{ invoiceId: 'i1', amount: 11900, matchedBy: 'end_to_end', collectionId: 'c1', confirmed: false }], remainder: 0 }],
  },
  {
    name: 'what the dunning letter asks (open amount + fee) naming the invoice: certain, the fee paid with it',
    items: [item('b1', 12400, { text: 'Mahnung RE-0000000001' })],
    invoices: [invoice('i1', 'RE-0000000001', 11900, '2026-03-01', { fees: 500 })],
    expected: [{ status: 'STATUS_BOOKED', certain: [ref('i1', 12400)], suggestions: [], remainder: 0 }],
  },
  {
    name: 'the open amount alone of an invoice with a fee is certain too (the fee is not asked of a transfer)',
    items: [item('b1', 11900, { text: 'RE-0000000001' })],
    invoices: [invoice('i1', 'RE-0000000001', 11900, '2026-03-01', { fees: 500 })],
    expected: [{ status: 'STATUS_BOOKED', certain: [ref('i1', 11900)], suggestions: [], remainder: 0 }],
  },
  {
    name: 'more than open amount + fee: a suggestion of what is owed, the rest stays on the line',
    items: [item('b1', 12401, { text: 'RE-0000000001' })],
    invoices: [invoice('i1', 'RE-0000000001', 11900, '2026-03-01', { fees: 500 })],
    expected: [{ status: 'STATUS_MANUAL_MATCHING_REQUIRED', certain: [], suggestions: [ref('i1', 11900)], remainder: 12401 }],
  },
  {
    name: 'two invoice numbers, the amount covers both exactly: certain, oldest due first',
    items: [item('b1', 17850, { text: 'Rechnungen RE 0000000002 und RE-0000000001' })],
    invoices: [RE2, RE1],
    expected: [{ status: 'STATUS_BOOKED', certain: [ref('i1', 11900), ref('i2', 5950)], suggestions: [], remainder: 0 }],
  },
  {
    name: 'a number without separators, in lower case',
    items: [item('b1', 23800, { text: 're0000000003 danke' })],
    invoices: [RE3],
    expected: [{ status: 'STATUS_BOOKED', certain: [ref('i3', 23800)], remainder: 0 }],
  },
  {
    name: 'a structured reference line counts as text',
    items: [item('b1', 9520, { text: 'SEPA GUTSCHRIFT ; RE/0000000004' })],
    invoices: [RE4],
    expected: [{ status: 'STATUS_BOOKED', certain: [ref('i4', 9520)] }],
  },
  {
    name: 'an under-payment is a suggestion of what came, the invoice keeps the rest open',
    items: [item('b1', 20000, { text: 'RE-0000000003 Teilzahlung' })],
    invoices: [RE3],
    expected: [{ status: 'STATUS_MANUAL_MATCHING_REQUIRED', certain: [], suggestions: [ref('i3', 20000)], remainder: 20000 }],
  },
  {
    name: 'an under-payment of two invoices pays the older one fully, then part of the next',
    items: [item('b1', 12000, { text: 'RE-0000000001, RE-0000000002' })],
    invoices: [invoice('i1', 'RE-0000000001', 10000, '2026-01-10'), invoice('i2', 'RE-0000000002', 5000, '2026-01-05')],
    expected: [{ status: 'STATUS_MANUAL_MATCHING_REQUIRED', suggestions: [ref('i2', 5000), ref('i1', 7000)], remainder: 12000 }],
  },
  {
    name: 'an over-payment suggests the invoice and leaves the rest on the bank line',
    items: [item('b1', 10000, { text: 'Invoice re-0000000004, thank you' })],
    invoices: [RE4],
    expected: [{ status: 'STATUS_MANUAL_MATCHING_REQUIRED', certain: [], suggestions: [ref('i4', 9520)], remainder: 10000 }],
  },
  {
    name: 'whole numbers only: RE-00000000012 is not RE-0000000001, nor is XRE-0000000001',
    items: [item('b1', 11900, { text: 'RE-00000000012' }), item('b2', 11900, { text: 'XRE-0000000001' })],
    invoices: [RE1],
    expected: [
      { status: 'STATUS_MANUAL_MATCHING_REQUIRED', certain: [], suggestions: [] },
      { status: 'STATUS_MANUAL_MATCHING_REQUIRED', certain: [], suggestions: [] },
    ],
  },
  {
    name: 'an invoice in another currency is no match',
    items: [item('b1', 11900, { text: 'RE-0000000001' })],
    invoices: [{ ...RE1, currency: 'USD' }],
    expected: [{ status: 'STATUS_MANUAL_MATCHING_REQUIRED', certain: [], suggestions: [], remainder: 11900 }],
  },
  {
    name: 'an invoice paid by an earlier line of the statement is not paid twice',
    items: [item('b1', 11900, { text: 'RE-0000000001' }), item('b2', 11900, { text: 'RE-0000000001 nochmal' })],
    invoices: [RE1],
    expected: [
      { status: 'STATUS_BOOKED', certain: [ref('i1', 11900)] },
      { status: 'STATUS_MANUAL_MATCHING_REQUIRED', certain: [], suggestions: [], remainder: 11900 },
    ],
  },
  {
    name: 'suggestions of two lines for one invoice never add up to more than it is owed',
    items: [item('b1', 6000, { text: 'RE-0000000001' }), item('b2', 6000, { text: 'RE-0000000001' })],
    invoices: [invoice('i1', 'RE-0000000001', 10000, '2026-03-01')],
    expected: [{ suggestions: [ref('i1', 6000)] }, { suggestions: [ref('i1', 4000)], remainder: 6000 }],
  },
  {
    name: 'the end-to-end id of a collection in a SEPA file settles it',
    items: [item('b1', 3570, { endToEndId: 'E2E-c5', text: 'RE-0000000001' })],
    invoices: [invoice('i5', 'RE-0000000005', 3570, '2026-03-01')],
    collections: [collection('c5', 'i5', 3570)],
    expected: [{ status: 'STATUS_BOOKED', certain: [{ invoiceId: 'i5', amount: 3570, matchedBy: 'end_to_end', collectionId: 'c5', confirmed: false }], remainder: 0 }],
  },
  {
    name: 'an end-to-end id with another amount settles nothing',
    items: [item('b1', 3500, { endToEndId: 'E2E-c5' })],
    invoices: [invoice('i5', 'RE-0000000005', 3570, '2026-03-01')],
    collections: [collection('c5', 'i5', 3570)],
    expected: [{ status: 'STATUS_MANUAL_MATCHING_REQUIRED', certain: [], suggestions: [], remainder: 3500 }],
  },
  {
    name: 'the mandate alone settles the one collection of that amount; a second line with it finds none left',
    items: [item('b1', 4760, { mandateId: 'MANDATE-c6' }), item('b2', 4760, { mandateId: 'MANDATE-c6' })],
    invoices: [invoice('i6', 'RE-0000000006', 4760, '2026-03-01')],
    collections: [collection('c6', 'i6', 4760, { referenceId: null })],
    expected: [
      { status: 'STATUS_BOOKED', certain: [{ invoiceId: 'i6', amount: 4760, matchedBy: 'mandate', collectionId: 'c6', confirmed: false }] },
      { status: 'STATUS_MANUAL_MATCHING_REQUIRED', certain: [] },
    ],
  },
  {
    name: 'a collection already paid on its invoice is confirmed, not paid again',
    items: [item('b1', 2975, { endToEndId: 'E2E-c8' })],
    collections: [collection('c8', 'i8', 2975, { status: 'succeeded', paidOnInvoice: true })],
    expected: [{ status: 'STATUS_BOOKED', certain: [{ invoiceId: 'i8', amount: 2975, matchedBy: 'end_to_end', collectionId: 'c8', confirmed: true }], remainder: 0 }],
  },
  {
    name: 'no reference: the one open invoice of exactly this amount of the customer paying from this IBAN is suggested',
    items: [item('b1', 1785, { counterpartyIban: 'de02 1203 0000 0000 2020 51', text: 'Danke' })],
    invoices: [invoice('i10', 'RE-0000000010', 1785, '2026-03-01', { customerId: 'h' }), invoice('i11', 'RE-0000000011', 1785, '2026-03-01', { customerId: 'other' })],
    payerIbans: [{ customerId: 'h', iban: 'DE02120300000000202051' }],
    expected: [{ status: 'STATUS_MANUAL_MATCHING_REQUIRED', certain: [], suggestions: [{ invoiceId: 'i10', amount: 1785, matchedBy: 'amount_iban', collectionId: null, confirmed: false }], remainder: 1785 }],
  },
  {
    name: 'two open invoices of that amount, or an unknown IBAN: nothing is suggested',
    items: [item('b1', 1785, { counterpartyIban: 'DE02120300000000202051' }), item('b2', 4200, { counterpartyIban: 'DE52120300001111111111' })],
    invoices: [invoice('i10', 'RE-0000000010', 1785, '2026-03-01', { customerId: 'h' }), invoice('i12', 'RE-0000000012', 1785, '2026-04-01', { customerId: 'h' })],
    payerIbans: [{ customerId: 'h', iban: 'DE02120300000000202051' }],
    expected: [
      { status: 'STATUS_MANUAL_MATCHING_REQUIRED', suggestions: [] },
      { status: 'STATUS_MANUAL_MATCHING_REQUIRED', suggestions: [] },
    ],
  },
  {
    name: 'a returned debit of a paid collection: the collection comes back with the 3.00 fee, the invoice is unpaid again',
    items: [item('b1', -3275, { isReturn: true, endToEndId: 'E2E-c8', returnReason: 'MD06', returnFee: 300 })],
    collections: [collection('c8', 'i8', 2975, { status: 'succeeded', paidOnInvoice: true })],
    expected: [{ status: 'STATUS_BOOKED', returns: [{ collectionId: 'c8', invoiceId: 'i8', amount: 2975, fee: 300, reason: 'MD06', matchedBy: 'end_to_end', unpay: true, review: false }], remainder: 0 }],
  },
  {
    name: 'a return named by its mandate only, of a collection never confirmed: nothing to take off the invoice',
    items: [item('b1', -2680, { isReturn: true, mandateId: 'MANDATE-c9', returnReason: 'AM04', returnFee: 300 })],
    collections: [collection('c9', 'i9', 2380), collection('c9b', 'i9b', 5000, { mandateReference: 'MANDATE-c9' })],
    expected: [{ status: 'STATUS_BOOKED', returns: [{ collectionId: 'c9', invoiceId: 'i9', amount: 2380, fee: 300, reason: 'AM04', matchedBy: 'mandate', unpay: false, review: false }] }],
  },
  {
    name: 'a return without a stated fee: the fee is what the bank took beyond the collection',
    items: [item('b1', -3275, { isReturn: true, endToEndId: 'E2E-c8' })],
    collections: [collection('c8', 'i8', 2975, { status: 'succeeded', paidOnInvoice: true })],
    expected: [{ returns: [{ collectionId: 'c8', invoiceId: 'i8', amount: 2975, fee: 300, reason: null, matchedBy: 'end_to_end', unpay: true, review: false }] }],
  },
  {
    name: 'a collection settled and returned in the same statement: paid, then unpaid again',
    items: [item('b1', 2975, { endToEndId: 'E2E-c8' }), item('b2', -3275, { isReturn: true, endToEndId: 'E2E-c8', returnReason: 'MD06', returnFee: 300 })],
    invoices: [invoice('i8', 'RE-0000000008', 2975, '2026-03-01')],
    collections: [collection('c8', 'i8', 2975)],
    expected: [
      { status: 'STATUS_BOOKED', certain: [{ invoiceId: 'i8', amount: 2975, matchedBy: 'end_to_end', collectionId: 'c8', confirmed: false }] },
      { status: 'STATUS_BOOKED', returns: [{ collectionId: 'c8', invoiceId: 'i8', amount: 2975, fee: 300, reason: 'MD06', matchedBy: 'end_to_end', unpay: true, review: false }] },
    ],
  },
  {
    name: 'a return nothing matches needs a person; other debits and zero amounts are ignored',
    items: [item('b1', -2680, { isReturn: true, mandateId: 'UNKNOWN' }), item('b2', -990, { text: 'Kontofuehrung RE-0000000001' }), item('b3', 0, { text: 'RE-0000000001' })],
    invoices: [RE1],
    expected: [
      { status: 'STATUS_MANUAL_MATCHING_REQUIRED', returns: [], remainder: -2680 },
      { status: 'STATUS_IGNORED', certain: [], returns: [] },
      { status: 'STATUS_IGNORED', certain: [], suggestions: [] },
    ],
  },
  {
    name: 'a second credit of a collection another line confirmed (the file sent twice): left to a person, nothing suggested',
    items: [item('b1', 2975, { endToEndId: 'E2E-c8', counterpartyIban: 'DE02120300000000202051' })],
    invoices: [invoice('i12', 'RE-0000000012', 2975, '2026-04-01', { customerId: 'h' })],
    collections: [collection('c8', 'i8', 2975, { status: 'succeeded', paidOnInvoice: true, assignedTo: ['b0'] })],
    payerIbans: [{ customerId: 'h', iban: 'DE02120300000000202051' }],
    expected: [{ status: 'STATUS_MANUAL_MATCHING_REQUIRED', certain: [], suggestions: [], returns: [], remainder: 2975 }],
  },
  {
    name: 'a collection credited twice in one statement: the first credit settles it, the second is left to a person',
    items: [item('b1', 3570, { endToEndId: 'E2E-c5' }), item('b2', 3570, { endToEndId: 'E2E-c5', text: 'RE-0000000013' })],
    invoices: [invoice('i5', 'RE-0000000005', 3570, '2026-03-01'), invoice('i13', 'RE-0000000013', 3570, '2026-03-01')],
    collections: [collection('c5', 'i5', 3570)],
    expected: [
      { status: 'STATUS_BOOKED', certain: [{ invoiceId: 'i5', amount: 3570, matchedBy: 'end_to_end', collectionId: 'c5', confirmed: false }] },
      { status: 'STATUS_MANUAL_MATCHING_REQUIRED', certain: [], suggestions: [], remainder: 3570 },
    ],
  },
  {
    name: 'a return of a debit never confirmed whose invoice was paid by other money meanwhile: returned, but left to a person',
    items: [item('b1', -2680, { isReturn: true, endToEndId: 'E2E-c9', returnReason: 'AM04', returnFee: 300 })],
    collections: [collection('c9', 'i9', 2380, { invoiceUnpaid: 0 })],
    expected: [{ status: 'STATUS_MANUAL_MATCHING_REQUIRED', returns: [{ collectionId: 'c9', invoiceId: 'i9', amount: 2380, fee: 300, reason: 'AM04', matchedBy: 'end_to_end', unpay: false, review: true }], remainder: -2680 }],
  },
  {
    name: 'the same when other money paid part of the invoice; one still owing the whole debit is returned as usual',
    items: [item('b1', -2680, { isReturn: true, endToEndId: 'E2E-c9', returnFee: 300 }), item('b2', -5300, { isReturn: true, endToEndId: 'E2E-c10', returnFee: 300 })],
    invoices: [invoice('i9', 'RE-0000000009', 1380, '2026-03-01'), invoice('i10', 'RE-0000000010', 5000, '2026-03-01')],
    collections: [collection('c9', 'i9', 2380, { invoiceUnpaid: 1380 }), collection('c10', 'i10', 5000)],
    expected: [
      { status: 'STATUS_MANUAL_MATCHING_REQUIRED', returns: [expect.objectContaining({ collectionId: 'c9', unpay: false, review: true })] },
      { status: 'STATUS_BOOKED', returns: [expect.objectContaining({ collectionId: 'c10', unpay: false, review: false })], remainder: 0 },
    ],
  },
  {
    name: 'a return of a collection part of which a refund gave back already: left to a person, the invoice not reopened',
    items: [item('b1', -3275, { isReturn: true, endToEndId: 'E2E-c8', returnReason: 'MD06', returnFee: 300 })],
    collections: [collection('c8', 'i8', 2975, { status: 'succeeded', paidOnInvoice: true, assignedTo: ['b0'], givenBack: 500 })],
    expected: [{ status: 'STATUS_MANUAL_MATCHING_REQUIRED', returns: [{ collectionId: 'c8', invoiceId: 'i8', amount: 2975, fee: 300, reason: 'MD06', matchedBy: 'end_to_end', unpay: false, review: true }] }],
  },
  {
    name: 'an invoice number naming an invoice whose debit is in a file: only suggested, the debit would collect it again',
    items: [item('b1', 17850, { text: 'RE-0000000001 RE-0000000002' })],
    invoices: [RE1, { ...RE2, collecting: true }],
    expected: [{ status: 'STATUS_MANUAL_MATCHING_REQUIRED', certain: [], suggestions: [ref('i1', 11900), ref('i2', 5950)], remainder: 17850 }],
  },
  {
    name: 'a line partly assigned before is planned for its rest',
    items: [item('b1', 17850, { assigned: 11900, text: 'RE-0000000001 RE-0000000002' })],
    invoices: [RE2],
    expected: [{ status: 'STATUS_BOOKED', certain: [ref('i2', 5950)], remainder: 0 }],
  },
];

describe('planBankMatching', () => {
  it.each(cases)('$name', (c) => {
    const plans = planBankMatching({ items: c.items, invoices: c.invoices ?? [], collections: c.collections ?? [], payerIbans: c.payerIbans ?? [] });
    expect(plans).toHaveLength(c.expected.length);
    c.expected.forEach((e, i) => expect(plans[i], c.items[i]!.id).toMatchObject(e));
  });
});

describe('referenceCandidates', () => {
  it.each([
    ['RE-0000000001', ['RE0000000001']],
    ['Rechnung RE 0000000002.', ['RE0000000002']],
    ['RE-2026-0007/B', ['RE20260007B', 'RE20260007']],
    ['12, 345', []],
  ])('%s contains %j', (text, expected) => {
    const found = referenceCandidates(text);
    for (const e of expected) expect(found.has(e)).toBe(true);
    if (text === '12, 345') expect(found.has('12345')).toBe(false);
  });
});

describe('spreadAmount', () => {
  it.each([
    [15000, [10000, 5000], [10000, 5000], 0],
    [12000, [10000, 5000], [10000, 2000], 0],
    [20000, [10000, 5000], [10000, 5000], 5000],
    [1, [0, 5000], [1], 0],
  ])('%i over %j pays %j and leaves %i', (amount, unpaid, parts, remainder) => {
    const r = spreadAmount(
      amount,
      unpaid.map((u, i) => ({ id: `i${i}`, unpaid: u })),
    );
    expect(r.parts.map((p) => p.amount)).toEqual(parts);
    expect(r.remainder).toBe(remainder);
  });
});
