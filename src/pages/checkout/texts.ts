import { parseDuration } from '../../billing/durations';
// The checkout page's words in German and English. One object per language with the same keys, so a
// text missing in one language does not compile.

export type Lang = 'de' | 'en';

const en = {
  htmlTitle: 'Checkout',
  heading: 'Checkout',
  summary: 'Your order',
  quantity: 'Quantity',
  updateQuantity: 'Update quantity',
  per: (interval: string) => `per ${interval}`,
  trial: (days: number) => (days === 1 ? '1 day free trial' : `${days} days free trial`),
  coupon: 'Coupon code',
  applyCoupon: 'Apply coupon',
  removeCoupon: 'Remove coupon',
  couponApplied: (code: string) => `Coupon ${code} applied`,
  discount: 'Discount',
  net: 'Net amount',
  tax: (rate: string) => `VAT ${rate} %`,
  reverseCharge: 'Reverse charge: VAT is owed by the recipient',
  total: 'Due today',
  yourDetails: 'Your details',
  email: 'E-mail address',
  phone: 'Phone (optional)',
  address: 'Billing address',
  companyName: 'Company',
  companyOptional: 'Company (optional)',
  vatId: 'VAT ID',
  vatIdOptional: 'VAT ID (optional)',
  firstName: 'First name',
  lastName: 'Last name',
  street: 'Street',
  houseNumber: 'No.',
  zip: 'Postcode',
  city: 'City',
  country: 'Country',
  saveDetails: 'Save details and update total',
  paymentMethod: 'Payment method',
  payTesting: 'Test payment (testing gateway)',
  cardDetails: 'Card details',
  paySepa: 'SEPA direct debit',
  payTransfer: 'Bank transfer',
  payCard: 'Credit card',
  iban: 'IBAN',
  accountHolder: 'Account holder',
  sepaMandate: 'I authorise the seller to collect payments from my account by direct debit (SEPA mandate).',
  confirm: 'Order with obligation to pay',
  confirming: 'Your order is being processed.',
  completedTitle: 'Thank you for your order',
  completedDefault: 'Your order has been received. You will get a confirmation by e-mail.',
  continue: 'Continue',
  back: 'Back',
  notFoundTitle: 'Checkout not found',
  notFound: 'This checkout link is unknown, disabled or has expired. Please ask the seller for a new link.',
  lockedTitle: 'Order in progress',
  locked: 'This order is being completed and cannot be changed any more.',
  errorTitle: 'Something went wrong',
  error: 'The order could not be processed. Please try again in a moment.',
  tooManyTitle: 'Too many requests',
  tooMany: (seconds: number) => `Too many requests came from your network. Please try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`,
  fixErrors: 'Please correct the marked fields.',
  required: 'required',
  otpTitle: 'Confirm your e-mail address',
  otpSent: (email: string) => `This e-mail address belongs to an existing customer account. We have sent a one-time code to ${email}.`,
  otpCode: 'One-time code',
  otpConfirm: 'Confirm and order',
  otpWrong: 'This code is wrong or has expired.',
  language: 'Sprache: Deutsch',
  updating: 'Updating total…',
  updated: 'Total updated.',
  free: 'free',
  intervals: { day: ['day', 'days'], week: ['week', 'weeks'], month: ['month', 'months'], year: ['year', 'years'] } as Record<string, [string, string]>,
  soldBy: 'Seller',
  logoAlt: (seller: string) => `${seller} logo`,
  terms: 'Terms and conditions',
  privacy: 'Privacy policy',
  withdrawal: 'Withdrawal policy',
  imprint: 'Imprint',
  legalLinks: 'Legal information',
  acceptTerms: 'I accept the',
  renews: (every: string, amount: string, inclVat: boolean) => `Renews every ${every} at ${amount}${inclVat ? ' (incl. VAT)' : ''} until cancelled`,
  afterTrial: (days: number) => `After the ${days}-day free trial: `,
  minimumTerm: (term: string) => `minimum term ${term}`,
  noticePeriod: (notice: string) => `notice period ${notice}`,
  cancelAnyTime: 'cancel at any time',
  invoiceNumber: 'Invoice number',
  amountPaid: 'Amount paid',
  amountDue: 'Amount due',
  emailedTo: (email: string) => `We have e-mailed a confirmation to ${email}.`,
  authenticateTitle: 'Confirm your payment',
  authenticate: (amount: string) => `Your bank asks you to confirm the payment of ${amount}. Its window opens on this page; once you have confirmed, your order is complete.`,
  authenticateCheck: 'Check the payment',
  authenticateFailed: 'The payment was not confirmed. Please choose a payment method and order again.',
};

