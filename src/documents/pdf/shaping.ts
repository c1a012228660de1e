// Text layout for pdf-lib without the work it throws away, with fontkit's result.
//
// pdf-lib measures and encodes every string through fontkit's `layout`, which runs the whole
// OpenType pipeline (script and feature planning, every GSUB and GPOS lookup) and then uses only
// the glyph ids, their code points and their advance widths: the GPOS positions (kerning, mark
// placement) are dropped. That was two thirds of a document's render time. For the strings a
// document is made of, the only substitutions the font makes are ligatures (DejaVu: ff, fi, fl,
// ffi, ffl in Latin text); everything else in GSUB needs combining marks or other rare characters.
//
// So a string whose characters are all "plain" for its script is laid out here: the cmap glyph of
// each character, then the script's ligature lookups applied the way fontkit applies them. A
// character is plain when no other substitution the script's default features carry could start
// at its glyph (worked out from the font's GSUB once, below), when it is not a mark and not
// default-ignorable (fontkit hides those), and when its script is Latin, Greek, Cyrillic or none.
// Any other string goes through fontkit itself, so no character is ever dropped or changed:
// test/documents/pdf-shaping.unit.test.ts compares both for every character of the fonts and for
// sentences in many languages.
import type { Font } from 'pdf-lib/cjs/types/fontkit';

/** What pdf-lib reads of a laid-out glyph: the id, the code points for ToUnicode, the advance. */
export interface ShapedGlyph {
  readonly id: number;
  readonly advanceWidth: number;
  readonly codePoints: readonly number[];
}

// The parts of fontkit's GSUB/GDEF structures read here (fontkit parses them with `restructure`).
interface Coverage { version: number; glyphs?: number[]; rangeRecords?: { start: number; end: number; startCoverageIndex: number }[] }
interface ClassDef { version: number; startGlyph?: number; classValueArray?: number[]; classRangeRecord?: { start: number; end: number; class: number }[] }
interface ClassRule { backtrack?: number[]; input?: number[]; classes?: number[]; lookahead?: number[] }
interface Ligature { glyph: number; components: number[] }
interface SubTable {
  version?: number;
  lookupType?: number;
  extension?: SubTable;
  coverage?: Coverage;
  ligatureSets?: { toArray(): Ligature[][] };
  classDef?: ClassDef;
  classSet?: (ClassRule[] | null)[];
  inputClassDef?: ClassDef;
  backtrackClassDef?: ClassDef;
  lookaheadClassDef?: ClassDef;
  chainClassSet?: (ClassRule[] | null)[];
  coverages?: Coverage[];
  inputCoverage?: Coverage[];
}
interface LookupFlags { rightToLeft?: boolean; ignoreBaseGlyphs?: boolean; ignoreLigatures?: boolean; ignoreMarks?: boolean; useMarkFilteringSet?: boolean }
interface Lookup { lookupType: number; flags: { flags?: LookupFlags; markAttachmentType?: number }; subTables: SubTable[] }
interface LangSys { featureIndexes: number[] }
interface GsubTable {
  scriptList: { tag: string; script: { defaultLangSys: LangSys | null } }[];
  featureList: { tag: string; feature: { lookupListIndexes: number[] } }[];
  lookupList: { get(i: number): Lookup };
}
interface FontkitFont extends Font {
  GSUB?: GsubTable;
  GDEF?: { glyphClassDef?: ClassDef };
  _glyphs: Record<number, unknown>;
  _cmapProcessor: { lookup(codePoint: number): number };
}

/** Features fontkit's default shaper turns on for every glyph (ltr text); frac & co. only around U+2044. */
const DEFAULT_FEATURES = new Set(['rvrn', 'ltra', 'ltrm', 'ccmp', 'locl', 'rlig', 'mark', 'mkmk', 'calt', 'clig', 'liga', 'rclt', 'curs', 'kern']);
/** fontkit's script tag of text without a letter (digits, punctuation); its lookups are the DFLT script's. */
const NEUTRAL = 'zzzz';
const FAST_SCRIPTS = new Set(['latn', 'grek', 'cyrl', NEUTRAL]);
/** fontkit's fallback when the font lacks the text's script (OTProcessor's DEFAULT_SCRIPTS). */
const DEFAULT_SCRIPTS = ['DFLT', 'dflt', 'latn'];
const MARK = /\p{M}/u;
/** Laid-out strings kept per font and isolate; documents repeat most of theirs. */
const MEMO_LIMIT = 20_000;

