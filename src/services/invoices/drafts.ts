import { and, eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { lineNet, positionTotals } from '../../billing/invoice-totals';
import { Dec, toMinorUnitsSafe } from '../../billing/money';
import { resolveTax, TaxRateUnavailableError } from '../../billing/tax';
import { isGuardFailure, requireCondition, requirePreviousChange, tenantRowsById, runBatch } from '../../db/client';
import { insertRows } from '../../db/insert';
import { customerAddresses, customers, invoicePositions, invoices, taxGroups } from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { newId } from '../../lib/ids';
import { renderAddress } from '../customers/render';
import { customerExists } from '../customers/guards';
import { taxOverrides } from '../catalogue/taxes';
import { type CustomerRow, type InvoiceType, type PositionRow, renderInvoice } from './render';
import { type NewInvoiceFields, newInvoiceRow } from './row';
import { byId, loadInvoice } from './read';
import { commitInvoiceChange, requireDraft } from './write';

export interface PositionInput {
  name: string;
  description: string | null;
  quantity: string;
  unitPrice: string;
  discount: string | null;
  /** A tax group resolves rate and category for the customer; or give taxRate (and taxCategory). */
  taxGroup: string | null;
  taxRate: string | null;
  taxCategory: string | null;
  serviceDateFrom: string | null;
  serviceDateTo: string | null;
  /** Index (within the same request) or id of the header this line belongs to. */
  parent: string | null;
}

export interface DraftInput {
  customer: string;
  currencyCode: string | null;
  title: string | null;
  introduction: string | null;
  closing: string | null;
  internalNote: string | null;
  customFields: Record<string, unknown> | null;
  positions: PositionInput[];
}

/** The invoice currency: the customer's, else the tenant's default (docs/decisions.md, Foundations). */
export function invoiceCurrency(customer: Pick<CustomerRow, 'currencyCode'>, tenant: { defaultCurrency: string }) {
  return customer.currencyCode ?? tenant.defaultCurrency;
}

/** The address billing uses: the customer's default invoice address, else its default address. */
export async function billingAddress(ctx: ServiceContext, customerId: string) {
  const rows = await ctx.db
    .select()
    .from(customerAddresses)
    .where(and(eq(customerAddresses.tenantId, ctx.tenant.id), eq(customerAddresses.customerId, customerId), eq(customerAddresses.isDefault, true)));
  return chooseBillingAddress(rows);
}

/** The address an invoice goes to, from a customer's default addresses: the invoice address, else the default one. */
export function chooseBillingAddress(rows: (typeof customerAddresses.$inferSelect)[]) {
  const chosen = rows.find((a) => a.type === 'TYPE_INVOICE' && a.status === 'active') ?? rows.find((a) => a.type === 'TYPE_DEFAULT') ?? null;
  return chosen ? (renderAddress(chosen) as unknown as Record<string, unknown>) : null;
}

/** Computes position rows (nets rounded once each) for an invoice, resolving taxes per line. */
export async function buildPositions(
  ctx: ServiceContext,
  invoiceId: string,
  customer: CustomerRow,
  currency: string,
  inputs: PositionInput[],
  v: Violations,
  startSort = 0,
  date = ctx.now,
): Promise<PositionRow[]> {
  const groupIds = [...new Set(inputs.map((p) => p.taxGroup).filter((x): x is string => x !== null))];
  const groups = groupIds.length
    ? await ctx.db.select().from(taxGroups).where(tenantRowsById(taxGroups, ctx.tenant.id, groupIds))
    : [];
  const ids = inputs.map(() => newId());
  const rows: PositionRow[] = [];
  for (const [i, p] of inputs.entries()) {
    const at = `positions[${i}]`;
    let taxRate = p.taxRate;
    let taxCategory = p.taxCategory ?? (p.taxRate !== null && new Dec(p.taxRate).isZero() ? 'Z' : 'S');
    let taxNote: string | null = null;
    if (p.taxGroup !== null) {
      const group = groups.find((g) => g.id === p.taxGroup);
      if (!group) {
        v.add(`${at}.taxGroup`, 'No such tax group.', 'not_found');
        continue;
      }
      try {
        const t = resolveTax({
          taxGroup: { type: group.type, reverseChargeType: group.reverseChargeType },
          sellerCountry: ctx.tenant.countryCode,
          customerCountry: customer.countryCode,
          vatIdValid: customer.isVatIdValid,
          isBusiness: customer.companyName !== null || customer.vatId !== null,
          taxExempt: customer.taxExempt,
          date,
          overrides: await taxOverrides(ctx, group),
        });
        taxRate = t.rate;
        taxCategory = t.category;
        taxNote = t.legalNote;
      } catch (err) {
        if (!(err instanceof TaxRateUnavailableError)) throw err;
        v.add(`${at}.taxGroup`, `No tax rate is known for ${err.country}; add one under /taxes.`, 'rate_unavailable');
        continue;
      }
    } else if (taxRate === null) {
      v.add(`${at}.taxRate`, 'Give a taxGroup, or a taxRate (and taxCategory).', 'required');
      continue;
    }
    let parentId: string | null = null;
    if (p.parent !== null) {
      const index = /^\d+$/.test(p.parent) ? Number(p.parent) : -1;
      if (index >= 0 && index < i && inputs[index]!.parent === null) parentId = ids[index]!;
      else v.add(`${at}.parent`, 'Must be the index of an earlier top-level position (the tree is at most two levels deep).', 'invalid_parent');
    }
    let net;
    try {
      net = lineNet({ quantity: p.quantity, unitPrice: p.unitPrice, discount: p.discount ?? undefined }, currency);
    } catch (err) {
      v.add(at, (err as Error).message, 'invalid_amount');
      continue;
    }
    rows.push({
      id: ids[i]!,
      tenantId: ctx.tenant.id,
      invoiceId,
      parentId,
      sort: startSort + i,
      name: p.name,
      description: p.description,
      quantity: p.quantity,
      unitPrice: p.unitPrice,
      discountAmount: toMinorUnitsSafe(net.discount, currency),
      netAmount: toMinorUnitsSafe(net.net, currency),
      taxRate: taxRate!,
      taxCategory,
      taxNote,
      serviceFrom: p.serviceDateFrom ? new Date(p.serviceDateFrom).toISOString() : null,
      serviceTo: p.serviceDateTo ? new Date(p.serviceDateTo).toISOString() : null,
      kind: 'manual',
      productId: null,
      subscriptionItemId: null,
      createdAt: ctx.now.toISOString(),
    });
  }
  return rows;
}

export async function createDraft(ctx: ServiceContext, input: DraftInput, type: InvoiceType = 'TYPE_INVOICE', extra: Partial<NewInvoiceFields> = {}) {
  const customer = await ctx.db.select().from(customers).where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, input.customer))).get();
  const v = new Violations();
  if (!customer) throw ApiError.violation('customer', 'No such customer.', 'not_found');
  const currency = input.currencyCode ?? invoiceCurrency(customer, ctx.tenant);
  const id = newId();
  const positions = await buildPositions(ctx, id, customer, currency, input.positions, v);
  v.throwIfAny();
  const row = newInvoiceRow(ctx, {
    id,
    customerId: customer.id,
    type,
    currencyCode: currency,
    invoiceAddress: await billingAddress(ctx, customer.id),
    internalNote: input.internalNote,
    title: input.title,
    introduction: input.introduction,
    closing: input.closing,
    customFields: input.customFields,
    ...positionTotals(positions, currency),
    ...extra,
  });
  const resource = renderInvoice({ row, positions, customer });
  const statements: BatchItem<'sqlite'>[] = [ctx.db.insert(invoices).values(row), insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'invoice.created', resourceId: id, data: resource, now: ctx.now })];
  statements.push(...insertRows(ctx.db, invoicePositions, positions));
  // A customer deleted meanwhile must not be left with an invoice (its delete checks the other way).
  statements.push(requireCondition(ctx.db, customerExists(ctx.tenant.id, customer.id)));
  try {
    await runBatch(ctx.db, statements);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.violation('customer', 'No such customer.', 'not_found');
    throw err;
  }
  return resource;
}

