// QR codes (ISO/IEC 18004) of bytes at error correction level M, for the GiroCode. The matrix is
// the one qrcode-generator makes (same version, same mask, same penalty rule to pick it; the test
// compares both for many payloads), made with flat arrays: picking the mask tried eight full
// matrices through a function call per module and was a tenth of a document's render time. The
// parts that depend on the version only (function patterns, the path of the data bits) are built
// once per version and isolate.

/** Level M: per version, groups of [blocks, total codewords, data codewords] (ISO/IEC 18004, table 9). */
const RS_BLOCKS_M: readonly (readonly number[])[] = [
  [1, 26, 16], [1, 44, 28], [1, 70, 44], [2, 50, 32], [2, 67, 43], [4, 43, 27], [4, 49, 31], [2, 60, 38, 2, 61, 39], [3, 58, 36, 2, 59, 37], [4, 69, 43, 1, 70, 44],
  [1, 80, 50, 4, 81, 51], [6, 58, 36, 2, 59, 37], [8, 59, 37, 1, 60, 38], [4, 64, 40, 5, 65, 41], [5, 65, 41, 5, 66, 42], [7, 73, 45, 3, 74, 46], [10, 74, 46, 1, 75, 47], [9, 69, 43, 4, 70, 44], [3, 70, 44, 11, 71, 45], [3, 67, 41, 13, 68, 42],
  [17, 68, 42], [17, 74, 46], [4, 75, 47, 14, 76, 48], [6, 73, 45, 14, 74, 46], [8, 75, 47, 13, 76, 48], [19, 74, 46, 4, 75, 47], [22, 73, 45, 3, 74, 46], [3, 73, 45, 23, 74, 46], [21, 73, 45, 7, 74, 46], [19, 75, 47, 10, 76, 48],
  [2, 74, 46, 29, 75, 47], [10, 74, 46, 23, 75, 47], [14, 74, 46, 21, 75, 47], [14, 74, 46, 23, 75, 47], [12, 75, 47, 26, 76, 48], [6, 75, 47, 34, 76, 48], [29, 74, 46, 14, 75, 47], [13, 74, 46, 32, 75, 47], [40, 75, 47, 7, 76, 48], [18, 75, 47, 31, 76, 48],
];

/** Centres of the alignment patterns per version (ISO/IEC 18004, annex E). */
const ALIGNMENT: readonly (readonly number[])[] = [
  [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50], [6, 30, 54], [6, 32, 58], [6, 34, 62], [6, 26, 46, 66],
  [6, 26, 48, 70], [6, 26, 50, 74], [6, 30, 54, 78], [6, 30, 56, 82], [6, 30, 58, 86], [6, 34, 62, 90], [6, 28, 50, 72, 94], [6, 26, 50, 74, 98], [6, 30, 54, 78, 102],
  [6, 28, 54, 80, 106], [6, 32, 58, 84, 110], [6, 30, 58, 86, 114], [6, 34, 62, 90, 118], [6, 26, 50, 74, 98, 122], [6, 30, 54, 78, 102, 126], [6, 26, 52, 78, 104, 130],
  [6, 30, 56, 82, 108, 134], [6, 34, 60, 86, 112, 138], [6, 30, 58, 86, 114, 142], [6, 34, 62, 90, 118, 146], [6, 30, 54, 78, 102, 126, 150], [6, 24, 50, 76, 102, 128, 154],
  [6, 28, 54, 80, 106, 132, 158], [6, 32, 58, 84, 110, 136, 162], [6, 26, 54, 82, 110, 138, 166], [6, 30, 58, 86, 114, 142, 170],
];

/** Level M's two format bits (M = 00). */
const LEVEL_M = 0;

// GF(256) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1.
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++, x = x & 0x80 ? ((x << 1) ^ 0x11d) & 0xff : x << 1) {
  EXP[i] = x;
  LOG[x] = i;
}
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255]!;

