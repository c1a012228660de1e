import { describe, expect, it } from 'vitest';
import { put } from '../support/api';
import { createCustomer, createTenant, ok } from '../support/builders';
import { pdfText, validateEinvoices } from '../support/oracles';
import { downloadLinks, fetchLink, finalizedInvoice, LETTERHEAD, line } from '../documents/builders';
import { CREDITOR_ID, IBAN, paymentSettings, sepaMethod } from './builders';

// An invoice paid by SEPA direct debit names its mandate, the tenant's creditor id and the debited
// account in the e-invoice (BG-19, which XRechnung requires for payment means 59: BR-DE-24, -25)
// and, masked, in the PDF. Judged by the official validators.

describe('invoices paid by SEPA direct debit', () => {
  it('carry the mandate in the XRechnung and the PDF, and pass the validators', async () => {
    const t = await createTenant();
    await ok(put(t, '/settings/documents', LETTERHEAD));
    await paymentSettings(t, { 'sepa.creditorId': CREDITOR_ID });
    const c = await createCustomer(t, {
      street: 'Kastanienallee',
      houseNumber: '7',
      zip: '10435',
      city: 'Berlin',
      companyName: 'Amt für Beispiele',
      eInvoiceType: 'xrechnung',
      leitwegId: '04011000-12345-03',
    });
    // The customer's default method: the invoice names none, so the default pays it.
    const method = await sepaMethod(t, c.id, { default: true, sepaDebit: { iban: IBAN, bic: 'COBADEFFXXX', accountHolder: 'Amt für Beispiele', mandateReference: 'MANDATE-0042', signingDate: '2026-01-15' } });
    expect(method.sepaDebit.mandateReference).toBe('MANDATE-0042');
    const invoice = await finalizedInvoice(t, c.id, [line('100.00')]);
    // The link renders on demand when the queue's job has not run yet (a busy full run).
    const links = await downloadLinks(t, invoice.id);
    const xml = new TextDecoder().decode((await fetchLink(links.xmlUrl!)).bytes);
    expect(xml).toContain('<ram:TypeCode>59</ram:TypeCode>');
    expect(xml).toContain('<ram:DirectDebitMandateID>MANDATE-0042</ram:DirectDebitMandateID>');
    expect(xml).toContain(`<ram:CreditorReferenceID>${CREDITOR_ID}</ram:CreditorReferenceID>`);
    expect(xml).toContain(`<ram:IBANID>${IBAN}</ram:IBANID>`);
    const verdicts = await validateEinvoices([{ name: 'sepa-xrechnung', xml, xrechnung: true }]);
    expect(verdicts['sepa-xrechnung'], JSON.stringify(verdicts['sepa-xrechnung'])).toMatchObject({ valid: true });
    const text = await pdfText((await fetchLink(links.url)).bytes);
    expect(text).toContain('MANDATE-0042');
    expect(text).toContain(CREDITOR_ID);
    expect(text).not.toContain(IBAN);
  });
});
