import { create } from 'xmlbuilder2';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DocumentModel } from '../../src/documents/model';
import { ublXml } from '../../src/documents/ubl';
import { type EinvoiceVerdict, validateEinvoices } from '../support/oracles.node';
import { austrianBusiness, cases, invoiceModel } from './models';

// The UBL writer against the official validators (UBL 2.1 XSD, CEN EN16931 schematron, KoSIT
// XRechnung 3.0): every case of test/documents/models.ts as EN16931, the ones a German public
// buyer may receive also as XRechnung. One batch for all, the JVM start is the expensive part.

// What the named cases do not reach: SEPA direct debit, an intra-community supply (K) and a
// document not subject to VAT (O), whose VAT identifiers must go.
const plain = cases.plainDe19!;
const notSubject = invoiceModel({ specs: [{ name: 'Durchlaufender Posten', quantity: '1', unitPrice: '20.00', category: 'O' }] });
const variants: Record<string, DocumentModel> = {
  directDebit: {
    ...plain,
    payment: {
      ...plain.payment!,
      meansCode: '59',
      meansText: 'SEPA-Lastschrift',
      creditTransfer: null,
      directDebit: { mandateReference: 'MD-00042', creditorId: 'DE98ZZZ09999999999', debitedIban: 'DE75512108001245126199' },
    },
  },
  intraCommunity: invoiceModel({ buyer: austrianBusiness, specs: [{ name: 'Hardware-Token', quantity: '3', unitPrice: '20.00', category: 'K' }] }),
  // A direct invoice has no invoicing period: the delivery date must stand in (BR-IC-11).
  intraCommunityUndated: invoiceModel({ buyer: austrianBusiness, servicePeriod: null, specs: [{ name: 'Hardware-Token', quantity: '3', unitPrice: '20.00', category: 'K' }] }),
  notSubjectToVat: { ...notSubject, vat: notSubject.vat.map((v) => ({ ...v, exemptionReason: 'Nicht steuerbar', exemptionCode: 'VATEX-EU-O' })) },
};
const all: Record<string, DocumentModel> = { ...cases, ...variants };

const XRECHNUNG_CASES = ['xrechnung', 'creditNote', 'cancellation', 'reverseChargeAt', 'plainDe19', 'discounts', 'directDebit', 'notSubjectToVat'];

const render = (name: string, profile: 'en16931' | 'xrechnung') => ublXml(all[name]!, profile);

/** The text of every element with this qualified name, in document order (entities resolved). */
function texts(xml: string, qname: string): string[] {
  return create(xml)
    .root()
    .filter((n) => n.node.nodeName === qname, true, true)
    .map((n) => n.node.textContent ?? '');
}
const text = (xml: string, qname: string) => texts(xml, qname)[0];

