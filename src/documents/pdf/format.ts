// Numbers, amounts, dates and IBANs as a reader of the document's language expects them. Amounts
// stay decimal strings from the model to the page: they are reformatted as text, never parsed into
// a JS number (docs/decisions.md, Foundations). Dates are formatted by hand rather than with Intl
// so the output does not depend on the runtime's ICU data (the PDF must be byte-identical).
import { Dec } from '../../billing/money';
import { CURRENCY_MINOR_UNITS } from '../../reference/iso';
import type { DocumentLanguage } from '../model';

/** Currency signs that name one currency only (as in src/billing/money.ts); others print their code. */
const SIGNS: Readonly<Record<string, string>> = { EUR: '€', USD: '$', GBP: '£', JPY: '¥' };

const SEPARATORS: Record<DocumentLanguage, { group: string; decimal: string }> = {
  de: { group: '.', decimal: ',' },
  en: { group: ',', decimal: '.' },
};

export function currencyDecimals(currency: string): number {
  return CURRENCY_MINOR_UNITS.get(currency) ?? 2;
}

/**
 * A decimal string with grouping and the language's separators. At least `minDecimals` decimals;
 * further decimals are kept as far as they are not trailing zeros (unit prices carry up to 10).
 */
export function formatNumber(value: string, lang: DocumentLanguage, minDecimals = 0): string {
  let d = new Dec(value);
  if (d.isZero()) d = new Dec(0);
  const text = d.toFixed(Math.max(minDecimals, d.decimalPlaces()));
  const negative = text.startsWith('-');
  const [integer = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const { group, decimal } = SEPARATORS[lang];
  const grouped = integer.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  return `${negative ? '-' : ''}${grouped}${fraction ? decimal + fraction : ''}`;
}

/** An amount with its currency: de `1.234,50 €` / `1.234,50 CHF`, en `€1,234.50` / `CHF 1,234.50`. */
export function formatMoney(amount: string, currency: string, lang: DocumentLanguage, minDecimals = currencyDecimals(currency)): string {
  const number = formatNumber(amount, lang, minDecimals);
  const sign = SIGNS[currency];
  if (lang === 'de') return `${number} ${sign ?? currency}`;
  const negative = number.startsWith('-');
  const magnitude = negative ? number.slice(1) : number;
  return `${negative ? '-' : ''}${sign ?? `${currency} `}${magnitude}`;
}

/** A unit price: the currency's decimals at least, more when the price has them (0,0125 €). */
export function formatUnitPrice(price: string, currency: string, lang: DocumentLanguage): string {
  return formatMoney(price, currency, lang, currencyDecimals(currency));
}

/** A percentage: de `19 %`, `5,5 %` (DIN 5008 puts a space before %), en `19%`. */
export function formatPercent(rate: string, lang: DocumentLanguage): string {
  const number = formatNumber(new Dec(rate).toString(), lang);
  return lang === 'de' ? `${number} %` : `${number}%`;
}

const MONTHS_EN = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** YYYY-MM-DD → de `02.11.2026`, en `2 November 2026` (day-month order, unambiguous everywhere). */
export function formatDate(iso: string, lang: DocumentLanguage): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  if (!m) return iso;
  const [, year, month, day] = m as unknown as [string, string, string, string];
  if (lang === 'de') return `${day}.${month}.${year}`;
  return `${Number.parseInt(day, 10)} ${MONTHS_EN[Number.parseInt(month, 10) - 1] ?? month} ${year}`;
}

export function formatPeriod(period: { from: string; to: string }, lang: DocumentLanguage): string {
  return `${formatDate(period.from, lang)} – ${formatDate(period.to, lang)}`;
}

/** An IBAN in groups of four, as printed on paper (DIN 5008). */
export function formatIban(iban: string): string {
  return iban.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');
}

/** The debited account as the payer recognises it without exposing it: country, check digits and the last four. */
export function maskIban(iban: string): string {
  const compact = iban.replace(/\s+/g, '');
  if (compact.length <= 8) return formatIban(compact);
  return formatIban(compact.slice(0, 4) + 'X'.repeat(compact.length - 8) + compact.slice(-4));
}
