import type { DocumentModel, VatCategory } from './model';

// What a document lacks to be a valid e-invoice, checked before one is written: an e-invoice that
// breaks EN 16931's rules is no e-invoice, and a stored document is never written again. The
// rules are the ones whose data comes from settings or the customer, not from billing (which the
// writers derive and the validators check in the tests).

/** Categories that need the seller's VAT id or tax number (BR-S-02, BR-Z-02, BR-E-02, BR-AE-02). */
const VAT_ID_OR_TAX_NUMBER: ReadonlySet<VatCategory> = new Set<VatCategory>(['S', 'Z', 'E', 'AE']);
/** Categories that need the seller's VAT id itself (BR-IC-02, BR-G-02). */
const VAT_ID: ReadonlySet<VatCategory> = new Set<VatCategory>(['K', 'G']);
/** Categories that need the buyer's VAT id (BR-AE-02, BR-IC-02; we send no buyer registration id). */
const BUYER_VAT_ID: ReadonlySet<VatCategory> = new Set<VatCategory>(['AE', 'K']);

/** The missing data, in words a tenant can act on; empty when the document can be an e-invoice. */
export function eInvoiceGaps(doc: DocumentModel, profile: 'en16931' | 'xrechnung'): string[] {
  const gaps: string[] = [];
  const s = doc.seller;
  const categories = new Set(doc.vat.map((v) => v.category));
  if (!s.name?.trim()) gaps.push('seller name');
  if ([...categories].some((c) => VAT_ID.has(c)) && !s.vatId) gaps.push("seller's VAT id (intra-EU supplies and exports)");
  else if ([...categories].some((c) => VAT_ID_OR_TAX_NUMBER.has(c)) && !s.vatId && !s.taxNumber) gaps.push("seller's VAT id or tax number");
  // BR-O-11/12: a document with items not subject to VAT holds nothing else.
  if (categories.has('O') && categories.size > 1) gaps.push('items not subject to VAT on a document of their own');
  if ([...categories].some((c) => BUYER_VAT_ID.has(c)) && !doc.buyer.vatId) gaps.push("customer's VAT id (reverse charge, intra-EU supplies)");
  if (profile === 'xrechnung') {
    // BR-DE-8/9: the buyer's city and postcode; BR-DE-15: the buyer reference (Leitweg-ID);
    // PEPPOL-EN16931-R010: the buyer's e-mail address.
    gaps.push(...xrechnungSellerGaps({ city: s.address.city, postcode: s.address.postcode, ...s.contact }));
    if (!doc.buyer.address.city) gaps.push("customer's city");
    if (!doc.buyer.address.postcode) gaps.push("customer's postcode");
    if (!doc.buyer.email) gaps.push("customer's e-mail address");
    if (!doc.buyerReference) gaps.push('Leitweg-ID');
    // BR-DE-24/25 (direct debit: mandate and debited account), BR-DE-23 (card: its number).
    const means = doc.payment?.meansCode;
    if (means === '59' && !doc.payment?.directDebit) gaps.push('direct debit mandate and debited account');
    if (means === '48' || means === '54') gaps.push('payment card details');
  }
  return gaps;
}

/** The seller's data XRechnung asks for beyond EN 16931 (BR-DE-2…7, PEPPOL-EN16931-R020). */
export function xrechnungSellerGaps(s: { city: string | null; postcode: string | null; name: string | null; phone: string | null; email: string | null }): string[] {
  const gaps: string[] = [];
  if (!s.city) gaps.push("seller's city");
  if (!s.postcode) gaps.push("seller's postcode");
  if (!s.name) gaps.push("seller's contact name");
  if (!s.phone) gaps.push("seller's contact phone");
  if (!s.email) gaps.push("seller's contact e-mail");
  return gaps;
}
