import type { DunningDocumentRow } from '../dunning/documents';
import { formatMoney, fromMinorUnits } from '../../billing/money';
import { customers, invoicePositions, invoices } from '../../db/schema';
import { positionTaxes } from './position-amounts';
import { owedOf } from './owed';
import { renderMedia, type MediaRow } from '../documents/media';
import { INVOICE_TYPES, type InvoicePositionResource, type InvoiceReference, type InvoiceResource, type InvoiceType } from '../../schemas/invoices';
import type { PaymentMethodResource } from '../../schemas/payment-methods';

export type InvoiceRow = typeof invoices.$inferSelect;
type StoredPosition = typeof invoicePositions.$inferSelect;
/**
 * Position columns billing does not fill yet (src/billing/compose.ts builds its positions without
 * them): optional here, stored as null when absent.
 */
type PositionDetails = 'unit' | 'taxGroup' | 'tax' | 'discountPercentage' | 'unitPriceInterval';
export type PositionRow = Omit<StoredPosition, PositionDetails> & Partial<Pick<StoredPosition, PositionDetails>>;
export type CustomerRow = typeof customers.$inferSelect;

export { INVOICE_TYPES, type InvoiceResource, type InvoiceType };

/** A stored document type as the API names it; any other value is a bug in the writer. */
export function documentType(type: string): InvoiceType {
  if (!(INVOICE_TYPES as readonly string[]).includes(type)) throw new Error(`Unknown document type ${JSON.stringify(type)}.`);
  return type as InvoiceType;
}

/** Each document type's number format setting. */
export const NUMBER_FORMAT_SETTING: Record<InvoiceType, string> = {
  TYPE_INVOICE: 'invoice.numberFormat',
  TYPE_CREDIT: 'credit.numberFormat',
  TYPE_CANCEL: 'cancellation.numberFormat',
  TYPE_REFUND: 'refund.numberFormat',
  TYPE_REMINDER: 'reminder.numberFormat',
  TYPE_DUNNING: 'dunningLetter.numberFormat',
};

/**
 * What an invoice embeds besides its own rows (docs/decisions.md, Response shapes): its payment
 * method and referenced document by id, and the origin its URLs are absolute on. Read for a whole
 * page at once (`invoiceEmbeds`).
 */
export interface InvoiceEmbeds {
  paymentMethods: ReadonlyMap<string, PaymentMethodResource>;
  invoices: ReadonlyMap<string, InvoiceReference>;
  baseUrl: string | null;
}

export interface InvoiceAggregate {
  row: InvoiceRow;
  embeds: InvoiceEmbeds;
  positions: PositionRow[];
  customer: CustomerRow;
  /** The stored files (the row's fileId and xmlFileId), when loaded. */
  media?: MediaRow[];
  /** Its open dunning documents (a payment that settles the invoice pays them), when loaded. */
  openDunning?: DunningDocumentRow[];
  /** What finalized credit notes took off it (minor units, positive), when loaded. */
  credited?: number;
}

function mediaOf(agg: InvoiceAggregate, id: string | null) {
  const m = id ? agg.media?.find((x) => x.id === id) : undefined;
  return m ? renderMedia(m) : null;
}

/**
 * The public usage breakdown of a document, on the API's public origin (a path when none is known:
 * docs/decisions.md, Response shapes). It names the tenant, whose shard holds the document
 * (docs/decisions.md, Tenancy and shards); the token is the credential.
 */
export const usageBreakdownUrl = (baseUrl: string | null, tenantId: string, token: string) =>
  `${baseUrl ?? ''}/public/usage-breakdowns/${encodeURIComponent(tenantId)}/${token}`;

const money = (minor: number, currency: string) => formatMoney(fromMinorUnits(minor, currency), currency);

/** How a document shows another that it refers to. */
export function renderReference(r: InvoiceRow): InvoiceReference {
  const c = r.currencyCode;
  return {
    id: r.id,
    type: documentType(r.type),
    status: r.status,
    number: r.number,
    currencyCode: c,
    creationDate: r.createdAt,
    finalizationDate: r.finalizationDate,
    dueDate: r.dueDate,
    netAmount: money(r.netAmount, c),
    taxAmount: money(r.taxAmount, c),
    grossAmount: money(r.grossAmount, c),
  };
}

/**
 * The document's positions as the API shows them: amounts before and after the line's discount, and
 * each line's share of its tax group's tax (`positionTaxes`), so the lines add up to the totals.
 */