export async function updateDraft(ctx: ServiceContext, id: string, input: DraftInput) {
  const before = await loadInvoice(ctx, id);
  requireDraft(before, 'update');
  if (input.customer !== before.row.customerId) throw ApiError.violation('customer', 'The customer of an invoice cannot change.', 'immutable');
  const v = new Violations();
  const currency = input.currencyCode ?? before.row.currencyCode;
  const positions = await buildPositions(ctx, id, before.customer, currency, input.positions, v);
  v.throwIfAny();
  const t = ctx.tenant.id;
  const statements: BatchItem<'sqlite'>[] = [
    ctx.db.delete(invoicePositions).where(and(eq(invoicePositions.tenantId, t), eq(invoicePositions.invoiceId, id))),
    ...insertRows(ctx.db, invoicePositions, positions),
  ];
  return commitInvoiceChange(
    ctx,
    before,
    { currencyCode: currency, title: input.title, introduction: input.introduction, closing: input.closing, internalNote: input.internalNote, customFields: input.customFields, ...positionTotals(positions, currency) },
    ['invoice.updated'],
    { positions, statements },
  );
}

export async function deleteDraft(ctx: ServiceContext, id: string) {
  const before = await loadInvoice(ctx, id);
  requireDraft(before, 'delete');
  try {
    await ctx.db.batch([
      ctx.db.delete(invoices).where(and(byId(ctx, id), eq(invoices.status, 'STATUS_DRAFT'))),
      requirePreviousChange(ctx.db),
      ctx.db.delete(invoicePositions).where(and(eq(invoicePositions.tenantId, ctx.tenant.id), eq(invoicePositions.invoiceId, id))),
      insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'invoice.deleted', resourceId: id, data: { id }, now: ctx.now }),
    ]);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.conflict('Only drafts can be deleted.', 'invalid-transition');
    throw err;
  }
}
