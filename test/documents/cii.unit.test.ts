import { create } from 'xmlbuilder2';
import { beforeAll, describe, expect, it } from 'vitest';
import { ciiXml } from '../../src/documents/cii';
import type { DocumentModel } from '../../src/documents/model';
import { validateEinvoices, type EinvoiceToCheck, type EinvoiceVerdict } from '../support/oracles.node';
import { austrianBusiness, cases, germanBuyer, invoiceModel } from './models';

// The CII writer judged by the official EN 16931 and KoSIT XRechnung validators (test/oracles),
// then read back for what a person would check on the document.

const SETTLEMENT = 'rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement';
const TOTALS = `${SETTLEMENT}/ram:SpecifiedTradeSettlementHeaderMonetarySummation`;
const LINE = 'rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem';

// Paths the model cases do not reach: direct debit, an intra-Community supply without a service
// period, and text that needs escaping.
const awkwardText = 'Müller & Söhne <KG> „Süd“ Łódź';
const extra: Record<string, DocumentModel> = {
  directDebit: invoiceModel({
    number: 'RE-0000000008',
    payment: {
      meansCode: '59',
      meansText: 'SEPA-Lastschrift',
      remittance: 'RE-0000000008',
      creditTransfer: cases.plainDe19!.payment!.creditTransfer,
      directDebit: { mandateReference: 'MD-00042', creditorId: 'DE98ZZZ09999999999', debitedIban: 'DE75512108001245126199' },
      terms: 'Der Betrag wird am 16.11.2026 von Ihrem Konto abgebucht.',
    },
  }),
  intraCommunity: invoiceModel({
    number: 'RE-0000000009',
    language: 'en',
    buyer: austrianBusiness,
    servicePeriod: null,
    specs: [{ name: 'Hardware token', quantity: '3', unitPrice: '20.00', category: 'K' }],
  }),
  escaping: invoiceModel({
    number: 'RE-0000000010',
    buyer: { ...germanBuyer, name: awkwardText },
    notes: ['R&D; Tom &amp; Jerry'],
    specs: [{ name: 'Beratung <vor Ort> & „Nachbereitung“', quantity: '1', unitPrice: '100.00' }],
  }),
};

const documents: EinvoiceToCheck[] = Object.entries({ ...cases, ...extra }).flatMap(([name, doc]) => [
  { name, xml: ciiXml(doc, 'en16931') },
  { name: `${name}-xrechnung`, xml: ciiXml(doc, 'xrechnung'), xrechnung: true },
]);
const xmlOf = (name: string) => documents.find((d) => d.name === name)!.xml;

interface XmlNode {
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<XmlNode>;
  getAttribute?: (name: string) => string | null;
}

/** Texts of the elements at a path of qualified names below the root, parsed (entities decoded). */
function texts(xml: string, path: string): string[] {
  let nodes = [create(xml).root().node as unknown as XmlNode];
  for (const step of path.split('/')) nodes = nodes.flatMap((n) => Array.from(n.childNodes).filter((c) => c.nodeName === step));
  return nodes.map((n) => n.textContent ?? '');
}
const text = (xml: string, path: string) => texts(xml, path).join('|');

