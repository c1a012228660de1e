// The position table: one row per line, under group headlines on consolidated invoices, the
// header repeated on every page the table reaches. A row never splits across pages, so a price is
// always printed beside its name.
import { Dec } from '../../billing/money';
import type { DocumentLine, DocumentModel } from '../model';
import { Canvas, COLORS, CONTENT_WIDTH, LEADING, LEFT, MM, RIGHT } from './canvas';
import { formatMoney, formatNumber, formatPercent, formatPeriod, formatUnitPrice } from './format';
import type { Labels } from './labels';

const SIZE = 8.5;
const SMALL = 7.5;
const PAD = 1.3 * MM;
const GUTTER = 3 * MM;

interface Column {
  key: 'number' | 'description' | 'quantity' | 'unitPrice' | 'discount' | 'net';
  width: number;
  align: 'left' | 'right';
}

/** The discount column only exists when some line has a discount; its width goes to the description otherwise. */
function columns(withDiscount: boolean): (Column & { x: number })[] {
  const fixed: Column[] = [
    { key: 'number', width: 9 * MM, align: 'left' },
    { key: 'description', width: 0, align: 'left' },
    { key: 'quantity', width: 22 * MM, align: 'right' },
    { key: 'unitPrice', width: 24 * MM, align: 'right' },
    ...(withDiscount ? [{ key: 'discount', width: 21 * MM, align: 'right' } as Column] : []),
    { key: 'net', width: 24 * MM, align: 'right' },
  ];
  const used = fixed.reduce((s, c) => s + c.width, 0) + GUTTER * (fixed.length - 1);
  let x = LEFT;
  return fixed.map((c) => {
    const width = c.key === 'description' ? CONTENT_WIDTH - used : c.width;
    const placed = { ...c, width, x };
    x += width + GUTTER;
    return placed;
  });
}

interface CellLine {
  text: string;
  size: number;
  bold?: boolean;
  muted?: boolean;
}

function cellHeight(lines: readonly CellLine[]): number {
  return lines.reduce((h, l) => h + l.size * LEADING, 0);
}

function unitOf(line: DocumentLine, L: Labels): string {
  return line.unitName ?? L.units[line.unitCode] ?? '';
}

function rowCells(canvas: Canvas, doc: DocumentModel, line: DocumentLine, cols: ReturnType<typeof columns>, L: Labels): CellLine[][] {
  const lang = doc.language;
  const money = (a: string) => formatMoney(a, doc.currency, lang);
  const wrap = (text: string, width: number, size: number, extra: Omit<CellLine, 'text' | 'size'> = {}) =>
    canvas.wrap(text, width, size, extra.bold).map((t) => ({ text: t, size, ...extra }));
  return cols.map((col) => {
    switch (col.key) {
      case 'number':
        return [{ text: String(line.number), size: SIZE }];
      case 'description':
        return [
          ...wrap(line.name, col.width, SIZE),
          ...(line.description ? wrap(line.description, col.width, SMALL, { muted: true }) : []),
          ...(line.period ? wrap(`${L.linePeriod}: ${formatPeriod(line.period, lang)}`, col.width, SMALL, { muted: true }) : []),
          ...(line.sellerItemId ? wrap(`${L.itemId}: ${line.sellerItemId}`, col.width, SMALL, { muted: true }) : []),
        ];
      case 'quantity':
        return wrap([formatNumber(line.quantity, lang), unitOf(line, L)].filter(Boolean).join(' '), col.width, SIZE);
      case 'unitPrice':
        return [{ text: formatUnitPrice(line.unitPrice, doc.currency, lang), size: SIZE }];
      case 'discount': {
        if (!line.allowance) return [];
        const amount = money(new Dec(line.allowance.amount).abs().negated().toString());
        return [{ text: amount, size: SIZE }, ...(line.allowance.percentage ? [{ text: `(${formatPercent(line.allowance.percentage, lang)})`, size: SMALL, muted: true }] : [])];
      }
      case 'net':
        return [{ text: money(line.net), size: SIZE }];
    }
  });
}

function drawCells(canvas: Canvas, cells: CellLine[][], cols: ReturnType<typeof columns>, top: number): void {
  cells.forEach((lines, i) => {
    const col = cols[i]!;
    let y = top;
    for (const l of lines) {
      const x = col.align === 'right' ? col.x + col.width : col.x;
      canvas.text(l.text, x, y, { size: l.size, bold: l.bold, color: l.muted ? COLORS.muted : COLORS.text, align: col.align });
      y += l.size * LEADING;
    }
  });
}

function drawHeader(canvas: Canvas, cols: ReturnType<typeof columns>, L: Labels): void {
  const height = SIZE * LEADING + 2 * PAD;
  canvas.box(LEFT - PAD, canvas.y, CONTENT_WIDTH + 2 * PAD, height, COLORS.band);
  drawCells(canvas, cols.map((c) => [{ text: L.columns[c.key], size: SIZE, bold: true }]), cols, canvas.y + PAD);
  canvas.y += height + PAD;
}

/** The lines in the order printed: under each group's headline, then those outside any group. */
function sections(doc: DocumentModel): { group: DocumentModel['groups'][number] | null; lines: DocumentLine[] }[] {
  if (doc.groups.length === 0) return [{ group: null, lines: doc.lines }];
  const known = new Set(doc.groups.map((g) => g.id));
  const grouped = doc.groups.map((group) => ({ group, lines: doc.lines.filter((l) => l.groupId === group.id) }));
  const rest = doc.lines.filter((l) => l.groupId === null || !known.has(l.groupId));
  return [...grouped, ...(rest.length > 0 ? [{ group: null, lines: rest }] : [])];
}

export function drawPositions(canvas: Canvas, doc: DocumentModel, L: Labels): void {
  const cols = columns(doc.lines.some((l) => l.allowance !== null));
  const description = cols.find((c) => c.key === 'description')!;
  canvas.need(SIZE * LEADING * 4);
  drawHeader(canvas, cols, L);
  canvas.onBreak = () => drawHeader(canvas, cols, L);
  for (const { group, lines } of sections(doc)) {
    if (group && lines.length === 0) continue;
    if (group) {
      const headline = [
        ...canvas.wrap(group.name, CONTENT_WIDTH, 9, true).map((text) => ({ text, size: 9, bold: true })),
        ...(group.description ? canvas.wrap(group.description, CONTENT_WIDTH, SMALL).map((text) => ({ text, size: SMALL, muted: true })) : []),
      ];
      const first = lines[0] ? cellHeight(rowCells(canvas, doc, lines[0], cols, L)[1]!) : 0;
      // A headline is never left alone at the foot of a page.
      canvas.need(PAD + cellHeight(headline) + PAD + first + 2 * PAD);
      canvas.y += PAD;
      drawCells(canvas, [headline], [{ ...description, x: LEFT, width: CONTENT_WIDTH }], canvas.y);
      canvas.y += cellHeight(headline) + PAD;
    }
    for (const line of lines) {
      const cells = rowCells(canvas, doc, line, cols, L);
      const height = Math.max(...cells.map(cellHeight)) + 2 * PAD;
      canvas.need(height);
      drawCells(canvas, cells, cols, canvas.y + PAD);
      canvas.y += height;
      canvas.rule(LEFT, RIGHT, canvas.y - PAD / 2, 0.3);
    }
  }
  canvas.onBreak = null;
  canvas.y += 2 * MM;
}
