// The parties and payment instructions of a UBL 2.1 document (src/documents/ubl.ts). Children are
// written in the order of the UBL XSD sequences, which the schema enforces.
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import type { BuyerParty, DocumentModel, PaymentInstructions, PostalAddress, SellerParty } from './model';

export type Node = XMLBuilder;

/** One leaf element; nothing for a null or blank value (PEPPOL-EN16931-R008 rejects empty elements). */
export function leaf(parent: Node, name: string, value: string | null | undefined, attrs?: Record<string, string>): void {
  if (value === null || value === undefined || value.trim() === '') return;
  parent.ele(name, attrs).txt(value);
}

export function vatScheme(parent: Node): void {
  parent.ele('cac:TaxScheme').ele('cbc:ID').txt('VAT');
}

export function postalAddress(parent: Node, name: string, a: PostalAddress): void {
  const el = parent.ele(name);
  leaf(el, 'cbc:StreetName', a.line1);
  leaf(el, 'cbc:AdditionalStreetName', a.line2);
  leaf(el, 'cbc:CityName', a.city);
  leaf(el, 'cbc:PostalZone', a.postcode);
  el.ele('cac:Country').ele('cbc:IdentificationCode').txt(a.countryCode);
}

function partyTaxScheme(party: Node, companyId: string | null, scheme: string): void {
  if (!companyId) return;
  const el = party.ele('cac:PartyTaxScheme');
  el.ele('cbc:CompanyID').txt(companyId);
  el.ele('cac:TaxScheme').ele('cbc:ID').txt(scheme);
}

/**
 * `withVatIds` is false when a line is "not subject to VAT" (O): BR-O-02 forbids the seller's and
 * the buyer's VAT identifiers on such a document.
 */
export function sellerParty(parent: Node, doc: DocumentModel, withVatIds: boolean): void {
  const s: SellerParty = doc.seller;
  const party = parent.ele('cac:AccountingSupplierParty').ele('cac:Party');
  // BT-34; XRechnung (PEPPOL-EN16931-R020) requires it, an e-mail address is the one we have.
  leaf(party, 'cbc:EndpointID', s.contact.email, { schemeID: 'EM' });
  // BT-90 lives here in UBL, as a seller identifier with scheme SEPA (BR-DE-30 looks for it here).
  if (doc.payment?.meansCode === '59' && doc.payment.directDebit) {
    party.ele('cac:PartyIdentification').ele('cbc:ID', { schemeID: 'SEPA' }).txt(doc.payment.directDebit.creditorId);
  }
  if (s.tradingName) party.ele('cac:PartyName').ele('cbc:Name').txt(s.tradingName);
  postalAddress(party, 'cac:PostalAddress', s.address);
  if (withVatIds) partyTaxScheme(party, s.vatId, 'VAT');
  // BT-32: any scheme but VAT marks the tax number; FC ("fiscal code") is the XRechnung convention.
  partyTaxScheme(party, s.taxNumber, 'FC');
  const legal = party.ele('cac:PartyLegalEntity');
  legal.ele('cbc:RegistrationName').txt(s.name);
  leaf(legal, 'cbc:CompanyID', s.registration);
  leaf(legal, 'cbc:CompanyLegalForm', s.legalInfo);
  if (s.contact.name || s.contact.phone || s.contact.email) {
    const contact = party.ele('cac:Contact');
    leaf(contact, 'cbc:Name', s.contact.name);
    leaf(contact, 'cbc:Telephone', s.contact.phone);
    leaf(contact, 'cbc:ElectronicMail', s.contact.email);
  }
}

export function buyerParty(parent: Node, b: BuyerParty, withVatIds: boolean): void {
  const party = parent.ele('cac:AccountingCustomerParty').ele('cac:Party');
  // BT-49; required by XRechnung (PEPPOL-EN16931-R010).
  leaf(party, 'cbc:EndpointID', b.email, { schemeID: 'EM' });
  if (b.customerNumber) party.ele('cac:PartyIdentification').ele('cbc:ID').txt(b.customerNumber);
  postalAddress(party, 'cac:PostalAddress', b.address);
  if (withVatIds) partyTaxScheme(party, b.vatId, 'VAT');
  party.ele('cac:PartyLegalEntity').ele('cbc:RegistrationName').txt(b.name);
  if (b.contactName || b.email) {
    const contact = party.ele('cac:Contact');
    leaf(contact, 'cbc:Name', b.contactName);
    leaf(contact, 'cbc:ElectronicMail', b.email);
  }
}

/**
 * BG-16. `dueDate` is BT-9 on a credit note, whose UBL header has no DueDate. BR-DE-23/25 allow
 * exactly the group that fits the code: the seller's account for transfers, the mandate for debits.
 */
export function paymentMeans(parent: Node, p: Pick<PaymentInstructions, 'meansCode' | 'remittance' | 'creditTransfer' | 'directDebit'> & { meansText: string | null }, dueDate: string | null): void {
  const el = parent.ele('cac:PaymentMeans');
  el.ele('cbc:PaymentMeansCode', p.meansText ? { name: p.meansText } : undefined).txt(p.meansCode);
  leaf(el, 'cbc:PaymentDueDate', dueDate);
  leaf(el, 'cbc:PaymentID', p.remittance);
  if ((p.meansCode === '58' || p.meansCode === '30') && p.creditTransfer) {
    const account = el.ele('cac:PayeeFinancialAccount');
    account.ele('cbc:ID').txt(p.creditTransfer.iban);
    leaf(account, 'cbc:Name', p.creditTransfer.accountName);
    if (p.creditTransfer.bic) account.ele('cac:FinancialInstitutionBranch').ele('cbc:ID').txt(p.creditTransfer.bic);
  }
  if (p.meansCode === '59' && p.directDebit) {
    const mandate = el.ele('cac:PaymentMandate');
    mandate.ele('cbc:ID').txt(p.directDebit.mandateReference);
    if (p.directDebit.debitedIban) mandate.ele('cac:PayerFinancialAccount').ele('cbc:ID').txt(p.directDebit.debitedIban);
  }
}