describe('CII D16B (EN 16931, Factur-X, XRechnung)', () => {
  let verdicts: Record<string, EinvoiceVerdict> = {};
  beforeAll(async () => {
    verdicts = await validateEinvoices(documents);
  });

  it.each(documents.map((d) => d.name))('%s passes the official validators', (name) => {
    const errors = verdicts[name]?.errors ?? ['no verdict'];
    expect(errors, `${name}:\n${errors.join('\n')}`).toEqual([]);
    expect(verdicts[name]!.valid).toBe(true);
  });

  it('states the totals, the prepayment and the line discounts of the discounts case', () => {
    const xml = xmlOf('discounts');
    expect(['LineTotalAmount', 'TaxBasisTotalAmount', 'TaxTotalAmount', 'GrandTotalAmount', 'TotalPrepaidAmount', 'DuePayableAmount'].map((t) => text(xml, `${TOTALS}/ram:${t}`))).toEqual([
      '287.50', '287.50', '54.63', '342.13', '40.00', '302.13',
    ]);
    const allowance = `${LINE}/ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeAllowanceCharge`;
    expect(texts(xml, `${allowance}/ram:ActualAmount`)).toEqual(['12.50', '25.00']);
    expect(texts(xml, `${allowance}/ram:CalculationPercent`)).toEqual(['10']);
    expect(texts(xml, `${allowance}/ram:BasisAmount`)).toEqual(['125.00']);
    expect(texts(xml, `${LINE}/ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount`)).toEqual(['112.50', '175.00']);
  });

  it('makes the credit note a 381 that points at the invoice it credits', () => {
    const xml = xmlOf('creditNote-xrechnung');
    expect(text(xml, 'rsm:ExchangedDocument/ram:TypeCode')).toBe('381');
    expect(text(xml, `${SETTLEMENT}/ram:InvoiceReferencedDocument/ram:IssuerAssignedID`)).toBe('RE-0000000001');
    expect(text(xml, `${SETTLEMENT}/ram:InvoiceReferencedDocument/ram:FormattedIssueDateTime/qdt:DateTimeString`)).toBe('20261102');
    expect(text(xml, `${TOTALS}/ram:GrandTotalAmount`)).toBe('15.46');
    // XRechnung insists on payment instructions; the model has none for a credit note.
    expect(text(xml, `${SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode`)).toBe('1');
  });

  it('makes the cancellation a 384 with the negative figures of the model and a positive price', () => {
    const xml = xmlOf('cancellation');
    expect(text(xml, 'rsm:ExchangedDocument/ram:TypeCode')).toBe('384');
    expect(text(xml, `${SETTLEMENT}/ram:InvoiceReferencedDocument/ram:IssuerAssignedID`)).toBe('RE-0000000001');
    expect(text(xml, `${LINE}/ram:SpecifiedLineTradeDelivery/ram:BilledQuantity`)).toBe('-1');
    expect(text(xml, `${LINE}/ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:ChargeAmount`)).toBe('103.99');
    expect(['LineTotalAmount', 'TaxTotalAmount', 'GrandTotalAmount', 'DuePayableAmount'].map((t) => text(xml, `${TOTALS}/ram:${t}`))).toEqual(['-103.99', '-19.76', '-123.75', '-123.75']);
  });

  it('carries the Leitweg-ID, the XRechnung identifiers and the seller contact on the XRechnung', () => {
    const xml = xmlOf('xrechnung-xrechnung');
    expect(text(xml, 'rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement/ram:BuyerReference')).toBe('04011000-12345-03');
    expect(text(xml, 'rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID')).toBe(
      'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
    );
    expect(text(xml, 'rsm:ExchangedDocumentContext/ram:BusinessProcessSpecifiedDocumentContextParameter/ram:ID')).toBe('urn:fdc:peppol.eu:2017:poacc:billing:01:1.0');
    expect(xml).toContain('<ram:URIID schemeID="EM">billing@beispiel-software.de</ram:URIID>');
    expect(xml).toContain('<ram:URIID schemeID="EM">rechnung@mueller-soehne.de</ram:URIID>');
    expect(text(xmlOf('xrechnung'), 'rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID')).toBe('urn:cen.eu:en16931:2017');
  });

  it('states reverse charge as category AE with its exemption reason and both VAT ids', () => {
    const xml = xmlOf('reverseChargeAt-xrechnung');
    const vat = `${SETTLEMENT}/ram:ApplicableTradeTax`;
    expect([text(xml, `${vat}/ram:CategoryCode`), text(xml, `${vat}/ram:ExemptionReason`), text(xml, `${vat}/ram:ExemptionReasonCode`), text(xml, `${vat}/ram:CalculatedAmount`)]).toEqual([
      'AE', 'Reverse charge', 'VATEX-EU-AE', '0.00',
    ]);
    expect(text(xml, `${LINE}/ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax/ram:CategoryCode`)).toBe('AE');
    expect(xml).toContain('<ram:ID schemeID="VA">ATU12345678</ram:ID>');
    expect(xml).toContain('<ram:ID schemeID="VA">DE123456789</ram:ID>');
    expect(texts(xml, 'rsm:ExchangedDocument/ram:IncludedNote/ram:Content')).toEqual(['Reverse charge: the recipient is liable for VAT (Art. 196 VAT Directive).']);
  });

  it('renders the same model to the same string', () => {
    const a = ciiXml(cases.consolidated!, 'xrechnung');
    expect(ciiXml(structuredClone(cases.consolidated!), 'xrechnung')).toBe(a);
    expect(a.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
  });

  it('escapes markup characters and keeps other text as UTF-8', () => {
    const xml = xmlOf('escaping');
    expect(xml).toContain('Müller &amp; Söhne &lt;KG&gt; „Süd“ Łódź');
    expect(xml).not.toContain('<KG>');
    expect(text(xml, 'rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement/ram:BuyerTradeParty/ram:Name')).toBe(awkwardText);
    expect(text(xml, `${LINE}/ram:SpecifiedTradeProduct/ram:Name`)).toBe('Beratung <vor Ort> & „Nachbereitung“');
    // Text that merely looks like an entity stays text.
    expect(text(xml, 'rsm:ExchangedDocument/ram:IncludedNote/ram:Content')).toBe('R&D; Tom &amp; Jerry');
  });

  it('refuses a preview, which has no number', () => {
    expect(() => ciiXml({ ...cases.plainDe19!, preview: true, number: null }, 'en16931')).toThrow(/preview/);
  });
});
