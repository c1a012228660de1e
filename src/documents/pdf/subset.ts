// The TrueType subset of a document's font: the bytes fontkit's TTFSubset writes, written from the
// font's raw tables. fontkit decodes every glyph's outline to find composite glyphs and re-encodes
// each table field by field; here the tables are sliced from the font file, once per isolate, and
// only the fields a subset changes are patched (test/documents/pdf.unit.test.ts compares the bytes
// with fontkit's, for a subset of every glyph of each font and for a line of text).
//
// Layout, as fontkit writes it: an offset table tagged 'true' and nine tables without padding in
// this order: head (indexToLocFormat), hhea (numberOfMetrics), loca, maxp (numGlyphs), cvt, prep,
// glyf, hmtx (every glyph's advance and left side bearing), fpgm; checksums 0.
import type { Subset } from 'pdf-lib/cjs/types/fontkit';

const TABLES = ['head', 'hhea', 'loca', 'maxp', 'cvt ', 'prep', 'glyf', 'hmtx', 'fpgm'] as const;

// Composite glyph flags (OpenType glyf table).
const ARG_1_AND_2_ARE_WORDS = 0x0001;
const WE_HAVE_A_SCALE = 0x0008;
const MORE_COMPONENTS = 0x0020;
const WE_HAVE_AN_X_AND_Y_SCALE = 0x0040;
const WE_HAVE_A_TWO_BY_TWO = 0x0080;

interface GlyphData {
  bytes: Uint8Array;
  /** Components of a composite glyph, and where each one's glyph index sits in `bytes`. */
  components: { glyph: number; pos: number }[];
  advance: number;
  bearing: number;
}

export interface FontTables {
  directory: { tables: Record<string, { offset: number; length: number } | undefined> };
}

/** What the encoder needs of fontkit's subset: its glyph list, grown by `includeGlyph` as fontkit grows it. */
interface GrowingSubset extends Subset {
  glyphs: number[];
}

export class TrueTypeSubsetter {
  private readonly view: DataView;
  private readonly raw: Record<(typeof TABLES)[number], Uint8Array | null>;
  private readonly glyphs = new Map<number, GlyphData>();
  private readonly indexToLocFormat: number;
  private readonly numberOfMetrics: number;

  constructor(private readonly file: Uint8Array, font: FontTables) {
    this.view = new DataView(file.buffer, file.byteOffset, file.byteLength);
    const slice = (tag: string) => {
      const t = font.directory.tables[tag];
      return t ? file.subarray(t.offset, t.offset + t.length) : null;
    };
    this.raw = Object.fromEntries(TABLES.map((tag) => [tag, slice(tag)])) as typeof this.raw;
    if (!this.raw.head || !this.raw.hhea || !this.raw.maxp || !this.raw.loca || !this.raw.glyf || !this.raw.hmtx) throw new Error('Not a TrueType font with glyph outlines.');
    this.indexToLocFormat = this.u16(this.raw.head, 50);
    this.numberOfMetrics = this.u16(this.raw.hhea, 34);
  }

  private u16(table: Uint8Array, at: number): number {
    return this.view.getUint16(table.byteOffset - this.file.byteOffset + at);
  }

  private glyph(id: number): GlyphData {
    let g = this.glyphs.get(id);
    if (g) return g;
    const loca = this.raw.loca!;
    const at = (i: number) => (this.indexToLocFormat === 0 ? this.u16(loca, 2 * i) * 2 : this.view.getUint32(loca.byteOffset - this.file.byteOffset + 4 * i));
    const start = at(id);
    const bytes = this.raw.glyf!.subarray(start, at(id + 1));
    const components: GlyphData['components'] = [];
    if (bytes.length >= 10 && this.view.getInt16(bytes.byteOffset - this.file.byteOffset) < 0) {
      const base = bytes.byteOffset - this.file.byteOffset;
      let pos = 10;
      let flags = MORE_COMPONENTS;
      while (flags & MORE_COMPONENTS) {
        flags = this.view.getUint16(base + pos);
        components.push({ glyph: this.view.getUint16(base + pos + 2), pos: pos + 2 });
        pos += 4 + (flags & ARG_1_AND_2_ARE_WORDS ? 4 : 2);
        pos += flags & WE_HAVE_A_SCALE ? 2 : flags & WE_HAVE_AN_X_AND_Y_SCALE ? 4 : flags & WE_HAVE_A_TWO_BY_TWO ? 8 : 0;
      }
    }
    const hmtx = this.raw.hmtx!;
    const metric = Math.min(id, this.numberOfMetrics - 1);
    const advance = this.u16(hmtx, 4 * metric);
    const bearingAt = id < this.numberOfMetrics ? 4 * id + 2 : 4 * this.numberOfMetrics + 2 * (id - this.numberOfMetrics);
    const bearing = this.view.getInt16(hmtx.byteOffset - this.file.byteOffset + bearingAt);
    g = { bytes, components, advance, bearing };
    this.glyphs.set(id, g);
    return g;
  }

