// UN/CEFACT Cross Industry Invoice D16B for EN 16931: the XML inside ZUGFeRD/Factur-X PDFs (EN 16931
// conformance level) and the CII flavour of XRechnung 3.0. A pure function of the document model;
// element order follows the D16B schema and only elements of the EN 16931 subset are used, which
// is what Factur-X validators check on top of the EN 16931 rules. Amounts pass through as the
// model's decimal strings.
import { Dec } from '../billing/money';
import { serializeCii, type Content, type Element } from './cii-xml';
import type { BuyerParty, DocumentLine, DocumentModel, PaymentInstructions, PostalAddress, SellerParty, VatCategory } from './model';

export type CiiProfile = 'en16931' | 'xrechnung';

const GUIDELINE: Record<CiiProfile, string> = {
  en16931: 'urn:cen.eu:en16931:2017',
  xrechnung: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
};
/** BT-23; XRechnung takes the Peppol billing process (PEPPOL-EN16931-R001). */
const PEPPOL_BILLING = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';

/** Categories whose VAT breakdown must give a reason (BR-E-10, BR-AE-10, BR-IC-10, BR-G-10, BR-O-10); S and Z must not (BR-S-10, BR-Z-10). */
const EXEMPT: ReadonlySet<VatCategory> = new Set(['E', 'AE', 'K', 'G', 'O']);

/** Date format 102 (YYYYMMDD) from the model's YYYY-MM-DD. */
function date102(day: string, prefix: 'udt' | 'qdt' = 'udt'): Element {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new Error(`Not a YYYY-MM-DD date: ${JSON.stringify(day)}.`);
  return { [`${prefix}:DateTimeString`]: { '@format': '102', '#': day.replaceAll('-', '') } };
}

function period(p: { from: string; to: string } | null): Element | null {
  return p && { 'ram:StartDateTime': date102(p.from), 'ram:EndDateTime': date102(p.to) };
}

function id(value: string | null, schemeID: string): Element | null {
  return value === null ? null : { 'ram:ID': { '@schemeID': schemeID, '#': value } };
}

function address(a: PostalAddress): Element {
  return { 'ram:PostcodeCode': a.postcode, 'ram:LineOne': a.line1, 'ram:LineTwo': a.line2, 'ram:CityName': a.city, 'ram:CountryID': a.countryCode };
}

/** BT-34 / BT-49 as e-mail addresses (scheme EM), which XRechnung requires for both parties (PEPPOL-EN16931-R010, -R020). */
function electronicAddress(email: string | null): Element | null {
  return email === null ? null : { 'ram:URIID': { '@schemeID': 'EM', '#': email } };
}

function seller(s: SellerParty, withVatId: boolean): Element {
  return {
    'ram:Name': s.name,
    'ram:Description': s.legalInfo,
    // BT-30, the register entry as printed; it also identifies the seller when no VAT id may be stated (BR-CO-26).
    'ram:SpecifiedLegalOrganization': { 'ram:ID': s.registration, 'ram:TradingBusinessName': s.tradingName },
    'ram:DefinedTradeContact': {
      'ram:PersonName': s.contact.name,
      'ram:TelephoneUniversalCommunication': { 'ram:CompleteNumber': s.contact.phone },
      'ram:EmailURIUniversalCommunication': { 'ram:URIID': s.contact.email },
    },
    'ram:PostalTradeAddress': address(s.address),
    'ram:URIUniversalCommunication': electronicAddress(s.contact.email),
    'ram:SpecifiedTaxRegistration': [withVatId ? id(s.vatId, 'VA') : null, id(s.taxNumber, 'FC')].filter((r) => r !== null),
  };
}

function buyer(b: BuyerParty, withVatId: boolean): Element {
  return {
    'ram:ID': b.customerNumber,
    'ram:Name': b.name,
    'ram:DefinedTradeContact': { 'ram:PersonName': b.contactName },
    'ram:PostalTradeAddress': address(b.address),
    'ram:URIUniversalCommunication': electronicAddress(b.email),
    'ram:SpecifiedTaxRegistration': withVatId ? id(b.vatId, 'VA') : null,
  };
}