describe('ublXml', () => {
  let verdicts: Record<string, EinvoiceVerdict>;

  beforeAll(async () => {
    verdicts = await validateEinvoices([
      ...Object.keys(all).map((name) => ({ name, xml: render(name, 'en16931') })),
      ...XRECHNUNG_CASES.map((name) => ({ name: `${name}-xr`, xml: render(name, 'xrechnung'), xrechnung: true })),
    ]);
  }, 60_000);

  it.each(Object.keys(all))('%s is a valid EN16931 UBL document', (name) => {
    const v = verdicts[name]!;
    expect(v.errors, v.errors.join('\n')).toEqual([]);
    expect(v.valid).toBe(true);
  });

  it.each(XRECHNUNG_CASES)('%s is a valid XRechnung 3.0 UBL document', (name) => {
    const v = verdicts[`${name}-xr`]!;
    expect(v.errors, v.errors.join('\n')).toEqual([]);
    expect(v.valid).toBe(true);
  });

  it('dates an intra-community supply by its issue date when it has no invoicing period', () => {
    const undated = render('intraCommunityUndated', 'en16931');
    expect(texts(undated, 'cbc:ActualDeliveryDate')).toEqual([all.intraCommunityUndated!.issueDate]);
    expect(texts(undated, 'cac:InvoicePeriod')).toEqual([]);
    expect(texts(render('intraCommunity', 'en16931'), 'cbc:ActualDeliveryDate')).toEqual([]);
  });

  it('states the totals of the discounted invoice with the prepaid amount', () => {
    const xml = render('discounts', 'en16931');
    expect(text(xml, 'cbc:LineExtensionAmount')).toBe('287.50');
    expect(text(xml, 'cbc:TaxExclusiveAmount')).toBe('287.50');
    expect(texts(xml, 'cbc:TaxAmount')[0]).toBe('54.63');
    expect(text(xml, 'cbc:TaxInclusiveAmount')).toBe('342.13');
    expect(text(xml, 'cbc:PrepaidAmount')).toBe('40.00');
    expect(text(xml, 'cbc:PayableAmount')).toBe('302.13');
    expect(texts(xml, 'cbc:MultiplierFactorNumeric')).toEqual(['10']);
    expect(texts(xml, 'cbc:AllowanceChargeReason')).toEqual(['Discount', 'Discount']);
    expect(xml).toContain('<cbc:PayableAmount currencyID="EUR">302.13</cbc:PayableAmount>');
  });

  it('writes a credit note as a CreditNote referring to the invoice it credits', () => {
    const xml = render('creditNote', 'en16931');
    expect(create(xml).root().node.nodeName).toBe('CreditNote');
    expect(text(xml, 'cbc:CreditNoteTypeCode')).toBe('381');
    expect(texts(xml, 'cbc:CreditedQuantity')).toEqual(['1']);
    expect(xml).toMatch(/<cac:BillingReference>\s*<cac:InvoiceDocumentReference>\s*<cbc:ID>RE-0000000001<\/cbc:ID>/);
    expect(text(xml, 'cbc:PayableAmount')).toBe('15.46');
  });

  it('writes a cancellation as an Invoice 384 with the negative amounts of the model', () => {
    const xml = render('cancellation', 'en16931');
    expect(create(xml).root().node.nodeName).toBe('Invoice');
    expect(text(xml, 'cbc:InvoiceTypeCode')).toBe('384');
    expect(text(xml, 'cbc:InvoicedQuantity')).toBe('-1');
    expect(texts(xml, 'cbc:TaxAmount')[0]).toBe('-19.76');
    expect(text(xml, 'cbc:TaxInclusiveAmount')).toBe('-123.75');
    expect(text(xml, 'cbc:PayableAmount')).toBe('-123.75');
    expect(xml).toContain('<cbc:ID>RE-0000000001</cbc:ID>');
  });

  it('writes the XRechnung identifiers, the Leitweg-ID and the electronic addresses', () => {
    const xml = render('xrechnung', 'xrechnung');
    expect(text(xml, 'cbc:CustomizationID')).toBe('urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0');
    expect(text(xml, 'cbc:ProfileID')).toBe('urn:fdc:peppol.eu:2017:poacc:billing:01:1.0');
    expect(text(xml, 'cbc:BuyerReference')).toBe('04011000-12345-03');
    expect(xml).toContain('<cbc:EndpointID schemeID="EM">billing@beispiel-software.de</cbc:EndpointID>');
    expect(xml).toContain('<cbc:EndpointID schemeID="EM">rechnung@mueller-soehne.de</cbc:EndpointID>');
    expect(render('plainDe19', 'en16931')).not.toContain('ProfileID');
  });

  it('marks reverse charge as category AE with the exemption reason', () => {
    const xml = render('reverseChargeAt', 'en16931');
    expect(xml).toMatch(
      /<cac:TaxCategory>\s*<cbc:ID>AE<\/cbc:ID>\s*<cbc:Percent>0<\/cbc:Percent>\s*<cbc:TaxExemptionReasonCode>VATEX-EU-AE<\/cbc:TaxExemptionReasonCode>\s*<cbc:TaxExemptionReason>Reverse charge<\/cbc:TaxExemptionReason>/,
    );
    expect(texts(xml, 'cbc:Note')).toContain('Reverse charge: the recipient is liable for VAT (Art. 196 VAT Directive).');
    expect(texts(xml, 'cbc:CompanyID')).toContain('ATU12345678');
  });

  it('writes the SEPA mandate, the creditor id and the debited account of a direct debit', () => {
    const xml = render('directDebit', 'xrechnung');
    expect(xml).toContain('<cbc:ID schemeID="SEPA">DE98ZZZ09999999999</cbc:ID>');
    expect(xml).toMatch(/<cac:PaymentMandate>\s*<cbc:ID>MD-00042<\/cbc:ID>\s*<cac:PayerFinancialAccount>\s*<cbc:ID>DE75512108001245126199</);
    expect(xml).not.toContain('PayeeFinancialAccount');
  });

  it('renders the same model to the same string', () => {
    for (const name of Object.keys(all)) expect(render(name, 'xrechnung')).toBe(render(name, 'xrechnung'));
  });

  it('escapes markup and keeps non-ASCII text as it is', () => {
    const tricky = 'Tom & Jerry <Beta> „Spezial“ Łódź';
    const model: DocumentModel = invoiceModel({ specs: [{ name: tricky, quantity: '1', unitPrice: '10.00' }] });
    const xml = ublXml(model, 'en16931');
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(xml).toContain('<cbc:Name>Tom &amp; Jerry &lt;Beta&gt; „Spezial“ Łódź</cbc:Name>');
    expect(texts(xml, 'cbc:Name')).toContain(tricky);
    expect(texts(xml, 'cbc:CompanyLegalForm')).toEqual(['Geschäftsführerin: Jana Łukasiewicz']);
  });

  it('refuses a preview', () => {
    expect(() => ublXml(invoiceModel({ preview: true, number: null }), 'en16931')).toThrow(/preview/);
  });
});