/** The generator polynomial of `degree` error correction codewords, highest power first. */
const generators = new Map<number, Uint8Array>();
function generator(degree: number): Uint8Array {
  const known = generators.get(degree);
  if (known) return known;
  let g: Uint8Array = new Uint8Array([1]);
  for (let i = 0; i < degree; i++) {
    const next: Uint8Array = new Uint8Array(g.length + 1);
    for (let j = 0; j < g.length; j++) {
      const c = g[j]!;
      next[j]! ^= c;
      if (c) next[j + 1]! ^= EXP[LOG[c]! + i]!;
    }
    g = next;
  }
  generators.set(degree, g);
  return g;
}

/** The remainder of data(x)·x^degree divided by the generator: the block's error correction codewords. */
function errorCorrection(data: Uint8Array, degree: number): Uint8Array {
  const g = generator(degree);
  const rest = new Uint8Array(data.length + degree);
  rest.set(data);
  for (let i = 0; i < data.length; i++) {
    const c = rest[i]!;
    if (c === 0) continue;
    const l = LOG[c]!;
    for (let j = 1; j < g.length; j++) if (g[j]) rest[i + j]! ^= EXP[l + LOG[g[j]!]!]!;
  }
  return rest.subarray(data.length);
}

function bchDigits(value: number): number {
  let n = 0;
  for (let v = value; v !== 0; v >>>= 1) n++;
  return n;
}

function bch(data: number, shift: number, poly: number): number {
  let d = data << shift;
  while (bchDigits(d) - bchDigits(poly) >= 0) d ^= poly << (bchDigits(d) - bchDigits(poly));
  return (data << shift) | d;
}

const FORMAT_POLY = 0b10100110111;
const FORMAT_MASK = 0b101010000010010;
const VERSION_POLY = 0b1111100100101;

const MASKS: ((i: number, j: number) => boolean)[] = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (_i, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
  (i, j) => (((i * j) % 3) + ((i + j) % 2)) % 2 === 0,
];

/** What a version's matrices share: function modules (2 = data) and the data bits' path. */
interface Layout {
  size: number;
  /** Per module: 0 light, 1 dark, 2 data (format and version areas are light here, filled per mask). */
  base: Uint8Array;
  /** Module index of each data bit, in placement order. */
  path: Int32Array;
}

const layouts = new Map<number, Layout>();

function layout(version: number): Layout {
  let l = layouts.get(version);
  if (l) return l;
  const size = version * 4 + 17;
  const base = new Uint8Array(size * size).fill(2);
  const set = (r: number, c: number, dark: boolean) => (base[r * size + c] = dark ? 1 : 0);
  for (const [row, col] of [[0, 0], [size - 7, 0], [0, size - 7]] as const) {
    for (let r = -1; r <= 7; r++) {
      if (row + r < 0 || row + r >= size) continue;
      for (let c = -1; c <= 7; c++) {
        if (col + c < 0 || col + c >= size) continue;
        set(row + r, col + c, (r >= 0 && r <= 6 && (c === 0 || c === 6)) || (c >= 0 && c <= 6 && (r === 0 || r === 6)) || (r >= 2 && r <= 4 && c >= 2 && c <= 4));
      }
    }
  }
  const centres = ALIGNMENT[version - 1]!;
  for (const row of centres)
    for (const col of centres) {
      if (base[row * size + col] !== 2) continue;
      for (let r = -2; r <= 2; r++) for (let c = -2; c <= 2; c++) set(row + r, col + c, r === -2 || r === 2 || c === -2 || c === 2 || (r === 0 && c === 0));
    }
  for (let i = 8; i < size - 8; i++) {
    if (base[i * size + 6] === 2) set(i, 6, i % 2 === 0);
    if (base[6 * size + i] === 2) set(6, i, i % 2 === 0);
  }
  // Format and version areas: reserved (light) here, written once the mask is known.
  for (const [r, c] of formatCells(size)) set(r, c, false);
  set(size - 8, 8, false);
  if (version >= 7) for (const [r, c] of versionCells(size)) set(r, c, false);
  const path: number[] = [];
  let row = size - 1;
  let inc = -1;
  for (let col = size - 1; col > 0; col -= 2) {
    if (col === 6) col -= 1;
    for (;;) {
      for (let c = 0; c < 2; c++) if (base[row * size + col - c] === 2) path.push(row * size + col - c);
      row += inc;
      if (row < 0 || row >= size) {
        row -= inc;
        inc = -inc;
        break;
      }
    }
  }
  l = { size, base, path: Int32Array.from(path) };
  layouts.set(version, l);
  return l;
}

