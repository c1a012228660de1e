import { and, asc, count, desc, eq, ne, or, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { formatNumber } from '../../billing/numbering';
import { containsText, isGuardFailure, isUniqueViolation, requirePreviousChange, type Db, outer } from '../../db/client';
import { contactPersons, customerAddresses, customerEmailAddresses, customerGroups, customers, customerSessions, invoices } from '../../db/schema';
import { insertEvent } from '../../events/outbox';
import type { EventType } from '../../events/catalogue';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { collection, pageOffset, type Page } from '../../http/pagination';
import { newId } from '../../lib/ids';
import { checkCustomFieldValues, selectCustomFieldDefinitions } from './custom-fields';
import { effectiveSettings, selectSettings } from '../platform/settings';
import { nextSequenceValue } from '../shared/sequences';
import { hasValidVatFormat, isEuVatId, normalizeVatId } from '../ports/vat-checker';

export type CustomerRow = typeof customers.$inferSelect;
type AddressRow = typeof customerAddresses.$inferSelect;
type EmailRow = typeof customerEmailAddresses.$inferSelect;

export interface AddressResource {
  id: string;
  vatId: string | null;
  type: AddressRow['type'];
  default: boolean;
  status: AddressRow['status'];
  city: string;
  zip: string;
  street: string;
  houseNumber: string;
  countryCode: string;
  companyName: string | null;
  salutation: AddressRow['salutation'];
  addition: string;
  costCentre: string | null;
  firstName: string | null;
  lastName: string | null;
}

export interface EmailResource {
  id: string;
  email: string;
  receiverName: string | null;
  type: EmailRow['type'];
  default: boolean;
}

interface Ref {
  id: string;
}
type GroupRef = Ref & { name: string; description: string | null };
type ContactRef = Ref & { firstName: string; lastName: string; email: string; avatar: string | null };
type PartnerRef = Ref & { name: string; number: string; email: string };

/** A customer with everything its representation embeds. */
export interface CustomerAggregate {
  row: CustomerRow;
  addresses: AddressResource[];
  emails: EmailResource[];
  group: GroupRef | null;
  contact: ContactRef | null;
  partner: PartnerRef | null;
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

function partnerName(c: Pick<CustomerRow, 'companyName' | 'firstName' | 'lastName' | 'email'>): string {
  return c.companyName ?? ([c.firstName, c.lastName].filter(Boolean).join(' ') || c.email);
}

export function renderCustomer(agg: CustomerAggregate) {
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
    // Payment methods arrive with the payments issue.
    defaultPaymentMethod: null,
    contactPerson: agg.contact,
    isPartner: row.isPartner,
    partner: agg.partner,
  };
}

export type CustomerResource = ReturnType<typeof renderCustomer>;

const bool = (column: string) => sql.raw(`json(CASE WHEN ${column} THEN 'true' ELSE 'false' END)`);

// The embedded collections come from correlated JSON subqueries, so a page of customers is one statement.
const embedded = {
  addresses: sql<string>`(SELECT json_group_array(json_object('id', a.id, 'vatId', a.vat_id, 'type', a.type, 'default', ${bool('a.is_default')},
      'status', a.status, 'city', a.city, 'zip', a.zip, 'street', a.street, 'houseNumber', a.house_number, 'countryCode', a.country_code,
      'companyName', a.company_name, 'salutation', a.salutation, 'addition', a.addition, 'costCentre', a.cost_centre,
      'firstName', a.first_name, 'lastName', a.last_name) ORDER BY a.created_at, a.id)
    FROM customer_addresses a WHERE a.tenant_id = ${outer(customers.tenantId)} AND a.customer_id = ${outer(customers.id)})`,
  emails: sql<string>`(SELECT json_group_array(json_object('id', e.id, 'email', e.email, 'receiverName', e.receiver_name, 'type', e.type,
      'default', ${bool('e.is_default')}) ORDER BY e.created_at, e.id)
    FROM customer_email_addresses e WHERE e.tenant_id = ${outer(customers.tenantId)} AND e.customer_id = ${outer(customers.id)})`,
  group: sql<string | null>`(SELECT json_object('id', g.id, 'name', g.name, 'description', g.description)
    FROM customer_groups g WHERE g.tenant_id = ${outer(customers.tenantId)} AND g.id = ${outer(customers.customerGroupId)})`,
  contact: sql<string | null>`(SELECT json_object('id', p.id, 'firstName', p.first_name, 'lastName', p.last_name, 'email', p.email, 'avatar', p.avatar)
    FROM contact_persons p WHERE p.tenant_id = ${outer(customers.tenantId)} AND p.id = ${outer(customers.contactPersonId)})`,
  partner: sql<string | null>`(SELECT json_object('id', q.id, 'name', coalesce(q.company_name, nullif(trim(coalesce(q.first_name, '') || ' ' || coalesce(q.last_name, '')), ''), q.email),
      'number', q.customer_number, 'email', q.email)
    FROM customers q WHERE q.tenant_id = ${outer(customers.tenantId)} AND q.id = ${outer(customers.partnerId)})`,
};

function selectAggregates(db: Db) {
  return db
    .select({
      row: customers,
      addresses: embedded.addresses,
      emails: embedded.emails,
      group: embedded.group,
      contact: embedded.contact,
      partner: embedded.partner,
    })
    .from(customers);
}

type AggregateRecord = { row: CustomerRow; addresses: string; emails: string; group: string | null; contact: string | null; partner: string | null };

function toAggregate(r: AggregateRecord): CustomerAggregate {
  return {
    row: r.row,
    addresses: JSON.parse(r.addresses) as AddressResource[],
    emails: JSON.parse(r.emails) as EmailResource[],
    group: r.group ? (JSON.parse(r.group) as GroupRef) : null,
    contact: r.contact ? (JSON.parse(r.contact) as ContactRef) : null,
    partner: r.partner ? (JSON.parse(r.partner) as PartnerRef) : null,
  };
}

function byId(ctx: ServiceContext, id: string): SQL {
  return and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, id))!;
}

