import { Dec, formatDecimal } from '../../src/billing/money';
import type { BuyerParty, DocumentLine, DocumentModel, SellerParty, VatBreakdown, VatCategory } from '../../src/documents/model';

// Document models of the cases the issue names, for the writers' unit tests (CII, UBL, PDF). Made
// up for these tests: a German seller (Beispiel Software GmbH, München) and buyers in Germany,
// Austria, Switzerland and the US. Totals are derived from the lines the way the composer derives
// them (tax per category and rate on the sum of the line nets, rounded once), so every model is
// consistent by construction; each case states its expected figures in a comment.

export const seller: SellerParty = {
  name: 'Beispiel Software GmbH',
  tradingName: null,
  address: { line1: 'Leopoldstraße 12', line2: null, postcode: '80802', city: 'München', countryCode: 'DE' },
  vatId: 'DE123456789',
  taxNumber: '143/123/45678',
  registration: 'Amtsgericht München HRB 123456',
  legalInfo: 'Geschäftsführerin: Jana Łukasiewicz',
  contact: { name: 'Buchhaltung', email: 'billing@beispiel-software.de', phone: '+49 89 1234567' },
  website: 'https://beispiel-software.de',
};

export const germanBuyer: BuyerParty = {
  name: 'Müller & Söhne KG',
  contactName: 'Jörg Weiß',
  address: { line1: 'Hauptstraße 5', line2: '3. OG', postcode: '10115', city: 'Berlin', countryCode: 'DE' },
  vatId: 'DE987654321',
  email: 'rechnung@mueller-soehne.de',
  customerNumber: 'C-00042',
};

export const austrianBusiness: BuyerParty = {
  name: 'Alpen Analytics GmbH',
  contactName: null,
  address: { line1: 'Mariahilfer Straße 1', line2: null, postcode: '1060', city: 'Wien', countryCode: 'AT' },
  vatId: 'ATU12345678',
  email: 'ap@alpen-analytics.at',
  customerNumber: 'C-00043',
};

export const swissBuyer: BuyerParty = {
  name: 'Zürcher Daten AG',
  contactName: null,
  address: { line1: 'Bahnhofstrasse 10', line2: null, postcode: '8001', city: 'Zürich', countryCode: 'CH' },
  vatId: null,
  email: 'kreditoren@zuercher-daten.ch',
  customerNumber: 'C-00044',
};

export const usBuyer: BuyerParty = {
  name: 'Acme Corp.',
  contactName: 'Jane Doe',
  address: { line1: '1 Market St', line2: 'Suite 300', postcode: '94105', city: 'San Francisco', countryCode: 'US' },
  vatId: null,
  email: 'ap@acme.example',
  customerNumber: 'C-00045',
};

export interface LineSpec {
  name: string;
  quantity: string;
  unitPrice: string;
  rate?: string;
  category?: VatCategory;
  discount?: string;
  discountPercentage?: string;
  group?: string;
  period?: { from: string; to: string };
  unitCode?: string;
  unitName?: string;
  description?: string;
}

const EXEMPTIONS: Partial<Record<VatCategory, { reason: string; code: string }>> = {
  AE: { reason: 'Reverse charge', code: 'VATEX-EU-AE' },
  E: { reason: 'Exempt from VAT', code: 'VATEX-EU-132' },
  G: { reason: 'Export outside the EU', code: 'VATEX-EU-G' },
  K: { reason: 'Intra-Community supply', code: 'VATEX-EU-IC' },
};

/** Lines, VAT breakdown and totals from line specs, rounded as the composer rounds (half-up, once). */
export function priced(currency: string, specs: LineSpec[], paid = '0') {
  const scale = currency === 'JPY' ? 0 : 2;
  const round = (d: Dec) => d.toDecimalPlaces(scale, Dec.ROUND_HALF_UP);
  const lines: DocumentLine[] = specs.map((s, i) => {
    const grossNet = round(new Dec(s.quantity).times(s.unitPrice));
    const discount = s.discountPercentage ? round(grossNet.abs().times(s.discountPercentage).div(100)) : new Dec(s.discount ?? '0');
    const net = grossNet.isNegative() ? grossNet.plus(discount) : grossNet.minus(discount);
    const category = s.category ?? 'S';
    return {
      id: `line-${i + 1}`,
      number: i + 1,
      groupId: s.group ?? null,
      name: s.name,
      description: s.description ?? null,
      quantity: s.quantity,
      unitCode: s.unitCode ?? 'C62',
      unitName: s.unitName ?? null,
      unitPrice: s.unitPrice,
      grossNet: formatDecimal(grossNet, scale),
      allowance: discount.isZero() ? null : { amount: formatDecimal(grossNet.isNegative() ? discount.negated() : discount, scale), percentage: s.discountPercentage ?? null, reason: 'Discount' },
      net: formatDecimal(net, scale),
      vatCategory: category,
      vatRate: s.rate ?? (category === 'S' ? '19' : '0'),
      period: s.period ?? null,
      sellerItemId: null,
    };
  });
  const groups = new Map<string, { category: VatCategory; rate: string; taxable: Dec }>();
  for (const l of lines) {
    const key = `${l.vatCategory} ${l.vatRate}`;
    const g = groups.get(key) ?? { category: l.vatCategory, rate: l.vatRate, taxable: new Dec(0) };
    g.taxable = g.taxable.plus(l.net);
    groups.set(key, g);
  }
  const vat: VatBreakdown[] = [...groups.values()].map((g) => ({
    category: g.category,
    rate: g.rate,
    taxable: formatDecimal(g.taxable, scale),
    tax: formatDecimal(round(g.taxable.times(g.rate).div(100)), scale),
    exemptionReason: EXEMPTIONS[g.category]?.reason ?? null,
    exemptionCode: EXEMPTIONS[g.category]?.code ?? null,
  }));
  const lineNet = lines.reduce((s, l) => s.plus(l.net), new Dec(0));
  const discount = lines.reduce((s, l) => s.plus(l.allowance ? new Dec(l.allowance.amount).abs() : 0), new Dec(0));
  const tax = vat.reduce((s, v) => s.plus(v.tax), new Dec(0));
  const gross = lineNet.plus(tax);
  const f = (d: Dec) => formatDecimal(d, scale);
  return {
    lines,
    vat,
    totals: { lineNet: f(lineNet), discount: f(discount), net: f(lineNet), tax: f(tax), gross: f(gross), paid: f(new Dec(paid)), due: f(gross.minus(paid)) },
  };
}

