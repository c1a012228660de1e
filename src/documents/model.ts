// The document model: everything a rendered document shows, in one plain structure, so the PDF,
// CII, UBL and XRechnung writers are pure functions of it (no I/O, no clock). The service builds
// it from the stored invoice, the customer and the tenant's document settings
// (src/services/documents/). Amounts are decimal strings in major units of `currency` with the
// currency's decimals ("1234.50"), signed as the document states them (see `typeCode`).

/** UNTDID 1001 document types used: commercial invoice, credit note, corrected invoice. */
export type DocumentTypeCode = '380' | '381' | '384';

/** EN16931 VAT category codes (UNCL 5305 subset) the tax engine produces. */
export type VatCategory = 'S' | 'Z' | 'E' | 'AE' | 'K' | 'G' | 'O';

export type DocumentLanguage = 'de' | 'en';

/** Which document of ours this is (the API's `type`), for titles and wording. */
export type DocumentKind = 'invoice' | 'credit_note' | 'cancellation' | 'refund' | 'reminder' | 'dunning';

export interface PostalAddress {
  /** Street and house number, or a PO box. */
  line1: string | null;
  /** Addition (c/o, floor, department). */
  line2: string | null;
  postcode: string | null;
  city: string | null;
  /** ISO 3166-1 alpha-2. */
  countryCode: string;
}

export interface SellerParty {
  /** Legal name (BT-27). */
  name: string;
  /** Trading name when it differs (BT-28). */
  tradingName: string | null;
  address: PostalAddress;
  /** VAT identifier with country prefix (BT-31), e.g. DE123456789. */
  vatId: string | null;
  /** Local tax number (BT-32, "Steuernummer"). */
  taxNumber: string | null;
  /** Commercial register entry, e.g. "Amtsgericht München HRB 123456" (BT-30 / BT-33 on the PDF). */
  registration: string | null;
  /** Managing directors etc., printed in the footer (BT-33). */
  legalInfo: string | null;
  contact: { name: string | null; email: string | null; phone: string | null };
  website: string | null;
}

export interface BuyerParty {
  /** Company name, else the person's name (BT-44). */
  name: string;
  /** The person to the attention of, when the buyer is a company. */
  contactName: string | null;
  address: PostalAddress;
  vatId: string | null;
  email: string | null;
  /** The tenant's customer number (BT-46 buyer identifier). */
  customerNumber: string | null;
}

export interface PaymentInstructions {
  /**
   * UNTDID 4461: '58' SEPA credit transfer, '30' credit transfer (non-SEPA), '59' SEPA direct debit,
   * '48' bank card, '54' credit card, '68' online payment service, '1' not defined.
   */
  meansCode: '58' | '30' | '59' | '48' | '54' | '68' | '1';
  /** How the payment method is called for people ("SEPA direct debit", "PayPal", …). */
  meansText: string;
  /** Remittance information the payer should quote (BT-83): the document number. */
  remittance: string | null;
  /** The seller's account for credit transfers (BG-17). */
  creditTransfer: { iban: string; bic: string | null; accountName: string | null; bankName: string | null } | null;
  /** Direct debit (BG-19): mandate, creditor id, the debited account (masked on the PDF). */
  directDebit: { mandateReference: string; creditorId: string; debitedIban: string | null } | null;
  /** Payment terms as text (BT-20), in the document's language. */
  terms: string | null;
}

export interface LineAllowance {
  /** Positive amount taken off the line (BT-136); the line's `net` is after it. */
  amount: string;
  /** Percentage when the discount was given as one (BT-138). */
  percentage: string | null;
  reason: string;
}

export interface DocumentLine {
  id: string;
  /** 1-based line number as printed. */
  number: number;
  /** Headline the line is grouped under on the PDF (consolidated invoices: one per subscription). */
  groupId: string | null;
  name: string;
  description: string | null;
  /** Signed quantity; negative on corrections. */
  quantity: string;
  /** UN/ECE Rec 20 unit code for the XML ('C62' one, 'HUR' hour, 'DAY', 'MON', …). */
  unitCode: string;
  /** The unit as the tenant named it, for the PDF. */
  unitName: string | null;
  /** Net unit price before the discount, never negative (BT-146); more decimals than the currency allowed. */
  unitPrice: string;
  /** quantity × unitPrice (before the discount), rounded to the currency. */
  grossNet: string;
  allowance: LineAllowance | null;
  /** Line net amount after the discount (BT-131); the document's lines add up to `totals.lineNet`. */
  net: string;
  vatCategory: VatCategory;
  /** Percent, e.g. "19", "7", "0". */
  vatRate: string;
  /** Service period of the line (BG-26). */
  period: { from: string; to: string } | null;
  /** The tenant's product or item reference, when any (BT-155). */
  sellerItemId: string | null;
}

