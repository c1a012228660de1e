import { z } from '@hono/zod-openapi';
import { and, desc, eq, inArray } from 'drizzle-orm';
import { fetchPage } from '../../db/paging';
import { transactions } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { filterValues, listFilter, paginationQuery } from '../../http/pagination';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../../schemas/transactions';
import type { ServiceContext } from '../context';
import { renderTransaction } from './transaction-render';

const id = z.string().min(1).max(64);

export const transactionListQuery = z.object({
  ...paginationQuery,
  ...listFilter('customer', id),
  ...listFilter('invoice', id),
  ...listFilter('status', z.enum(TRANSACTION_STATUSES)),
  ...listFilter('gateway', z.string().min(1).max(40)),
  ...listFilter('type', z.enum(TRANSACTION_TYPES)),
});

export async function listTransactions(ctx: ServiceContext, q: z.output<typeof transactionListQuery>) {
  const t = transactions;
  const customer = filterValues(q.customer, q['customer[]']);
  const invoice = filterValues(q.invoice, q['invoice[]']);
  const statuses = filterValues(q.status, q['status[]']);
  const gateways = filterValues(q.gateway, q['gateway[]']);
  const types = filterValues(q.type, q['type[]']);
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
