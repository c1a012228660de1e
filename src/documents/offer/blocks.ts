// Rich text on the offer PDFs' canvas: the blocks of src/lib/rich-text.ts laid out with mixed bold
// and regular words per line, lists with their markers, quotes with a bar, rules.
import type { RGB } from 'pdf-lib';
import type { Block, Inline } from '../../lib/rich-text';
import { Canvas, COLORS, CONTENT_WIDTH, LEADING, LEFT, MM, PAGE, RIGHT } from '../pdf/canvas';

interface Word {
  text: string;
  bold: boolean;
  color: RGB;
  /** A space goes before it on its line. */
  spaced: boolean;
}

/** Styled runs as words: links show their address after their text, line breaks stay breaks. */
function words(inlines: Inline[]): (Word | 'break')[] {
  const out: (Word | 'break')[] = [];
  let pendingSpace = false;
  for (const run of inlines) {
    if (run.text === '\n') {
      out.push('break');
      pendingSpace = false;
      continue;
    }
    const text = run.href && run.href !== run.text ? `${run.text} <${run.href.replace(/^mailto:/, '')}>` : run.text;
    const parts = text.split(' ');
    parts.forEach((part, i) => {
      if (i > 0) pendingSpace = true;
      if (part === '') return;
      out.push({ text: part, bold: !!run.bold, color: run.href ? COLORS.muted : COLORS.text, spaced: pendingSpace });
      pendingSpace = false;
    });
    if (text.endsWith(' ')) pendingSpace = true;
  }
  return out;
}

/** Flows styled text from the cursor: wrapped to `width`, page breaks between lines. */
export function flow(c: Canvas, inlines: Inline[], opts: { x: number; width: number; size: number; bold?: boolean; prefix?: string }) {
  const size = opts.size;
  const space = c.width(' ', size);
  let line: { w: Word; x: number }[] = [];
  let cursor = 0;
  let first = true;
  const emit = () => {
    c.need(size * LEADING);
    if (first && opts.prefix) c.text(opts.prefix, opts.x - c.width(`${opts.prefix} `, size), c.y, { size });
    for (const { w, x } of line) c.text(w.text, opts.x + x, c.y, { size, bold: w.bold || opts.bold, color: w.color });
    c.y += size * LEADING;
    line = [];
    cursor = 0;
    first = false;
  };
  for (const token of words(inlines)) {
    if (token === 'break') {
      emit();
      continue;
    }
    const bold = token.bold || !!opts.bold;
    // A word longer than a line is cut where it must be.
    const pieces = c.width(token.text, size, bold) > opts.width ? c.wrap(token.text, opts.width, size, bold) : [token.text];
    pieces.forEach((piece, k) => {
      const w = c.width(piece, size, bold);
      const gap = line.length && (token.spaced || k > 0) ? space : 0;
      if (line.length && cursor + gap + w > opts.width) emit();
      const x = line.length ? cursor + (token.spaced ? space : 0) : 0;
      line.push({ w: { ...token, text: piece }, x });
      cursor = x + w;
    });
  }
  if (line.length || first) emit();
}

/** The sections' rich text, block by block. */
export function drawBlocks(c: Canvas, blocks: Block[]) {
  for (const b of blocks) {
    switch (b.kind) {
      case 'heading': {
        const size = b.level === 1 ? 13 : b.level === 2 ? 11.5 : 10;
        c.need(size * LEADING * 2 + 2 * MM);
        c.y += 2 * MM;
        flow(c, b.inlines, { x: LEFT, width: CONTENT_WIDTH, size, bold: true });
        c.y += 1 * MM;
        break;
      }
      case 'paragraph':
        flow(c, b.inlines, { x: LEFT, width: CONTENT_WIDTH, size: 9.5 });
        c.y += 2.5 * MM;
        break;
      case 'quote': {
        const top = c.y;
        flow(c, b.inlines, { x: LEFT + 6 * MM, width: CONTENT_WIDTH - 6 * MM, size: 9.5 });
        if (c.y > top) c.page.drawLine({ start: { x: LEFT + 2 * MM, y: PAGE.height - top }, end: { x: LEFT + 2 * MM, y: PAGE.height - c.y + 2 }, thickness: 1.5, color: COLORS.rule });
        c.y += 2.5 * MM;
        break;
      }
      case 'list': {
        const counters = [0, 0, 0, 0];
        for (const item of b.items) {
          counters[item.depth] = (counters[item.depth] ?? 0) + 1;
          for (let d = item.depth + 1; d < counters.length; d++) counters[d] = 0;
          const x = LEFT + (5 + (item.depth - 1) * 6) * MM;
          flow(c, item.inlines, { x, width: RIGHT - x, size: 9.5, prefix: b.ordered ? `${counters[item.depth]}.` : '•' });
          c.y += 1 * MM;
        }
        c.y += 1.5 * MM;
        break;
      }
      case 'rule':
        c.need(4 * MM);
        c.rule(LEFT, RIGHT, c.y + 1.5 * MM);
        c.y += 4 * MM;
        break;
    }
  }
}