  /** The subset's font file; components of composite glyphs join the subset as fontkit adds them. */
  encode(subset: GrowingSubset): Uint8Array {
    const parts: Uint8Array[] = [];
    for (let i = 0; i < subset.glyphs.length; i++) {
      const g = this.glyph(subset.glyphs[i]!);
      if (g.components.length === 0) {
        parts.push(g.bytes);
        continue;
      }
      const copy = g.bytes.slice();
      const view = new DataView(copy.buffer);
      for (const c of g.components) view.setUint16(c.pos, subset.includeGlyph(c.glyph));
      parts.push(copy);
    }
    const count = parts.length;
    const glyfLength = parts.reduce((n, p) => n + p.length, 0);
    // fontkit's loca.preEncode: short offsets (halved) unless the last offset exceeds 0xffff.
    const shortLoca = glyfLength <= 0xffff;
    const sizes: Record<(typeof TABLES)[number], number> = {
      head: this.raw.head!.length,
      hhea: this.raw.hhea!.length,
      loca: (count + 1) * (shortLoca ? 2 : 4),
      maxp: this.raw.maxp!.length,
      'cvt ': this.raw['cvt ']?.length ?? 0,
      prep: this.raw.prep?.length ?? 0,
      glyf: glyfLength,
      hmtx: count * 4,
      fpgm: this.raw.fpgm?.length ?? 0,
    };
    const present = TABLES.filter((t) => t === 'loca' || t === 'glyf' || t === 'hmtx' || this.raw[t]);
    const headerLength = 12 + 16 * present.length;
    const out = new Uint8Array(headerLength + present.reduce((n, t) => n + sizes[t], 0));
    const view = new DataView(out.buffer);
    out.set([0x74, 0x72, 0x75, 0x65]); // 'true'
    const power = 2 ** Math.floor(Math.log2(present.length));
    view.setUint16(4, present.length);
    view.setUint16(6, power * 16);
    view.setUint16(8, Math.log2(power));
    view.setUint16(10, present.length * 16 - power * 16);
    let offset = headerLength;
    present.forEach((tag, i) => {
      const entry = 12 + 16 * i;
      for (let k = 0; k < 4; k++) view.setUint8(entry + k, tag.charCodeAt(k));
      view.setUint32(entry + 8, offset);
      view.setUint32(entry + 12, sizes[tag]);
      switch (tag) {
        case 'loca': {
          let at = 0;
          for (let k = 0; k <= count; k++) {
            if (shortLoca) view.setUint16(offset + 2 * k, at >>> 1);
            else view.setUint32(offset + 4 * k, at);
            at += parts[k]?.length ?? 0;
          }
          break;
        }
        case 'glyf': {
          let at = offset;
          for (const p of parts) {
            out.set(p, at);
            at += p.length;
          }
          break;
        }
        case 'hmtx':
          subset.glyphs.forEach((id, k) => {
            const g = this.glyph(id);
            view.setUint16(offset + 4 * k, g.advance);
            view.setInt16(offset + 4 * k + 2, g.bearing);
          });
          break;
        default:
          out.set(this.raw[tag]!, offset);
      }
      offset += sizes[tag];
    });
    // The fields a subset changes.
    const at = (tag: string) => 12 + 16 * present.indexOf(tag as (typeof TABLES)[number]);
    view.setInt16(view.getUint32(at('head') + 8) + 50, shortLoca ? 0 : 1);
    view.setUint16(view.getUint32(at('hhea') + 8) + 34, count);
    view.setUint16(view.getUint32(at('maxp') + 8) + 4, count);
    return out;
  }
}
