import { and, eq, ne, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { formatNumber } from '../../billing/numbering';
import { leitwegIdProblem } from '../../documents/leitweg-id';
import { isGuardFailure, isUniqueViolation, requireCondition } from '../../db/client';
import { insertRows } from '../../db/insert';
import { contactPersons, customerAddresses, customerEmailAddresses, customerGroups, customers } from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { newId } from '../../lib/ids';
import { checkCustomFieldValues, selectCustomFieldDefinitions } from './custom-fields';
import { effectiveSettings, selectSettings } from '../platform/settings';
import { nextSequenceValue, sequenceStatement } from '../common/sequences';
import { hasValidVatFormat, isEuVatId, normalizeVatId } from '../ports/vat-checker';
import { type AddressRow, type ContactRef, type CustomerRow, type EmailRow, type GroupRef, renderAddress, renderCustomer, renderEmail } from './render';

/** Fields a customer has in both create and update bodies. */
export interface CustomerFields {
  countryCode: string;
  email: string;
  currencyCode: string | null;
  customerGroup: string | null;
  contactPerson: string | null;
  timeZone: string | null;
  firstName: string | null;
  lastName: string | null;
  language: 'de' | 'en' | null;
  ledgerId: string | null;
  gender: CustomerRow['gender'];
  vatId: string | null;
  companyName: string | null;
  phone: string | null;
  commercialRegisterName: string | null;
  commercialRegisterNumber: string | null;
  customerNumber: string | null;
  taxExempt: 'auto' | 'exempt' | null;
  customFields: Record<string, unknown> | null;
  isPartner: boolean | null;
  eInvoiceType: CustomerRow['eInvoiceType'];
  leitwegId: string | null;
}

export interface AddressInput {
  street: string | null;
  houseNumber: string | null;
  zip: string | null;
  city: string | null;
  addition: string | null;
  countryCode: string | null;
  companyName: string | null;
  salutation: AddressRow['salutation'];
  firstName: string | null;
  lastName: string | null;
  vatId: string | null;
  costCentre: string | null;
}

export interface CustomerCreateInput extends Omit<CustomerFields, 'countryCode'> {
  /** null: the tenant's country (the n8n node may create a customer from an e-mail alone). */
  countryCode: string | null;
  street: string | null;
  houseNumber: string | null;
  zip: string | null;
  city: string | null;
  addition: string | null;
  invoiceEmail: string | null;
  invoiceAddress: AddressInput | null;
}

export function addressRow(
  ctx: ServiceContext,
  customerId: string,
  fallbackCountry: string,
  input: AddressInput,
  type: AddressRow['type'],
  isDefault: boolean,
): AddressRow {
  const now = ctx.now.toISOString();
  return {
    id: newId(),
    tenantId: ctx.tenant.id,
    customerId,
    type,
    isDefault,
    status: 'active',
    vatId: input.vatId ? normalizeVatId(input.vatId) : null,
    companyName: input.companyName,
    salutation: input.salutation,
    firstName: input.firstName,
    lastName: input.lastName,
    street: input.street ?? '',
    houseNumber: input.houseNumber ?? '',
    addition: input.addition ?? '',
    zip: input.zip ?? '',
    city: input.city ?? '',
    countryCode: input.countryCode ?? fallbackCountry,
    costCentre: input.costCentre,
    createdAt: now,
    updatedAt: now,
  };
}

export function checkAddressVatId(vatId: string | null, path: string, v: Violations): void {
  if (vatId && !hasValidVatFormat(vatId)) v.add(path, 'Not a valid VAT id for its member state.', 'invalid_vat_id');
}

interface References {
  group: GroupRef | null;
  contact: ContactRef | null;
}

/**
 * Validates what cannot be checked by the schema alone and loads the referenced records. With
 * `claimNumber` the same batch takes the next customer number (a create without one of its own:
 * one round trip fewer; a refused create leaves a gap, which customer numbers may have).
 */
export async function checkCustomerFields(ctx: ServiceContext, input: CustomerFields, v: Violations, selfId?: string, claimNumber = false) {
  const db = ctx.db;
  const tenantId = ctx.tenant.id;
  const emailKey = input.email.toLowerCase();
  const checks = [
    selectSettings(db, tenantId),
    selectCustomFieldDefinitions(db, tenantId, 'customer'),
    db
      .select({ id: customerGroups.id, name: customerGroups.name, description: customerGroups.description })
      .from(customerGroups)
      .where(and(eq(customerGroups.tenantId, tenantId), eq(customerGroups.id, input.customerGroup ?? ''))),
    db
      .select({ id: contactPersons.id, firstName: contactPersons.firstName, lastName: contactPersons.lastName, email: contactPersons.email, avatar: contactPersons.avatar })
      .from(contactPersons)
      .where(and(eq(contactPersons.tenantId, tenantId), eq(contactPersons.id, input.contactPerson ?? ''))),
    db
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.tenantId, tenantId), eq(customers.emailKey, emailKey), selfId ? ne(customers.id, selfId) : undefined)),
    db
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.tenantId, tenantId), eq(customers.customerNumber, input.customerNumber ?? ''), selfId ? ne(customers.id, selfId) : undefined)),
  ] as const;
  let number: number | undefined;
  let results;
  if (claimNumber) {
    results = await db.batch([...checks, sequenceStatement(db, tenantId, 'customer', 1)]);
    number = results[6][0]?.value;
  } else {
    results = await db.batch(checks);
  }
  const [settingRows, defs, groups, contacts, emailTaken, numberTaken] = results;
  if (input.customerGroup && groups.length === 0) v.add('customerGroup', 'No such customer group.', 'not_found');
  if (input.contactPerson && contacts.length === 0) v.add('contactPerson', 'No such contact person.', 'not_found');
  if (emailTaken.length > 0) v.add('email', 'A customer with this e-mail address already exists.', 'not_unique');
  if (input.customerNumber && numberTaken.length > 0) v.add('customerNumber', 'A customer with this number already exists.', 'not_unique');
  if (input.vatId && !hasValidVatFormat(input.vatId)) v.add('vatId', 'Not a valid VAT id for its member state.', 'invalid_vat_id');
  // A routing id means nothing without an e-invoice to route (docs/decisions.md, Documents).
  if (input.leitwegId !== null && input.eInvoiceType === null) v.add('leitwegId', 'Set an eInvoiceType (xrechnung) to use a Leitweg-ID.', 'requires_e_invoice_type');
  const leitweg = input.leitwegId === null ? null : leitwegIdProblem(input.leitwegId);
  if (leitweg) v.add('leitwegId', leitweg, 'invalid_leitweg_id');
  checkCustomFieldValues(defs, input.customFields, v);
  const refs: References = { group: groups[0] ?? null, contact: contacts[0] ?? null };
  return { settings: effectiveSettings(settingRows), refs, number };
}