/** The cells of the 15 format bits, both copies, in bit order. */
function formatCells(size: number): [number, number][] {
  const cells: [number, number][] = [];
  for (let i = 0; i < 15; i++) cells.push(i < 6 ? [i, 8] : i < 8 ? [i + 1, 8] : [size - 15 + i, 8]);
  for (let i = 0; i < 15; i++) cells.push(i < 8 ? [8, size - i - 1] : i < 9 ? [8, 15 - i] : [8, 15 - i - 1]);
  return cells;
}

/** The cells of the 18 version bits, both copies, in bit order. */
function versionCells(size: number): [number, number][] {
  const cells: [number, number][] = [];
  for (let i = 0; i < 18; i++) cells.push([Math.floor(i / 3), (i % 3) + size - 11]);
  for (let i = 0; i < 18; i++) cells.push([(i % 3) + size - 11, Math.floor(i / 3)]);
  return cells;
}

function dataCapacity(version: number): number {
  const t = RS_BLOCKS_M[version - 1]!;
  let n = 0;
  for (let i = 0; i < t.length; i += 3) n += t[i]! * t[i + 2]!;
  return n;
}

/** The codewords of `bytes` in byte mode at level M, blocks interleaved, and the version they need. */
function codewords(bytes: Uint8Array): { version: number; words: Uint8Array } {
  let version = 1;
  for (; version < 40; version++) if (4 + (version < 10 ? 8 : 16) + 8 * bytes.length <= dataCapacity(version) * 8) break;
  const capacity = dataCapacity(version);
  const lengthBits = version < 10 ? 8 : 16;
  if (4 + lengthBits + 8 * bytes.length > capacity * 8) throw new Error(`A QR code holds at most ${capacity} bytes here.`);
  const data = new Uint8Array(capacity);
  let bit = 0;
  const put = (value: number, bits: number) => {
    for (let i = bits - 1; i >= 0; i--, bit++) if ((value >>> i) & 1) data[bit >> 3]! |= 0x80 >> (bit & 7);
  };
  put(0b0100, 4);
  put(bytes.length, lengthBits);
  for (const b of bytes) put(b, 8);
  if (bit + 4 <= capacity * 8) bit += 4;
  bit = Math.ceil(bit / 8) * 8;
  for (let pad = 0xec; bit < capacity * 8; pad ^= 0xec ^ 0x11) put(pad, 8);

  const t = RS_BLOCKS_M[version - 1]!;
  const blocks: { data: Uint8Array; ec: Uint8Array }[] = [];
  let offset = 0;
  for (let i = 0; i < t.length; i += 3) {
    for (let k = 0; k < t[i]!; k++) {
      const block = data.subarray(offset, offset + t[i + 2]!);
      offset += t[i + 2]!;
      blocks.push({ data: block, ec: errorCorrection(block, t[i + 1]! - t[i + 2]!) });
    }
  }
  const words: number[] = [];
  for (const part of ['data', 'ec'] as const) {
    const longest = Math.max(...blocks.map((b) => b[part].length));
    for (let i = 0; i < longest; i++) for (const b of blocks) if (i < b[part].length) words.push(b[part][i]!);
  }
  return { version, words: Uint8Array.from(words) };
}

/**
 * qrcode-generator's penalty of a matrix (its reading of the standard's four rules), to pick the
 * mask it would pick: the lowest, the first of equals.
 */