const de: typeof en = {
  htmlTitle: 'Bestellung',
  heading: 'Bestellung',
  summary: 'Ihre Bestellung',
  quantity: 'Menge',
  updateQuantity: 'Menge ändern',
  per: (interval) => `pro ${interval}`,
  trial: (days) => (days === 1 ? '1 Tag kostenlos testen' : `${days} Tage kostenlos testen`),
  coupon: 'Gutscheincode',
  applyCoupon: 'Gutschein einlösen',
  removeCoupon: 'Gutschein entfernen',
  couponApplied: (code) => `Gutschein ${code} eingelöst`,
  discount: 'Rabatt',
  net: 'Nettobetrag',
  tax: (rate) => `USt. ${rate.replace('.', ',')} %`,
  reverseCharge: 'Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge)',
  total: 'Heute fällig',
  yourDetails: 'Ihre Angaben',
  email: 'E-Mail-Adresse',
  phone: 'Telefon (optional)',
  address: 'Rechnungsadresse',
  companyName: 'Firma',
  companyOptional: 'Firma (optional)',
  vatId: 'USt-IdNr.',
  vatIdOptional: 'USt-IdNr. (optional)',
  firstName: 'Vorname',
  lastName: 'Nachname',
  street: 'Straße',
  houseNumber: 'Nr.',
  zip: 'PLZ',
  city: 'Ort',
  country: 'Land',
  saveDetails: 'Angaben speichern und Summe aktualisieren',
  paymentMethod: 'Zahlungsart',
  payTesting: 'Testzahlung (Test-Gateway)',
  cardDetails: 'Kartendaten',
  paySepa: 'SEPA-Lastschrift',
  payTransfer: 'Überweisung',
  payCard: 'Kreditkarte',
  iban: 'IBAN',
  accountHolder: 'Kontoinhaber',
  sepaMandate: 'Ich ermächtige den Verkäufer, Zahlungen von meinem Konto mittels Lastschrift einzuziehen (SEPA-Mandat).',
  confirm: 'Zahlungspflichtig bestellen',
  confirming: 'Ihre Bestellung wird bearbeitet.',
  completedTitle: 'Vielen Dank für Ihre Bestellung',
  completedDefault: 'Ihre Bestellung ist eingegangen. Sie erhalten eine Bestätigung per E-Mail.',
  continue: 'Weiter',
  back: 'Zurück',
  notFoundTitle: 'Bestellung nicht gefunden',
  notFound: 'Dieser Bestelllink ist unbekannt, deaktiviert oder abgelaufen. Bitte fragen Sie den Anbieter nach einem neuen Link.',
  lockedTitle: 'Bestellung in Bearbeitung',
  locked: 'Diese Bestellung wird abgeschlossen und kann nicht mehr geändert werden.',
  errorTitle: 'Etwas ist schiefgelaufen',
  error: 'Die Bestellung konnte nicht verarbeitet werden. Bitte versuchen Sie es gleich noch einmal.',
  tooManyTitle: 'Zu viele Anfragen',
  tooMany: (seconds: number) => `Aus Ihrem Netz kamen zu viele Anfragen. Bitte versuchen Sie es in ${seconds} ${seconds === 1 ? 'Sekunde' : 'Sekunden'} noch einmal.`,
  fixErrors: 'Bitte korrigieren Sie die markierten Felder.',
  required: 'Pflichtfeld',
  otpTitle: 'E-Mail-Adresse bestätigen',
  otpSent: (email) => `Diese E-Mail-Adresse gehört zu einem bestehenden Kundenkonto. Wir haben einen Einmalcode an ${email} gesendet.`,
  otpCode: 'Einmalcode',
  otpConfirm: 'Bestätigen und bestellen',
  otpWrong: 'Dieser Code ist falsch oder abgelaufen.',
  language: 'Language: English',
  updating: 'Summe wird aktualisiert…',
  updated: 'Summe aktualisiert.',
  free: 'kostenlos',
  intervals: { day: ['Tag', 'Tage'], week: ['Woche', 'Wochen'], month: ['Monat', 'Monate'], year: ['Jahr', 'Jahre'] },
  soldBy: 'Anbieter',
  logoAlt: (seller) => `Logo von ${seller}`,
  terms: 'AGB',
  privacy: 'Datenschutzerklärung',
  withdrawal: 'Widerrufsbelehrung',
  imprint: 'Impressum',
  legalLinks: 'Rechtliche Hinweise',
  acceptTerms: 'Ich akzeptiere die',
  renews: (every, amount, inclVat) => `Verlängert sich ${every} um ${amount}${inclVat ? ' (inkl. USt.)' : ''}, bis Sie kündigen`,
  afterTrial: (days) => `Nach ${days === 1 ? 'dem kostenlosen Testtag' : `den ${days} kostenlosen Testtagen`}: `,
  minimumTerm: (term) => `Mindestlaufzeit ${term}`,
  noticePeriod: (notice) => `Kündigungsfrist ${notice}`,
  cancelAnyTime: 'jederzeit kündbar',
  invoiceNumber: 'Rechnungsnummer',
  amountPaid: 'Bezahlt',
  amountDue: 'Zu zahlen',
  emailedTo: (email) => `Wir haben Ihnen eine Bestätigung an ${email} geschickt.`,
  authenticateTitle: 'Zahlung bestätigen',
  authenticate: (amount) => `Ihre Bank bittet Sie, die Zahlung über ${amount} zu bestätigen. Ihr Fenster öffnet sich auf dieser Seite; nach der Bestätigung ist Ihre Bestellung abgeschlossen.`,
  authenticateCheck: 'Zahlung prüfen',
  authenticateFailed: 'Die Zahlung wurde nicht bestätigt. Bitte wählen Sie eine Zahlungsart und bestellen Sie erneut.',
};

