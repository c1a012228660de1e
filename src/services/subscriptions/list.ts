import { z } from '@hono/zod-openapi';
import { and, asc, count, desc, eq, or, sql, type SQL } from 'drizzle-orm';
import { parseDuration } from '../../billing/durations';
import { contractTerm } from '../../billing/periods';
import { containsText, inJson, outer, tenantRowsById } from '../../db/client';
import { customers, subscriptions } from '../../db/schema';
import type { ServiceContext } from '../context';
import { collection, pageOffset, paginationQuery, sortDirection, type Page } from '../../http/pagination';
import { SUBSCRIPTION_STATUSES } from '../../schemas/subscriptions';
import { type SubscriptionStatus, assembleSubscriptions, renderSubscription } from './aggregate';

// A filter given once (`status=active`) or repeated (`status[]=active&status[]=paused`).
const one = z.string().max(255).optional();
const some = z.union([z.string().max(255), z.array(z.string().max(255)).max(100)]).optional();
// Documented as the enum it is checked against; empty (`status=`, as a form sends it) filters nothing.
const status = z.enum(['', ...SUBSCRIPTION_STATUSES]);

/**
 * GET /subscriptions: filters and sort order. Nested filters come in the dotted form of the spec
 * (`paymentMethod.type`) and in the bracket form clients send (`paymentMethod[type]`, as axios
 * serialises nested query objects). Closed like every query (docs/decisions.md, HTTP conventions).
 */
export const subscriptionListQuery = z.object({
  ...paginationQuery,
  id: one,
  'id[]': some,
  customer: one,
  'customer[]': some,
  number: one,
  status: status.optional(),
  'status[]': z.union([status, z.array(status).max(100)]).optional(),
  'paymentMethod.type': one,
  'paymentMethod.type[]': some,
  'paymentMethod[type]': one,
  'paymentMethod[type][]': some,
  'items.product.id': one,
  'items.product.id[]': some,
  'items[product][id]': one,
  'items[product][id][]': some,
  partner: z.string().max(64).optional(),
  search: z.string().max(255).optional().openapi({ description: "Matches number, name and external id, and the customer's name, company, number and e-mail" }),
  'order[status]': sortDirection.optional(),
  'order[createdAt]': sortDirection.optional(),
  'order[activatedAt]': sortDirection.optional(),
  'order[trialEndsOn]': sortDirection.optional(),
  'order[contractDetails.contractEnd]': sortDirection.optional(),
  'order[contractDetails][contractEnd]': sortDirection.optional(),
});

/** The non-empty values of a filter's single and repeated forms; undefined when there are none. */
function values(...given: (string | string[] | undefined)[]): string[] | undefined {
  const list = given.flat().filter((v): v is string => typeof v === 'string' && v !== '');
  return list.length ? list : undefined;
}

export async function listSubscriptions(ctx: ServiceContext, q: z.output<typeof subscriptionListQuery>) {
  // The schema allows only statuses and '' (no filter), which values() leaves out.
  const statuses = values(q.status, q['status[]'])?.filter((v): v is SubscriptionStatus => v !== '');
  const order = (['status', 'createdAt', 'activatedAt', 'trialEndsOn', 'contractDetails.contractEnd'] as const).flatMap((f) => {
    const dir = f === 'contractDetails.contractEnd' ? (q['order[contractDetails.contractEnd]'] ?? q['order[contractDetails][contractEnd]']) : q[`order[${f}]`];
    return dir ? [{ field: f === 'contractDetails.contractEnd' ? ('contractEnd' as const) : f, dir }] : [];
  });
  return listFiltered(ctx, {
    page: q.page,
    limit: q.limit,
    ids: values(q.id, q['id[]']),
    customers: values(q.customer, q['customer[]']),
    number: q.number,
    statuses,
    paymentMethodTypes: values(q['paymentMethod.type'], q['paymentMethod.type[]'], q['paymentMethod[type]'], q['paymentMethod[type][]']),
    productIds: values(q['items.product.id'], q['items.product.id[]'], q['items[product][id]'], q['items[product][id][]']),
    partner: q.partner,
    search: q.search?.trim() || undefined,
    order,
  });
}

interface SubscriptionFilters extends Page {
  ids?: string[];
  customers?: string[];
  number?: string;
  statuses?: SubscriptionStatus[];
  paymentMethodTypes?: string[];
  productIds?: string[];
  partner?: string;
  search?: string;
  order: { field: 'status' | 'createdAt' | 'activatedAt' | 'trialEndsOn' | 'contractEnd'; dir: 'asc' | 'desc' }[];
}

const ORDER_COLUMNS = {
  status: subscriptions.status,
  createdAt: subscriptions.createdAt,
  activatedAt: subscriptions.activatedAt,
  trialEndsOn: subscriptions.trialEndsOn,
};

/**
 * Sorting by the contract end: the end moves with every automatic renewal, so it is computed per
 * subscription at `now` (open-ended subscriptions never end: last ascending, first descending), then the page is cut.
 */
