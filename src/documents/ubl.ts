// OASIS UBL 2.1 e-invoices (EN16931, and the German CIUS XRechnung 3.0) from the document model.
// A pure function of the model: the same model gives the same bytes, so a stored rendition can be
// compared with a fresh one. Amounts are the model's decimal strings, passed through untouched.
//
// Judged by the official validators (test/oracles/einvoice, test/documents/ubl.unit.test.ts): the
// UBL 2.1 XSD (element order), the CEN EN16931 schematron and the KoSIT XRechnung rules.
import { create } from 'xmlbuilder2';
import { Dec } from '../billing/money';
import type { DocumentLine, DocumentModel, VatBreakdown, VatCategory } from './model';
import { buyerParty, leaf, type Node, paymentMeans, postalAddress, sellerParty, vatScheme } from './ubl-parties';

export type UblProfile = 'en16931' | 'xrechnung';

const NS = {
  invoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  creditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
};

const CUSTOMIZATION: Record<UblProfile, string> = {
  en16931: 'urn:cen.eu:en16931:2017',
  xrechnung: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
};
/** BT-23: XRechnung 3.0 expects the Peppol billing process. */
const XRECHNUNG_PROFILE = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';

/** Categories that carry an exemption reason; BR-S-10 and BR-Z-10 forbid one on S and Z. */
const EXEMPT: ReadonlySet<VatCategory> = new Set(['E', 'AE', 'K', 'G', 'O']);

/**
 * The UBL document for an issued invoice (380), cancellation (384, an Invoice with negative
 * amounts as the model states them) or credit note (381, a CreditNote with positive amounts).
 */
export function ublXml(doc: DocumentModel, profile: UblProfile): string {
  // A preview has no number (BT-1 is mandatory) and must never be mistaken for an invoice.
  if (doc.preview || doc.number === null) throw new Error('A preview or estimate has no e-invoice.');
  const credit = doc.typeCode === '381';
  const xrechnung = profile === 'xrechnung';
  const cur = doc.currency;
  const money = (parent: Node, name: string, value: string) => parent.ele(name, { currencyID: cur }).txt(value);
  // BR-O-02: a document with a line not subject to VAT carries no VAT identifiers.
  const withVatIds = !doc.lines.some((l) => l.vatCategory === 'O');

  const xml = create({ version: '1.0', encoding: 'UTF-8' });
  const root = xml.ele(credit ? NS.creditNote : NS.invoice, credit ? 'CreditNote' : 'Invoice', {
    'xmlns:cac': NS.cac,
    'xmlns:cbc': NS.cbc,
  });

  root.ele('cbc:CustomizationID').txt(CUSTOMIZATION[profile]);
  if (xrechnung) root.ele('cbc:ProfileID').txt(XRECHNUNG_PROFILE);
  root.ele('cbc:ID').txt(doc.number);
  root.ele('cbc:IssueDate').txt(doc.issueDate);
  // A CreditNote has no header DueDate; its BT-9 goes into PaymentMeans (see below).
  if (!credit) leaf(root, 'cbc:DueDate', doc.dueDate);
  root.ele(credit ? 'cbc:CreditNoteTypeCode' : 'cbc:InvoiceTypeCode').txt(doc.typeCode);
  for (const note of [...doc.legalNotes, ...doc.notes]) leaf(root, 'cbc:Note', note);
  root.ele('cbc:DocumentCurrencyCode').txt(cur);
  leaf(root, 'cbc:BuyerReference', doc.buyerReference);
  if (doc.servicePeriod) period(root, doc.servicePeriod);
  if (doc.orderReference) root.ele('cac:OrderReference').ele('cbc:ID').txt(doc.orderReference);
  if (doc.precedingInvoice && doc.typeCode !== '380') {
    const ref = root.ele('cac:BillingReference').ele('cac:InvoiceDocumentReference');
    ref.ele('cbc:ID').txt(doc.precedingInvoice.number);
    leaf(ref, 'cbc:IssueDate', doc.precedingInvoice.issueDate);
  }
  if (doc.contractReference) root.ele('cac:ContractDocumentReference').ele('cbc:ID').txt(doc.contractReference);

  sellerParty(root, doc, withVatIds);
  buyerParty(root, doc.buyer, withVatIds);

  // BR-IC-12: an intra-community supply names the country delivered to; the model has no delivery
  // address, and for the services we bill it is the buyer's. BR-IC-11 wants a delivery date or an
  // invoicing period: without a period, the issue date stands in (as in the CII writer).
  if (doc.lines.some((l) => l.vatCategory === 'K')) {
    const delivery = root.ele('cac:Delivery');
    if (!doc.servicePeriod) delivery.ele('cbc:ActualDeliveryDate').txt(doc.issueDate);
    postalAddress(delivery.ele('cac:DeliveryLocation'), 'cac:Address', doc.buyer.address);
  }

  const creditNoteDue = credit ? doc.dueDate : null;
  if (doc.payment) {
    paymentMeans(root, doc.payment, creditNoteDue);
  } else if (xrechnung || (credit && doc.dueDate)) {
    // BR-DE-1 wants payment instructions on every XRechnung, credit notes and cancellations included,
    // and a credit note's due date has no other place: "1" is UNTDID 4461's "instrument not defined".
    paymentMeans(root, { meansCode: '1', meansText: null, remittance: null, creditTransfer: null, directDebit: null }, creditNoteDue);
  }
  if (doc.payment?.terms) root.ele('cac:PaymentTerms').ele('cbc:Note').txt(doc.payment.terms);

  const taxTotal = root.ele('cac:TaxTotal');
  money(taxTotal, 'cbc:TaxAmount', doc.totals.tax);
  for (const v of doc.vat) taxSubtotal(taxTotal, v, cur);

  const totals = root.ele('cac:LegalMonetaryTotal');
  money(totals, 'cbc:LineExtensionAmount', doc.totals.lineNet);
  money(totals, 'cbc:TaxExclusiveAmount', doc.totals.net);
  money(totals, 'cbc:TaxInclusiveAmount', doc.totals.gross);
  if (!new Dec(doc.totals.paid).isZero()) money(totals, 'cbc:PrepaidAmount', doc.totals.paid);
  money(totals, 'cbc:PayableAmount', doc.totals.due);

  const groups = new Map(doc.groups.map((g) => [g.id, g.name]));
  for (const line of doc.lines) documentLine(root, line, credit, cur, line.groupId ? (groups.get(line.groupId) ?? null) : null);

  return xml.end({ prettyPrint: true });
}