function lineItem(doc: DocumentModel, line: DocumentLine): Element {
  const group = doc.groups.find((g) => g.id === line.groupId);
  const allowance = line.allowance;
  return {
    'ram:AssociatedDocumentLineDocument': {
      'ram:LineID': String(line.number),
      // BT-127: on a consolidated invoice the subscription a line belongs to, which the PDF shows as a headline.
      'ram:IncludedNote': group ? { 'ram:Content': [group.name, group.description].filter((t): t is string => !!t?.trim()).join('\n') } : null,
    },
    'ram:SpecifiedTradeProduct': { 'ram:SellerAssignedID': line.sellerItemId, 'ram:Name': line.name, 'ram:Description': line.description },
    // BT-146 is the price before the line allowance: the allowance is BG-27 below, not a price discount.
    'ram:SpecifiedLineTradeAgreement': { 'ram:NetPriceProductTradePrice': { 'ram:ChargeAmount': line.unitPrice } },
    'ram:SpecifiedLineTradeDelivery': { 'ram:BilledQuantity': { '@unitCode': line.unitCode, '#': line.quantity } },
    'ram:SpecifiedLineTradeSettlement': {
      'ram:ApplicableTradeTax': {
        'ram:TypeCode': 'VAT',
        'ram:CategoryCode': line.vatCategory,
        // "Not subject to VAT" lines carry no rate at all (BR-O-05).
        'ram:RateApplicablePercent': line.vatCategory === 'O' ? null : line.vatRate,
      },
      'ram:BillingSpecifiedPeriod': period(line.period),
      'ram:SpecifiedTradeAllowanceCharge': allowance && {
        'ram:ChargeIndicator': { 'udt:Indicator': 'false' },
        // Percentage and base amount go together (PEPPOL-EN16931-R041/R042); the base is the line before the discount.
        'ram:CalculationPercent': allowance.percentage,
        'ram:BasisAmount': allowance.percentage === null ? null : line.grossNet,
        'ram:ActualAmount': allowance.amount,
        'ram:Reason': allowance.reason,
      },
      'ram:SpecifiedTradeSettlementLineMonetarySummation': { 'ram:LineTotalAmount': line.net },
    },
  };
}

/** BG-16. Only the account data that belongs to the means is written: XRechnung rejects a mix (BR-DE-23/24/25). */
function paymentMeans(p: PaymentInstructions | null, xrechnung: boolean): Element | null {
  // XRechnung wants payment instructions on every document (BR-DE-1), also on credit notes and
  // cancellations where the model has none: "instrument not defined" is the truthful code.
  if (!p) return xrechnung ? { 'ram:TypeCode': '1' } : null;
  const transfer = p.meansCode === '58' || p.meansCode === '30' ? p.creditTransfer : null;
  const debit = p.meansCode === '59' ? p.directDebit : null;
  return {
    'ram:TypeCode': p.meansCode,
    'ram:Information': p.meansText,
    'ram:PayerPartyDebtorFinancialAccount': debit && { 'ram:IBANID': debit.debitedIban },
    'ram:PayeePartyCreditorFinancialAccount': transfer && { 'ram:IBANID': transfer.iban, 'ram:AccountName': transfer.accountName },
    'ram:PayeeSpecifiedCreditorFinancialInstitution': transfer && { 'ram:BICID': transfer.bic },
  };
}

/**
 * The document as CII D16B XML (UTF-8, with declaration): `en16931` for ZUGFeRD/Factur-X and plain
 * EN 16931 CII, `xrechnung` for XRechnung 3.0 (CIUS identifier, Peppol process, payment means
 * always present). A preview is not a document and is refused.
 */
export function ciiXml(doc: DocumentModel, profile: CiiProfile): string {
  return serializeCii(ciiTree(doc, profile));
}