export async function loadCustomer(ctx: ServiceContext, id: string): Promise<CustomerAggregate> {
  const r = await selectAggregates(ctx.db).where(byId(ctx, id)).get();
  if (!r) throw ApiError.notFound('Customer');
  return toAggregate(r);
}

/** The customer's own row only; for operations that check existence or state without the embeds. */
export async function findCustomerRow(ctx: ServiceContext, id: string): Promise<CustomerRow> {
  const row = await ctx.db.select().from(customers).where(byId(ctx, id)).get();
  if (!row) throw ApiError.notFound('Customer');
  return row;
}

export interface CustomerListQuery extends Page {
  search?: string;
  status?: CustomerRow['status'];
  customerNumber?: string;
  email?: string;
  orderCreatedAt?: 'asc' | 'desc';
  orderCustomerNumber?: 'asc' | 'desc';
}

export async function listCustomers(ctx: ServiceContext, q: CustomerListQuery) {
  const filters: (SQL | undefined)[] = [eq(customers.tenantId, ctx.tenant.id)];
  if (q.status) filters.push(eq(customers.status, q.status));
  if (q.customerNumber) filters.push(eq(customers.customerNumber, q.customerNumber));
  if (q.email) filters.push(eq(customers.emailKey, q.email.trim().toLowerCase()));
  if (q.search) {
    const text = q.search.trim();
    filters.push(
      or(
        containsText(customers.firstName, text),
        containsText(customers.lastName, text),
        containsText(sql`(coalesce(${outer(customers.firstName)}, '') || ' ' || coalesce(${outer(customers.lastName)}, ''))`, text),
        containsText(customers.companyName, text),
        containsText(customers.emailKey, text.toLowerCase()),
        containsText(customers.customerNumber, text),
      ),
    );
  }
  const where = and(...filters);
  const order: SQL[] = [];
  if (q.orderCustomerNumber) order.push(q.orderCustomerNumber === 'asc' ? asc(customers.customerNumber) : desc(customers.customerNumber));
  const createdDir = q.orderCreatedAt ?? 'desc';
  order.push(createdDir === 'asc' ? asc(customers.createdAt) : desc(customers.createdAt));
  order.push(createdDir === 'asc' ? asc(customers.id) : desc(customers.id));

  const [[total], rows] = await ctx.db.batch([
    ctx.db.select({ n: count() }).from(customers).where(where),
    selectAggregates(ctx.db).where(where).orderBy(...order).limit(q.limit).offset(pageOffset(q)),
  ]);
  return collection(rows.map((r) => renderCustomer(toAggregate(r))), total?.n ?? 0, q);
}

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