function penalty(m: Uint8Array, size: number): number {
  let lost = 0;
  // Rule 1 as qrcode-generator reads it: more than 5 of a module's (up to 8) neighbours share its
  // colour. The dark modules of each 3×3 window (cut at the edges) come from running row sums.
  const rows = new Uint8Array(size * size); // dark modules of (row, col-1..col+1)
  for (let row = 0; row < size; row++) {
    const at = row * size;
    for (let col = 0; col < size; col++) rows[at + col] = (col > 0 ? m[at + col - 1]! : 0) + m[at + col]! + (col < size - 1 ? m[at + col + 1]! : 0);
  }
  for (let row = 0; row < size; row++) {
    const height = (row > 0 ? 1 : 0) + 1 + (row < size - 1 ? 1 : 0);
    for (let col = 0; col < size; col++) {
      const at = row * size + col;
      const width = (col > 0 ? 1 : 0) + 1 + (col < size - 1 ? 1 : 0);
      const dark = (row > 0 ? rows[at - size]! : 0) + rows[at]! + (row < size - 1 ? rows[at + size]! : 0);
      const same = (m[at] ? dark : width * height - dark) - 1;
      if (same > 5) lost += 3 + same - 5;
    }
  }
  for (let row = 0; row < size - 1; row++)
    for (let col = 0; col < size - 1; col++) {
      const at = row * size + col;
      const n = m[at]! + m[at + size]! + m[at + 1]! + m[at + size + 1]!;
      if (n === 0 || n === 4) lost += 3;
    }
  // Runs like a finder pattern (dark light dark dark dark light dark), in rows and in columns.
  for (let row = 0; row < size; row++)
    for (let col = 0; col < size - 6; col++) {
      const a = row * size + col;
      if (m[a] && !m[a + 1] && m[a + 2] && m[a + 3] && m[a + 4] && !m[a + 5] && m[a + 6]) lost += 40;
    }
  for (let col = 0; col < size; col++)
    for (let row = 0; row < size - 6; row++) {
      const a = row * size + col;
      const s = size;
      if (m[a] && !m[a + s] && m[a + 2 * s] && m[a + 3 * s] && m[a + 4 * s] && !m[a + 5 * s] && m[a + 6 * s]) lost += 40;
    }
  let dark = 0;
  for (let i = 0; i < m.length; i++) dark += m[i]!;
  return lost + (Math.abs((100 * dark) / size / size - 50) / 5) * 10;
}

/** Per version and mask: whether the mask inverts each data bit, in placement order. */
const maskBits = new Map<string, Uint8Array>();

function maskOf(l: Layout, version: number, mask: number): Uint8Array {
  const key = `${version}/${mask}`;
  let bits = maskBits.get(key);
  if (!bits) {
    const f = MASKS[mask]!;
    bits = Uint8Array.from(l.path, (at) => (f(Math.floor(at / l.size), at % l.size) ? 1 : 0));
    maskBits.set(key, bits);
  }
  return bits;
}

/** The matrix of `mask` into `m`; `final` writes the format and version bits (the mask is tried with them light). */
function fill(m: Uint8Array, l: Layout, words: Uint8Array, mask: number, version: number, final: boolean): Uint8Array {
  const { size, base, path } = l;
  m.set(base);
  const bits = maskOf(l, version, mask);
  for (let k = 0; k < path.length; k++) {
    const bit = k >> 3 < words.length ? (words[k >> 3]! >>> (7 - (k & 7))) & 1 : 0;
    m[path[k]!] = bit ^ bits[k]!;
  }
  if (final) {
    const format = bch((LEVEL_M << 3) | mask, 10, FORMAT_POLY) ^ FORMAT_MASK;
    formatCells(size).forEach(([r, c], i) => (m[r * size + c] = (format >> i % 15) & 1));
    m[(size - 8) * size + 8] = 1;
    if (version >= 7) {
      const bits = bch(version, 12, VERSION_POLY);
      versionCells(size).forEach(([r, c], i) => (m[r * size + c] = (bits >> i % 18) & 1));
    }
  }
  return m;
}

/** The QR code of `bytes` at level M: rows of modules, true = dark. */
export function qrCode(bytes: Uint8Array): boolean[][] {
  const { version, words } = codewords(bytes);
  const l = layout(version);
  const m = new Uint8Array(l.size * l.size);
  let best = 0;
  let lowest = Infinity;
  for (let mask = 0; mask < 8; mask++) {
    const p = penalty(fill(m, l, words, mask, version, false), l.size);
    if (p < lowest) {
      lowest = p;
      best = mask;
    }
  }
  fill(m, l, words, best, version, true);
  return Array.from({ length: l.size }, (_, r) => Array.from(m.subarray(r * l.size, (r + 1) * l.size), (v) => v === 1));
}
