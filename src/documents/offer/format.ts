import { parseDuration } from '../../billing/durations';
import type { OfferLanguage } from './model';

// Words for durations and instants of offers, shared by the PDFs and the offer page. Formatted by
// hand (no Intl): the PDFs must come out byte-identical wherever they are rendered.

const UNITS: Record<OfferLanguage, Record<'years' | 'months' | 'weeks' | 'days', [string, string]>> = {
  de: { years: ['Jahr', 'Jahre'], months: ['Monat', 'Monate'], weeks: ['Woche', 'Wochen'], days: ['Tag', 'Tage'] },
  en: { years: ['year', 'years'], months: ['month', 'months'], weeks: ['week', 'weeks'], days: ['day', 'days'] },
};

/** `1Y6M` → "1 Jahr 6 Monate" / "1 year 6 months"; unparseable text stays as it is. */
export function durationText(text: string, lang: OfferLanguage): string {
  const d = parseDuration(text);
  if (!d) return text;
  const parts = (['years', 'months', 'weeks', 'days'] as const).filter((k) => d[k] > 0).map((k) => `${d[k]} ${UNITS[lang][k][d[k] === 1 ? 0 : 1]}`);
  return parts.join(' ');
}

/** A billing interval as "monatlich"-like words: "pro 1 Monat" / "per 1 month", "alle 3 Monate" / "every 3 months". */
export function intervalText(text: string, lang: OfferLanguage): string {
  const d = parseDuration(text);
  if (!d) return text;
  const single = [d.years, d.months, d.weeks, d.days].filter((x) => x > 0).length === 1 && [d.years, d.months, d.weeks, d.days].includes(1);
  const words = durationText(text, lang);
  if (single) return lang === 'de' ? `pro ${words.replace(/^1 /, '')}` : `per ${words.replace(/^1 /, '')}`;
  return lang === 'de' ? `alle ${words}` : `every ${words}`;
}

/** An instant as a reader of an audit trail wants it: `2026-01-15 10:00:05 UTC`, the same everywhere. */
export function utcTime(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}