export interface CustomerCreateInput extends CustomerFields {
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

/** Validates what cannot be checked by the schema alone and loads the referenced records. */
async function checkCustomerFields(ctx: ServiceContext, input: CustomerFields, v: Violations, selfId?: string) {
  const db = ctx.db;
  const tenantId = ctx.tenant.id;
  const emailKey = input.email.toLowerCase();
  const [settingRows, defs, groups, contacts, emailTaken, numberTaken] = await db.batch([
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
  ]);
  if (input.customerGroup && groups.length === 0) v.add('customerGroup', 'No such customer group.', 'not_found');
  if (input.contactPerson && contacts.length === 0) v.add('contactPerson', 'No such contact person.', 'not_found');
  if (emailTaken.length > 0) v.add('email', 'A customer with this e-mail address already exists.', 'not_unique');
  if (input.customerNumber && numberTaken.length > 0) v.add('customerNumber', 'A customer with this number already exists.', 'not_unique');
  if (input.vatId && !hasValidVatFormat(input.vatId)) v.add('vatId', 'Not a valid VAT id for its member state.', 'invalid_vat_id');
  checkCustomFieldValues(defs, input.customFields, v);
  const refs: References = { group: groups[0] ?? null, contact: contacts[0] ?? null };
  return { settings: effectiveSettings(settingRows), refs };
}

async function vatValidity(ctx: ServiceContext, vatId: string | null): Promise<boolean> {
  if (!vatId || !isEuVatId(vatId)) return false;
  return (await ctx.vatChecker.isRegistered(vatId)) === true;
}

function mapUniqueViolation(err: unknown, numberGenerated: boolean): ApiError | 'retry' | null {
  if (isUniqueViolation(err, 'email_key')) return ApiError.violation('email', 'A customer with this e-mail address already exists.', 'not_unique');
  if (isUniqueViolation(err, 'customer_number')) {
    return numberGenerated ? 'retry' : ApiError.violation('customerNumber', 'A customer with this number already exists.', 'not_unique');
  }
  return null;
}

/** The columns that come straight from the writable fields, with their defaults applied. */
function fieldColumns(
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
  } satisfies Partial<CustomerRow>;
}

export async function createCustomer(ctx: ServiceContext, input: CustomerCreateInput) {
  const v = new Violations();
  const { settings, refs } = await checkCustomerFields(ctx, input, v);
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
        number: await nextSequenceValue(ctx.db, ctx.tenant.id, 'customer', 1),
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
    });
    try {
      await ctx.db.batch([
        ctx.db.insert(customers).values(row),
        ctx.db.insert(customerAddresses).values(addressRows),
        ctx.db.insert(customerEmailAddresses).values(emailRows),
        insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: 'customer.created', resourceId: id, data: resource, now: ctx.now }),
      ]);
      return resource;
    } catch (err) {
      const mapped = mapUniqueViolation(err, input.customerNumber === null);
      if (mapped === 'retry' && attempt < 5) continue;
      if (mapped instanceof ApiError) throw mapped;
      throw err;
    }
  }
}

/** The writable view of a customer: the body of PUT, and the document a merge patch applies to. */
export function writableCustomer(agg: CustomerAggregate): CustomerFields {
  const r = agg.row;
  return {
    countryCode: r.countryCode,
    email: r.email,
    currencyCode: r.currencyCode,
    customerGroup: r.customerGroupId,
    contactPerson: r.contactPersonId,
    timeZone: r.timeZone,
    firstName: r.firstName,
    lastName: r.lastName,
    language: r.language,
    ledgerId: r.ledgerId,
    gender: r.gender,
    vatId: r.vatId,
    companyName: r.companyName,
    phone: r.phone,
    commercialRegisterName: r.commercialRegisterName,
    commercialRegisterNumber: r.commercialRegisterNumber,
    customerNumber: r.customerNumber,
    taxExempt: r.taxExempt,
    customFields: r.customFields,
    isPartner: r.isPartner,
  };
}

/**
 * Writes a changed customer row, its event and any accompanying statements in one batch. The
 * update is guarded by the previous `updatedAt`; if another write came first, the batch rolls back
 * and the caller gets 409 instead of silently overwriting it.
 */
