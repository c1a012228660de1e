import { and, eq, ne, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { isUniqueViolation, requireCondition } from '../../db/client';
import { nextUpdatedAt } from '../../db/commit';
import { customerAddresses, customerEmailAddresses, subscriptions } from '../../db/schema';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { collection, type Page } from '../../http/pagination';
import { newId } from '../../lib/ids';
import { addressRow, checkAddressVatId, type AddressInput } from './create';
import { commitCustomerChange } from './update';
import { loadCustomer } from './read';
import { renderAddress, type AddressResource, type CustomerAggregate, type EmailResource } from './render';

// Addresses and e-mail addresses of a customer. Each type has at most one default (a partial UNIQUE
// index backs this); a change writes the sub-resource, bumps the customer and emits customer.updated
// in one batch. The customer's default address and its login e-mail (the default `default` e-mail)
// can be replaced but never removed.

export interface AddressWrite extends AddressInput {
  type: AddressResource['type'];
  default: boolean | null;
  status: AddressResource['status'] | null;
}

export interface EmailWrite {
  email: string;
  receiverName: string | null;
  type: EmailResource['type'];
  default: boolean | null;
}

function paginate<T>(items: T[], page: Page) {
  const start = (page.page - 1) * page.limit;
  return collection(items.slice(start, start + page.limit), items.length, page);
}

function find<T extends { id: string }>(items: T[], id: string, what: string): T {
  const item = items.find((i) => i.id === id);
  if (!item) throw ApiError.notFound(what);
  return item;
}

/** Applies "this one is now the default of its type" to a list, clearing the previous default. */
function withDefault<T extends { id: string; type: string; default: boolean }>(items: T[], chosen: T): T[] {
  const others = items.filter((i) => i.id !== chosen.id).map((i) => (chosen.default && i.type === chosen.type ? { ...i, default: false } : i));
  return [...others, chosen];
}

export async function listAddresses(ctx: ServiceContext, customerId: string, page: Page) {
  return paginate((await loadCustomer(ctx, customerId)).addresses, page);
}

export async function getAddress(ctx: ServiceContext, customerId: string, addressId: string) {
  return find((await loadCustomer(ctx, customerId)).addresses, addressId, 'Address');
}

function checkAddress(input: AddressWrite, v: Violations) {
  checkAddressVatId(input.vatId, 'vatId', v);
  if (input.type === 'TYPE_DEFAULT' && input.status === 'archived' && input.default) {
    v.add('status', 'The default address cannot be archived.', 'default_archived');
  }
}

function clearDefaultAddress(ctx: ServiceContext, customerId: string, type: AddressResource['type'], exceptId: string) {
  return ctx.db
    .update(customerAddresses)
    .set({ isDefault: false })
    .where(
      and(
        eq(customerAddresses.tenantId, ctx.tenant.id),
        eq(customerAddresses.customerId, customerId),
        eq(customerAddresses.type, type),
        ne(customerAddresses.id, exceptId),
      ),
    );
}

async function commitAddresses(ctx: ServiceContext, before: CustomerAggregate, addresses: AddressResource[], statements: BatchItem<'sqlite'>[]) {
  const row = { ...before.row, updatedAt: nextUpdatedAt(ctx.now, before.row.updatedAt) };
  await commitCustomerChange(ctx, before, row, 'customer.updated', statements, { addresses });
}

export async function createAddress(ctx: ServiceContext, customerId: string, input: AddressWrite) {
  const before = await loadCustomer(ctx, customerId);
  const v = new Violations();
  checkAddress(input, v);
  v.throwIfAny();
  const firstOfType = !before.addresses.some((a) => a.type === input.type && a.default);
  const isDefault = input.default ?? firstOfType;
  const row = { ...addressRow(ctx, customerId, before.row.countryCode, input, input.type, isDefault), status: input.status ?? 'active' };
  const resource: AddressResource = renderAddress(row);
  const statements: BatchItem<'sqlite'>[] = [];
  if (isDefault) statements.push(clearDefaultAddress(ctx, customerId, input.type, row.id));
  statements.push(ctx.db.insert(customerAddresses).values(row));
  await commitAddresses(ctx, before, withDefault(before.addresses, resource), statements);
  return resource;
}

/** PUT keeps the fields not sent (docs/decisions.md, Customers). */
function addressWithChanges(current: AddressResource, changes: Partial<AddressWrite>): AddressWrite {
  const { id: _id, ...writable } = current;
  return { ...writable, ...definedOnly(changes) };
}

function definedOnly<T extends object>(changes: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export async function updateAddress(ctx: ServiceContext, customerId: string, addressId: string, changes: Partial<AddressWrite>) {
  const before = await loadCustomer(ctx, customerId);
  const current = find(before.addresses, addressId, 'Address');
  const input = addressWithChanges(current, changes);
  const v = new Violations();
  checkAddress(input, v);
  const isDefault = input.default ?? current.default;
  const losesDefault = current.type === 'TYPE_DEFAULT' && current.default && (!isDefault || input.type !== 'TYPE_DEFAULT' || input.status === 'archived');
  if (losesDefault) v.add('default', 'The customer needs a default address: make another address the default first.', 'default_required');
  v.throwIfAny();
  const row = { ...addressRow(ctx, customerId, before.row.countryCode, input, input.type, isDefault), id: addressId, status: input.status ?? current.status };
  const { id: _id, tenantId: _t, customerId: _c, createdAt: _created, ...columns } = row;
  const resource = renderAddress(row);
  const statements: BatchItem<'sqlite'>[] = [];
  if (isDefault) statements.push(clearDefaultAddress(ctx, customerId, input.type, addressId));
  statements.push(
    ctx.db
      .update(customerAddresses)
      .set(columns)
      .where(and(eq(customerAddresses.tenantId, ctx.tenant.id), eq(customerAddresses.customerId, customerId), eq(customerAddresses.id, addressId))),
  );
  await commitAddresses(ctx, before, withDefault(before.addresses, resource), statements);
  return resource;
}

export async function deleteAddress(ctx: ServiceContext, customerId: string, addressId: string) {
  const before = await loadCustomer(ctx, customerId);
  const current = find(before.addresses, addressId, 'Address');
  if (current.type === 'TYPE_DEFAULT' && current.default) {
    throw ApiError.conflict('The default address cannot be deleted; make another address the default first.', 'default-required');
  }
  // Subscriptions bill to an address they name; it must not vanish under them (checked again in the batch).
  const unused = sql`NOT EXISTS (SELECT 1 FROM subscriptions WHERE tenant_id = ${ctx.tenant.id} AND invoice_address_id = ${addressId})`;
  const billedTo = await ctx.db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(eq(subscriptions.tenantId, ctx.tenant.id), eq(subscriptions.invoiceAddressId, addressId)))
    .get();
  if (billedTo) throw ApiError.conflict('A subscription bills to this address; give it another invoice address or archive the address instead.', 'address-in-use');
  await commitAddresses(
    ctx,
    before,
    before.addresses.filter((a) => a.id !== addressId),
    [
      ctx.db
        .delete(customerAddresses)
        .where(and(eq(customerAddresses.tenantId, ctx.tenant.id), eq(customerAddresses.customerId, customerId), eq(customerAddresses.id, addressId))),
      requireCondition(ctx.db, unused),
    ],
  );
}

export async function listEmails(ctx: ServiceContext, customerId: string, page: Page) {
  return paginate((await loadCustomer(ctx, customerId)).emails, page);
}

export async function getEmail(ctx: ServiceContext, customerId: string, emailId: string) {
  return find((await loadCustomer(ctx, customerId)).emails, emailId, 'E-mail address');
}

function clearDefaultEmail(ctx: ServiceContext, customerId: string, type: EmailResource['type'], exceptId: string) {
  return ctx.db
    .update(customerEmailAddresses)
    .set({ isDefault: false })
    .where(
      and(
        eq(customerEmailAddresses.tenantId, ctx.tenant.id),
        eq(customerEmailAddresses.customerId, customerId),
        eq(customerEmailAddresses.type, type),
        ne(customerEmailAddresses.id, exceptId),
      ),
    );
}

/** Writes e-mail changes; a new default `default` address also becomes the customer's login e-mail. */
async function commitEmails(ctx: ServiceContext, before: CustomerAggregate, emails: EmailResource[], statements: BatchItem<'sqlite'>[]) {
  const login = emails.find((e) => e.type === 'default' && e.default)?.email ?? before.row.email;
  const row = { ...before.row, email: login, emailKey: login.toLowerCase(), updatedAt: nextUpdatedAt(ctx.now, before.row.updatedAt) };
  try {
    await commitCustomerChange(ctx, before, row, 'customer.updated', statements, { emails });
  } catch (err) {
    if (isUniqueViolation(err, 'email_key')) throw ApiError.violation('email', 'Another customer already signs in with this e-mail address.', 'not_unique');
    throw err;
  }
}

export async function createEmail(ctx: ServiceContext, customerId: string, input: EmailWrite) {
  const before = await loadCustomer(ctx, customerId);
  const now = ctx.now.toISOString();
  const isDefault = input.default ?? !before.emails.some((e) => e.type === input.type && e.default);
  const row = { id: newId(), tenantId: ctx.tenant.id, customerId, email: input.email, receiverName: input.receiverName, type: input.type, isDefault, createdAt: now, updatedAt: now };
  const resource: EmailResource = { id: row.id, email: row.email, receiverName: row.receiverName, type: row.type, default: isDefault };
  const statements: BatchItem<'sqlite'>[] = [];
  if (isDefault) statements.push(clearDefaultEmail(ctx, customerId, input.type, row.id));
  statements.push(ctx.db.insert(customerEmailAddresses).values(row));
  await commitEmails(ctx, before, withDefault(before.emails, resource), statements);
  return resource;
}

export async function updateEmail(ctx: ServiceContext, customerId: string, emailId: string, changes: Partial<EmailWrite>) {
  const before = await loadCustomer(ctx, customerId);
  const current = find(before.emails, emailId, 'E-mail address');
  const { id: _id, ...writable } = current;
  const input: EmailWrite = { ...writable, ...definedOnly(changes) };
  const isDefault = input.default ?? current.default;
  if (current.type === 'default' && current.default && (!isDefault || input.type !== 'default')) {
    throw ApiError.violation('default', 'The customer needs a default e-mail address: make another one the default first.', 'default_required');
  }
  const resource: EmailResource = { id: emailId, email: input.email, receiverName: input.receiverName, type: input.type, default: isDefault };
  const statements: BatchItem<'sqlite'>[] = [];
  if (isDefault) statements.push(clearDefaultEmail(ctx, customerId, input.type, emailId));
  statements.push(
    ctx.db
      .update(customerEmailAddresses)
      .set({ email: input.email, receiverName: input.receiverName, type: input.type, isDefault, updatedAt: ctx.now.toISOString() })
      .where(and(eq(customerEmailAddresses.tenantId, ctx.tenant.id), eq(customerEmailAddresses.customerId, customerId), eq(customerEmailAddresses.id, emailId))),
  );
  await commitEmails(ctx, before, withDefault(before.emails, resource), statements);
  return resource;
}

export async function deleteEmail(ctx: ServiceContext, customerId: string, emailId: string) {
  const before = await loadCustomer(ctx, customerId);
  const current = find(before.emails, emailId, 'E-mail address');
  if (current.type === 'default' && current.default) {
    throw ApiError.conflict('The default e-mail address is the login and cannot be deleted; make another one the default first.', 'default-required');
  }
  await commitEmails(
    ctx,
    before,
    before.emails.filter((e) => e.id !== emailId),
    [
      ctx.db
        .delete(customerEmailAddresses)
        .where(and(eq(customerEmailAddresses.tenantId, ctx.tenant.id), eq(customerEmailAddresses.customerId, customerId), eq(customerEmailAddresses.id, emailId))),
    ],
  );
}