export function renderPositions(positions: readonly PositionRow[], currency: string): InvoicePositionResource[] {
  const taxes = positionTaxes(positions);
  const groups = positions.filter((p) => p.parentId === null && positions.some((c) => c.parentId === p.id));
  return positions.map((p, i): InvoicePositionResource => {
    const parent = p.parentId === null ? -1 : groups.findIndex((g) => g.id === p.parentId);
    const tax = taxes[i]!;
    return {
      id: p.id,
      parent: p.parentId,
      group: parent < 0 ? null : { id: groups[parent]!.id, ranking: parent + 1, name: groups[parent]!.name },
      position: i + 1,
      sort: p.sort,
      name: p.name,
      description: p.description,
      quantity: p.quantity,
      unit: p.unit ?? null,
      unitPrice: { amount: p.unitPrice, currencyCode: currency },
      unitPriceInterval: p.unitPriceInterval ?? null,
      netAmount: money(p.netAmount + p.discountAmount, currency),
      discountAmount: money(p.discountAmount, currency),
      discountPercentage: p.discountPercentage ?? null,
      netAmountAfterDiscount: money(p.netAmount, currency),
      taxAmount: money(tax, currency),
      grossAmount: money(p.netAmount + tax, currency),
      taxRate: p.taxRate,
      taxCategory: p.taxCategory,
      taxNote: p.taxNote,
      taxGroup: p.taxGroup ?? null,
      tax: p.kind === 'header' ? null : { id: p.tax?.id ?? null, code: p.tax?.code ?? p.taxCategory, description: p.tax?.description ?? `${p.taxRate}%`, rate: Number(p.taxRate) },
      // Discounts are part of their line and there are no setup or dunning-fee lines (yet): every position is a product line.
      type: 'product',
      kind: p.kind,
      serviceDateFrom: p.serviceFrom,
      serviceDateTo: p.serviceTo,
      product: p.productId,
      subscriptionItem: p.subscriptionItemId,
      createdAt: p.createdAt,
    };
  });
}

/** The invoice as the API shows it; every amount a money object in the invoice currency. */
export function renderInvoice(agg: InvoiceAggregate): InvoiceResource {
  const r = agg.row;
  const c = r.currencyCode;
  const c0 = agg.customer;
  return {
    id: r.id,
    type: documentType(r.type),
    status: r.status,
    number: r.number,
    customer: {
      id: c0.id,
      customerNumber: c0.customerNumber,
      timeZone: c0.timeZone,
      firstName: c0.firstName,
      lastName: c0.lastName,
      currencyCode: c0.currencyCode,
      companyName: c0.companyName,
      ledgerId: c0.ledgerId,
      status: c0.status,
    },
    subscription: r.subscriptionId,
    referencedInvoice: r.referencedInvoiceId ? (agg.embeds.invoices.get(r.referencedInvoiceId) ?? null) : null,
    currencyCode: c,
    creationDate: r.createdAt,
    finalizationDate: r.finalizationDate,
    dueDate: r.dueDate,
    payDate: r.payDate,
    lastSentAt: r.lastSentAt,
    lastReminderDate: r.lastReminderDate,
    dunningLevel: r.dunningLevel,
    dunningStatus: r.dunningStatus,
    dunningDisabled: r.dunningDisabled,
    invoiceAddress: r.invoiceAddress,
    paymentMethod: r.paymentMethodId ? (agg.embeds.paymentMethods.get(r.paymentMethodId) ?? null) : null,
    internalNote: r.internalNote,
    title: r.title,
    introduction: r.introduction,
    closing: r.closing,
    netAmount: money(r.netAmount, c),
    taxAmount: money(r.taxAmount, c),
    grossAmount: money(r.grossAmount, c),
    discountAmount: money(r.discountAmount, c),
    unpaidAmount: money(owedOf(agg), c),
    taxes: (r.taxBreakdown ?? []).map((t) => ({ ...t, taxableAmount: { amount: t.taxableAmount, currencyCode: c }, taxAmount: { amount: t.taxAmount, currencyCode: c } })),
    positions: renderPositions(agg.positions, c),
    applicatedExchangeRates: r.exchangeRates ?? [],
    serviceDateFrom: r.serviceDateFrom,
    serviceDateTo: r.serviceDateTo,
    sourceType: r.sourceType,
    customFields: r.customFields,
    file: mediaOf(agg, r.fileId),
    xmlFile: mediaOf(agg, r.xmlFileId),
    eInvoiceType: r.eInvoiceType,
    leitwegId: r.leitwegId,
    usageBreakdownUrl: r.usageToken ? usageBreakdownUrl(agg.embeds.baseUrl, r.tenantId, r.usageToken) : null,
    cancellationDocument: null,
    updatedAt: r.updatedAt,
  };
}
