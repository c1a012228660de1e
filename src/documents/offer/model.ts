// What the offer PDFs are rendered from: plain data, so the writers are pure functions of it and
// the same signed offer renders to the same bytes (two signers finishing at once store one file).

export type OfferLanguage = 'de' | 'en';

export interface OfferParty {
  name: string;
  /** Address and contact lines under the name. */
  lines: string[];
}

export interface OfferPdfLineItem {
  name: string;
  description: string | null;
  quantity: string;
  billingInterval: string | null;
  type: string;
  payInAdvance: boolean;
  unitPrice: string | null;
  recurringAmount: string | null;
  firstInvoiceAmount: string | null;
  taxRate: string | null;
}

export interface OfferSignature {
  /** The recipient as the tenant named them. */
  name: string;
  email: string;
  /** The full name they typed when signing. */
  signingName: string;
  signedAt: string;
}

/** The signed offer: the offer as its signers read it, and a page with their signatures. */
export interface SignedOfferModel {
  language: OfferLanguage;
  seller: OfferParty;
  buyer: OfferParty | null;
  number: string;
  title: string | null;
  description: string | null;
  /** Sanitized rich text (src/lib/rich-text.ts). */
  sections: string[];
  currency: string | null;
  lineItems: OfferPdfLineItem[];
  totals: { net: string; discount: string; tax: string; gross: string; firstBillingDate: string | null } | null;
  terms: { contractStart: string | null; contractPeriod: string | null; cancellationPeriod: string | null; trialDays: number } | null;
  contactPerson: string | null;
  pricedAt: string;
  signedAt: string;
  signatures: OfferSignature[];
}

export interface AuditEntry {
  at: string;
  /** The recipient the entry belongs to: name and e-mail. */
  recipient: string;
  action: string;
  ip: string | null;
  userAgent: string | null;
}

/** The audit trail of a signed offer: every log entry, and the fingerprint of the signed document. */
export interface AuditLogModel {
  language: OfferLanguage;
  seller: string;
  number: string;
  title: string | null;
  signedAt: string;
  signedDocument: { fileName: string; sha256: string; byteSize: number };
  recipients: { name: string; email: string; role: string; signingStatus: string; signingName: string | null; signedAt: string | null }[];
  entries: AuditEntry[];
}
