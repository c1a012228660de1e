import { z } from '@hono/zod-openapi';
import { CustomerSummarySchema } from './customers';

// Representations of invoices and the other documents (credit notes, cancellations…).

export const INVOICE_TYPES = ['TYPE_INVOICE', 'TYPE_CREDIT', 'TYPE_REFUND', 'TYPE_REMINDER', 'TYPE_CANCEL', 'TYPE_DUNNING'] as const;
export type InvoiceType = (typeof INVOICE_TYPES)[number];

const moneySchema = z.object({ amount: z.string(), currencyCode: z.string() });

export const InvoicePositionSchema = z
  .object({
    id: z.string(),
    parent: z.string().nullable(),
    sort: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    quantity: z.string(),
    unitPrice: moneySchema,
    discountAmount: moneySchema,
    netAmount: moneySchema,
    taxRate: z.string(),
    taxCategory: z.string(),
    taxNote: z.string().nullable(),
    serviceDateFrom: z.string().nullable(),
    serviceDateTo: z.string().nullable(),
    kind: z.string(),
    product: z.string().nullable(),
    subscriptionItem: z.string().nullable(),
  })
  .openapi('InvoicePosition');
export type InvoicePositionResource = z.infer<typeof InvoicePositionSchema>;

export const InvoiceSchema = z
  .object({
    id: z.string(),
    type: z.enum(INVOICE_TYPES),
    status: z.string(),
    number: z.string().nullable(),
    customer: CustomerSummarySchema,
    subscription: z.string().nullable(),
    referencedInvoice: z.string().nullable(),
    currencyCode: z.string(),
    creationDate: z.string(),
    finalizationDate: z.string().nullable(),
    dueDate: z.string().nullable(),
    payDate: z.string().nullable(),
    lastSentAt: z.string().nullable(),
    lastReminderDate: z.string().nullable(),
    dunningLevel: z.number().int(),
    dunningStatus: z.string(),
    dunningDisabled: z.boolean(),
    // A snapshot taken when the document was made: open, it keeps the shape it was stored with.
    invoiceAddress: z.record(z.string(), z.unknown()).nullable(),
    paymentMethod: z.string().nullable(),
    internalNote: z.string().nullable(),
    title: z.string().nullable(),
    introduction: z.string().nullable(),
    closing: z.string().nullable(),
    netAmount: moneySchema,
    taxAmount: moneySchema,
    grossAmount: moneySchema,
    discountAmount: moneySchema,
    unpaidAmount: moneySchema,
    taxes: z.array(z.object({ rate: z.string(), category: z.string(), taxableAmount: moneySchema, taxAmount: moneySchema })),
    positions: z.array(InvoicePositionSchema),
    // Snapshots of the rates billing applied (see invoiceAddress).
    applicatedExchangeRates: z.array(z.record(z.string(), z.unknown())),
    serviceDateFrom: z.string().nullable(),
    serviceDateTo: z.string().nullable(),
    sourceType: z.string(),
    // The tenant's own fields (GET /custom-fields): open by design.
    customFields: z.record(z.string(), z.unknown()).nullable(),
    file: z.object({ id: z.string(), isPrivate: z.boolean(), mimeType: z.string(), fileExtension: z.string(), fileName: z.string() }).nullable(),
    xmlFile: z.null(),
    eInvoiceType: z.null(),
    leitwegId: z.null(),
    usageBreakdownUrl: z.null(),
    cancellationDocument: z.object({ id: z.string(), number: z.string().nullable() }).nullable(),
    updatedAt: z.string(),
  })
  .openapi('Invoice');
export type InvoiceResource = z.infer<typeof InvoiceSchema>;

export const InvoiceCommentSchema = z
  .object({ id: z.string(), text: z.string(), author: z.string().nullable(), createdAt: z.string() })
  .openapi('InvoiceComment');
export type InvoiceComment = z.infer<typeof InvoiceCommentSchema>;

export const DownloadLinkSchema = z.object({ url: z.string(), expiresAt: z.string() }).openapi('DownloadLink');
export type DownloadLink = z.infer<typeof DownloadLinkSchema>;