export type Texts = typeof en;
export const TEXTS: Record<Lang, Texts> = { de, en };

/**
 * German texts of the service's violations, by `field:code` (the page's field) or `*:code`; an
 * English page shows the service's own message, and so does a German one for anything not listed.
 */
export const VIOLATIONS_DE: Record<string, string> = {
  'email:required': 'Bitte geben Sie Ihre E-Mail-Adresse an.',
  'paymentType:payment_declined': 'Die Zahlung wurde abgelehnt. Bitte wählen Sie eine andere Zahlungsart und bestellen Sie erneut.',
  'paymentType:gateway_unconfigured': 'Diese Zahlungsart ist hier nicht möglich.',
  'email:invalid_email': 'Bitte geben Sie eine gültige E-Mail-Adresse an.',
  'phone:invalid_length': 'Bitte geben Sie 2 bis 255 Zeichen an.',
  'companyName:required': 'Dieses Angebot richtet sich an Unternehmen: Bitte geben Sie den Firmennamen an.',
  'countryCode:required': 'Bitte wählen Sie ein Land.',
  'countryCode:invalid_country_code': 'Bitte wählen Sie ein Land aus der Liste.',
  'countryCode:no_tax_rate': 'Für dieses Land ist kein Steuersatz hinterlegt.',
  'vatId:invalid_vat_id': 'Diese USt-IdNr. ist für ihren Mitgliedstaat nicht gültig.',
  'vatId:vat_id_not_registered': 'Das Mehrwertsteuerregister kennt diese USt-IdNr. nicht.',
  'quantity:invalid_type': 'Bitte geben Sie eine ganze Zahl ein.',
  'quantity:out_of_range': 'Diese Menge ist nicht möglich; bitte wählen Sie eine Menge im erlaubten Bereich.',
  'quantity:not_editable': 'Die Menge kann hier nicht geändert werden.',
  'code:not_found': 'Diesen Gutschein gibt es nicht.',
  'code:disabled': 'Dieser Gutschein ist nicht aktiv.',
  'code:expired': 'Dieser Gutschein ist abgelaufen.',
  'code:exhausted': 'Dieser Gutschein ist aufgebraucht.',
  'code:exhausted_for_customer': 'Sie haben diesen Gutschein bereits so oft wie erlaubt eingelöst.',
  'code:not_applicable': 'Dieser Gutschein gilt nicht für dieses Angebot.',
  'code:currency_mismatch': 'Dieser Gutschein gilt nicht in dieser Währung.',
  'code:coupons_not_allowed': 'Bei dieser Bestellung können keine Gutscheine eingelöst werden.',
  'iban:required': 'Bitte geben Sie Ihre IBAN an.',
  'iban:invalid_iban': 'Bitte prüfen Sie die IBAN.',
  'iban:not_sepa': 'Bitte geben Sie eine IBAN aus dem SEPA-Raum an.',
  'accountHolder:required': 'Bitte geben Sie den Kontoinhaber an.',
  'paymentType:required': 'Bitte wählen Sie eine Zahlungsart.',
  'paymentType:not_allowed': 'Diese Zahlungsart ist hier nicht möglich.',
  'acceptTerms:required': 'Bitte akzeptieren Sie die AGB, um zu bestellen.',
  '*:required': 'Bitte füllen Sie dieses Feld aus.',
  '*:too_long': 'Bitte geben Sie höchstens 255 Zeichen an.',
};

