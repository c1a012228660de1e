import { and, eq, gte, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { insertRows } from '../../db/insert';
import { invoicePositions } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { type PositionRow } from './render';
import { loadInvoice } from './read';
import { buildPositions, checkedTotals } from './build-positions';
import { flattenItems, type PositionItem } from './position-input';
import { commitInvoiceChange, requireDraft } from './write';

/**
 * Adds lines (with their sub-lines) to a draft, at the end or, with `position` (1-based, as Fynn's
 * position-items take it), in front of the line now at that place. `path` is where violations
 * point: `positions` for a list, '' for a body that is the one item.
 */
export async function addPositions(ctx: ServiceContext, id: string, items: PositionItem[], options: { position?: number; path?: string } = {}) {
  const before = await loadInvoice(ctx, id);
  requireDraft(before, 'add positions to');
  const v = new Violations();
  const current = before.positions;
  const at = options.position && options.position <= current.length ? current[options.position - 1]!.sort : null;
  const startSort = at ?? current.reduce((max, p) => Math.max(max, p.sort + 1), 0);
  const inputs = flattenItems(items, options.path ?? 'positions');
  const added = await buildPositions(ctx, id, before.customer, before.row.currencyCode, inputs, v, { startSort, existing: current });
  const shifted = at === null ? current : current.map((p) => (p.sort >= at ? { ...p, sort: p.sort + inputs.length } : p));
  const positions = [...shifted, ...added].sort((a, b) => a.sort - b.sort);
  const totals = checkedTotals(positions, before.row.currencyCode, v);
  v.throwIfAny();
  const t = ctx.tenant.id;
  const statements: BatchItem<'sqlite'>[] = [];
  if (at !== null) {
    statements.push(
      ctx.db
        .update(invoicePositions)
        .set({ sort: sql`${invoicePositions.sort} + ${inputs.length}` })
        .where(and(eq(invoicePositions.tenantId, t), eq(invoicePositions.invoiceId, id), gte(invoicePositions.sort, at))),
    );
  }
  statements.push(...insertRows(ctx.db, invoicePositions, added));
  return commitInvoiceChange(ctx, before, totals!, ['invoice.updated'], { positions, statements });
}

async function loadPosition(ctx: ServiceContext, positionId: string) {
  const p = await ctx.db
    .select()
    .from(invoicePositions)
    .where(and(eq(invoicePositions.tenantId, ctx.tenant.id), eq(invoicePositions.id, positionId)))
    .get();
  if (!p) throw ApiError.notFound('Invoice position');
  const invoice = await loadInvoice(ctx, p.invoiceId);
  requireDraft(invoice, 'change positions of');
  return { p, invoice };
}

export async function updatePosition(ctx: ServiceContext, positionId: string, item: PositionItem) {
  const { p, invoice } = await loadPosition(ctx, positionId);
  const v = new Violations();
  const { children: _none, parent, ...line } = item;
  const [built] = await buildPositions(ctx, invoice.row.id, invoice.customer, invoice.row.currencyCode, [{ ...line, path: '', parent: null }], v, { startSort: p.sort });
  if (parent !== null && parent !== p.parentId) {
    const target = invoice.positions.find((x) => x.id === parent);
    if (!target || target.parentId !== null || invoice.positions.some((x) => x.parentId === p.id)) {
      v.add('parent', 'Must be a top-level position of the same invoice (the tree is at most two levels deep).', 'invalid_parent');
    }
  }
  const next: PositionRow | null = built ? { ...built, id: p.id, parentId: parent, createdAt: p.createdAt } : null;
  const positions = invoice.positions.map((x) => (x.id === p.id && next ? next : x));
  const totals = next ? checkedTotals(positions, invoice.row.currencyCode, v) : null;
  v.throwIfAny();
  const { id: _i, tenantId: _t, invoiceId: _inv, createdAt: _c, ...set } = next!;
  return commitInvoiceChange(ctx, invoice, totals!, ['invoice.updated'], {
    positions,
    statements: [ctx.db.update(invoicePositions).set(set).where(and(eq(invoicePositions.tenantId, ctx.tenant.id), eq(invoicePositions.id, p.id)))],
  });
}

export async function deletePosition(ctx: ServiceContext, positionId: string) {
  const { p, invoice } = await loadPosition(ctx, positionId);
  const removed = new Set([p.id, ...invoice.positions.filter((x) => x.parentId === p.id).map((x) => x.id)]);
  const positions = invoice.positions.filter((x) => !removed.has(x.id));
  const v = new Violations();
  // Removing a credit line can raise the total: the rest must stay within the bounds too.
  const totals = checkedTotals(positions, invoice.row.currencyCode, v);
  v.throwIfAny();
  return commitInvoiceChange(ctx, invoice, totals!, ['invoice.updated'], {
    positions,
    statements: [...removed].map((rid) => ctx.db.delete(invoicePositions).where(and(eq(invoicePositions.tenantId, ctx.tenant.id), eq(invoicePositions.id, rid)))),
  });
}
