import { z } from '@hono/zod-openapi';
import { countryCode, currencyCode, customFieldValues, emailAddress, idParam, optionalText, timeZone } from '../../http/schemas';

// Request bodies and path parameters of the customer routes.

const id = idParam('id', 'Customer id');
export const customerParams = z.object({ id });
export const addressParams = z.object({ id, addressId: idParam('addressId', 'Address id') });
export const emailParams = z.object({ id, emailId: idParam('emailId', 'E-mail address id') });

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

const addressFields = {
  street: optionalText(2, 255),
  houseNumber: optionalText(0, 255),
  zip: optionalText(2, 255),
  city: optionalText(2, 255),
  addition: optionalText(2, 255),
};

const addressInputFields = {
  ...addressFields,
  countryCode: countryCode.nullable().optional().transform((v) => v ?? null),
  companyName: optionalText(2, 255),
  salutation: nullableEnum(['Firma', 'Herr', 'Frau']),
  firstName: optionalText(2, 255),
  lastName: optionalText(2, 255),
  vatId: optionalText(2, 255),
  costCentre: optionalText(1, 255),
};

export const AddressInputSchema = z.strictObject(addressInputFields).openapi('AddressInput');

// One closed object, not an extension of AddressInput: the generator would write `allOf` of two
// closed schemas, which no body satisfies.
export const AddressWriteSchema = z
  .strictObject({
    ...addressInputFields,
    type: z.enum(['TYPE_DEFAULT', 'TYPE_INVOICE']),
    default: z.boolean().nullable().optional().transform((v) => v ?? null),
    status: nullableEnum(['active', 'archived']),
  })
  .openapi('AddressWrite');

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

export const BillingSettingsPatchSchema = z
  .strictObject({ requiresManualInvoiceApproval: z.boolean().nullable().optional() })
  .openapi('CustomerBillingSettingsPatch');

export const PartnerBodySchema = z.strictObject({ partner: z.string().min(1).max(64).nullable() }).openapi('CustomerPartner');

