// Every fixed text of the PDF in the two document languages. Texts the tenant controls (title,
// introduction, closing, payment terms, legal notes) come translated in the model; these are the
// renderer's own captions and sentences.
import type { DocumentKind, DocumentLanguage, VatCategory } from '../model';

export interface Labels {
  numberOf: Record<DocumentKind, string>;
  dateOf: Record<DocumentKind, string>;
  dueDate: string;
  servicePeriod: string;
  customerNumber: string;
  buyerReference: string;
  orderReference: string;
  contractReference: string;
  originalInvoice: string;
  /** "RE-1 vom 02.11.2026". */
  numberOfDate: (number: string, date: string) => string;
  buyerVatId: string;
  contact: string;
  phone: string;
  email: string;
  attention: string;
  columns: { number: string; description: string; quantity: string; unitPrice: string; discount: string; net: string };
  linePeriod: string;
  itemId: string;
  continued: string;
  subtotal: string;
  discounts: string;
  net: string;
  /** "19 % USt auf 187,80 €". */
  vatOn: (rate: string, taxable: string) => string;
  vatCategory: Partial<Record<VatCategory, string>>;
  gross: string;
  paid: string;
  due: string;
  exchangeRates: string;
  rateDate: string;
  legalNotes: string;
  payment: string;
  transfer: (amount: string, dueDate: string | null) => string;
  remittance: string;
  accountHolder: string;
  bank: string;
  directDebit: (amount: string, dueDate: string | null, iban: string | null) => string;
  mandateReference: string;
  creditorId: string;
  otherMeans: (amount: string, means: string) => string;
  paymentMethod: string;
  settled: string;
  refund: (amount: string) => string;
  girocode: string;
  page: (n: number, total: number) => string;
  preview: string;
  previewNote: string;
  vatId: string;
  taxNumber: string;
  units: Readonly<Record<string, string>>;
}

const de: Labels = {
  numberOf: {
    invoice: 'Rechnungsnummer',
    credit_note: 'Gutschriftsnummer',
    cancellation: 'Stornonummer',
    refund: 'Erstattungsnummer',
    reminder: 'Erinnerungsnummer',
    dunning: 'Mahnungsnummer',
  },
  dateOf: {
    invoice: 'Rechnungsdatum',
    credit_note: 'Gutschriftsdatum',
    cancellation: 'Stornodatum',
    refund: 'Datum',
    reminder: 'Datum',
    dunning: 'Datum',
  },
  dueDate: 'Fällig am',
  servicePeriod: 'Leistungszeitraum',
  customerNumber: 'Kundennummer',
  buyerReference: 'Ihre Referenz',
  orderReference: 'Ihre Bestellung',
  contractReference: 'Vertrag',
  originalInvoice: 'Zur Rechnung',
  numberOfDate: (number, date) => `${number} vom ${date}`,
  buyerVatId: 'Ihre USt-IdNr.',
  contact: 'Ansprechpartner',
  phone: 'Telefon',
  email: 'E-Mail',
  attention: 'z. Hd.',
  columns: { number: 'Pos.', description: 'Bezeichnung', quantity: 'Menge', unitPrice: 'Einzelpreis', discount: 'Rabatt', net: 'Betrag' },
  linePeriod: 'Zeitraum',
  itemId: 'Art.-Nr.',
  continued: 'Fortsetzung',
  subtotal: 'Summe der Positionen',
  discounts: 'Rabatte',
  net: 'Nettobetrag',
  vatOn: (rate, taxable) => `${rate} USt auf ${taxable}`,
  vatCategory: {
    Z: 'Nullsatz',
    E: 'steuerbefreit',
    AE: 'Steuerschuldnerschaft des Leistungsempfängers',
    K: 'innergemeinschaftliche Lieferung',
    G: 'Ausfuhr, nicht steuerbar im Inland',
    O: 'nicht umsatzsteuerbar',
  },
  gross: 'Gesamtbetrag',
  paid: 'Bereits bezahlt',
  due: 'Offener Betrag',
  exchangeRates: 'Umrechnungskurse',
  rateDate: 'Stichtag',
  legalNotes: 'Hinweise',
  payment: 'Zahlung',
  transfer: (amount, dueDate) => `Bitte überweisen Sie ${amount}${dueDate ? ` bis zum ${dueDate}` : ''} auf folgendes Konto:`,
  remittance: 'Verwendungszweck',
  accountHolder: 'Kontoinhaber',
  bank: 'Bank',
  directDebit: (amount, dueDate, iban) =>
    `Der Betrag von ${amount} wird ${dueDate ? `zum ${dueDate} ` : ''}per SEPA-Lastschrift von Ihrem Konto ${iban ? `${iban} ` : ''}eingezogen.`,
  mandateReference: 'Mandatsreferenz',
  creditorId: 'Gläubiger-ID',
  otherMeans: (amount, means) => `Der Betrag von ${amount} wird über ${means} beglichen.`,
  paymentMethod: 'Zahlungsart',
  settled: 'Der Betrag ist bereits vollständig beglichen.',
  refund: (amount) => `Den Betrag von ${amount} erstatten wir Ihnen.`,
  girocode: 'Mit Ihrer Banking-App scannen',
  page: (n, total) => `Seite ${n} von ${total}`,
  preview: 'VORSCHAU',
  previewNote: 'VORSCHAU – dieses Dokument ist noch nicht ausgestellt und hat noch keine Nummer.',
  vatId: 'USt-IdNr.',
  taxNumber: 'Steuernummer',
  units: { HUR: 'Std.', DAY: 'Tag(e)', WEE: 'Woche(n)', MON: 'Monat(e)', ANN: 'Jahr(e)', MIN: 'Min.', SEC: 'Sek.', LS: 'pauschal', E34: 'GB', KWH: 'kWh' },
};