function coverageGlyphs(c: Coverage | undefined): number[] {
  if (!c) return [];
  if (c.version === 1) return c.glyphs ?? [];
  return (c.rangeRecords ?? []).flatMap((r) => Array.from({ length: r.end - r.start + 1 }, (_, i) => r.start + i));
}

function coverageIndex(c: Coverage, glyph: number): number {
  if (c.version === 1) return c.glyphs!.indexOf(glyph);
  for (const r of c.rangeRecords ?? []) if (r.start <= glyph && glyph <= r.end) return r.startCoverageIndex + glyph - r.start;
  return -1;
}

function classOf(def: ClassDef | undefined, glyph: number): number {
  if (!def) return 0;
  if (def.version === 1) return def.classValueArray![glyph - def.startGlyph!] ?? 0;
  return def.classRangeRecord!.find((r) => r.start <= glyph && glyph <= r.end)?.class ?? 0;
}

/** Every glyph a class definition puts into a class above 0. */
function classedGlyphs(def: ClassDef): number[] {
  if (def.version === 1) return def.classValueArray!.flatMap((v, i) => (v > 0 ? [def.startGlyph! + i] : []));
  return def.classRangeRecord!.filter((r) => r.class > 0).flatMap((r) => Array.from({ length: r.end - r.start + 1 }, (_, i) => r.start + i));
}

/** The glyphs of a class (> 0) of a class definition. */
function classGlyphs(def: ClassDef | undefined, cls: number): number[] {
  if (!def) return [];
  if (def.version === 1) return def.classValueArray!.flatMap((v, i) => (v === cls ? [def.startGlyph! + i] : []));
  return def.classRangeRecord!.filter((r) => r.class === cls).flatMap((r) => Array.from({ length: r.end - r.start + 1 }, (_, i) => r.start + i));
}

/** fontkit's rule (LayoutEngine.isDefaultIgnorable, BMP part): such characters are drawn as a space. */
function isDefaultIgnorable(c: number): boolean {
  return (
    c === 0x00ad || c === 0x034f || c === 0x061c || (c >= 0x17b4 && c <= 0x17b5) || (c >= 0x180b && c <= 0x180e) ||
    (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) ||
    (c >= 0xfe00 && c <= 0xfe0f) || c === 0xfeff || (c >= 0xfff0 && c <= 0xfff8)
  );
}

/** What rules a character out whatever its font: marks, what fontkit hides, fraction slashes (fontkit's `frac`), astral planes. */
function mayBePlain(codePoint: number): boolean {
  return codePoint < 0xd800 || (codePoint > 0xdfff && codePoint < 0x10000)
    ? !MARK.test(String.fromCharCode(codePoint)) && !isDefaultIgnorable(codePoint) && codePoint !== 0x2044
    : false;
}

/** A ligature substitution this file applies itself: per subtable, the ligatures by first glyph, in the font's order. */
type LigatureLookup = Map<number, Ligature[]>[];

/** What text of one script entry of the font needs: its ligature lookups, and the glyphs at which anything else could start. */
interface ScriptRules {
  ligatures: LigatureLookup[];
  /** Glyphs no plain text may contain (a substitution other than a ligature could start there). */
  blocked: Set<number>;
}

const flat = (t: SubTable): SubTable => (t.lookupType !== undefined && t.extension ? flat(t.extension) : t);

/**
 * The rules of one script entry, or null when its text must always go through fontkit (a lookup
 * this file cannot rule out for plain text).
 */
