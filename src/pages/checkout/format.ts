import { COUNTRY_CODES } from '../../reference/iso';
import type { Lang } from './texts';

// Display formatting only: amounts arrive as exact decimal strings and are formatted as strings
// (Intl.NumberFormat formats a decimal string without turning it into a binary number).

const LOCALES: Record<Lang, string> = { de: 'de-DE', en: 'en-GB' };

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** "119.00", "EUR" → "119,00 €" (de) / "€119.00" (en). */
export function formatMoney(amount: string, currency: string, lang: Lang): string {
  const key = `${lang} ${currency}`;
  let f = moneyFormats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(LOCALES[lang], { style: 'currency', currency });
    moneyFormats.set(key, f);
  }
  return f.format(amount as Intl.StringNumericLiteral);
}

/** A tax rate "19.00" → "19", "7.5" → "7.5": trailing zeros of the fraction dropped, text only. */
export function formatRate(rate: string): string {
  return rate.includes('.') ? rate.replace(/\.?0+$/, '') : rate;
}

const countryLists = new Map<Lang, { code: string; name: string }[]>();

/** Every ISO country with its name in the page's language, sorted by that name (computed once per language). */
export function countries(lang: Lang): { code: string; name: string }[] {
  let list = countryLists.get(lang);
  if (!list) {
    const names = new Intl.DisplayNames([LOCALES[lang]], { type: 'region' });
    const collator = new Intl.Collator(LOCALES[lang]);
    list = [...COUNTRY_CODES].map((code) => ({ code, name: names.of(code) ?? code })).sort((a, b) => collator.compare(a.name, b.name));
    countryLists.set(lang, list);
  }
  return list;
}

export const htmlLang = (lang: Lang) => LOCALES[lang];

const regionNames = new Map<Lang, Intl.DisplayNames>();

/** A country's name in the page's language ("DE" → "Deutschland" / "Germany"). */
export function countryName(code: string, lang: Lang): string {
  let names = regionNames.get(lang);
  if (!names) {
    names = new Intl.DisplayNames([LOCALES[lang]], { type: 'region' });
    regionNames.set(lang, names);
  }
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}