const en: Labels = {
  numberOf: {
    invoice: 'Invoice number',
    credit_note: 'Credit note number',
    cancellation: 'Cancellation number',
    refund: 'Refund number',
    reminder: 'Reminder number',
    dunning: 'Dunning number',
  },
  dateOf: {
    invoice: 'Invoice date',
    credit_note: 'Credit note date',
    cancellation: 'Cancellation date',
    refund: 'Date',
    reminder: 'Date',
    dunning: 'Date',
  },
  dueDate: 'Due date',
  servicePeriod: 'Service period',
  customerNumber: 'Customer number',
  buyerReference: 'Your reference',
  orderReference: 'Your order',
  contractReference: 'Contract',
  originalInvoice: 'Original invoice',
  numberOfDate: (number, date) => `${number} of ${date}`,
  buyerVatId: 'Your VAT ID',
  contact: 'Contact',
  phone: 'Phone',
  email: 'Email',
  attention: 'Attn.',
  columns: { number: 'No.', description: 'Description', quantity: 'Quantity', unitPrice: 'Unit price', discount: 'Discount', net: 'Amount' },
  linePeriod: 'Period',
  itemId: 'Item no.',
  continued: 'continued',
  subtotal: 'Subtotal',
  discounts: 'Discounts',
  net: 'Net total',
  vatOn: (rate, taxable) => `VAT ${rate} on ${taxable}`,
  vatCategory: {
    Z: 'zero rated',
    E: 'exempt',
    AE: 'reverse charge',
    K: 'intra-Community supply',
    G: 'export, not taxable in the seller’s country',
    O: 'outside the scope of VAT',
  },
  gross: 'Total',
  paid: 'Already paid',
  due: 'Amount due',
  exchangeRates: 'Exchange rates',
  rateDate: 'Rate date',
  legalNotes: 'Notes',
  payment: 'Payment',
  transfer: (amount, dueDate) => `Please transfer ${amount}${dueDate ? ` by ${dueDate}` : ''} to the following account:`,
  remittance: 'Reference',
  accountHolder: 'Account holder',
  bank: 'Bank',
  directDebit: (amount, dueDate, iban) =>
    `The amount of ${amount} will be debited from your account ${iban ? `${iban} ` : ''}by SEPA direct debit${dueDate ? ` on ${dueDate}` : ''}.`,
  mandateReference: 'Mandate reference',
  creditorId: 'Creditor ID',
  otherMeans: (amount, means) => `The amount of ${amount} will be settled via ${means}.`,
  paymentMethod: 'Payment method',
  settled: 'The amount has already been paid in full.',
  refund: (amount) => `We will refund the amount of ${amount} to you.`,
  girocode: 'Scan with your banking app',
  page: (n, total) => `Page ${n} of ${total}`,
  preview: 'PREVIEW',
  previewNote: 'PREVIEW – this document has not been issued yet and has no number.',
  vatId: 'VAT ID',
  taxNumber: 'Tax number',
  units: { HUR: 'h', DAY: 'day(s)', WEE: 'week(s)', MON: 'month(s)', ANN: 'year(s)', MIN: 'min', SEC: 's', LS: 'lump sum', E34: 'GB', KWH: 'kWh' },
};

export function labelsFor(lang: DocumentLanguage): Labels {
  return lang === 'de' ? de : en;
}