function period(parent: Node, p: { from: string; to: string }): void {
  const el = parent.ele('cac:InvoicePeriod');
  el.ele('cbc:StartDate').txt(p.from);
  el.ele('cbc:EndDate').txt(p.to);
}

function taxCategory(parent: Node, name: string, category: VatCategory, rate: string | null): Node {
  const el = parent.ele(name);
  el.ele('cbc:ID').txt(category);
  leaf(el, 'cbc:Percent', rate);
  return el;
}

function taxSubtotal(parent: Node, v: VatBreakdown, cur: string): void {
  const sub = parent.ele('cac:TaxSubtotal');
  sub.ele('cbc:TaxableAmount', { currencyID: cur }).txt(v.taxable);
  sub.ele('cbc:TaxAmount', { currencyID: cur }).txt(v.tax);
  // BR-DE-14 wants the rate in every breakdown, "not subject to VAT" included (as 0).
  const cat = taxCategory(sub, 'cac:TaxCategory', v.category, v.rate);
  if (EXEMPT.has(v.category)) {
    leaf(cat, 'cbc:TaxExemptionReasonCode', v.exemptionCode);
    leaf(cat, 'cbc:TaxExemptionReason', v.exemptionReason);
  }
  vatScheme(cat);
}

function documentLine(parent: Node, l: DocumentLine, credit: boolean, cur: string, groupName: string | null): void {
  const el = parent.ele(credit ? 'cac:CreditNoteLine' : 'cac:InvoiceLine');
  el.ele('cbc:ID').txt(String(l.number));
  // BT-127: on a consolidated invoice, which subscription the line belongs to.
  leaf(el, 'cbc:Note', groupName);
  el.ele(credit ? 'cbc:CreditedQuantity' : 'cbc:InvoicedQuantity', { unitCode: l.unitCode }).txt(l.quantity);
  el.ele('cbc:LineExtensionAmount', { currencyID: cur }).txt(l.net);
  if (l.period) period(el, l.period);
  if (l.allowance) {
    const a = el.ele('cac:AllowanceCharge');
    a.ele('cbc:ChargeIndicator').txt('false');
    a.ele('cbc:AllowanceChargeReason').txt(l.allowance.reason);
    // PEPPOL-EN16931-R040..R042: percentage and base go together, and base × percentage = amount;
    // the base is the line before the discount, signed like the amount.
    if (l.allowance.percentage) a.ele('cbc:MultiplierFactorNumeric').txt(l.allowance.percentage);
    a.ele('cbc:Amount', { currencyID: cur }).txt(l.allowance.amount);
    if (l.allowance.percentage) a.ele('cbc:BaseAmount', { currencyID: cur }).txt(l.grossNet);
  }
  const item = el.ele('cac:Item');
  leaf(item, 'cbc:Description', l.description);
  item.ele('cbc:Name').txt(l.name);
  if (l.sellerItemId) item.ele('cac:SellersItemIdentification').ele('cbc:ID').txt(l.sellerItemId);
  // BR-O-05: a line not subject to VAT has no rate at all.
  vatScheme(taxCategory(item, 'cac:ClassifiedTaxCategory', l.vatCategory, l.vatCategory === 'O' ? null : l.vatRate));
  // BT-146 is the net price: the line discount is an allowance on the line, not on the price.
  el.ele('cac:Price').ele('cbc:PriceAmount', { currencyID: cur }).txt(l.unitPrice);
}
