import { z } from '@hono/zod-openapi';
import { and, asc, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import { parseDuration } from '../../billing/durations';
import { contractTerm } from '../../billing/periods';
import { inJson, outer, tenantRowsById } from '../../db/client';
import { customers, subscriptions } from '../../db/schema';
import type { ServiceContext } from '../context';
import { ApiError } from '../../http/errors';
import { collection, pageOffset, paginationQuery, sortDirection, type Page } from '../../http/pagination';
import { SUBSCRIPTION_STATUSES } from '../../schemas/subscriptions';
import { type SubscriptionStatus, assembleSubscriptions, renderSubscription } from './aggregate';

// A filter given once (`status=active`) or repeated (`status[]=active&status[]=paused`).
const one = z.string().max(255).optional();
const some = z.union([z.string().max(255), z.array(z.string().max(255)).max(100)]).optional();

/** GET /subscriptions: filters and sort order. */
export const subscriptionListQuery = z.object({
  ...paginationQuery,
  id: one,
  'id[]': some,
  customer: one,
  'customer[]': some,
  number: one,
  status: z.union([z.enum(SUBSCRIPTION_STATUSES), z.literal('')]).optional().openapi({ description: 'An empty value is no filter' }),
  'status[]': z.union([z.enum(SUBSCRIPTION_STATUSES), z.array(z.enum(SUBSCRIPTION_STATUSES)).max(100)]).optional(),
  'paymentMethod.type': one,
  'paymentMethod.type[]': some,
  'items.product.id': one,
  'items.product.id[]': some,
  partner: z.string().max(64).optional(),
  'order[status]': sortDirection.optional(),
  'order[createdAt]': sortDirection.optional(),
  'order[activatedAt]': sortDirection.optional(),
  'order[trialEndsOn]': sortDirection.optional(),
  'order[contractDetails.contractEnd]': sortDirection.optional(),
});

/** The non-empty values of a filter's single and repeated forms; undefined when there are none. */
function values(...given: (string | string[] | undefined)[]): string[] | undefined {
  const list = given.flat().filter((v): v is string => typeof v === 'string' && v !== '');
  return list.length ? list : undefined;
}

const isStatus = (s: string): s is SubscriptionStatus => (SUBSCRIPTION_STATUSES as readonly string[]).includes(s);

export async function listSubscriptions(ctx: ServiceContext, q: z.output<typeof subscriptionListQuery>) {
  const statuses = values(q.status, q['status[]']);
  const unknown = statuses?.find((s) => !isStatus(s));
  if (unknown !== undefined) {
    const param = values(q['status[]'])?.includes(unknown) ? 'status[]' : 'status';
    throw ApiError.badRequest('Invalid query parameters.', [
      { propertyPath: param, message: `Unknown status "${unknown}"; use ${SUBSCRIPTION_STATUSES.join(', ')}.`, code: 'invalid_value' },
    ]);
  }
  const order = (['status', 'createdAt', 'activatedAt', 'trialEndsOn', 'contractDetails.contractEnd'] as const).flatMap((f) => {
    const dir = q[`order[${f}]`];
    return dir ? [{ field: f === 'contractDetails.contractEnd' ? ('contractEnd' as const) : f, dir }] : [];
  });
  return listFiltered(ctx, {
    page: q.page,
    limit: q.limit,
    ids: values(q.id, q['id[]']),
    customers: values(q.customer, q['customer[]']),
    number: q.number,
    statuses: statuses?.filter(isStatus),
    paymentMethodTypes: values(q['paymentMethod.type'], q['paymentMethod.type[]']),
    productIds: values(q['items.product.id'], q['items.product.id[]']),
    partner: q.partner,
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