/** A finalized German invoice with bank transfer; override what a case changes. */
export function invoiceModel(overrides: Partial<DocumentModel> & { specs?: LineSpec[] } = {}): DocumentModel {
  const { specs, ...rest } = overrides;
  const currency = rest.currency ?? 'EUR';
  const base: DocumentModel = {
    kind: 'invoice',
    typeCode: '380',
    number: 'RE-0000000001',
    preview: false,
    language: 'de',
    currency,
    issueDate: '2026-11-02',
    dueDate: '2026-11-16',
    title: 'Rechnung RE-0000000001',
    introduction: 'Vielen Dank für Ihren Auftrag. Wir berechnen Ihnen folgende Leistungen:',
    closing: 'Mit freundlichen Grüßen\nBeispiel Software GmbH',
    buyerReference: 'C-00042',
    orderReference: 'PO-2026-117',
    contractReference: 'S-00000007',
    precedingInvoice: null,
    servicePeriod: { from: '2026-11-01', to: '2026-11-30' },
    seller,
    logo: null,
    buyer: germanBuyer,
    groups: [],
    ...priced(currency, specs ?? [{ name: 'Pro-Tarif (monatlich)', quantity: '1', unitPrice: '103.99', period: { from: '2026-11-01', to: '2026-11-30' } }]),
    payment: {
      meansCode: '58',
      meansText: 'SEPA-Überweisung',
      remittance: 'RE-0000000001',
      creditTransfer: { iban: 'DE02120300000000202051', bic: 'BYLADEM1001', accountName: 'Beispiel Software GmbH', bankName: 'Deutsche Kreditbank Berlin' },
      directDebit: null,
      terms: 'Zahlbar innerhalb von 14 Tagen ohne Abzug bis zum 16.11.2026.',
    },
    legalNotes: [],
    exchangeRates: [],
    notes: [],
  };
  return { ...base, ...rest };
}

/**
 * The cases the issue names, each a valid EN16931 document:
 * - plainDe19: 103.99 at 19 % → tax 19.76, gross 123.75.
 * - mixedRates: 100.00 at 19 % (19.00) + 50.00 at 7 % (3.50) → net 150.00, tax 22.50, gross 172.50.
 * - reverseChargeAt: 2 × 250.00 to an Austrian business, AE 0 % → 500.00 net and gross.
 * - exemptCustomer: 80.00 exempt (E 0 %) → 80.00.
 * - nonEuCustomer: 1,200.00 to Switzerland, G 0 % → 1,200.00.
 * - usdConverted: 1200 EUR at 1.0850 USD/EUR → 1,302.00 USD to a US business, G 0 %.
 * - consolidated: two subscriptions' lines under two groups, 49.00 + 2 × 19.90 + 99.00 at 19 %
 *   → net 187.80, tax 35.68, gross 223.48.
 * - discounts: 10 × 12.50 with 10 % off (−12.50) and 1 × 200.00 with 25.00 off, 19 %
 *   → net 287.50, tax 54.63, gross 342.13, of which 40.00 paid → 302.13 due.
 * - creditNote (381): credits 12.99 of RE-0000000001 at 19 % → 12.99 + 2.47 = 15.46.
 * - cancellation (384): cancels RE-0000000001 in full: −103.99, tax −19.76, gross −123.75.
 * - xrechnung: plainDe19 for a public buyer with Leitweg-ID 04011000-12345-03 as BT-10.
 */
