import { z } from '@hono/zod-openapi';
import { and, desc, eq, inArray } from 'drizzle-orm';
import { fetchPage } from '../../db/paging';
import { transactions } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { paginationQuery } from '../../http/pagination';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../../schemas/transactions';
import type { ServiceContext } from '../context';
import { renderTransaction } from './transaction-render';

const oneOrMany = <T extends z.ZodTypeAny>(item: T) =>
  z
    .union([item, z.array(item).max(20)])
    .optional()
    .transform((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]));

const id = z.string().min(1).max(64);

const gateway = z.string().min(1).max(40);
const status = z.enum(TRANSACTION_STATUSES);
const type = z.enum(TRANSACTION_TYPES);

/** Each filter takes one value, the parameter repeated, or the `name[]` form query-string libraries send. */
export const transactionListQuery = z.object({
  ...paginationQuery,
  customer: oneOrMany(id),
  'customer[]': oneOrMany(id),
  invoice: oneOrMany(id),
  'invoice[]': oneOrMany(id),
  status: oneOrMany(status),
  'status[]': oneOrMany(status),
  gateway: oneOrMany(gateway),
  'gateway[]': oneOrMany(gateway),
  type: oneOrMany(type),
  'type[]': oneOrMany(type),
});

const either = <T>(a: T[] | undefined, b: T[] | undefined) => (a || b ? [...(a ?? []), ...(b ?? [])] : undefined);

export async function listTransactions(ctx: ServiceContext, q: z.output<typeof transactionListQuery>) {
  const t = transactions;
  const customer = either(q.customer, q['customer[]']);
  const invoice = either(q.invoice, q['invoice[]']);
  const statuses = either(q.status, q['status[]']);
  const gateways = either(q.gateway, q['gateway[]']);
  const types = either(q.type, q['type[]']);
  const where = and(
    eq(t.tenantId, ctx.tenant.id),
    customer ? inArray(t.customerId, customer) : undefined,
    invoice ? inArray(t.invoiceId, invoice) : undefined,
    statuses ? inArray(t.status, statuses) : undefined,
    gateways ? inArray(t.gateway, gateways) : undefined,
    types ? inArray(t.type, types) : undefined,
  );
  return fetchPage(ctx.db, t, where, [desc(t.createdAt), desc(t.id)], q, renderTransaction);
}

export async function getTransaction(ctx: ServiceContext, transactionId: string) {
  const row = await ctx.db.select().from(transactions).where(and(eq(transactions.tenantId, ctx.tenant.id), eq(transactions.id, transactionId))).get();
  if (!row) throw ApiError.notFound('Transaction');
  return renderTransaction(row);
}
