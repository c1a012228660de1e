import { z } from '@hono/zod-openapi';
import { and, asc, count, desc, eq, or, sql, type SQL } from 'drizzle-orm';
import { containsText, outer } from '../../db/client';
import { customers } from '../../db/schema';
import type { ServiceContext } from '../context';
import { collection, pageOffset, paginationQuery, sortDirection } from '../../http/pagination';
import { normalizeVatId } from '../ports/vat-checker';
import { renderCustomer } from './render';
import { selectAggregates, toAggregates } from './read';

const text = (description: string) => z.string().max(255).optional().openapi({ description });

/**
 * GET /customers: filters and sort order, Fynn's names included (docs/decisions.md, Customers).
 * Nested filters come in both spellings a client may send: `customerGroup.name` as documented and
 * `customerGroup[name]` as query-string libraries encode nested objects. Like every query it is
 * closed (docs/decisions.md, HTTP conventions): an unknown parameter is 400, never silently ignored.
 */
export const customerListQuery = z
  .object({
    ...paginationQuery,
    search: text('Matches name, company, e-mail and customer number'),
    status: z.enum(['STATUS_ACTIVE', 'STATUS_ARCHIVED', 'STATUS_SUSPENDED']).optional(),
    customerNumber: text('Exact customer number'),
    email: text('Exact login e-mail, any case'),
    firstName: text('Part of the first name, any case'),
    lastName: text('Part of the last name, any case'),
    companyName: text('Part of the company name, any case'),
    vatId: text('Exact VAT id (spaces, dots and dashes ignored)'),
    isVatIdValid: z.enum(['true', 'false', '']).optional(),
    ledgerId: text('Exact ledger (debtor account) id'),
    datevId: text("Fynn's name for ledgerId"),
    partner: z.string().max(64).optional().openapi({ description: 'Id of the partner the customers are billed through' }),
    'customerGroup.name': text('Part of the customer group name, any case'),
    'customerGroup[name]': text('Same as customerGroup.name'),
    'emailAddresses.email': text('Exact e-mail of any of the customer’s e-mail addresses, any case'),
    'emailAddresses[email]': text('Same as emailAddresses.email'),
    'order[createdAt]': sortDirection.optional(),
    'order[customerNumber]': sortDirection.optional(),
  });
export type CustomerListQuery = z.output<typeof customerListQuery>;

/** The filter conditions of a list query; an empty parameter (`?companyName=`, as n8n sends unset options) filters nothing. */
function filterConditions(q: CustomerListQuery): SQL[] {
  const out: SQL[] = [];
  const given = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';
  if (q.status) out.push(eq(customers.status, q.status));
  if (given(q.customerNumber)) out.push(eq(customers.customerNumber, q.customerNumber.trim()));
  if (given(q.email)) out.push(eq(customers.emailKey, q.email.trim().toLowerCase()));
  if (given(q.firstName)) out.push(containsText(customers.firstName, q.firstName.trim()));
  if (given(q.lastName)) out.push(containsText(customers.lastName, q.lastName.trim()));
  if (given(q.companyName)) out.push(containsText(customers.companyName, q.companyName.trim()));
  if (given(q.vatId)) out.push(eq(customers.vatId, normalizeVatId(q.vatId)));
  if (q.isVatIdValid === 'true' || q.isVatIdValid === 'false') out.push(eq(customers.isVatIdValid, q.isVatIdValid === 'true'));
  for (const ledgerId of [q.ledgerId, q.datevId]) if (given(ledgerId)) out.push(eq(customers.ledgerId, ledgerId.trim()));
  if (given(q.partner)) out.push(eq(customers.partnerId, q.partner.trim()));
  for (const name of [q['customerGroup.name'], q['customerGroup[name]']]) {
    if (!given(name)) continue;
    out.push(
      sql`EXISTS (SELECT 1 FROM customer_groups g WHERE g.tenant_id = ${outer(customers.tenantId)} AND g.id = ${outer(customers.customerGroupId)}
        AND ${containsText(sql.raw('g.name'), name.trim())})`,
    );
  }
  for (const email of [q['emailAddresses.email'], q['emailAddresses[email]']]) {
    if (!given(email)) continue;
    out.push(
      sql`EXISTS (SELECT 1 FROM customer_email_addresses e WHERE e.tenant_id = ${outer(customers.tenantId)} AND e.customer_id = ${outer(customers.id)}
        AND lower(e.email) = ${email.trim().toLowerCase()})`,
    );
  }
  if (given(q.search)) {
    const t = q.search.trim();
    out.push(
      or(
        containsText(customers.firstName, t),
        containsText(customers.lastName, t),
        containsText(sql`(coalesce(${outer(customers.firstName)}, '') || ' ' || coalesce(${outer(customers.lastName)}, ''))`, t),
        containsText(customers.companyName, t),
        containsText(customers.emailKey, t.toLowerCase()),
        containsText(customers.customerNumber, t),
      )!,
    );
  }
  return out;
}

export async function listCustomers(ctx: ServiceContext, q: CustomerListQuery) {
  const where = and(eq(customers.tenantId, ctx.tenant.id), ...filterConditions(q));
  const order: SQL[] = [];
  const byNumber = q['order[customerNumber]'];
  if (byNumber) order.push(byNumber === 'asc' ? asc(customers.customerNumber) : desc(customers.customerNumber));
  const createdDir = q['order[createdAt]'] ?? 'desc';
  order.push(createdDir === 'asc' ? asc(customers.createdAt) : desc(customers.createdAt));
  order.push(createdDir === 'asc' ? asc(customers.id) : desc(customers.id));

  const [[total], rows] = await ctx.db.batch([
    ctx.db.select({ n: count() }).from(customers).where(where),
    selectAggregates(ctx.db).where(where).orderBy(...order).limit(q.limit).offset(pageOffset(q)),
  ]);
  return collection((await toAggregates(ctx, rows)).map(renderCustomer), total?.n ?? 0, q);
}
