import type { Violation } from '../../http/errors';
import type { ConfirmCartInput, NewInvoiceAddressInput, NewPaymentMethodInput, PublicCart } from '../../schemas/checkout';
import { violationText, type Lang } from './texts';

// The page's forms: their field names, what a posted form becomes for the service, and where a
// violation of the service is shown (next to its field, else in the summary at the top).

export const ADDRESS_FIELDS = ['companyName', 'vatId', 'firstName', 'lastName', 'street', 'houseNumber', 'zip', 'city', 'countryCode'] as const;
export type AddressField = (typeof ADDRESS_FIELDS)[number];
export const PAYMENT_TYPES = ['fake_provider', 'sepa_debit', 'bank_transfer', 'card'] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];

/** What the page shows in its forms: the values (as typed, or from the cart) and the errors by field. */
export interface FormState {
  values: Record<string, string>;
  errors: Record<string, string>;
  /** Violations that belong to no field of the page. */
  general: string[];
}

export const emptyForm = (): FormState => ({ values: {}, errors: {}, general: [] });

/** A bounded urlencoded body; anything else is not a form of this page. */
export function parseForm(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(text)) if (!(k in out)) out[k] = v;
  return out;
}

const text = (v: string | undefined): string | null => {
  const s = (v ?? '').trim();
  return s === '' ? null : s;
};

/** The buyer's details from the details/confirm form, as `setBuyerDetails` takes them. */
export function buyerDetails(form: Record<string, string>): { email: string | null; phone: string | null; invoiceAddress: NewInvoiceAddressInput } {
  const invoiceAddress: NewInvoiceAddressInput = {};
  for (const f of ADDRESS_FIELDS) invoiceAddress[f] = f === 'countryCode' || f === 'vatId' ? (text(form[f])?.toUpperCase().replace(/\s+/g, '') ?? null) : text(form[f]);
  return { email: text(form.email), phone: text(form.phone), invoiceAddress };
}

/** The payment method chosen in the form; null when none was chosen (the service reports it). */
export function paymentMethod(form: Record<string, string>): NewPaymentMethodInput | null {
  switch (form.paymentType) {
    case 'fake_provider':
      return { type: 'fake_provider' };
    case 'bank_transfer':
      return { type: 'bank_transfer' };
    case 'card':
      // The card client's payment method id, set by the page's script (cards need it).
      return { type: 'card', token: (form.cardToken ?? '').trim() };
    case 'sepa_debit':
      return { type: 'sepa_debit', sepaDebit: { iban: (form.iban ?? '').replace(/\s+/g, '').toUpperCase(), accountHolder: (form.accountHolder ?? '').trim() } };
    default:
      return null;
  }
}

/** Fynn's confirm body from the form. */
export function confirmInput(form: Record<string, string>): ConfirmCartInput {
  const details = buyerDetails(form);
  return { email: details.email, phone: details.phone, newInvoiceAddress: details.invoiceAddress, newPaymentMethod: paymentMethod(form), acceptTerms: form.acceptTerms === 'yes' };
}

/** The form field a violation of the service belongs to, or null (shown at the top). */
export function fieldOf(propertyPath: string): string | null {
  const p = propertyPath.replace(/\[\d+\]/g, '');
  if (p === 'email' || p === 'phone' || p === 'acceptTerms') return p;
  const address = /^(?:newInvoiceAddress|invoiceAddress)\.(\w+)$/.exec(p);
  if (address) return (ADDRESS_FIELDS as readonly string[]).includes(address[1]!) ? address[1]! : null;
  if (p === 'newPaymentMethod.sepaDebit.iban' || p === 'newPaymentMethod.sepaDebit') return 'iban';
  if (p === 'newPaymentMethod.sepaDebit.accountHolder') return 'accountHolder';
  if (p === 'paymentMethodId' || p === 'newPaymentMethod' || p.startsWith('newPaymentMethod.')) return 'paymentType';
  if (p === 'quantity' || p === 'cartItemId' || p === 'items.quantity') return 'quantity';
  if (p === 'code' || p === 'couponCode' || p === 'coupon') return 'code';
  return null;
}

/** The form state after a refused change: the typed values and one message per field. */
export function withViolations(lang: Lang, values: Record<string, string>, violations: readonly Violation[], fallback: string): FormState {
  const state: FormState = { values, errors: {}, general: [] };
  for (const v of violations) {
    const field = fieldOf(v.propertyPath);
    const message = violationText(lang, field, v);
    if (field && !(field in state.errors)) state.errors[field] = message;
    else if (!field) state.general.push(message);
  }
  if (violations.length === 0) state.general.push(fallback);
  return state;
}

/** The details form's values from the cart: what the buyer saved, else the link's prefill. */
export function valuesFromCart(cart: PublicCart): Record<string, string> {
  const pre = cart.customerPrefill;
  const a = cart.invoiceAddress;
  const values: Record<string, string> = {};
  values.email = cart.email ?? pre.email ?? '';
  values.phone = cart.phone ?? pre.phone ?? '';
  for (const f of ADDRESS_FIELDS) values[f] = (a ? a[f] : null) ?? pre[f] ?? '';
  if (!values.countryCode) values.countryCode = 'DE';
  return values;
}