async function listByContractEnd(ctx: ServiceContext, q: SubscriptionFilters, where: SQL, dir: 'asc' | 'desc') {
  const rows = await ctx.db
    .select({ id: subscriptions.id, start: subscriptions.contractStart, period: subscriptions.contractPeriod, createdAt: subscriptions.createdAt, timeZone: customers.timeZone })
    .from(subscriptions)
    .innerJoin(customers, and(eq(customers.tenantId, subscriptions.tenantId), eq(customers.id, subscriptions.customerId)))
    .where(where);
  const ends = rows.map((r) => {
    const period = r.period ? parseDuration(r.period) : null;
    const start = new Date(r.start);
    const end = period ? contractTerm(start, period, ctx.now < start ? start : ctx.now, r.timeZone).end : null;
    return { ...r, end: end?.toISOString() ?? null };
  });
  ends.sort((a, b) => {
    if (a.end !== b.end) {
      // No contract end means never ending: after every date ascending, before them descending.
      const cmp = a.end === null ? 1 : b.end === null ? -1 : a.end.localeCompare(b.end);
      return dir === 'asc' ? cmp : -cmp;
    }
    return b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);
  });
  const pageIds = ends.slice(pageOffset(q), pageOffset(q) + q.limit).map((r) => r.id);
  const pageRows = pageIds.length ? await ctx.db.select().from(subscriptions).where(tenantRowsById(subscriptions, ctx.tenant.id, pageIds)) : [];
  const ordered = pageIds.map((id) => pageRows.find((r) => r.id === id)!);
  const aggs = await assembleSubscriptions(ctx, ordered);
  return collection(
    aggs.map((a) => renderSubscription(a, ctx.now)),
    ends.length,
    q,
  );
}

async function listFiltered(ctx: ServiceContext, q: SubscriptionFilters) {
  const t = ctx.tenant.id;
  const filters: (SQL | undefined)[] = [eq(subscriptions.tenantId, t)];
  if (q.ids?.length) filters.push(inJson(subscriptions.id, q.ids));
  if (q.customers?.length) filters.push(inJson(subscriptions.customerId, q.customers));
  if (q.number) filters.push(eq(subscriptions.number, q.number));
  if (q.statuses?.length) filters.push(inJson(subscriptions.status, q.statuses));
  if (q.paymentMethodTypes?.length) {
    filters.push(sql`EXISTS (SELECT 1 FROM payment_methods m WHERE m.tenant_id = ${t} AND ${inJson(sql.raw('m.type'), q.paymentMethodTypes)}
      AND m.id = coalesce(${outer(subscriptions.paymentMethodId)},
        (SELECT d.id FROM payment_methods d WHERE d.tenant_id = ${t} AND d.customer_id = ${outer(subscriptions.customerId)} AND d.is_default = 1 LIMIT 1)))`);
  }
  if (q.productIds?.length) {
    filters.push(sql`EXISTS (SELECT 1 FROM subscription_items i WHERE i.tenant_id = ${t} AND i.subscription_id = ${outer(subscriptions.id)}
      AND ${inJson(sql.raw('i.product_id'), q.productIds)})`);
  }
  if (q.partner) {
    filters.push(sql`EXISTS (SELECT 1 FROM customers c WHERE c.tenant_id = ${t} AND c.id = ${outer(subscriptions.customerId)} AND c.partner_id = ${q.partner})`);
  }
  if (q.search) {
    const text = q.search;
    // The customer's columns through a correlated subquery: the page is still one select of subscriptions.
    filters.push(
      or(
        containsText(subscriptions.number, text),
        containsText(subscriptions.name, text),
        containsText(subscriptions.externalId, text),
        sql`EXISTS (SELECT 1 FROM customers c WHERE c.tenant_id = ${t} AND c.id = ${outer(subscriptions.customerId)} AND (${or(
          containsText(sql.raw('c.first_name'), text),
          containsText(sql.raw('c.last_name'), text),
          containsText(sql.raw(`(coalesce(c.first_name, '') || ' ' || coalesce(c.last_name, ''))`), text),
          containsText(sql.raw('c.company_name'), text),
          containsText(sql.raw('c.customer_number'), text),
          containsText(sql.raw('c.email_key'), text.toLowerCase()),
        )}))`,
      ),
    );
  }
  const where = and(...filters);
  const byEnd = q.order.find((o) => o.field === 'contractEnd');
  if (byEnd) return listByContractEnd(ctx, q, where!, byEnd.dir);
  const order: SQL[] = [];
  for (const o of q.order) order.push(o.dir === 'asc' ? asc(ORDER_COLUMNS[o.field as keyof typeof ORDER_COLUMNS]) : desc(ORDER_COLUMNS[o.field as keyof typeof ORDER_COLUMNS]));
  order.push(desc(subscriptions.createdAt), desc(subscriptions.id));
  const [[total], rows] = await ctx.db.batch([
    ctx.db.select({ n: count() }).from(subscriptions).where(where),
    ctx.db.select().from(subscriptions).where(where).orderBy(...order).limit(q.limit).offset(pageOffset(q)),
  ]);
  const aggs = await assembleSubscriptions(ctx, rows);
  return collection(
    aggs.map((a) => renderSubscription(a, ctx.now)),
    total?.n ?? 0,
    q,
  );
}
