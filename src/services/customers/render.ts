import { customerAddresses, customerEmailAddresses, customers } from '../../db/schema';
import type { AddressResource, CustomerResource, EmailResource } from '../../schemas/customers';
import type { PaymentMethodResource } from '../../schemas/payment-methods';

export type CustomerRow = typeof customers.$inferSelect;
export type AddressRow = typeof customerAddresses.$inferSelect;
export type EmailRow = typeof customerEmailAddresses.$inferSelect;

export type { AddressResource, CustomerResource, EmailResource };

interface Ref {
  id: string;
}
export type GroupRef = Ref & { name: string; description: string | null };
export type ContactRef = Ref & { firstName: string; lastName: string; email: string; avatar: string | null };
export type PartnerRef = Ref & { name: string; number: string; email: string };

/** A customer with everything its representation embeds. */
export interface CustomerAggregate {
  row: CustomerRow;
  addresses: AddressResource[];
  emails: EmailResource[];
  group: GroupRef | null;
  contact: ContactRef | null;
  partner: PartnerRef | null;
  /** The default among the customer's payment methods. */
  paymentMethod: PaymentMethodResource | null;
}

export function renderAddress(a: AddressRow): AddressResource {
  return {
    id: a.id,
    vatId: a.vatId,
    type: a.type,
    default: a.isDefault,
    status: a.status,
    city: a.city,
    zip: a.zip,
    street: a.street,
    houseNumber: a.houseNumber,
    countryCode: a.countryCode,
    companyName: a.companyName,
    salutation: a.salutation,
    addition: a.addition,
    costCentre: a.costCentre,
    firstName: a.firstName,
    lastName: a.lastName,
  };
}

export function renderEmail(e: EmailRow): EmailResource {
  return { id: e.id, email: e.email, receiverName: e.receiverName, type: e.type, default: e.isDefault };
}

export function partnerName(c: Pick<CustomerRow, 'companyName' | 'firstName' | 'lastName' | 'email'>): string {
  return c.companyName ?? ([c.firstName, c.lastName].filter(Boolean).join(' ') || c.email);
}

export function renderCustomer(agg: CustomerAggregate): CustomerResource {
  const { row } = agg;
  const activeAddresses = agg.addresses.filter((a) => a.status === 'active');
  const defaultAddress = activeAddresses.find((a) => a.type === 'TYPE_DEFAULT' && a.default) ?? null;
  const defaultEmail = agg.emails.find((e) => e.type === 'default' && e.default) ?? null;
  return {
    id: row.id,
    customerNumber: row.customerNumber,
    email: row.email,
    countryCode: row.countryCode,
    timeZone: row.timeZone,
    firstName: row.firstName,
    lastName: row.lastName,
    currencyCode: row.currencyCode,
    companyName: row.companyName,
    vatId: row.vatId,
    isVatIdValid: row.isVatIdValid,
    taxExempt: row.taxExempt,
    ledgerId: row.ledgerId,
    datevId: row.ledgerId,
    commercialRegisterName: row.commercialRegisterName,
    commercialRegisterNumber: row.commercialRegisterNumber,
    status: row.status,
    gender: row.gender,
    phone: row.phone,
    language: row.language,
    totalTurnOverRank: row.totalTurnOverRank,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    emailAddresses: agg.emails,
    addresses: agg.addresses,
    customerGroup: agg.group,
    customFields: row.customFields,
    businessCustomer: row.companyName !== null,
    defaultAddress,
    // Billing uses the invoice address when one is defined, else the default address.
    defaultInvoiceAddress: activeAddresses.find((a) => a.type === 'TYPE_INVOICE' && a.default) ?? defaultAddress,
    defaultEmailAddress: defaultEmail,
    defaultInvoiceEmailAddress: agg.emails.find((e) => e.type === 'invoice' && e.default) ?? defaultEmail,
    defaultPaymentMethod: agg.paymentMethod,
    contactPerson: agg.contact,
    isPartner: row.isPartner,
    partner: agg.partner,
    eInvoiceType: row.eInvoiceType,
    leitwegId: row.leitwegId,
  };
}