export interface LineGroup {
  id: string;
  /** e.g. the subscription's name and number on a consolidated invoice. */
  name: string;
  description: string | null;
}

export interface VatBreakdown {
  category: VatCategory;
  rate: string;
  /** Sum of the line nets of this category and rate (BT-116). */
  taxable: string;
  /** taxable × rate, rounded once (BT-117). */
  tax: string;
  /** Exemption reason text for E, AE, K, G, O (BT-120), e.g. "Reverse charge". */
  exemptionReason: string | null;
  /** VATEX code for the reason when there is one (BT-121), e.g. "VATEX-EU-AE". */
  exemptionCode: string | null;
}

export interface ExchangeRateNote {
  from: string;
  to: string;
  /** Units of `to` per unit of `from`, as applied. */
  rate: string;
  /** The reference day of the rate (YYYY-MM-DD). */
  date: string;
  source: string;
}

export interface DocumentModel {
  kind: DocumentKind;
  typeCode: DocumentTypeCode;
  /** Document number; null on a preview or estimate (not a document yet). */
  number: string | null;
  /** A preview (draft or estimate): the PDF says so in large letters; never an e-invoice. */
  preview: boolean;
  language: DocumentLanguage;
  /** ISO 4217 code of every amount. */
  currency: string;
  /** Issue date (BT-2), YYYY-MM-DD in the tenant's time zone. */
  issueDate: string;
  /** Due date (BT-9), YYYY-MM-DD; null when nothing is due (credit notes). */
  dueDate: string | null;
  /** Title, introduction and closing text as printed. */
  title: string;
  introduction: string | null;
  closing: string | null;
  /** BT-10: the Leitweg-ID for XRechnung, else the customer's reference (PO) or number. */
  buyerReference: string | null;
  /** Purchase order reference (BT-13). */
  orderReference: string | null;
  /** Contract reference (BT-12): the subscription number. */
  contractReference: string | null;
  /** The invoice a credit note or cancellation corrects (BG-3). */
  precedingInvoice: { number: string; issueDate: string | null } | null;
  /** Invoicing period of the whole document (BG-14), YYYY-MM-DD. */
  servicePeriod: { from: string; to: string } | null;
  seller: SellerParty;
  /** PNG or JPEG bytes of the tenant's logo, when set. */
  logo: { bytes: Uint8Array; mimeType: 'image/png' | 'image/jpeg' } | null;
  buyer: BuyerParty;
  groups: LineGroup[];
  lines: DocumentLine[];
  vat: VatBreakdown[];
  totals: {
    /** Σ line nets (BT-106). */
    lineNet: string;
    /** Σ line discounts, for the PDF (already inside the line nets). */
    discount: string;
    /** Total without VAT (BT-109) = lineNet (no document-level allowances or charges). */
    net: string;
    /** Total VAT (BT-110) = Σ vat[].tax. */
    tax: string;
    /** Total with VAT (BT-112). */
    gross: string;
    /** Already paid (BT-113). */
    paid: string;
    /** Amount due for payment (BT-115) = gross − paid. */
    due: string;
  };
  payment: PaymentInstructions | null;
  /** Legal notes printed near the totals (reverse charge, exemption, export), deduplicated. */
  legalNotes: string[];
  /** Conversions applied to positions in other currencies (`applicatedExchangeRates`). */
  exchangeRates: ExchangeRateNote[];
  /** Free-text notes for the e-invoice (BT-22), e.g. the seller's legal info required by XRechnung. */
  notes: string[];
}

/** E-invoice syntaxes we write. */
export type EInvoiceSyntax = 'cii' | 'ubl';

/** The customer's `eInvoiceType` values and what they produce (docs/decisions.md, Documents). */
export const E_INVOICE_TYPES = ['zugferd', 'xrechnung', 'cii', 'ubl'] as const;
export type EInvoiceType = (typeof E_INVOICE_TYPES)[number];