/** The element tree of the document, before it is written out. */
export function ciiTree(doc: DocumentModel, profile: CiiProfile): Element {
  if (doc.preview || doc.number === null) throw new Error('A preview has no document number and cannot become an e-invoice.');
  const xrechnung = profile === 'xrechnung';
  const categories = new Set(doc.lines.map((l) => l.vatCategory));
  // "Not subject to VAT" documents must not state VAT identifiers (BR-O-02); the tax number stays.
  const withVatIds = !categories.has('O');
  const payment = doc.payment;
  const debit = payment?.meansCode === '59' ? payment.directDebit : null;

  const tree: Record<string, Content> = {
    'rsm:ExchangedDocumentContext': {
      'ram:BusinessProcessSpecifiedDocumentContextParameter': xrechnung ? { 'ram:ID': PEPPOL_BILLING } : null,
      'ram:GuidelineSpecifiedDocumentContextParameter': { 'ram:ID': GUIDELINE[profile] },
    },
    'rsm:ExchangedDocument': {
      'ram:ID': doc.number,
      'ram:TypeCode': doc.typeCode,
      'ram:IssueDateTime': date102(doc.issueDate),
      'ram:IncludedNote': [...new Set([...doc.notes, ...doc.legalNotes])].map((n) => ({ 'ram:Content': n })),
    },
    'rsm:SupplyChainTradeTransaction': {
      'ram:IncludedSupplyChainTradeLineItem': doc.lines.map((l) => lineItem(doc, l)),
      'ram:ApplicableHeaderTradeAgreement': {
        'ram:BuyerReference': doc.buyerReference,
        'ram:SellerTradeParty': seller(doc.seller, withVatIds),
        'ram:BuyerTradeParty': buyer(doc.buyer, withVatIds),
        'ram:BuyerOrderReferencedDocument': { 'ram:IssuerAssignedID': doc.orderReference },
        'ram:ContractReferencedDocument': { 'ram:IssuerAssignedID': doc.contractReference },
      },
      'ram:ApplicableHeaderTradeDelivery': delivery(doc, categories.has('K')),
      'ram:ApplicableHeaderTradeSettlement': {
        'ram:CreditorReferenceID': debit?.creditorId,
        'ram:PaymentReference': payment?.remittance,
        'ram:InvoiceCurrencyCode': doc.currency,
        'ram:SpecifiedTradeSettlementPaymentMeans': paymentMeans(payment, xrechnung),
        'ram:ApplicableTradeTax': doc.vat.map((v) => ({
          'ram:CalculatedAmount': v.tax,
          'ram:TypeCode': 'VAT',
          'ram:ExemptionReason': EXEMPT.has(v.category) ? v.exemptionReason : null,
          'ram:BasisAmount': v.taxable,
          'ram:CategoryCode': v.category,
          'ram:ExemptionReasonCode': EXEMPT.has(v.category) ? v.exemptionCode : null,
          // Kept for O as well: XRechnung wants a rate in every breakdown (BR-DE-14), EN 16931 allows 0 there.
          'ram:RateApplicablePercent': v.rate,
        })),
        'ram:BillingSpecifiedPeriod': period(doc.servicePeriod),
        'ram:SpecifiedTradePaymentTerms': {
          'ram:Description': payment?.terms,
          'ram:DueDateDateTime': doc.dueDate === null ? null : date102(doc.dueDate),
          'ram:DirectDebitMandateID': debit?.mandateReference,
        },
        'ram:SpecifiedTradeSettlementHeaderMonetarySummation': {
          'ram:LineTotalAmount': doc.totals.lineNet,
          'ram:TaxBasisTotalAmount': doc.totals.net,
          // The only amount that names its currency (BR-CO-15 and CII-DT-031 look for exactly this).
          'ram:TaxTotalAmount': { '@currencyID': doc.currency, '#': doc.totals.tax },
          'ram:GrandTotalAmount': doc.totals.gross,
          'ram:TotalPrepaidAmount': new Dec(doc.totals.paid).isZero() ? null : doc.totals.paid,
          'ram:DuePayableAmount': doc.totals.due,
        },
        'ram:InvoiceReferencedDocument': doc.precedingInvoice && {
          'ram:IssuerAssignedID': doc.precedingInvoice.number,
          'ram:FormattedIssueDateTime': doc.precedingInvoice.issueDate === null ? null : date102(doc.precedingInvoice.issueDate, 'qdt'),
        },
      },
    },
  };
  return tree;
}

/**
 * BG-13. Empty unless there is an intra-Community supply (K), which needs a deliver-to country
 * (BR-IC-12) and a delivery date or invoicing period (BR-IC-11): the model has no delivery
 * address or date, so the buyer's address stands in, and the issue date when there is no period.
 */
function delivery(doc: DocumentModel, intraCommunity: boolean): Element {
  if (!intraCommunity) return {};
  return {
    'ram:ShipToTradeParty': { 'ram:Name': doc.buyer.name, 'ram:PostalTradeAddress': address(doc.buyer.address) },
    'ram:ActualDeliverySupplyChainEvent': doc.servicePeriod ? null : { 'ram:OccurrenceDateTime': date102(doc.issueDate) },
  };
}