export async function vatValidity(ctx: ServiceContext, vatId: string | null): Promise<boolean> {
  if (!vatId || !isEuVatId(vatId)) return false;
  return (await ctx.vatChecker.isRegistered(vatId)) === true;
}

export function mapUniqueViolation(err: unknown, numberGenerated: boolean): ApiError | 'retry' | null {
  if (isUniqueViolation(err, 'email_key')) return ApiError.violation('email', 'A customer with this e-mail address already exists.', 'not_unique');
  if (isUniqueViolation(err, 'customer_number')) {
    return numberGenerated ? 'retry' : ApiError.violation('customerNumber', 'A customer with this number already exists.', 'not_unique');
  }
  return null;
}

/** The columns that come straight from the writable fields, with their defaults applied. */
export function fieldColumns(
  input: CustomerFields,
  derived: { vatId: string | null; isVatIdValid: boolean; ledgerId: string | null; refs: References },
) {
  return {
    email: input.email,
    emailKey: input.email.toLowerCase(),
    countryCode: input.countryCode,
    timeZone: input.timeZone ?? 'Europe/Berlin',
    firstName: input.firstName,
    lastName: input.lastName,
    currencyCode: input.currencyCode,
    companyName: input.companyName,
    vatId: derived.vatId,
    isVatIdValid: derived.isVatIdValid,
    taxExempt: input.taxExempt ?? 'auto',
    ledgerId: derived.ledgerId,
    commercialRegisterName: input.commercialRegisterName,
    commercialRegisterNumber: input.commercialRegisterNumber,
    gender: input.gender,
    phone: input.phone,
    language: input.language ?? 'de',
    customerGroupId: derived.refs.group?.id ?? null,
    contactPersonId: derived.refs.contact?.id ?? null,
    customFields: input.customFields,
    isPartner: input.isPartner ?? false,
    eInvoiceType: input.eInvoiceType,
    leitwegId: input.leitwegId,
  } satisfies Partial<CustomerRow>;
}

/**
 * Batch steps that keep a written customer row from pointing at nothing: its customer group and
 * contact person still exist when the batch commits (their deletes check the other way round).
 */
export function referenceGuards(ctx: ServiceContext, row: Pick<CustomerRow, 'customerGroupId' | 'contactPersonId'>): BatchItem<'sqlite'>[] {
  const t = ctx.tenant.id;
  const guards: BatchItem<'sqlite'>[] = [];
  if (row.customerGroupId) guards.push(requireCondition(ctx.db, sql`EXISTS (SELECT 1 FROM customer_groups WHERE tenant_id = ${t} AND id = ${row.customerGroupId})`));
  if (row.contactPersonId) guards.push(requireCondition(ctx.db, sql`EXISTS (SELECT 1 FROM contact_persons WHERE tenant_id = ${t} AND id = ${row.contactPersonId})`));
  return guards;
}

