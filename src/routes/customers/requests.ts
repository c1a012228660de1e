import { z } from '@hono/zod-openapi';
import { countryCode, currencyCode, customFieldValues, emailAddress, idParam, optionalText, timeZone } from '../../http/schemas';
import { EInvoiceTypeSchema } from '../../schemas/documents';

// Request bodies and path parameters of the customer routes.

const id = idParam('id', 'Customer id');
export const customerParams = z.object({ id });
export const addressParams = z.object({ id, addressId: idParam('addressId', 'Address id') });
export const emailParams = z.object({ id, emailId: idParam('emailId', 'E-mail address id') });

/** A reference given either as an id or as an object carrying `id`. */
const reference = z
  .preprocess((v) => (v && typeof v === 'object' && 'id' in v ? (v as { id: unknown }).id : v === '' ? null : v), z.string().min(1).max(64).nullable().optional())
  .transform((v) => v ?? null);

/** An optional enum; an empty string (a blank form field, n8n's default for `gender`) counts as absent. */
const nullableEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .preprocess((v) => (v === '' ? null : v), z.enum(values).nullable().optional())
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

// One closed object of its own: an `.extend` of the registered AddressInput would be published as
// `allOf` of two closed schemas, which no body satisfies.
const addressWriteFields = {
  ...addressInputFields,
  type: z.enum(['TYPE_DEFAULT', 'TYPE_INVOICE']),
  default: z.boolean().nullable().optional().transform((v) => v ?? null),
  status: nullableEnum(['active', 'archived']),
};
export const AddressWriteSchema = z.strictObject(addressWriteFields).openapi('AddressWrite');

/** PUT of an address: the fields sent change, the others keep their values (docs/decisions.md, Customers). */
export const AddressUpdateSchema = z.strictObject(addressWriteFields).partial().openapi('AddressUpdate');

const emailWriteFields = {
  email: emailAddress,
  receiverName: optionalText(2, 255),
  type: z.enum(['default', 'invoice']),
  default: z.boolean().nullable().optional().transform((v) => v ?? null),
};
export const EmailWriteSchema = z.strictObject(emailWriteFields).openapi('EmailAddressWrite');
export const EmailUpdateSchema = z.strictObject(emailWriteFields).partial().openapi('EmailAddressUpdate');

/**
 * Custom field values, also as a JSON-encoded string of the object: n8n sends its `json` parameters
 * (the node's `customFields`) as text. A string that is not JSON stays a string and fails the record check.
 */
const customFieldsInput = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  if (v.trim() === '') return null;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}, customFieldValues);

/** `ledgerId` and Fynn's name for it, `datevId`, before they are resolved into `ledgerId`. */
const ledgerText = z.preprocess(
  (v) => (v === '' ? null : v),
  z.string().trim().min(2, 'Must be at least 2 characters long.').max(255, 'Must be at most 255 characters long.').nullable().optional(),
);

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
  ledgerId: ledgerText.openapi({ description: 'Debtor account in the accounting export.' }),
  datevId: ledgerText.openapi({ description: "Fynn's name for ledgerId; send one of the two." }),
  gender: nullableEnum(['male', 'female', 'diverse']),
  vatId: optionalText(2, 255),
  companyName: optionalText(2, 255),
  phone: optionalText(2, 255),
  commercialRegisterName: optionalText(1, 255),
  commercialRegisterNumber: optionalText(1, 255),
  customerNumber: optionalText(2, 255),
  taxExempt: nullableEnum(['auto', 'exempt']),
  customFields: customFieldsInput,
  isPartner: z.boolean().nullable().optional().transform((v) => v ?? null),
  eInvoiceType: z.preprocess((v) => (v === '' ? null : v), EInvoiceTypeSchema.nullable().optional()).transform((v) => v ?? null),
  leitwegId: optionalText(5, 46),
};

type LedgerAlias = { ledgerId?: string | null; datevId?: string | null };

/** Resolves `datevId` into `ledgerId`; both at once must agree. `undefined` stays "not sent". */
function resolveLedgerId<T extends LedgerAlias>({ datevId, ...rest }: T, ctx: z.RefinementCtx) {
  if (datevId !== undefined && rest.ledgerId !== undefined && datevId !== rest.ledgerId) {
    ctx.addIssue({ code: 'custom', path: ['datevId'], message: 'datevId is another name for ledgerId; the two differ.', params: { code: 'conflicting_alias' } });
  }
  return { ...rest, ledgerId: rest.ledgerId !== undefined ? rest.ledgerId : datevId };
}

export const CustomerCreateSchema = z
  .strictObject({
    ...customerFields,
    countryCode: z
      .preprocess((v) => (v === '' ? null : v), countryCode.nullable().optional())
      .transform((v) => v ?? null)
      .openapi({ description: "Missing, null or empty: the tenant's country" }),
    ...addressFields,
    invoiceEmail: z
      .preprocess((v) => (v === '' ? null : v), emailAddress.nullable().optional())
      .transform((v) => v ?? null),
    invoiceAddress: AddressInputSchema.nullable().optional().transform((v) => v ?? null),
  })
  .transform((o, ctx) => {
    const r = resolveLedgerId(o, ctx);
    return { ...r, ledgerId: r.ledgerId ?? null };
  })
  .openapi('CustomerCreate');

/** Every writable field: what a merge patch must leave behind. */
export const CustomerWritableSchema = z.strictObject(customerFields).transform((o, ctx) => {
  const r = resolveLedgerId(o, ctx);
  return { ...r, ledgerId: r.ledgerId ?? null };
});

/** PUT: the fields sent change (and are validated as on create), the others keep their values. */
export const CustomerUpdateSchema = z
  .strictObject(customerFields)
  .partial()
  .transform((o, ctx) => resolveLedgerId(o, ctx))
  .openapi('CustomerUpdate');

export const CustomerPatchSchema = z
  .record(z.string(), z.unknown())
  .openapi('CustomerPatch', { description: 'RFC 7396 merge patch over the fields of CustomerUpdate.' });

/** A merge patch naming `datevId` patches `ledgerId` (the writable view only has the latter). */
export function datevIdAsLedgerId(patch: Record<string, unknown>): Record<string, unknown> {
  if (!('datevId' in patch) || 'ledgerId' in patch) return patch;
  const { datevId, ...rest } = patch;
  return { ...rest, ledgerId: datevId };
}

export const BillingSettingsPatchSchema = z
  .strictObject({ requiresManualInvoiceApproval: z.boolean().nullable().optional() })
  .openapi('CustomerBillingSettingsPatch');

export const PartnerBodySchema = z.strictObject({ partner: z.string().min(1).max(64).nullable() }).openapi('CustomerPartner');

export const PaymentMethodBodySchema = z.strictObject({ paymentMethodId: z.string().min(1).max(64) }).openapi('CustomerDefaultPaymentMethod');