/** A violation's message in the page's language (see VIOLATIONS_DE). */
export function violationText(lang: Lang, field: string | null, v: { code: string; message: string }): string {
  if (lang === 'en') return v.message;
  return VIOLATIONS_DE[`${field ?? '*'}:${v.code}`] ?? VIOLATIONS_DE[`*:${v.code}`] ?? v.message;
}

/**
 * The page's language: `?lang=de|en` when given, else the first of de/en in Accept-Language by its
 * q-value, else German (the tenants are German sellers first).
 */
export function pickLang(acceptLanguage: string | undefined, override: string | undefined): Lang {
  if (override === 'de' || override === 'en') return override;
  let best: { lang: Lang; q: number } | undefined;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const [tag = '', ...params] = part.trim().split(';');
    const primary = tag.trim().toLowerCase().split('-')[0];
    if (primary !== 'de' && primary !== 'en') continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) continue;
    if (!best || q > best.q) best = { lang: primary, q };
  }
  return best?.lang ?? 'de';
}

/** `1M` → "month", `3M` → "3 months", `1Y` → "year", `14D` → "14 days". */
export function intervalText(t: Texts, interval: string, count: number): string {
  const names = t.intervals[interval] ?? [interval, interval];
  return count === 1 ? names[0] : `${count} ${names[1]}`;
}

/** `1M` → "1 month", `1Y6M` → "1 year 6 months" (a subscription's periods); the text itself when it is no duration. */
export function durationText(t: Texts, text: string): string {
  const d = parseDuration(text);
  if (!d) return text;
  const part = (n: number, unit: string) => (n === 0 ? null : `${n} ${(t.intervals[unit] ?? [unit, unit])[n === 1 ? 0 : 1]}`);
  return [part(d.years, 'year'), part(d.months, 'month'), part(d.weeks, 'week'), part(d.days, 'day')].filter(Boolean).join(' ');
}

/** How often it renews: "month" / "3 months" after "every" (en), "monatlich" / "alle 3 Monate" (de). */
export function everyText(lang: Lang, t: Texts, interval: string, count: number): string {
  const names = t.intervals[interval] ?? [interval, interval];
  if (lang === 'en') return count === 1 ? names[0] : `${count} ${names[1]}`;
  const single: Record<string, string> = { day: 'täglich', week: 'wöchentlich', month: 'monatlich', year: 'jährlich' };
  return count === 1 ? (single[interval] ?? `jede(n) ${names[0]}`) : `alle ${count} ${names[1]}`;
}
