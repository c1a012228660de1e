// The buyer's input at checkout (e-mail, phone, invoice address), checked by the service itself:
// the hosted page calls the service directly, so the rules cannot live only in a route schema.
import { z } from '@hono/zod-openapi';
import { Violations } from '../../http/errors';
import { isCountryCode } from '../../reference/iso';
import type { CartAddress, NewInvoiceAddressInput } from '../../schemas/checkout';
import type { ServiceContext } from '../context';
import { hasValidVatFormat, isEuVatId, normalizeVatId } from '../ports/vat-checker';

const EMAIL = z.email();

/** An e-mail address as customers accept it (2–255 characters, valid); violations at `path`. */
export function checkEmail(email: string | null | undefined, path: string, v: Violations, required: boolean): string | null {
  const value = email?.trim() ?? '';
  if (!value) {
    if (required) v.add(path, 'The e-mail address is required.', 'required');
    return null;
  }
  if (value.length > 255 || !EMAIL.safeParse(value).success) {
    v.add(path, 'Must be a valid e-mail address.', 'invalid_email');
    return null;
  }
  return value;
}

export function checkPhone(phone: string | null | undefined, path: string, v: Violations): string | null {
  const value = phone?.trim() ?? '';
  if (!value) return null;
  if (value.length < 2 || value.length > 255) v.add(path, 'Must be 2 to 255 characters long.', 'invalid_length');
  return value;
}

const TEXT_FIELDS = ['companyName', 'firstName', 'lastName', 'street', 'houseNumber', 'zip', 'city', 'addition', 'costCentre'] as const;
const SALUTATIONS = ['Firma', 'Herr', 'Frau'] as const;

/**
 * A new invoice address: a valid country, texts of at most 255 characters, a VAT id of its member
 * state's format that the VAT registry does not reject, and a company when the link forces one.
 * The VAT check's answer decides `vatIdValid` (reverse charge); an unreachable registry leaves it
 * false without refusing the address.
 */
export async function checkAddress(ctx: ServiceContext, input: NewInvoiceAddressInput, path: string, v: Violations, forceCompany: boolean): Promise<CartAddress | null> {
  const at = (field: string) => `${path}.${field}`;
  const before = v.list.length;
  const text = (field: (typeof TEXT_FIELDS)[number]): string | null => {
    const value = input[field];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') {
      v.add(at(field), 'Must be a string.', 'invalid_type');
      return null;
    }
    const trimmed = value.trim();
    if (trimmed.length > 255) v.add(at(field), 'Must be at most 255 characters long.', 'too_long');
    return trimmed || null;
  };
  const values = Object.fromEntries(TEXT_FIELDS.map((f) => [f, text(f)])) as Record<(typeof TEXT_FIELDS)[number], string | null>;
  const country = typeof input.countryCode === 'string' ? input.countryCode.trim() : '';
  if (!country) v.add(at('countryCode'), 'The country is required.', 'required');
  else if (!isCountryCode(country)) v.add(at('countryCode'), 'Must be an ISO 3166-1 alpha-2 country code (upper case, e.g. DE).', 'invalid_country_code');
  const salutation = input.salutation ?? null;
  if (salutation !== null && !(SALUTATIONS as readonly string[]).includes(salutation)) v.add(at('salutation'), `Must be one of ${SALUTATIONS.join(', ')}.`, 'invalid_choice');
  if (forceCompany && !values.companyName) v.add(at('companyName'), 'This checkout sells to companies only: the company name is required.', 'required');
  const rawVat = typeof input.vatId === 'string' ? input.vatId.trim() : '';
  const vatId = rawVat ? normalizeVatId(rawVat) : null;
  let vatIdValid = false;
  if (vatId) {
    if (!hasValidVatFormat(vatId)) v.add(at('vatId'), 'Not a valid VAT id for its member state.', 'invalid_vat_id');
    else if (isEuVatId(vatId)) {
      const registered = await ctx.vatChecker.isRegistered(vatId);
      if (registered === false) v.add(at('vatId'), 'The VAT registry does not know this VAT id.', 'vat_id_not_registered');
      vatIdValid = registered === true;
    }
  }
  if (v.list.length > before) return null;
  return {
    id: null,
    vatId,
    vatIdValid,
    companyName: values.companyName,
    salutation: salutation as CartAddress['salutation'],
    firstName: values.firstName,
    lastName: values.lastName,
    street: values.street ?? '',
    houseNumber: values.houseNumber ?? '',
    zip: values.zip ?? '',
    city: values.city ?? '',
    addition: values.addition ?? '',
    countryCode: country,
    costCentre: values.costCentre,
  };
}

/** Query parameters a link may prefill the form with (Fynn's customerPrefill); anything else is dropped. */
export const PREFILL_KEYS = ['email', 'phone', 'firstName', 'lastName', 'companyName', 'salutation', 'vatId', 'street', 'houseNumber', 'zip', 'city', 'addition', 'countryCode'] as const;

export function cleanPrefill(prefill: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of PREFILL_KEYS) {
    const value = prefill[key];
    if (typeof value === 'string' && value.trim() && value.length <= 255) out[key] = value.trim();
  }
  return out;
}
