// @pdf-lib/fontkit, with font subsets encoded synchronously in the calling request.
//
// fontkit encodes a subset through a bundled browser shim of `process.nextTick` whose queue is one
// per isolate: the first caller's timer drains everyone's callbacks. Two renders at once in one
// isolate (the documents queue's consumer and a download that renders on demand) then have one
// request's font resolved from the other request's timer, which workerd refuses: the waiting
// request is cancelled as hung. A subset here is written into a plain byte sink instead, with the
// same bytes (test/documents/pdf.unit.test.ts compares them with fontkit's own stream).
import fontkit from '@pdf-lib/fontkit';
import type { Font, Fontkit, Subset, SubsetStream } from 'pdf-lib/cjs/types/fontkit';
import { FontShaper } from './shaping';
import { TrueTypeSubsetter, type FontTables } from './subset';

/** What restructure's EncodeStream offers the subset encoders: numbers, buffers, strings, fill. */
export class ByteSink {
  pos = 0;
  private bytes = new Uint8Array(64 * 1024);
  private view = new DataView(this.bytes.buffer);

  private reserve(n: number): number {
    const at = this.pos;
    if (at + n > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, at + n));
      grown.set(this.bytes.subarray(0, at));
      this.bytes = grown;
      this.view = new DataView(grown.buffer);
    }
    this.pos += n;
    return at;
  }

  writeUInt8(v: number) { this.view.setUint8(this.reserve(1), v); }
  writeInt8(v: number) { this.view.setInt8(this.reserve(1), v); }
  writeUInt16BE(v: number) { this.view.setUint16(this.reserve(2), v); }
  writeUInt16LE(v: number) { this.view.setUint16(this.reserve(2), v, true); }
  writeInt16BE(v: number) { this.view.setInt16(this.reserve(2), v); }
  writeInt16LE(v: number) { this.view.setInt16(this.reserve(2), v, true); }
  writeUInt24BE(v: number) { const at = this.reserve(3); this.view.setUint8(at, (v >>> 16) & 0xff); this.view.setUint16(at + 1, v & 0xffff); }
  writeUInt24LE(v: number) { const at = this.reserve(3); this.view.setUint16(at, v & 0xffff, true); this.view.setUint8(at + 2, (v >>> 16) & 0xff); }
  writeInt24BE(v: number) { this.writeUInt24BE(v >= 0 ? v : v + 0x1000000); }
  writeInt24LE(v: number) { this.writeUInt24LE(v >= 0 ? v : v + 0x1000000); }
  writeUInt32BE(v: number) { this.view.setUint32(this.reserve(4), v); }
  writeUInt32LE(v: number) { this.view.setUint32(this.reserve(4), v, true); }
  writeInt32BE(v: number) { this.view.setInt32(this.reserve(4), v); }
  writeInt32LE(v: number) { this.view.setInt32(this.reserve(4), v, true); }
  writeFloatBE(v: number) { this.view.setFloat32(this.reserve(4), v); }
  writeFloatLE(v: number) { this.view.setFloat32(this.reserve(4), v, true); }
  writeDoubleBE(v: number) { this.view.setFloat64(this.reserve(8), v); }
  writeDoubleLE(v: number) { this.view.setFloat64(this.reserve(8), v, true); }

  writeBuffer(buffer: Uint8Array) {
    this.bytes.set(buffer, this.reserve(buffer.length));
  }

  writeString(text: string, encoding = 'ascii') {
    switch (encoding) {
      case 'utf8':
        return this.writeBuffer(new TextEncoder().encode(text));
      case 'ascii':
        return this.writeBuffer(Uint8Array.from(text, (ch) => ch.charCodeAt(0) & 0xff));
      case 'utf16le':
      case 'ucs2':
      case 'utf16be': {
        const at = this.reserve(text.length * 2);
        for (let i = 0; i < text.length; i++) this.view.setUint16(at + 2 * i, text.charCodeAt(i), encoding !== 'utf16be');
        return;
      }
      default:
        throw new Error(`Font subsets with ${encoding} strings are not supported.`);
    }
  }

  fill(value: number, length: number) {
    this.bytes.fill(value, this.reserve(length), this.pos);
  }

  result(): Uint8Array {
    return this.bytes.slice(0, this.pos);
  }
}

interface EncodableSubset extends Subset {
  encode(stream: ByteSink): void;
}

/** The subset's bytes, written in this call. */
export function encodeSubset(subset: Subset): Uint8Array {
  const subsetter = subsetters.get((subset as Subset & { font: Font }).font);
  if (subsetter) return subsetter.encode(subset as Parameters<TrueTypeSubsetter['encode']>[0]);
  const sink = new ByteSink();
  (subset as EncodableSubset).encode(sink);
  return sink.result();
}

/** The stream pdf-lib listens to, fed on a promise reaction of the request that asked for it. */
function streamOf(subset: Subset): SubsetStream {
  const handlers: Record<string, ((arg?: unknown) => void)[]> = {};
  void Promise.resolve().then(() => {
    try {
      const bytes = encodeSubset(subset);
      handlers.data?.forEach((h) => h(bytes));
      handlers.end?.forEach((h) => h());
    } catch (err) {
      handlers.error?.forEach((h) => h(err));
    }
  });
  const stream: SubsetStream = {
    on(event: string, handler: (arg?: unknown) => void) {
      (handlers[event] ??= []).push(handler);
      return stream;
    },
  } as SubsetStream;
  return stream;
}

/**
 * Fonts parsed once per isolate, by the bytes they were made from: parsing DejaVu's tables (GSUB,
 * hmtx, cmap) took a tenth of every render. Sharing one font between renders at once is safe: all
 * it does for a render (layout, subset encoding) runs synchronously, start to end.
 */
const parsed = new WeakMap<Uint8Array, Font>();

export const requestLocalFontkit: Fontkit = {
  ...fontkit,
  create(buffer, postscriptName) {
    const known = postscriptName === undefined ? parsed.get(buffer) : undefined;
    if (known) return known;
    const font = fontkit.create(buffer, postscriptName);
    const createSubset = font.createSubset.bind(font);
    font.createSubset = () => {
      const subset = createSubset();
      subset.encodeStream = () => streamOf(subset);
      return subset;
    };
    const shaper = new FontShaper(font as ConstructorParameters<typeof FontShaper>[0]);
    font.layout = ((text: string, features?: unknown) => shaper.layout(text, features)) as unknown as Font['layout'];
    shapers.set(font, shaper);
    if (!font.cff && !(font as Font & { _variationProcessor?: unknown })._variationProcessor) subsetters.set(font, new TrueTypeSubsetter(buffer, font as unknown as FontTables));
    if (postscriptName === undefined) parsed.set(buffer, font);
    return font;
  },
};

const shapers = new WeakMap<Font, FontShaper>();
const subsetters = new WeakMap<Font, TrueTypeSubsetter>();

/** The layout behind a font this fontkit made (for the tests: which path carried a text). */
export const shaperOf = (font: Font): FontShaper | undefined => shapers.get(font);
