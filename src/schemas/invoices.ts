import { z } from '@hono/zod-openapi';
import { CustomerSummarySchema } from './customers';
import { EInvoiceTypeSchema, MediaSchema } from './documents';
import { nullableRef } from './nullable';
import { PaymentMethodSchema } from './payment-methods';

// Representations of invoices and the other documents (credit notes, cancellations…).

export const INVOICE_TYPES = ['TYPE_INVOICE', 'TYPE_CREDIT', 'TYPE_REFUND', 'TYPE_REMINDER', 'TYPE_CANCEL', 'TYPE_DUNNING'] as const;
export type InvoiceType = (typeof INVOICE_TYPES)[number];

const moneySchema = z.object({ amount: z.string(), currencyCode: z.string() });

// A position as Fynn's invoice position item shows it (docs/decisions.md, Positions): `netAmount` before the line's
// discount, `taxAmount` and `grossAmount` after it (docs/decisions.md, Invoices and billing, "Positions").
export const InvoicePositionSchema = z
  .object({
    id: z.string(),
    parent: z.string().nullable(),
    group: z.object({ id: z.string(), ranking: z.number().int(), name: z.string() }).nullable(),
    position: z.number().int().openapi({ description: '1-based place of the position in the document' }),
    sort: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    quantity: z.string(),
    unit: z.object({ id: z.string(), name: z.string() }).nullable(),
    unitPrice: moneySchema,
    unitPriceInterval: z.string().nullable(),
    netAmount: moneySchema.openapi({ description: 'quantity × unit price, before the discount' }),
    discountAmount: moneySchema,
    discountPercentage: z.string().nullable(),
    netAmountAfterDiscount: moneySchema.openapi({ description: 'The net the document totals add up (netAmount − discountAmount)' }),
    taxAmount: moneySchema.openapi({ description: "The position's share of its tax group's tax, after the discount" }),
    grossAmount: moneySchema.openapi({ description: 'netAmountAfterDiscount + taxAmount' }),
    taxRate: z.string(),
    taxCategory: z.string(),
    taxNote: z.string().nullable(),
    taxGroup: z.object({ id: z.string(), internalDescription: z.string().nullable(), reverseChargeType: z.string(), type: z.string() }).nullable(),
    // The Tax the line was taxed with (spec §2.3): its rate a number, as on /taxes.
    tax: z.object({ id: z.string().nullable(), code: z.string(), description: z.string(), rate: z.number() }).nullable(),
    type: z.enum(['product', 'discount', 'setup', 'dunning_fee', 'invoice']),
    kind: z.string(),
    serviceDateFrom: z.string().nullable(),
    serviceDateTo: z.string().nullable(),
    product: z.string().nullable(),
    subscriptionItem: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('InvoicePosition');
export type InvoicePositionResource = z.infer<typeof InvoicePositionSchema>;

/**
 * The document another one refers to (a credit note's invoice, a cancellation's): its identity and
 * totals, not its positions (docs/decisions.md, Response shapes).
 */
export const InvoiceReferenceSchema = z
  .object({
    id: z.string(),
    type: z.enum(INVOICE_TYPES),
    status: z.string(),
    number: z.string().nullable(),
    currencyCode: z.string(),
    creationDate: z.string(),
    finalizationDate: z.string().nullable(),
    dueDate: z.string().nullable(),
    netAmount: moneySchema,
    taxAmount: moneySchema,
    grossAmount: moneySchema,
  })
  .openapi('InvoiceReference');
export type InvoiceReference = z.infer<typeof InvoiceReferenceSchema>;

export const InvoiceSchema = z
  .object({
    id: z.string(),
    type: z.enum(INVOICE_TYPES),
    status: z.string(),
    number: z.string().nullable(),
    customer: CustomerSummarySchema,
    subscription: z.string().nullable(),
    referencedInvoice: nullableRef(InvoiceReferenceSchema).openapi({ description: 'For credit notes, refunds, cancellations and reminders: the document they refer to' }),
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
    paymentMethod: nullableRef(PaymentMethodSchema).openapi({ description: 'The payment method the invoice is to be paid with (spec §2.2, IBAN masked); null when the invoice names none' }),
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
    file: nullableRef(MediaSchema).openapi({ description: 'The PDF (a ZUGFeRD PDF/A-3 for eInvoiceType zugferd); null until rendered after finalization.' }),
    xmlFile: nullableRef(MediaSchema).openapi({ description: 'The EN16931 e-invoice XML; null without an eInvoiceType or until rendered.' }),
    eInvoiceType: nullableRef(EInvoiceTypeSchema).openapi({ description: "Fixed at finalization: the customer's, else the tenant's default." }),
    leitwegId: z.string().nullable().openapi({ description: 'Only with eInvoiceType xrechnung.' }),
    usageBreakdownUrl: z.string().nullable().openapi({ description: 'Absolute URL of the usage behind the metered positions (JSON; `?format=csv` for CSV), on PUBLIC_BASE_URL or the request\'s origin. Public and unguessable.' }),
    cancellationDocument: z.object({ id: z.string(), number: z.string().nullable() }).nullable(),
    updatedAt: z.string(),
  })
  .openapi('Invoice');
export type InvoiceResource = z.infer<typeof InvoiceSchema>;

export const InvoiceCommentSchema = z
  .object({ id: z.string(), text: z.string(), author: z.string().nullable(), createdAt: z.string() })
  .openapi('InvoiceComment');
export type InvoiceComment = z.infer<typeof InvoiceCommentSchema>;

export const DownloadLinkSchema = z
  .object({
    url: z.string().openapi({ description: 'The PDF.' }),
    xmlUrl: z.string().nullable().openapi({ description: 'The e-invoice XML; null when the document has none.' }),
    expiresAt: z.string(),
  })
  .openapi('DownloadLink');
export type DownloadLink = z.infer<typeof DownloadLinkSchema>;
