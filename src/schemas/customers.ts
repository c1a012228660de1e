import { z } from '@hono/zod-openapi';
import { EInvoiceTypeSchema } from './documents';
import { nullableRef } from './nullable';
import { PaymentMethodSchema } from './payment-methods';

// Representations of customers and the records around them, as the API returns them.

export const AddressSchema = z
  .object({
    id: z.string(),
    vatId: z.string().nullable(),
    type: z.enum(['TYPE_DEFAULT', 'TYPE_INVOICE']),
    default: z.boolean(),
    status: z.enum(['active', 'archived']),
    city: z.string(),
    zip: z.string(),
    street: z.string(),
    houseNumber: z.string(),
    countryCode: z.string(),
    companyName: z.string().nullable(),
    salutation: z.enum(['Firma', 'Herr', 'Frau']).nullable(),
    addition: z.string(),
    costCentre: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
  })
  .openapi('Address');
export type AddressResource = z.infer<typeof AddressSchema>;

export const EmailAddressSchema = z
  .object({ id: z.string(), email: z.string(), receiverName: z.string().nullable(), type: z.enum(['default', 'invoice']), default: z.boolean() })
  .openapi('EmailAddress');
export type EmailResource = z.infer<typeof EmailAddressSchema>;

export const CustomerSchema = z
  .object({
    id: z.string(),
    customerNumber: z.string(),
    email: z.string(),
    countryCode: z.string(),
    timeZone: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    currencyCode: z.string().nullable(),
    companyName: z.string().nullable(),
    vatId: z.string().nullable(),
    isVatIdValid: z.boolean(),
    taxExempt: z.enum(['auto', 'exempt']),
    ledgerId: z.string().nullable(),
    datevId: z.string().nullable().openapi({ description: "Fynn's name for ledgerId; always equal to it." }),
    commercialRegisterName: z.string().nullable(),
    commercialRegisterNumber: z.string().nullable(),
    status: z.enum(['STATUS_ACTIVE', 'STATUS_ARCHIVED', 'STATUS_SUSPENDED']),
    gender: z.enum(['male', 'female', 'diverse']).nullable(),
    phone: z.string().nullable(),
    language: z.enum(['de', 'en']),
    totalTurnOverRank: z.number().int().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    emailAddresses: z.array(EmailAddressSchema),
    addresses: z.array(AddressSchema),
    customerGroup: z.object({ id: z.string(), name: z.string(), description: z.string().nullable() }).nullable(),
    customFields: z.record(z.string(), z.unknown()).nullable(),
    businessCustomer: z.boolean(),
    defaultAddress: nullableRef(AddressSchema),
    defaultInvoiceAddress: nullableRef(AddressSchema),
    defaultEmailAddress: nullableRef(EmailAddressSchema),
    defaultInvoiceEmailAddress: nullableRef(EmailAddressSchema),
    defaultPaymentMethod: nullableRef(PaymentMethodSchema).openapi({ description: 'The full payment method (spec §2.2), its IBAN masked' }),
    contactPerson: z.object({ id: z.string(), firstName: z.string(), lastName: z.string(), email: z.string(), avatar: z.string().nullable() }).nullable(),
    isPartner: z.boolean(),
    partner: z.object({ id: z.string(), name: z.string(), number: z.string(), email: z.string() }).nullable(),
    eInvoiceType: nullableRef(EInvoiceTypeSchema).openapi({ description: "The e-invoice the customer receives; null: the tenant's default (GET /settings/documents)." }),
    leitwegId: z.string().nullable().openapi({ description: 'The Leitweg-ID of a German public buyer (XRechnung); only with an eInvoiceType.' }),
  })
  .openapi('Customer');
export type CustomerResource = z.infer<typeof CustomerSchema>;

/** The customer as other resources (subscriptions, invoices) embed it. */
export const CustomerSummarySchema = z.object({
  id: z.string(),
  customerNumber: z.string(),
  timeZone: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  currencyCode: z.string().nullable(),
  companyName: z.string().nullable(),
  ledgerId: z.string().nullable(),
  status: z.enum(['STATUS_ACTIVE', 'STATUS_ARCHIVED', 'STATUS_SUSPENDED']),
});

export const BillingSettingsSchema = z.object({ requiresManualInvoiceApproval: z.boolean().nullable() }).openapi('CustomerBillingSettings');
export type BillingSettingsResource = z.infer<typeof BillingSettingsSchema>;

export const CUSTOM_FIELD_RESOURCES = ['customer', 'subscription', 'invoice', 'product'] as const;
export const CUSTOM_FIELD_TYPES = ['string', 'number', 'boolean', 'date', 'select'] as const;

export const CustomFieldSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(CUSTOM_FIELD_TYPES),
    resource: z.enum(CUSTOM_FIELD_RESOURCES),
    options: z.array(z.string()).nullable(),
    required: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('CustomField');
export type CustomFieldDefinition = z.infer<typeof CustomFieldSchema>;

export const CustomerGroupSchema = z
  .object({ id: z.string(), name: z.string(), description: z.string().nullable(), createdAt: z.string(), updatedAt: z.string() })
  .openapi('CustomerGroup');
export type CustomerGroupResource = z.infer<typeof CustomerGroupSchema>;

export const ContactPersonSchema = z
  .object({
    id: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string(),
    avatar: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('ContactPerson');
export type ContactPersonResource = z.infer<typeof ContactPersonSchema>;

/** The answer to every POST /public/customer/request-otp (it never tells whether the e-mail is a customer's). */
export const OtpRequestedSchema = z.object({ success: z.literal(true) }).openapi('OtpRequested');
