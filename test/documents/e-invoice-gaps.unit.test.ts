import { describe, expect, it } from 'vitest';
import { ciiXml } from '../../src/documents/cii';
import { eInvoiceGaps } from '../../src/documents/e-invoice-gaps';
import type { DocumentModel } from '../../src/documents/model';
import { validateEinvoices } from '../support/oracles.node';
import { austrianBusiness, cases, germanBuyer, invoiceModel, seller } from './models';

// Documents that lack data from settings or the customer get no e-invoice (the renderer writes the
// PDF alone). Each gap named here is one the official validators would reject: the same models are
// written anyway and judged, so a rule we invent, or one we miss, fails this test.

const plain = cases.plainDe19!;
const xrechnung = cases.xrechnung!;
const reverseCharge = cases.reverseChargeAt!;
const nonEu = cases.nonEuCustomer!;

const incomplete: { name: string; doc: DocumentModel; profile: 'en16931' | 'xrechnung'; gaps: string[]; rules: string[] }[] = [
  {
    name: 'no-seller-tax-ids',
    doc: { ...plain, seller: { ...seller, vatId: null, taxNumber: null } },
    profile: 'en16931',
    gaps: ["seller's VAT id or tax number"],
    rules: ['BR-S-02'],
  },
  {
    name: 'export-tax-number-only',
    doc: { ...nonEu, seller: { ...seller, vatId: null } },
    profile: 'en16931',
    gaps: ["seller's VAT id (intra-EU supplies and exports)"],
    rules: ['BR-G-02'],
  },
  {
    name: 'reverse-charge-buyer-without-vat-id',
    doc: { ...reverseCharge, buyer: { ...austrianBusiness, vatId: null } },
    profile: 'en16931',
    gaps: ["customer's VAT id (reverse charge, intra-EU supplies)"],
    rules: ['BR-AE-02'],
  },
  {
    name: 'not-subject-mixed-with-taxed',
    doc: invoiceModel({
      number: 'RE-0000000020',
      specs: [
        { name: 'Consulting', quantity: '1', unitPrice: '100.00' },
        { name: 'Court fee paid on your behalf', quantity: '1', unitPrice: '25.00', category: 'O' },
      ],
    }),
    profile: 'en16931',
    gaps: ['items not subject to VAT on a document of their own'],
    rules: ['BR-O-11'],
  },
  {
    name: 'xrechnung-no-contact-no-city',
    doc: { ...xrechnung, seller: { ...seller, contact: { name: null, email: null, phone: null } }, buyer: { ...germanBuyer, address: { ...germanBuyer.address, city: null, postcode: null } } },
    profile: 'xrechnung',
    gaps: ["seller's contact name", "seller's contact phone", "seller's contact e-mail", "customer's city", "customer's postcode"],
    rules: ['BR-DE-2', 'PEPPOL-EN16931-R020', 'BR-DE-8', 'BR-DE-9'],
  },
];

describe('eInvoiceGaps', () => {
  it('finds nothing missing in the complete test models', () => {
    for (const [name, doc] of Object.entries(cases)) {
      if (!doc.number) continue;
      expect(eInvoiceGaps(doc, name === 'xrechnung' ? 'xrechnung' : 'en16931'), name).toEqual([]);
    }
  });

  it('names what is missing, and the validators reject exactly those documents for it', { timeout: 120_000 }, async () => {
    for (const c of incomplete) expect(eInvoiceGaps(c.doc, c.profile), c.name).toEqual(c.gaps);
    const verdicts = await validateEinvoices(incomplete.map((c) => ({ name: c.name, xml: ciiXml(c.doc, c.profile), xrechnung: c.profile === 'xrechnung' })));
    for (const c of incomplete) {
      const verdict = verdicts[c.name]!;
      expect(verdict.valid, c.name).toBe(false);
      for (const rule of c.rules) expect(verdict.errors.join('\n'), `${c.name} breaks ${rule}`).toContain(rule);
    }
  });
});