/** A create input with every optional field left empty: customers made from a few known details (checkout, offers). */
export function customerInput(fields: Pick<CustomerCreateInput, 'email'> & Partial<CustomerCreateInput>): CustomerCreateInput {
  return {
    countryCode: null,
    currencyCode: null,
    customerGroup: null,
    contactPerson: null,
    timeZone: null,
    firstName: null,
    lastName: null,
    language: null,
    ledgerId: null,
    gender: null,
    vatId: null,
    companyName: null,
    phone: null,
    commercialRegisterName: null,
    commercialRegisterNumber: null,
    customerNumber: null,
    taxExempt: null,
    customFields: null,
    isPartner: null,
    eInvoiceType: null,
    leitwegId: null,
    street: null,
    houseNumber: null,
    zip: null,
    city: null,
    addition: null,
    invoiceEmail: null,
    invoiceAddress: null,
    ...fields,
  };
}

export async function createCustomer(ctx: ServiceContext, body: CustomerCreateInput) {
  const input = { ...body, countryCode: body.countryCode ?? ctx.tenant.countryCode };
  const v = new Violations();
  const { settings, refs, number: claimed } = await checkCustomerFields(ctx, input, v, undefined, input.customerNumber === null);
  if (input.invoiceAddress) checkAddressVatId(input.invoiceAddress.vatId, 'invoiceAddress.vatId', v);
  v.throwIfAny();

  const now = ctx.now.toISOString();
  const vatId = input.vatId ? normalizeVatId(input.vatId) : null;
  const isVatIdValid = await vatValidity(ctx, vatId);
  let ledgerId = input.ledgerId;
  if (!ledgerId && settings['accounting.useDebitorAccounts']) {
    ledgerId = String(await nextSequenceValue(ctx.db, ctx.tenant.id, 'ledger', settings['accounting.debitorAccountStart']));
  }

  // A generated number can collide with one a user chose by hand; then the next one is taken.
  for (let attempt = 0; ; attempt++) {
    const customerNumber =
      input.customerNumber ??
      formatNumber(settings['customer.numberFormat'], {
        // The number the checks took first; a collision with a number chosen by hand takes the next.
        number: attempt === 0 && claimed !== undefined ? claimed : await nextSequenceValue(ctx.db, ctx.tenant.id, 'customer', 1),
        date: ctx.now,
        timeZone: ctx.tenant.timeZone,
      });
    const id = newId();
    const row: CustomerRow = {
      id,
      tenantId: ctx.tenant.id,
      customerNumber,
      ...fieldColumns(input, { vatId, isVatIdValid, ledgerId, refs }),
      status: 'STATUS_ACTIVE',
      totalTurnOverRank: null,
      partnerId: null,
      requiresManualInvoiceApproval: null,
      createdAt: now,
      updatedAt: now,
    };
    const addressRows = [
      addressRow(
        ctx,
        id,
        input.countryCode,
        { ...input, countryCode: input.countryCode, salutation: null, costCentre: null, vatId: null },
        'TYPE_DEFAULT',
        true,
      ),
    ];
    if (input.invoiceAddress) addressRows.push(addressRow(ctx, id, input.countryCode, input.invoiceAddress, 'TYPE_INVOICE', true));
    const emailRows: EmailRow[] = [
      { id: newId(), tenantId: ctx.tenant.id, customerId: id, email: input.email, receiverName: null, type: 'default', isDefault: true, createdAt: now, updatedAt: now },
    ];
    if (input.invoiceEmail) {
      emailRows.push({ id: newId(), tenantId: ctx.tenant.id, customerId: id, email: input.invoiceEmail, receiverName: null, type: 'invoice', isDefault: true, createdAt: now, updatedAt: now });
    }
    const resource = renderCustomer({
      row,
      addresses: addressRows.map(renderAddress),
      emails: emailRows.map(renderEmail),
      group: refs.group,
      contact: refs.contact,
      partner: null,
      paymentMethod: null,
    });
    try {
      await ctx.db.batch([
        ctx.db.insert(customers).values(row),
        ...insertRows(ctx.db, customerAddresses, addressRows),
        ...insertRows(ctx.db, customerEmailAddresses, emailRows),
        insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'customer.created', resourceId: id, data: resource, now: ctx.now }),
        ...referenceGuards(ctx, row),
      ]);
      return resource;
    } catch (err) {
      if (isGuardFailure(err)) throw ApiError.conflict('The customer group or contact person was deleted meanwhile; reload and retry.', 'concurrent-update');
      const mapped = mapUniqueViolation(err, input.customerNumber === null);
      if (mapped === 'retry' && attempt < 5) continue;
      if (mapped instanceof ApiError) throw mapped;
      throw err;
    }
  }
}