async function commitCustomerChange(
  ctx: ServiceContext,
  before: CustomerAggregate,
  row: CustomerRow,
  eventType: EventType,
  extra: BatchItem<'sqlite'>[] = [],
  aggOverride: Partial<CustomerAggregate> = {},
) {
  const agg: CustomerAggregate = { ...before, ...aggOverride, row };
  const resource = renderCustomer(agg);
  const { id: _id, tenantId: _t, createdAt: _c, ...changes } = row;
  try {
    await ctx.db.batch([
      ctx.db.update(customers).set(changes).where(and(byId(ctx, row.id), eq(customers.updatedAt, before.row.updatedAt))),
      requirePreviousChange(ctx.db),
      insertEvent(ctx.db, { tenantId: ctx.tenant.id, type: eventType, resourceId: row.id, data: resource, now: ctx.now }),
      ...extra,
    ]);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.conflict('The customer was changed concurrently; reload and retry.', 'concurrent-update');
    throw err;
  }
  return resource;
}

export async function updateCustomer(ctx: ServiceContext, id: string, input: CustomerFields) {
  const before = await loadCustomer(ctx, id);
  const v = new Violations();
  const { settings, refs } = await checkCustomerFields(ctx, input, v, id);
  if (before.row.isPartner && input.isPartner !== true) {
    const [dependants] = await ctx.db
      .select({ n: count() })
      .from(customers)
      .where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.partnerId, id)));
    if ((dependants?.n ?? 0) > 0) v.add('isPartner', `The customer is the partner of ${dependants!.n} customers; unassign them first.`, 'partner_in_use');
  }
  v.throwIfAny();

  const vatId = input.vatId ? normalizeVatId(input.vatId) : null;
  const isVatIdValid = vatId === before.row.vatId ? before.row.isVatIdValid : await vatValidity(ctx, vatId);
  // null removes the ledger id, unless debitor accounts are on: then the customer keeps (or gets) one.
  let ledgerId = input.ledgerId ?? (settings['accounting.useDebitorAccounts'] ? before.row.ledgerId : null);
  if (!ledgerId && settings['accounting.useDebitorAccounts']) {
    ledgerId = String(await nextSequenceValue(ctx.db, ctx.tenant.id, 'ledger', settings['accounting.debitorAccountStart']));
  }
  const row: CustomerRow = {
    ...before.row,
    ...fieldColumns(input, { vatId, isVatIdValid, ledgerId, refs }),
    customerNumber: input.customerNumber ?? before.row.customerNumber,
    updatedAt: nextUpdatedAt(ctx, before.row),
  };
  // The login e-mail is also the default e-mail address; both change together.
  const emails = before.emails.map((e) => (e.type === 'default' && e.default ? { ...e, email: input.email } : e));
  const syncEmail = ctx.db
    .update(customerEmailAddresses)
    .set({ email: input.email, updatedAt: row.updatedAt })
    .where(
      and(
        eq(customerEmailAddresses.tenantId, ctx.tenant.id),
        eq(customerEmailAddresses.customerId, id),
        eq(customerEmailAddresses.type, 'default'),
        eq(customerEmailAddresses.isDefault, true),
      ),
    );
  try {
    return await commitCustomerChange(ctx, before, row, 'customer.updated', [syncEmail], { emails, group: refs.group, contact: refs.contact });
  } catch (err) {
    const mapped = mapUniqueViolation(err, false);
    if (mapped instanceof ApiError) throw mapped;
    throw err;
  }
}

/**
 * `updatedAt` doubles as the optimistic-concurrency token, so it must change on every write even
 * when a frozen test clock returns the same instant twice.
 */
function nextUpdatedAt(ctx: ServiceContext, row: Pick<CustomerRow, 'updatedAt'>): string {
  const now = ctx.now.toISOString();
  if (now > row.updatedAt) return now;
  return new Date(new Date(row.updatedAt).getTime() + 1).toISOString();
}

export async function setCustomerStatus(ctx: ServiceContext, id: string, action: 'archive' | 'unarchive') {
  const before = await loadCustomer(ctx, id);
  const from = before.row.status;
  const allowed = action === 'archive' ? from !== 'STATUS_ARCHIVED' : from === 'STATUS_ARCHIVED';
  if (!allowed) throw ApiError.conflict(`Cannot ${action} a customer in status ${from}.`, 'invalid-transition');
  const row: CustomerRow = {
    ...before.row,
    status: action === 'archive' ? 'STATUS_ARCHIVED' : 'STATUS_ACTIVE',
    updatedAt: nextUpdatedAt(ctx, before.row),
  };
  return commitCustomerChange(ctx, before, row, action === 'archive' ? 'customer.archived' : 'customer.unarchived');
}