export const cases: Record<string, DocumentModel> = {
  plainDe19: invoiceModel(),
  mixedRates: invoiceModel({
    specs: [
      { name: 'Software-Lizenz', quantity: '1', unitPrice: '100.00', rate: '19' },
      { name: 'Fachbuch „Abrechnung“', quantity: '1', unitPrice: '50.00', rate: '7' },
    ],
  }),
  reverseChargeAt: invoiceModel({
    language: 'en',
    title: 'Invoice RE-0000000002',
    number: 'RE-0000000002',
    buyer: austrianBusiness,
    buyerReference: 'C-00043',
    specs: [{ name: 'Consulting day', quantity: '2', unitPrice: '250.00', category: 'AE', unitCode: 'DAY', unitName: 'day' }],
    legalNotes: ['Reverse charge: the recipient is liable for VAT (Art. 196 VAT Directive).'],
  }),
  exemptCustomer: invoiceModel({
    number: 'RE-0000000003',
    title: 'Rechnung RE-0000000003',
    specs: [{ name: 'Schulungsplatz', quantity: '1', unitPrice: '80.00', category: 'E' }],
    legalNotes: ['Steuerfreie Leistung gemäß § 4 UStG.'],
  }),
  nonEuCustomer: invoiceModel({
    language: 'en',
    number: 'RE-0000000004',
    title: 'Invoice RE-0000000004',
    buyer: swissBuyer,
    buyerReference: 'C-00044',
    specs: [{ name: 'Enterprise plan (yearly)', quantity: '1', unitPrice: '1200.00', category: 'G', period: { from: '2026-11-01', to: '2027-10-31' } }],
    servicePeriod: { from: '2026-11-01', to: '2027-10-31' },
    legalNotes: ['Not taxable in Germany: service to a recipient outside the EU.'],
  }),
  usdConverted: invoiceModel({
    language: 'en',
    number: 'RE-0000000005',
    title: 'Invoice RE-0000000005',
    currency: 'USD',
    buyer: usBuyer,
    buyerReference: 'C-00045',
    specs: [{ name: 'Enterprise plan (monthly)', quantity: '1', unitPrice: '1302.00', category: 'G' }],
    exchangeRates: [{ from: 'EUR', to: 'USD', rate: '1.0850', date: '2026-10-30', source: 'European Central Bank reference rate' }],
    legalNotes: ['Not taxable in Germany: service to a recipient outside the EU.'],
  }),
  consolidated: invoiceModel({
    number: 'RE-0000000006',
    title: 'Rechnung RE-0000000006',
    contractReference: null,
    groups: [
      { id: 'g1', name: 'Team-Abo (S-00000007)', description: 'Abrechnungszeitraum 01.11.2026 – 30.11.2026' },
      { id: 'g2', name: 'Speicher-Abo (S-00000008)', description: null },
    ],
    specs: [
      { name: 'Team-Tarif', quantity: '1', unitPrice: '49.00', group: 'g1' },
      { name: 'Zusätzlicher Nutzer', quantity: '2', unitPrice: '19.90', group: 'g1', unitName: 'Nutzer' },
      { name: 'Speicher 1 TB', quantity: '1', unitPrice: '99.00', group: 'g2' },
    ],
  }),
  discounts: invoiceModel({
    number: 'RE-0000000007',
    title: 'Rechnung RE-0000000007',
    specs: [
      { name: 'API-Kontingent', quantity: '10', unitPrice: '12.50', discountPercentage: '10', unitName: 'Paket' },
      { name: 'Einrichtung', quantity: '1', unitPrice: '200.00', discount: '25.00' },
    ],
  }),
  creditNote: invoiceModel({
    kind: 'credit_note',
    typeCode: '381',
    number: 'GS-0000000001',
    title: 'Gutschrift GS-0000000001 zu RE-0000000001',
    dueDate: null,
    precedingInvoice: { number: 'RE-0000000001', issueDate: '2026-11-02' },
    specs: [{ name: 'Gutschrift: Pro-Tarif (Teilbetrag)', quantity: '1', unitPrice: '12.99' }],
    payment: null,
  }),
  cancellation: invoiceModel({
    kind: 'cancellation',
    typeCode: '384',
    number: 'ST-0000000001',
    title: 'Stornorechnung ST-0000000001 zu RE-0000000001',
    dueDate: null,
    precedingInvoice: { number: 'RE-0000000001', issueDate: '2026-11-02' },
    specs: [{ name: 'Storno: Pro-Tarif (monatlich)', quantity: '-1', unitPrice: '103.99', period: { from: '2026-11-01', to: '2026-11-30' } }],
    payment: null,
  }),
  xrechnung: invoiceModel({ buyerReference: '04011000-12345-03' }),
};
cases.discounts = { ...cases.discounts!, ...priced('EUR', [
  { name: 'API-Kontingent', quantity: '10', unitPrice: '12.50', discountPercentage: '10', unitName: 'Paket' },
  { name: 'Einrichtung', quantity: '1', unitPrice: '200.00', discount: '25.00' },
], '40.00') };
