import { LEGAL_NOTES } from '../../billing/tax';
import { reversalTitleReason } from '../invoices/reversal-titles';
import type { DocumentKind, DocumentLanguage, VatCategory } from '../../documents/model';

// The words a document is written in, where the tenant did not write its own (document settings
// texts). `{number}`, `{originalNumber}` and `{seller}` are filled in.

type Texts = { title: string; introduction: string; closing: string };

export const DEFAULT_TEXTS: Record<DocumentLanguage, Partial<Record<DocumentKind, Texts>>> = {
  de: {
    invoice: { title: 'Rechnung {number}', introduction: 'Vielen Dank für Ihren Auftrag. Wir berechnen Ihnen folgende Leistungen:', closing: 'Mit freundlichen Grüßen\n{seller}' },
    credit_note: { title: 'Gutschrift {number}', introduction: 'Wir schreiben Ihnen folgende Beträge zur Rechnung {originalNumber} gut:', closing: 'Mit freundlichen Grüßen\n{seller}' },
    cancellation: { title: 'Stornorechnung {number}', introduction: 'Hiermit stornieren wir die Rechnung {originalNumber} vollständig.', closing: 'Mit freundlichen Grüßen\n{seller}' },
    refund: { title: 'Erstattung {number}', introduction: 'Wir erstatten Ihnen folgende Beträge zur Rechnung {originalNumber}:', closing: 'Mit freundlichen Grüßen\n{seller}' },
  },
  en: {
    invoice: { title: 'Invoice {number}', introduction: 'Thank you for your business. We invoice the following:', closing: 'Kind regards\n{seller}' },
    credit_note: { title: 'Credit note {number}', introduction: 'We credit you the following amounts on invoice {originalNumber}:', closing: 'Kind regards\n{seller}' },
    cancellation: { title: 'Cancellation {number}', introduction: 'We hereby cancel invoice {originalNumber} in full.', closing: 'Kind regards\n{seller}' },
    refund: { title: 'Refund {number}', introduction: 'We refund you the following amounts on invoice {originalNumber}:', closing: 'Kind regards\n{seller}' },
  },
};

/** A draft or estimate has no number yet: its title says what it is. */
export const PREVIEW_TITLES: Record<DocumentLanguage, Record<DocumentKind, string>> = {
  de: { invoice: 'Rechnungsentwurf', credit_note: 'Gutschriftsentwurf', cancellation: 'Stornoentwurf', refund: 'Erstattungsentwurf', reminder: 'Zahlungserinnerung (Entwurf)', dunning: 'Mahnung (Entwurf)' },
  en: { invoice: 'Draft invoice', credit_note: 'Draft credit note', cancellation: 'Draft cancellation', refund: 'Draft refund', reminder: 'Draft payment reminder', dunning: 'Draft dunning letter' },
};

export function fillIn(text: string, values: Record<string, string | null>): string {
  return text.replace(/\{(number|originalNumber|seller)\}/g, (whole, key: string) => values[key] ?? whole).trim();
}

/** The reason of a position the tenant marked "not subject to VAT" (O) itself; the tax engine never does. */
const NOT_SUBJECT_TO_VAT = 'Not subject to VAT';

const GERMAN_LEGAL_NOTES: Record<string, string> = {
  [NOT_SUBJECT_TO_VAT]: 'Nicht umsatzsteuerbar',
  [LEGAL_NOTES.reverseCharge]: 'Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge, Art. 196 MwStSystRL)',
  [LEGAL_NOTES.intraEuSupply]: 'Steuerfreie innergemeinschaftliche Lieferung (Art. 138 MwStSystRL)',
  [LEGAL_NOTES.exportOfServices]: 'Nicht im Inland steuerbare Leistung: Leistungsort außerhalb der EU',
  [LEGAL_NOTES.exportOfGoods]: 'Steuerfreie Ausfuhrlieferung (Art. 146 MwStSystRL)',
  [LEGAL_NOTES.exempt]: 'Steuerbefreit: Der Leistungsempfänger ist von der Umsatzsteuer befreit',
};

/** A position's legal note in the document's language (the tax engine writes them in English). */
export function legalNote(note: string, language: DocumentLanguage): string {
  return language === 'de' ? (GERMAN_LEGAL_NOTES[note] ?? note) : note;
}

// Texts the API writes in English into stored data, which a document shows in its own language.

/** The labels of Fynn's credit reasons (CREDIT_REASONS in src/services/invoices/credits.ts). */
const GERMAN_CREDIT_REASONS: Record<string, string> = {
  'duplicate invoice': 'doppelte Rechnung',
  'incorrect invoice': 'fehlerhafte Rechnung',
  'product unsatisfactory': 'Produkt nicht zufriedenstellend',
  'order changed': 'Auftrag geändert',
};

/**
 * Whether `title` is the one crediting or cancelling stored (src/services/invoices/reversal-titles.ts),
 * and its reason if so, in the document's language; null for any other title.
 */
export function generatedReversalTitle(kind: DocumentKind, title: string | null, originalNumber: string, language: DocumentLanguage): { reason: string | null } | null {
  if (title === null || (kind !== 'credit_note' && kind !== 'cancellation')) return null;
  const reason = reversalTitleReason(kind, title, originalNumber);
  if (reason === undefined) return null;
  return { reason: reason && language === 'de' ? (GERMAN_CREDIT_REASONS[reason] ?? reason) : reason };
}

/** A consolidated invoice's group heading as billing writes it ("Subscription S-1", "… of Acme"), in the document's language. */
export function groupDescription(description: string, language: DocumentLanguage): string {
  if (language === 'en') return description;
  const m = /^Subscription (\S+)(?: of (.+))?$/s.exec(description);
  return m ? `Abonnement ${m[1]}${m[2] ? ` von ${m[2]}` : ''}` : description;
}

/** VATEX codes (CEF exemption reason code list) for the categories whose reason is fixed by law. */
export const VATEX: Partial<Record<VatCategory, string>> = { AE: 'VATEX-EU-AE', K: 'VATEX-EU-IC', G: 'VATEX-EU-G', O: 'VATEX-EU-O' };

/** The exemption reason of a category when no position states one. */
export const DEFAULT_EXEMPTION: Partial<Record<VatCategory, string>> = {
  AE: LEGAL_NOTES.reverseCharge,
  K: LEGAL_NOTES.intraEuSupply,
  G: LEGAL_NOTES.exportOfServices,
  E: LEGAL_NOTES.exempt,
  // BR-O-10: a breakdown not subject to VAT must say so.
  O: NOT_SUBJECT_TO_VAT,
};

export const PAYMENT_TEXTS = {
  de: {
    transfer: 'SEPA-Überweisung',
    directDebit: 'SEPA-Lastschrift',
    card: 'Kreditkarte',
    online: 'Online-Zahlung',
    other: 'Zahlung',
    payableBy: (due: string) => `Zahlbar ohne Abzug bis zum ${due}.`,
    debited: 'Der Betrag wird von Ihrem Konto eingezogen.',
    charged: 'Der Betrag wird über die hinterlegte Zahlungsart abgebucht.',
    credited: 'Der Betrag wird Ihnen erstattet oder mit offenen Rechnungen verrechnet.',
  },
  en: {
    transfer: 'SEPA credit transfer',
    directDebit: 'SEPA direct debit',
    card: 'Credit card',
    online: 'Online payment',
    other: 'Payment',
    payableBy: (due: string) => `Payable without deduction by ${due}.`,
    debited: 'The amount will be debited from your account.',
    charged: 'The amount will be charged to your stored payment method.',
    credited: 'The amount will be refunded to you or set off against open invoices.',
  },
} as const;
