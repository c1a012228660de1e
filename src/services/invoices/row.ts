import { newId } from '../../lib/ids';
import type { InvoiceRow } from './render';

/** What a new invoice row must name; every other column may be given and otherwise takes its default. */
export type NewInvoiceFields = Pick<InvoiceRow, 'customerId' | 'type' | 'currencyCode'> & Partial<Omit<InvoiceRow, 'tenantId' | 'createdAt' | 'updatedAt'>>;

/**
 * The one constructor of new invoice rows (drafts, cancellations, credit notes, billing's invoices):
 * a draft without number, dates, amounts or references, created and updated at `ctx.now`, with the
 * given fields on top. A new column gets its default here, once, and call sites name only what
 * differs from it; nothing is copied from another invoice unless the caller names it.
 */
export function newInvoiceRow(ctx: { tenant: { id: string }; now: Date }, fields: NewInvoiceFields): InvoiceRow {
  const now = ctx.now.toISOString();
  const given = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return {
    id: newId(),
    tenantId: ctx.tenant.id,
    status: 'STATUS_DRAFT',
    number: null,
    numberSeq: null,
    subscriptionId: null,
    finalizationDate: null,
    dueDate: null,
    payDate: null,
    lastSentAt: null,
    lastReminderDate: null,
    dunningLevel: 0,
    dunningStatus: 'none',
    dunningDisabled: false,
    invoiceAddress: null,
    paymentMethodId: null,
    referencedInvoiceId: null,
    internalNote: null,
    title: null,
    introduction: null,
    closing: null,
    netAmount: 0,
    taxAmount: 0,
    grossAmount: 0,
    discountAmount: 0,
    paidAmount: 0,
    taxBreakdown: null,
    serviceDateFrom: null,
    serviceDateTo: null,
    sourceType: 'manual',
    customFields: null,
    exchangeRates: null,
    billingRunId: null,
    eInvoiceType: null,
    leitwegId: null,
    fileId: null,
    xmlFileId: null,
    renderAttempts: 0,
    renderError: null,
    usageToken: null,
    ...(given as NewInvoiceFields),
    createdAt: now,
    updatedAt: now,
  };
}