function scriptRules(gsub: GsubTable, langSys: LangSys, typed: (glyph: number) => boolean): ScriptRules | null {
  const features = new Map<string, number[]>();
  for (const i of langSys.featureIndexes) features.set(gsub.featureList[i]!.tag, gsub.featureList[i]!.feature.lookupListIndexes);
  const indexes = [...new Set([...features].filter(([tag]) => DEFAULT_FEATURES.has(tag)).flatMap(([, lookups]) => lookups))].sort((a, b) => a - b);
  const ligatures: LigatureLookup[] = [];
  const produced = new Set<number>();
  const blocked = new Set<number>();
  // A rule needs a glyph of every class it names; one whose class holds only glyphs plain text
  // cannot contain (marks, glyphs ruled out already) never matches. Ruling out more only blocks more.
  const mayAppear = (g: number) => produced.has(g) || (typed(g) && !blocked.has(g));
  const block = (glyphs: Iterable<number>): boolean => {
    for (const g of glyphs) {
      if (produced.has(g)) return false;
      blocked.add(g);
    }
    return true;
  };
  for (const index of indexes) {
    const lookup = gsub.lookupList.get(index);
    const tables = lookup.subTables.map(flat);
    const type = lookup.lookupType === 7 ? tables[0]?.lookupType ?? 7 : lookup.lookupType;
    const f = lookup.flags.flags ?? {};
    const plainFlags = !f.ignoreBaseGlyphs && !f.ignoreLigatures && !f.useMarkFilteringSet && !lookup.flags.markAttachmentType;
    if (type === 4 && plainFlags && tables.every((t) => t.ligatureSets)) {
      ligatures.push(
        tables.map((t) => {
          const sets = t.ligatureSets!.toArray();
          const byFirst = new Map<number, Ligature[]>();
          coverageGlyphs(t.coverage).forEach((g) => byFirst.set(g, sets[coverageIndex(t.coverage!, g)] ?? []));
          for (const set of sets) for (const l of set) produced.add(l.glyph);
          return byFirst;
        }),
      );
      continue;
    }
    for (const t of tables) {
      const ruleSets = t.chainClassSet ?? t.classSet;
      const inputDef = t.inputClassDef ?? t.classDef;
      if (t.version === 2 && ruleSets && inputDef && (type === 5 || type === 6)) {
        const listed = new Set(classedGlyphs(inputDef));
        for (const [cls, rules] of ruleSets.entries()) {
          const live = (rules ?? []).some((r) => {
            const needs: [ClassDef | undefined, number][] = [
              ...(r.backtrack ?? []).map((c): [ClassDef | undefined, number] => [t.backtrackClassDef, c]),
              ...(r.input ?? r.classes ?? []).map((c): [ClassDef | undefined, number] => [inputDef, c]),
              ...(r.lookahead ?? []).map((c): [ClassDef | undefined, number] => [t.lookaheadClassDef, c]),
            ];
            return needs.every(([def, c]) => c === 0 || classGlyphs(def, c).some(mayAppear));
          });
          if (!live) continue;
          const starts = coverageGlyphs(t.coverage).filter((g) => (cls > 0 ? classOf(inputDef, g) === cls : !listed.has(g)));
          if (!block(starts)) return null;
        }
        continue;
      }
      // Any other substitution could start wherever its coverage (its first input glyph) lies.
      const first = t.coverage ?? t.coverages?.[0] ?? t.inputCoverage?.[0];
      if (!first || !block(coverageGlyphs(first))) return null;
    }
  }
  return { ligatures, blocked };
}

interface PlainChar {
  codePoint: number;
  glyph: number;
  /** fontkit's script of the character alone (NEUTRAL without a script of its own). */
  script: string;
}

/**
 * The layout of one font, shared by every render in the isolate: `layout` answers what fontkit's
 * `layout` answers, from the plain path when it can.
 */
export class FontShaper {
  private readonly chars = new Map<number, PlainChar | null>();
  private readonly advances = new Map<number, number>();
  private readonly rules = new Map<string, ScriptRules | null>();
  private readonly memo = new Map<string, ShapedGlyph[]>();
  private readonly fontkitLayout: Font['layout'];
  private readonly isMark: (glyph: number) => boolean;
  /** Glyphs some character that may be plain maps to (marks in a font's GDEF need not be \p{M}, and back). */
  private typed: Set<number> | null = null;
  /** How many strings took each path (for the tests: the plain path must carry ordinary text). */
  readonly stats = { plain: 0, fontkit: 0 };

  constructor(private readonly font: FontkitFont) {
    this.fontkitLayout = font.layout.bind(font);
    const classes = font.GDEF?.glyphClassDef;
    this.isMark = classes ? (g) => classOf(classes, g) === 3 : () => false;
  }

  layout(text: string, features?: unknown): { glyphs: ShapedGlyph[] } {
    if (features !== undefined && !(Array.isArray(features) && features.length === 0)) return { glyphs: this.viaFontkit(text, features) };
    let glyphs = this.memo.get(text);
    if (!glyphs) {
      glyphs = this.plain(text) ?? this.viaFontkit(text);
      if (this.memo.size >= MEMO_LIMIT) this.memo.clear();
      this.memo.set(text, glyphs);
    }
    return { glyphs };
  }

  private advance(glyph: number): number {
    let a = this.advances.get(glyph);
    if (a === undefined) {
      a = this.font.getGlyph(glyph).advanceWidth;
      this.advances.set(glyph, a);
    }
    return a;
  }

