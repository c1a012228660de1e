import { and, count, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { requireCondition } from '../../db/client';
import { commitGuarded, nextUpdatedAt } from '../../db/commit';
import { customerEmailAddresses, customers } from '../../db/schema';
import type { EventType } from '../../events/catalogue';
import { ApiError, Violations } from '../../http/errors';
import type { ServiceContext } from '../context';
import { nextSequenceValue } from '../common/sequences';
import { normalizeVatId } from '../ports/vat-checker';
import { type CustomerAggregate, type CustomerRow, type PartnerRef, partnerName, renderCustomer } from './render';
import { byId, findCustomerRow, loadCustomer } from './read';
import { type CustomerFields, checkCustomerFields, fieldColumns, mapUniqueViolation, referenceGuards, vatValidity } from './create';
import { partnerUsable } from './guards';
import type { BillingSettingsResource } from '../../schemas/customers';

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
    eInvoiceType: r.eInvoiceType,
    leitwegId: r.leitwegId,
  };
}

/**
 * PUT semantics (Fynn's, which the n8n node relies on): the fields sent replace their values, the
 * others keep theirs. `customFields` merges member by member, as in a merge patch: n8n sends `{}`
 * whenever the option is added, which must not wipe the customer's values.
 */
export function customerWithChanges(agg: CustomerAggregate, changes: Partial<CustomerFields>): CustomerFields {
  const base = writableCustomer(agg);
  const sent = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Partial<CustomerFields>;
  const merged: CustomerFields = { ...base, ...sent };
  if (sent.customFields) {
    const members = Object.entries({ ...(base.customFields ?? {}), ...sent.customFields }).filter(([, v]) => v !== null);
    merged.customFields = members.length === 0 && base.customFields === null ? null : Object.fromEntries(members);
  }
  return merged;
}

/**
 * Writes a changed customer row, its event and any accompanying statements in one batch through
 * the guarded write path: if another write came first, the batch rolls back and the caller gets 409
 * instead of silently overwriting it.
 */
async function commitCustomerChange(
  ctx: ServiceContext,
  before: CustomerAggregate,
  row: CustomerRow,
  eventType: EventType,
  extra: BatchItem<'sqlite'>[] = [],
  aggOverride: Partial<CustomerAggregate> = {},
) {
  const { resource } = await commitGuarded(ctx, {
    table: customers,
    current: before.row,
    changes: row,
    render: (next) => renderCustomer({ ...before, ...aggOverride, row: next }),
    statements: extra,
    events: [eventType],
    conflict: 'The customer was changed concurrently; reload and retry.',
  });
  return resource;
}

/** `read`: the customer the input was computed from (a merge patch's base); by default it is read now. */
export async function updateCustomer(ctx: ServiceContext, id: string, input: CustomerFields, read?: CustomerAggregate) {
  const before = read ?? (await loadCustomer(ctx, id));
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
    updatedAt: nextUpdatedAt(ctx.now, before.row.updatedAt),
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
    const guards = referenceGuards(ctx, row);
    // A partner switched off keeps no clients, also none assigned meanwhile.
    if (before.row.isPartner && !row.isPartner) guards.push(requireCondition(ctx.db, sql`NOT EXISTS (SELECT 1 FROM customers WHERE tenant_id = ${ctx.tenant.id} AND partner_id = ${id})`));
    return await commitCustomerChange(ctx, before, row, 'customer.updated', [syncEmail, ...guards], {
      emails,
      group: refs.group,
      contact: refs.contact,
    });
  } catch (err) {
    const mapped = mapUniqueViolation(err, false);
    if (mapped instanceof ApiError) throw mapped;
    throw err;
  }
}

export async function setCustomerStatus(ctx: ServiceContext, id: string, action: 'archive' | 'unarchive') {
  const before = await loadCustomer(ctx, id);
  const from = before.row.status;
  const allowed = action === 'archive' ? from !== 'STATUS_ARCHIVED' : from === 'STATUS_ARCHIVED';
  if (!allowed) throw ApiError.conflict(`Cannot ${action} a customer in status ${from}.`, 'invalid-transition');
  const row: CustomerRow = {
    ...before.row,
    status: action === 'archive' ? 'STATUS_ARCHIVED' : 'STATUS_ACTIVE',
    updatedAt: nextUpdatedAt(ctx.now, before.row.updatedAt),
  };
  return commitCustomerChange(ctx, before, row, action === 'archive' ? 'customer.archived' : 'customer.unarchived');
}

/** Suspends an active customer (the last dunning level's action); anything else is left as it is. */
export async function suspendCustomer(ctx: ServiceContext, id: string) {
  const before = await loadCustomer(ctx, id);
  if (before.row.status !== 'STATUS_ACTIVE') return null;
  return commitCustomerChange(ctx, before, { ...before.row, status: 'STATUS_SUSPENDED', updatedAt: nextUpdatedAt(ctx.now, before.row.updatedAt) }, 'customer.updated');
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
  const row: CustomerRow = { ...before.row, partnerId, updatedAt: nextUpdatedAt(ctx.now, before.row.updatedAt) };
  // The partner is checked again in the batch: deleted or changed meanwhile, it is refused (409).
  const guards = partnerId === null ? [] : [requireCondition(ctx.db, partnerUsable(ctx.tenant.id, partnerId))];
  return commitCustomerChange(ctx, before, row, 'customer.updated', guards, { partner });
}

export async function getBillingSettings(ctx: ServiceContext, id: string): Promise<BillingSettingsResource> {
  const row = await findCustomerRow(ctx, id);
  return { requiresManualInvoiceApproval: row.requiresManualInvoiceApproval };
}

/** Merge-patch semantics: an absent field stays as it is, null inherits the tenant setting. */
export async function updateBillingSettings(ctx: ServiceContext, id: string, patch: { requiresManualInvoiceApproval?: boolean | null }): Promise<BillingSettingsResource> {
  const before = await loadCustomer(ctx, id);
  if (patch.requiresManualInvoiceApproval === undefined) return { requiresManualInvoiceApproval: before.row.requiresManualInvoiceApproval };
  const value = patch.requiresManualInvoiceApproval;
  const row: CustomerRow = { ...before.row, requiresManualInvoiceApproval: value, updatedAt: nextUpdatedAt(ctx.now, before.row.updatedAt) };
  await commitCustomerChange(ctx, before, row, 'customer.updated');
  return { requiresManualInvoiceApproval: value };
}

export { commitCustomerChange };
