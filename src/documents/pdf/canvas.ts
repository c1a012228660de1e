// Page geometry and a cursor that flows text down A4 pages. Positions are measured from the top
// edge (as a reader and DIN 5008 measure them) and turned into pdf-lib's bottom-up coordinates
// only when drawing.
import { rgb, type PDFDocument, type PDFFont, type PDFPage, type RGB } from 'pdf-lib';

export const MM = 72 / 25.4;
export const PAGE = { width: 595.28, height: 841.89 };
/** DIN 5008: 25 mm left, 20 mm right. */
export const LEFT = 25 * MM;
export const RIGHT = PAGE.width - 20 * MM;
export const CONTENT_WIDTH = RIGHT - LEFT;
/** Where content starts on continuation pages, below their running header. */
export const CONTINUATION_TOP = 27 * MM;

export const COLORS = {
  text: rgb(0.1, 0.1, 0.12),
  muted: rgb(0.4, 0.4, 0.43),
  rule: rgb(0.75, 0.75, 0.78),
  band: rgb(0.93, 0.94, 0.95),
  watermark: rgb(0.9, 0.9, 0.92),
};

export interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
}

export interface TextStyle {
  size?: number;
  bold?: boolean;
  color?: RGB;
  align?: 'left' | 'right';
}

/** Line advance as a multiple of the font size; DejaVu's ascent + descent is 1.16 em. */
export const LEADING = 1.3;
/** From the top of a line box to the baseline: DejaVu's ascent (1901/2048 em). */
const ASCENT = 0.93;

export class Canvas {
  readonly pages: PDFPage[] = [];
  page!: PDFPage;
  /** The cursor: distance of the next free line from the top edge, in points. */
  y = 0;
  /** Runs after every page break (a table in progress repeats its header). */
  onBreak: (() => void) | null = null;

  constructor(
    readonly pdf: PDFDocument,
    readonly fonts: Fonts,
    /** The lowest point content may reach, above the footer (known once the footer is laid out). */
    public bottom: number,
    /** Draws what every new page carries and answers where its content starts. */
    private readonly decorate: (canvas: Canvas) => number,
  ) {}

  addPage(): void {
    this.page = this.pdf.addPage([PAGE.width, PAGE.height]);
    this.pages.push(this.page);
    this.y = this.decorate(this);
    this.onBreak?.();
  }

  /** Starts a new page unless `height` more points fit on this one; true when it broke. */
  need(height: number): boolean {
    if (this.y + height <= this.bottom) return false;
    this.addPage();
    return true;
  }

  font(bold = false): PDFFont {
    return bold ? this.fonts.bold : this.fonts.regular;
  }

  width(text: string, size: number, bold = false): number {
    return this.font(bold).widthOfTextAtSize(text, size);
  }

  /** One line of text whose line box starts `top` points below the top edge; `x` is its right edge when right-aligned. */
  text(text: string, x: number, top: number, style: TextStyle = {}, page: PDFPage = this.page): void {
    if (text === '') return;
    const size = style.size ?? 9;
    const font = this.font(style.bold);
    const left = style.align === 'right' ? x - font.widthOfTextAtSize(text, size) : x;
    page.drawText(text, { x: left, y: PAGE.height - top - size * ASCENT, size, font, color: style.color ?? COLORS.text });
  }

  /** Several lines downwards from `top`; answers the height they took. */
  lines(lines: readonly string[], x: number, top: number, style: TextStyle = {}, page: PDFPage = this.page): number {
    const size = style.size ?? 9;
    lines.forEach((line, i) => this.text(line, x, top + i * size * LEADING, style, page));
    return lines.length * size * LEADING;
  }

  /** Splits text into lines no wider than `width`: at the model's line breaks, then between words, then inside a word too long for a line. */
  wrap(text: string, width: number, size = 9, bold = false): string[] {
    const font = this.font(bold);
    const fits = (s: string) => font.widthOfTextAtSize(s, size) <= width;
    const out: string[] = [];
    for (const paragraph of text.replace(/\t/g, ' ').split(/\r?\n/)) {
      let line = '';
      for (const word of paragraph.split(/ +/)) {
        const candidate = line ? `${line} ${word}` : word;
        if (fits(candidate)) {
          line = candidate;
          continue;
        }
        if (line) out.push(line);
        line = '';
        let rest = word;
        while (!fits(rest) && [...rest].length > 1) {
          const chars = [...rest];
          let cut = chars.length - 1;
          while (cut > 1 && !fits(chars.slice(0, cut).join(''))) cut--;
          out.push(chars.slice(0, cut).join(''));
          rest = chars.slice(cut).join('');
        }
        line = rest;
      }
      out.push(line);
    }
    return out;
  }

  /** A horizontal rule `top` points below the top edge. */
  rule(x1: number, x2: number, top: number, thickness = 0.5, color: RGB = COLORS.rule, page: PDFPage = this.page): void {
    page.drawLine({ start: { x: x1, y: PAGE.height - top }, end: { x: x2, y: PAGE.height - top }, thickness, color });
  }

  /** A filled rectangle whose top edge is `top` points below the top edge of the page. */
  box(x: number, top: number, width: number, height: number, color: RGB): void {
    this.page.drawRectangle({ x, y: PAGE.height - top - height, width, height, color });
  }

  /**
   * A paragraph in the flow: wrapped to `width`, breaking pages between lines, advancing the cursor.
   */
  paragraph(text: string, style: TextStyle & { x?: number; width?: number } = {}): void {
    const size = style.size ?? 9;
    const x = style.x ?? LEFT;
    for (const line of this.wrap(text, style.width ?? RIGHT - x, size, style.bold)) {
      this.need(size * LEADING);
      this.text(line, x, this.y, style);
      this.y += size * LEADING;
    }
  }
}
