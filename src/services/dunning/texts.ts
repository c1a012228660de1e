import type { DunningTexts } from '../../db/schema';
import type { DocumentLanguage } from '../../documents/model';
import type { DunningType } from '../../billing/dunning';
import { fromMinorUnits } from '../../billing/money';
import { localDay } from '../../billing/periods';
import { formatDate, formatMoney } from '../../documents/pdf/format';

// The words of reminders and dunning letters where the tenant's rule has none. `{invoiceNumber}`,
// `{invoiceDate}`, `{dueDate}`, `{amountDue}`, `{level}`, `{seller}` are filled in when the
// document is made, `{number}` when its number is allocated.

type Texts = Required<{ [K in keyof DunningTexts]: string }>;

export const DEFAULT_DUNNING_TEXTS: Record<DocumentLanguage, Record<DunningType, Texts>> = {
  de: {
    reminder: {
      title: 'Zahlungserinnerung {number}',
      introduction: 'sicher haben Sie es nur übersehen: Die Rechnung {invoiceNumber} vom {invoiceDate} ist noch nicht vollständig bezahlt. Bitte überweisen Sie den offenen Betrag von {amountDue} bis zum {dueDate}.',
      closing: 'Sollten Sie die Zahlung bereits veranlasst haben, betrachten Sie dieses Schreiben bitte als gegenstandslos.\n\nMit freundlichen Grüßen\n{seller}',
      emailSubject: 'Zahlungserinnerung zur Rechnung {invoiceNumber}',
      emailBody: 'Guten Tag,\n\ndie Rechnung {invoiceNumber} vom {invoiceDate} ist noch offen. Bitte überweisen Sie {amountDue} bis zum {dueDate}. Die Zahlungserinnerung {number} finden Sie im Anhang.\n\nMit freundlichen Grüßen\n{seller}',
    },
    dunning: {
      title: 'Mahnung {number} ({level}. Mahnstufe)',
      introduction: 'trotz unserer Erinnerung ist die Rechnung {invoiceNumber} vom {invoiceDate} noch nicht vollständig bezahlt. Bitte überweisen Sie den offenen Betrag einschließlich der Mahngebühren von {amountDue} bis spätestens {dueDate}.',
      closing: 'Sollten Sie die Zahlung inzwischen veranlasst haben, betrachten Sie dieses Schreiben bitte als gegenstandslos.\n\nMit freundlichen Grüßen\n{seller}',
      emailSubject: 'Mahnung zur Rechnung {invoiceNumber}',
      emailBody: 'Guten Tag,\n\ndie Rechnung {invoiceNumber} vom {invoiceDate} ist trotz Erinnerung noch offen. Bitte überweisen Sie {amountDue} bis spätestens {dueDate}. Die Mahnung {number} finden Sie im Anhang.\n\nMit freundlichen Grüßen\n{seller}',
    },
  },
  en: {
    reminder: {
      title: 'Payment reminder {number}',
      introduction: 'You may have overlooked it: invoice {invoiceNumber} of {invoiceDate} is not yet paid in full. Please pay the open amount of {amountDue} by {dueDate}.',
      closing: 'If you have already paid, please disregard this letter.\n\nKind regards\n{seller}',
      emailSubject: 'Payment reminder for invoice {invoiceNumber}',
      emailBody: 'Hello,\n\ninvoice {invoiceNumber} of {invoiceDate} is still open. Please pay {amountDue} by {dueDate}. The payment reminder {number} is attached.\n\nKind regards\n{seller}',
    },
    dunning: {
      title: 'Dunning letter {number} (level {level})',
      introduction: 'Despite our reminder, invoice {invoiceNumber} of {invoiceDate} is not yet paid in full. Please pay the open amount including dunning fees of {amountDue} by {dueDate} at the latest.',
      closing: 'If you have paid in the meantime, please disregard this letter.\n\nKind regards\n{seller}',
      emailSubject: 'Dunning letter for invoice {invoiceNumber}',
      emailBody: 'Hello,\n\ninvoice {invoiceNumber} of {invoiceDate} is still open despite our reminder. Please pay {amountDue} by {dueDate} at the latest. The dunning letter {number} is attached.\n\nKind regards\n{seller}',
    },
  },
};

/** Position names on the document. */
export const DUNNING_LINE_NAMES: Record<DocumentLanguage, { invoice: (number: string, date: string, credited: boolean) => string; fee: (level: number) => string }> = {
  de: { invoice: (n, d, credited) => `Rechnung ${n} vom ${d}${credited ? ' abzüglich Gutschriften' : ''}`, fee: (level) => `Mahngebühr (Stufe ${level})` },
  en: { invoice: (n, d, credited) => `Invoice ${n} of ${d}${credited ? ' less credit notes' : ''}`, fee: (level) => `Dunning fee (level ${level})` },
};

/** `{key}` placeholders with the given values; unknown or missing ones stay as they are. */
export function fillPlaceholders(text: string, values: Record<string, string | null>): string {
  return text.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole).trim();
}

/** The texts a rule gives a document in `language`, each falling back to the default. */
export function dunningTexts(own: Record<string, DunningTexts> | null, type: DunningType, language: DocumentLanguage): Texts {
  const defaults = DEFAULT_DUNNING_TEXTS[language][type];
  const mine = own?.[language] ?? {};
  return {
    title: mine.title || defaults.title,
    introduction: mine.introduction || defaults.introduction,
    closing: mine.closing || defaults.closing,
    emailSubject: mine.emailSubject || defaults.emailSubject,
    emailBody: mine.emailBody || defaults.emailBody,
  };
}

/** The placeholder values of a document, formatted for its language and the customer's time zone. */
export function placeholderValues(x: {
  language: DocumentLanguage;
  timeZone: string;
  currencyCode: string;
  invoiceNumber: string | null;
  invoiceDate: string;
  dueDate: string;
  amountDue: number;
  level: number;
  seller: string;
  number?: string;
}): Record<string, string> {
  const day = (iso: string) => formatDate(localDay(new Date(iso), x.timeZone), x.language);
  return {
    invoiceNumber: x.invoiceNumber ?? '',
    invoiceDate: day(x.invoiceDate),
    dueDate: day(x.dueDate),
    amountDue: formatMoney(fromMinorUnits(x.amountDue, x.currencyCode).toFixed(), x.currencyCode, x.language),
    level: String(x.level),
    seller: x.seller,
    ...(x.number ? { number: x.number } : {}),
  };
}
