import { readFileSync } from 'node:fs';
import fontkit from '@pdf-lib/fontkit';
import { describe, expect, it } from 'vitest';
import { requestLocalFontkit, shaperOf } from '../../src/documents/pdf/fontkit';

// The renderer lays out most text itself instead of through fontkit (src/documents/pdf/shaping.ts).
// What it answers must be what fontkit answers: the same glyphs (ligatures included), the same
// code points behind each glyph (what a reader copies out of the PDF) and the same advance widths
// (what line breaks are computed from), for every character of the fonts and for text in the
// languages customers write their names in.

const root = new URL('../../', import.meta.url);
const FONTS = {
  regular: new Uint8Array(readFileSync(new URL('node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf', root))),
  bold: new Uint8Array(readFileSync(new URL('node_modules/dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf', root))),
};

type Laid = { id: number; codePoints: number[]; advanceWidth: number }[] | 'throws';

/** fontkit's shapers of a few scripts (Indic, the universal one) throw in this build; ours must then too. */
function outcome(layout: () => Laid): Laid {
  try {
    return layout();
  } catch {
    return 'throws';
  }
}

function layouts(bytes: Uint8Array) {
  const ours = requestLocalFontkit.create(bytes);
  const theirs = fontkit.create(bytes);
  return {
    ours: (text: string): Laid => outcome(() => ours.layout(text).glyphs.map((g) => ({ id: g.id, codePoints: [...g.codePoints], advanceWidth: g.advanceWidth }))),
    // A fresh glyph cache per text, as a fresh font per document had: each glyph's code points are this text's.
    theirs: (text: string): Laid => {
      (theirs as unknown as { _glyphs: object })._glyphs = {};
      return outcome(() => theirs.layout(text).glyphs.map((g) => ({ id: g.id, codePoints: [...g.codePoints], advanceWidth: g.advanceWidth })));
    },
    stats: shaperOf(ours)!.stats,
    characterSet: theirs.characterSet,
  };
}

const SENTENCES = [
  'Rechnung RE-0000000001 – Müller & Söhne KG, Königsallee 27a, 40212 Düsseldorf',
  'Vielen Dank für Ihren Auftrag. Wir berechnen Ihnen folgende Leistungen:',
  'Fachbuch „Abrechnung für Fortgeschrittene“: Auflage, Schiff, offline, Effizienz, ﬁnal',
  'office affine waffle fjord fi fl ff ffi ffl fff ffff',
  'Zażółć gęślą jaźń – Łódź, Kraków, Szczecin, Gdańsk, Wrocław',
  'Příliš žluťoučký kůň úpěl ďábelské ódy – Brno, Ústí nad Labem',
  'İstanbul Büyükşehir Belediyesi, Çağlayan Mah., Ağrı, Iğdır, Şişli',
  'Ελληνική Δημοκρατία – Αθήνα, Θεσσαλονίκη; Σοφία',
  'Москва, улица Тверская 7 – ООО «Ромашка», Ёлкин',
  'Sørensen Æbleskiver, Ærøskøbing; Göteborg; Þórshöfn; Ðakovo; Œuvre',
  'Summe 1.234,56 € – 12 % · 3/4 ½ ¾ © ® ™ § ¶ † ‡ … ‰ ′ ″ « » ‹ › ¡ ¿',
  'IBAN DE02 1203 0000 0000 2020 51\u00a0BIC BYLADEM1001',
  'Москва office', 'office Москва', '123 office', 'Ω office', '− ≤ ≥ ≠ ∞ √',
  'soft\u00adhyphen', 'zero\u200bwidth', 'a\u0308 i\u0301 A\u030a e\u0328', '1\u20442', 'emoji 😀 and 𝔘', '\ud800 lone', '\u0378 unassigned',
  '中文 日本語 한국어 עברית العربية', '', ' ', 'f', 'ff',
];

/** A small deterministic generator, so the random strings are the same on every run. */
function random(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000);
}

describe.each(Object.entries(FONTS))('laying out text in DejaVu Sans %s', (_name, bytes) => {
  const { ours, theirs, stats, characterSet } = layouts(bytes);

  it('answers what fontkit answers for every character of the font', () => {
    const bmp = characterSet.filter((cp: number) => cp < 0x10000);
    expect(bmp.length).toBeGreaterThan(5000);
    for (const cp of bmp) {
      const text = String.fromCodePoint(cp);
      expect(ours(text), `U+${cp.toString(16)}`).toEqual(theirs(text));
    }
  });

  it('answers what fontkit answers for sentences in many scripts, ligatures and odd characters', () => {
    for (const text of SENTENCES) expect(ours(text), text).toEqual(theirs(text));
  });

  it('answers what fontkit answers for every string of up to three characters around the ligatures', () => {
    const alphabet = ['f', 'i', 'l', 'j', 't', ' ', 'ı', 'İ', 'F', 'Ж', 'ω', '1', '\u0301', '\u00ad', 'ﬁ', '–'];
    for (const a of alphabet)
      for (const b of ['', ...alphabet])
        for (const c of ['', ...alphabet]) {
          const text = a + b + c;
          expect(ours(text), JSON.stringify(text)).toEqual(theirs(text));
        }
  });

  it('answers what fontkit answers for random text of the characters invoices are written in', () => {
    const repertoire = [...new Set(SENTENCES.slice(0, 12).join(''))];
    const next = random(20);
    for (let n = 0; n < 2000; n++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 24) }, () => repertoire[Math.floor(next() * repertoire.length)]).join('');
      expect(ours(text), JSON.stringify(text)).toEqual(theirs(text));
    }
  });

  it('lays out ordinary text of Latin, Greek and Cyrillic writing itself, and hands the rest to fontkit', () => {
    const before = { ...stats };
    for (const text of SENTENCES.slice(0, 12)) ours(`${text} (${before.plain})`);
    expect(stats.plain - before.plain).toBe(12);
    for (const text of ['a\u0308', 'soft\u00adhyphen', '中文', '1\u20442']) ours(`${text} (${before.fontkit})`);
    expect(stats.fontkit - before.fontkit).toBe(4);
  });
});
