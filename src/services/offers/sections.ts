import { sanitizeRichText } from '../../lib/rich-text';

/** Sections as stored: each in the safe subset, those left without text dropped. */
export function sanitizeSections(sections: readonly string[]): string[] {
  return sections.map(sanitizeRichText).filter((s) => s !== '');
}

/** Upper bounds of offer text (docs/decisions.md, Offers). */
export const OFFER_TEXT_LIMITS = { sections: 50, sectionChars: 50_000, description: 10_000 } as const;