  private char(codePoint: number): PlainChar | null {
    let c = this.chars.get(codePoint);
    if (c !== undefined) return c;
    c = null;
    const text = String.fromCodePoint(codePoint);
    const glyph = this.font._cmapProcessor.lookup(codePoint);
    if (glyph !== 0 && mayBePlain(codePoint) && !this.isMark(glyph)) {
      // fontkit's own script detection, on the character alone. (Its shapers of some scripts
      // throw; such characters stay with fontkit, which fails the render as it always did.)
      try {
        const run = this.fontkitLayout(text) as unknown as { script: string | string[]; glyphs: { id: number }[] };
        if (typeof run.script === 'string' && FAST_SCRIPTS.has(run.script) && run.glyphs.length === 1 && run.glyphs[0]!.id === glyph) c = { codePoint, glyph, script: run.script };
      } catch {
        c = null;
      }
      this.resetGlyphCache();
    }
    this.chars.set(codePoint, c);
    return c;
  }

  private scriptRules(script: string): ScriptRules | null {
    if (this.rules.has(script)) return this.rules.get(script)!;
    const gsub = this.font.GSUB;
    let rules: ScriptRules | null = { ligatures: [], blocked: new Set() };
    if (gsub) {
      const entry = gsub.scriptList.find((s) => s.tag === script) ?? DEFAULT_SCRIPTS.map((tag) => gsub.scriptList.find((s) => s.tag === tag)).find(Boolean);
      const langSys = entry?.script.defaultLangSys;
      rules = langSys ? scriptRules(gsub, langSys, (g) => this.typedGlyphs().has(g)) : entry ? { ligatures: [], blocked: new Set() } : null;
    }
    this.rules.set(script, rules);
    return rules;
  }

  private typedGlyphs(): Set<number> {
    this.typed ??= new Set(
      (this.font.characterSet as number[]).filter((cp) => mayBePlain(cp)).map((cp) => this.font._cmapProcessor.lookup(cp)).filter((g) => g !== 0 && !this.isMark(g)),
    );
    return this.typed;
  }

  /** The layout of text made of plain characters, or null. */
  private plain(text: string): ShapedGlyph[] | null {
    const chars: PlainChar[] = [];
    let script = NEUTRAL;
    for (const ch of text) {
      const c = this.char(ch.codePointAt(0)!);
      if (!c) return null;
      if (script === NEUTRAL) script = c.script;
      chars.push(c);
    }
    const rules = this.scriptRules(script);
    if (!rules || chars.some((c) => rules.blocked.has(c.glyph))) return null;
    let run: { id: number; codePoints: number[] }[] = chars.map((c) => ({ id: c.glyph, codePoints: [c.codePoint] }));
    for (const lookup of rules.ligatures) run = applyLigatures(lookup, run);
    this.stats.plain++;
    // fontkit makes one glyph object per id and text, with the code points it first met it with:
    // those of the first character mapped to it, else of its first ligature.
    const first = new Map<number, number[]>();
    for (const c of chars) if (!first.has(c.glyph)) first.set(c.glyph, [c.codePoint]);
    for (const g of run) if (!first.has(g.id)) first.set(g.id, g.codePoints);
    return run.map((g) => ({ id: g.id, advanceWidth: this.advance(g.id), codePoints: first.get(g.id)! }));
  }

  /**
   * fontkit's own layout. Its glyph objects are cached per font with the code points of the first
   * string that met them, so the cache is emptied first: a glyph's code points (what a reader
   * copies from the PDF) come from this text, whatever the isolate rendered before.
   */
  private viaFontkit(text: string, features?: unknown): ShapedGlyph[] {
    this.stats.fontkit++;
    this.resetGlyphCache();
    const glyphs = this.fontkitLayout(text, features as string[]).glyphs.map((g) => ({ id: g.id, advanceWidth: g.advanceWidth, codePoints: [...g.codePoints] }));
    this.resetGlyphCache();
    return glyphs;
  }

  private resetGlyphCache(): void {
    this.font._glyphs = {};
  }
}

/** One ligature lookup over the run, as fontkit's GSUB processor applies it: left to right, first match wins. */
function applyLigatures(lookup: LigatureLookup, run: { id: number; codePoints: number[] }[]): { id: number; codePoints: number[] }[] {
  const out = run.slice();
  for (let i = 0; i < out.length; i++) {
    for (const table of lookup) {
      const candidates = table.get(out[i]!.id);
      if (!candidates) continue;
      const hit = candidates.find((l) => l.components.every((c, k) => out[i + 1 + k]?.id === c));
      if (!hit) continue;
      const parts = out.splice(i + 1, hit.components.length);
      out[i] = { id: hit.glyph, codePoints: [...out[i]!.codePoints, ...parts.flatMap((p) => p.codePoints)] };
      break;
    }
  }
  return out;
}
