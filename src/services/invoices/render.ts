import { formatMoney, fromMinorUnits } from '../../billing/money';
import { customers, invoicePositions, invoices } from '../../db/schema';
import { INVOICE_TYPES, type InvoicePositionResource, type InvoiceResource, type InvoiceType } from '../../schemas/invoices';

export type InvoiceRow = typeof invoices.$inferSelect;
export type PositionRow = typeof invoicePositions.$inferSelect;
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

export interface InvoiceAggregate {
  row: InvoiceRow;
  positions: PositionRow[];
  customer: CustomerRow;
}

const money = (minor: number, currency: string) => formatMoney(fromMinorUnits(minor, currency), currency);

export function renderPosition(p: PositionRow, currency: string): InvoicePositionResource {
  return {
    id: p.id,
    parent: p.parentId,
    sort: p.sort,
    name: p.name,
    description: p.description,
    quantity: p.quantity,
    unitPrice: { amount: p.unitPrice, currencyCode: currency },
    discountAmount: money(p.discountAmount, currency),
    netAmount: money(p.netAmount, currency),
    taxRate: p.taxRate,
    taxCategory: p.taxCategory,
    taxNote: p.taxNote,
    serviceDateFrom: p.serviceFrom,
    serviceDateTo: p.serviceTo,
    kind: p.kind,
    product: p.productId,
    subscriptionItem: p.subscriptionItemId,
  };
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
    referencedInvoice: r.referencedInvoiceId,
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
    paymentMethod: r.paymentMethodId,
    internalNote: r.internalNote,
    title: r.title,
    introduction: r.introduction,
    closing: r.closing,
    netAmount: money(r.netAmount, c),
    taxAmount: money(r.taxAmount, c),
    grossAmount: money(r.grossAmount, c),
    discountAmount: money(r.discountAmount, c),
    unpaidAmount: money(Math.max(0, r.grossAmount - r.paidAmount), c),
    taxes: (r.taxBreakdown ?? []).map((t) => ({ ...t, taxableAmount: { amount: t.taxableAmount, currencyCode: c }, taxAmount: { amount: t.taxAmount, currencyCode: c } })),
    positions: agg.positions.map((p) => renderPosition(p, c)),
    applicatedExchangeRates: r.exchangeRates ?? [],
    serviceDateFrom: r.serviceDateFrom,
    serviceDateTo: r.serviceDateTo,
    sourceType: r.sourceType,
    customFields: r.customFields,
    file: r.documentKey ? { id: r.documentKey, isPrivate: true, mimeType: 'application/json', fileExtension: 'json', fileName: `${r.number ?? r.id}.json` } : null,
    xmlFile: null,
    eInvoiceType: null,
    leitwegId: null,
    usageBreakdownUrl: null,
    cancellationDocument: null,
    updatedAt: r.updatedAt,
  };
}
