import { positionTotals } from '../../billing/invoice-totals';
import { and, eq } from 'drizzle-orm';
import { insertRows } from '../../db/insert';
import { invoicePositions } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { type PositionRow } from './render';
import { loadInvoice } from './read';
import { type PositionInput, buildPositions } from './drafts';
import { commitInvoiceChange, requireDraft } from './write';

export async function addPositions(ctx: ServiceContext, id: string, inputs: PositionInput[]) {
  const before = await loadInvoice(ctx, id);
  requireDraft(before, 'add positions to');
  const v = new Violations();
  const topLevel = new Set(before.positions.filter((p) => p.parentId === null).map((p) => p.id));
  const local = inputs.map((p) => (p.parent !== null && topLevel.has(p.parent) ? { ...p, parent: null, existingParent: p.parent } : { ...p, existingParent: null }));
  const added = await buildPositions(ctx, id, before.customer, before.row.currencyCode, local, v, before.positions.length);
  local.forEach((p, i) => {
    if (p.existingParent && added[i]) added[i]!.parentId = p.existingParent;
  });
  v.throwIfAny();
  const positions = [...before.positions, ...added];
  return commitInvoiceChange(ctx, before, positionTotals(positions, before.row.currencyCode), ['invoice.updated'], {
    positions,
    statements: insertRows(ctx.db, invoicePositions, added),
  });
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

export async function updatePosition(ctx: ServiceContext, positionId: string, input: PositionInput) {
  const { p, invoice } = await loadPosition(ctx, positionId);
  const v = new Violations();
  const [built] = await buildPositions(ctx, invoice.row.id, invoice.customer, invoice.row.currencyCode, [{ ...input, parent: null }], v, p.sort);
  if (input.parent !== null && input.parent !== p.parentId) {
    const parent = invoice.positions.find((x) => x.id === input.parent);
    if (!parent || parent.parentId !== null || invoice.positions.some((x) => x.parentId === p.id)) {
      v.add('parent', 'Must be a top-level position of the same invoice (the tree is at most two levels deep).', 'invalid_parent');
    }
  }
  v.throwIfAny();
  const next: PositionRow = { ...built!, id: p.id, parentId: input.parent, createdAt: p.createdAt };
  const positions = invoice.positions.map((x) => (x.id === p.id ? next : x));
  const { id: _i, tenantId: _t, invoiceId: _inv, createdAt: _c, ...set } = next;
  return commitInvoiceChange(ctx, invoice, positionTotals(positions, invoice.row.currencyCode), ['invoice.updated'], {
    positions,
    statements: [ctx.db.update(invoicePositions).set(set).where(and(eq(invoicePositions.tenantId, ctx.tenant.id), eq(invoicePositions.id, p.id)))],
  });
}

export async function deletePosition(ctx: ServiceContext, positionId: string) {
  const { p, invoice } = await loadPosition(ctx, positionId);
  const removed = new Set([p.id, ...invoice.positions.filter((x) => x.parentId === p.id).map((x) => x.id)]);
  const positions = invoice.positions.filter((x) => !removed.has(x.id));
  return commitInvoiceChange(ctx, invoice, positionTotals(positions, invoice.row.currencyCode), ['invoice.updated'], {
    positions,
    statements: [...removed].map((rid) => ctx.db.delete(invoicePositions).where(and(eq(invoicePositions.tenantId, ctx.tenant.id), eq(invoicePositions.id, rid)))),
  });
}