/** Assigns or removes the partner whose address and payment method bill this customer's subscriptions. */
export async function setCustomerPartner(ctx: ServiceContext, id: string, partnerId: string | null) {
  const before = await loadCustomer(ctx, id);
  let partner: PartnerRef | null = null;
  if (partnerId !== null) {
    const v = new Violations();
    const p = await ctx.db.select().from(customers).where(byId(ctx, partnerId)).get();
    if (!p) v.add('partner', 'No such customer.', 'not_found');
    else if (p.id === id) v.add('partner', 'A customer cannot be its own partner.', 'self_reference');
    else if (!p.isPartner) v.add('partner', 'The customer is not marked as a partner (isPartner).', 'not_a_partner');
    else if (p.partnerId) v.add('partner', 'A partner cannot itself be billed through another partner.', 'partner_chain');
    else if (before.row.isPartner) v.add('partner', 'A partner cannot be assigned to another partner.', 'partner_chain');
    v.throwIfAny();
    partner = { id: p!.id, name: partnerName(p!), number: p!.customerNumber, email: p!.email };
  }
  const row: CustomerRow = { ...before.row, partnerId, updatedAt: nextUpdatedAt(ctx, before.row) };
  return commitCustomerChange(ctx, before, row, 'customer.updated', [], { partner });
}

export async function getBillingSettings(ctx: ServiceContext, id: string) {
  const row = await findCustomerRow(ctx, id);
  return { requiresManualInvoiceApproval: row.requiresManualInvoiceApproval };
}

/** Merge-patch semantics: an absent field stays as it is, null inherits the tenant setting. */
export async function updateBillingSettings(ctx: ServiceContext, id: string, patch: { requiresManualInvoiceApproval?: boolean | null }) {
  const before = await loadCustomer(ctx, id);
  if (patch.requiresManualInvoiceApproval === undefined) return { requiresManualInvoiceApproval: before.row.requiresManualInvoiceApproval };
  const value = patch.requiresManualInvoiceApproval;
  const row: CustomerRow = { ...before.row, requiresManualInvoiceApproval: value, updatedAt: nextUpdatedAt(ctx, before.row) };
  await commitCustomerChange(ctx, before, row, 'customer.updated');
  return { requiresManualInvoiceApproval: value };
}

export async function deleteCustomer(ctx: ServiceContext, id: string) {
  const before = await loadCustomer(ctx, id);
  const [documents, dependants] = await ctx.db.batch([
    ctx.db.select({ n: count() }).from(invoices).where(and(eq(invoices.tenantId, ctx.tenant.id), eq(invoices.customerId, id))),
    ctx.db.select({ n: count() }).from(customers).where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.partnerId, id))),
  ]);
  if ((documents[0]?.n ?? 0) > 0) throw ApiError.conflict('The customer has documents and cannot be deleted; archive it instead.', 'has-documents');
  if ((dependants[0]?.n ?? 0) > 0) throw ApiError.conflict('The customer is the partner of other customers; unassign them first.', 'partner-in-use');

  const tenantId = ctx.tenant.id;
  // The guard repeats the document check inside the batch: an invoice written meanwhile keeps the customer.
  try {
    await ctx.db.batch([
      ctx.db.delete(customers).where(and(byId(ctx, id), sql`NOT EXISTS (SELECT 1 FROM invoices WHERE tenant_id = ${tenantId} AND customer_id = ${id})`)),
      requirePreviousChange(ctx.db),
      insertEvent(ctx.db, { tenantId, type: 'customer.deleted', resourceId: id, data: { id, customerNumber: before.row.customerNumber }, now: ctx.now }),
      ctx.db.delete(customerAddresses).where(and(eq(customerAddresses.tenantId, tenantId), eq(customerAddresses.customerId, id))),
      ctx.db.delete(customerEmailAddresses).where(and(eq(customerEmailAddresses.tenantId, tenantId), eq(customerEmailAddresses.customerId, id))),
      ctx.db.delete(customerSessions).where(and(eq(customerSessions.tenantId, tenantId), eq(customerSessions.customerId, id))),
    ]);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.conflict('The customer has documents and cannot be deleted; archive it instead.', 'has-documents');
    throw err;
  }
}

export { commitCustomerChange, nextUpdatedAt };
