import { z } from '@hono/zod-openapi';
import { countryCode, currencyCode, customFieldValues, emailAddress, optionalText, timeZone } from '../../http/schemas';

/** A reference given either as an id or as an object carrying `id`. */
const reference = z
  .preprocess((v) => (v && typeof v === 'object' && 'id' in v ? (v as { id: unknown }).id : v === '' ? null : v), z.string().min(1).max(64).nullable().optional())
  .transform((v) => v ?? null);

const nullableEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .enum(values)
    .nullable()
    .optional()
    .transform((v) => v ?? null);

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

export const EmailAddressSchema = z
  .object({ id: z.string(), email: z.string(), receiverName: z.string().nullable(), type: z.enum(['default', 'invoice']), default: z.boolean() })
  .openapi('EmailAddress');

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
    defaultAddress: AddressSchema.nullable(),
    defaultInvoiceAddress: AddressSchema.nullable(),
    defaultEmailAddress: EmailAddressSchema.nullable(),
    defaultInvoiceEmailAddress: EmailAddressSchema.nullable(),
    defaultPaymentMethod: z.null(),
    contactPerson: z.object({ id: z.string(), firstName: z.string(), lastName: z.string(), email: z.string(), avatar: z.string().nullable() }).nullable(),
    isPartner: z.boolean(),
    partner: z.object({ id: z.string(), name: z.string(), number: z.string(), email: z.string() }).nullable(),
  })
  .openapi('Customer');

const addressFields = {
  street: optionalText(2, 255),
  houseNumber: optionalText(0, 255),
  zip: optionalText(2, 255),
  city: optionalText(2, 255),
  addition: optionalText(2, 255),
};

export const AddressInputSchema = z
  .strictObject({
    ...addressFields,
    countryCode: countryCode.nullable().optional().transform((v) => v ?? null),
    companyName: optionalText(2, 255),
    salutation: nullableEnum(['Firma', 'Herr', 'Frau']),
    firstName: optionalText(2, 255),
    lastName: optionalText(2, 255),
    vatId: optionalText(2, 255),
    costCentre: optionalText(1, 255),
  })
  .openapi('AddressInput');

export const AddressWriteSchema = AddressInputSchema.extend({
  type: z.enum(['TYPE_DEFAULT', 'TYPE_INVOICE']),
  default: z.boolean().nullable().optional().transform((v) => v ?? null),
  status: nullableEnum(['active', 'archived']),
}).openapi('AddressWrite');

export const EmailWriteSchema = z
  .strictObject({
    email: emailAddress,
    receiverName: optionalText(2, 255),
    type: z.enum(['default', 'invoice']),
    default: z.boolean().nullable().optional().transform((v) => v ?? null),
  })
  .openapi('EmailAddressWrite');

const customerFields = {
  countryCode,
  email: emailAddress,
  currencyCode: z.preprocess((v) => (v === '' ? null : v), currencyCode.nullable().optional()).transform((v) => v ?? null),
  customerGroup: reference,
  contactPerson: reference,
  timeZone: z.preprocess((v) => (v === '' ? null : v), timeZone.nullable().optional()).transform((v) => v ?? null),
  firstName: optionalText(2, 255),
  lastName: optionalText(2, 255),
  language: nullableEnum(['de', 'en']),
  ledgerId: optionalText(2, 255),
  gender: nullableEnum(['male', 'female', 'diverse']),
  vatId: optionalText(2, 255),
  companyName: optionalText(2, 255),
  phone: optionalText(2, 255),
  commercialRegisterName: optionalText(1, 255),
  commercialRegisterNumber: optionalText(1, 255),
  customerNumber: optionalText(2, 255),
  taxExempt: nullableEnum(['auto', 'exempt']),
  customFields: customFieldValues,
  isPartner: z.boolean().nullable().optional().transform((v) => v ?? null),
};

export const CustomerCreateSchema = z
  .strictObject({
    ...customerFields,
    ...addressFields,
    invoiceEmail: z
      .preprocess((v) => (v === '' ? null : v), emailAddress.nullable().optional())
      .transform((v) => v ?? null),
    invoiceAddress: AddressInputSchema.nullable().optional().transform((v) => v ?? null),
  })
  .openapi('CustomerCreate');

export const CustomerUpdateSchema = z.strictObject(customerFields).openapi('CustomerUpdate');

export const CustomerPatchSchema = z
  .record(z.string(), z.unknown())
  .openapi('CustomerPatch', { description: 'RFC 7396 merge patch over the fields of CustomerUpdate.' });

export const BillingSettingsSchema = z.object({ requiresManualInvoiceApproval: z.boolean().nullable() }).openapi('CustomerBillingSettings');

export const BillingSettingsPatchSchema = z
  .strictObject({ requiresManualInvoiceApproval: z.boolean().nullable().optional() })
  .openapi('CustomerBillingSettingsPatch');

export const PartnerBodySchema = z.strictObject({ partner: z.string().min(1).max(64).nullable() }).openapi('CustomerPartner');

export const SessionSchema = z
  .object({
    data: z.object({
      accessToken: z.string(),
      refreshToken: z.string(),
      expiresIn: z.number().int(),
      tokenType: z.literal('Bearer'),
      customerAreaLink: z.string(),
    }),
  })
  .openapi('CustomerSession');

