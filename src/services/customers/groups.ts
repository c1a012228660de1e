import { and, asc, count, eq, sql } from 'drizzle-orm';
import { isGuardFailure, requirePreviousChange } from '../../db/client';
import type { BatchItem } from 'drizzle-orm/batch';
import { commitGuarded } from '../../db/commit';
import { contactPersons, customerGroups, customers } from '../../db/schema';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import { fetchPage } from '../../db/paging';
import type { Page } from '../../http/pagination';
import { newId } from '../../lib/ids';
import type { ContactPersonResource, CustomerGroupResource } from '../../schemas/customers';

// Customer groups and contact persons: small tenant-owned records a customer points to.

type GroupRow = typeof customerGroups.$inferSelect;
type ContactRow = typeof contactPersons.$inferSelect;

export function renderGroup(g: GroupRow): CustomerGroupResource {
  return { id: g.id, name: g.name, description: g.description, createdAt: g.createdAt, updatedAt: g.updatedAt };
}

export function renderContactPerson(p: ContactRow): ContactPersonResource {
  return { id: p.id, firstName: p.firstName, lastName: p.lastName, email: p.email, avatar: p.avatar, createdAt: p.createdAt, updatedAt: p.updatedAt };
}

/** A DELETE guarded by "still unused"; when it matched nothing, the record is in use (or gone) now. */
async function guardedDelete(ctx: ServiceContext, statement: BatchItem<'sqlite'>, inUse: string) {
  try {
    await ctx.db.batch([statement, requirePreviousChange(ctx.db)]);
  } catch (err) {
    if (isGuardFailure(err)) throw ApiError.conflict(inUse, 'in-use');
    throw err;
  }
}

export async function listGroups(ctx: ServiceContext, page: Page) {
  return fetchPage(ctx.db, customerGroups, eq(customerGroups.tenantId, ctx.tenant.id), [asc(customerGroups.name), asc(customerGroups.id)], page, renderGroup);
}

function groupById(ctx: ServiceContext, id: string) {
  return and(eq(customerGroups.tenantId, ctx.tenant.id), eq(customerGroups.id, id));
}

async function findGroup(ctx: ServiceContext, id: string) {
  const row = await ctx.db.select().from(customerGroups).where(groupById(ctx, id)).get();
  if (!row) throw ApiError.notFound('Customer group');
  return row;
}

export async function getGroup(ctx: ServiceContext, id: string) {
  return renderGroup(await findGroup(ctx, id));
}

export async function createGroup(ctx: ServiceContext, input: { name: string; description: string | null }) {
  const now = ctx.now.toISOString();
  const row: GroupRow = { id: newId(), tenantId: ctx.tenant.id, ...input, createdAt: now, updatedAt: now };
  await ctx.db.insert(customerGroups).values(row);
  return renderGroup(row);
}

export async function updateGroup(ctx: ServiceContext, id: string, input: { name: string; description: string | null }) {
  const current = await findGroup(ctx, id);
  const { resource } = await commitGuarded(ctx, {
    table: customerGroups,
    current,
    changes: input,
    render: renderGroup,
    conflict: 'The customer group was changed concurrently; reload and retry.',
  });
  return resource;
}

export async function deleteGroup(ctx: ServiceContext, id: string) {
  await getGroup(ctx, id);
  const [members] = await ctx.db
    .select({ n: count() })
    .from(customers)
    .where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.customerGroupId, id)));
  if ((members?.n ?? 0) > 0) throw ApiError.conflict(`The group still has ${members!.n} customers.`, 'in-use');
  // Checked again in the DELETE: a customer put into the group meanwhile keeps it.
  const unused = sql`NOT EXISTS (SELECT 1 FROM customers WHERE tenant_id = ${ctx.tenant.id} AND customer_group_id = ${id})`;
  await guardedDelete(ctx, ctx.db.delete(customerGroups).where(and(groupById(ctx, id), unused)), 'The group got customers meanwhile.');
}

export async function listContactPersons(ctx: ServiceContext, page: Page) {
  return fetchPage(ctx.db, contactPersons, eq(contactPersons.tenantId, ctx.tenant.id), [asc(contactPersons.lastName), asc(contactPersons.id)], page, renderContactPerson);
}

function contactById(ctx: ServiceContext, id: string) {
  return and(eq(contactPersons.tenantId, ctx.tenant.id), eq(contactPersons.id, id));
}

async function findContactPerson(ctx: ServiceContext, id: string) {
  const row = await ctx.db.select().from(contactPersons).where(contactById(ctx, id)).get();
  if (!row) throw ApiError.notFound('Contact person');
  return row;
}

export async function getContactPerson(ctx: ServiceContext, id: string) {
  return renderContactPerson(await findContactPerson(ctx, id));
}

type ContactInput = { firstName: string; lastName: string; email: string; avatar: string | null };

export async function createContactPerson(ctx: ServiceContext, input: ContactInput) {
  const now = ctx.now.toISOString();
  const row: ContactRow = { id: newId(), tenantId: ctx.tenant.id, ...input, createdAt: now, updatedAt: now };
  await ctx.db.insert(contactPersons).values(row);
  return renderContactPerson(row);
}

export async function updateContactPerson(ctx: ServiceContext, id: string, input: ContactInput) {
  const current = await findContactPerson(ctx, id);
  const { resource } = await commitGuarded(ctx, {
    table: contactPersons,
    current,
    changes: input,
    render: renderContactPerson,
    conflict: 'The contact person was changed concurrently; reload and retry.',
  });
  return resource;
}

export async function deleteContactPerson(ctx: ServiceContext, id: string) {
  await getContactPerson(ctx, id);
  const [refs] = await ctx.db
    .select({ n: count() })
    .from(customers)
    .where(and(eq(customers.tenantId, ctx.tenant.id), eq(customers.contactPersonId, id)));
  if ((refs?.n ?? 0) > 0) throw ApiError.conflict(`The contact person is assigned to ${refs!.n} customers.`, 'in-use');
  const offered = sql`EXISTS (SELECT 1 FROM offers WHERE tenant_id = ${ctx.tenant.id} AND contact_person_id = ${id})`;
  if ((await ctx.db.get<{ n: number }>(sql`SELECT ${offered} AS n`))?.n) throw ApiError.conflict('The contact person is named on offers.', 'in-use');
  const unused = sql`NOT EXISTS (SELECT 1 FROM customers WHERE tenant_id = ${ctx.tenant.id} AND contact_person_id = ${id}) AND NOT ${offered}`;
  await guardedDelete(ctx, ctx.db.delete(contactPersons).where(and(contactById(ctx, id), unused)), 'The contact person was assigned to a customer or an offer meanwhile.');
}
