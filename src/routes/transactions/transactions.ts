import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { exactNumbers } from '../../http/exact-numbers';
import { createRouter, defineRoute, jsonResponse } from '../../http/openapi';
import { collectionSchema } from '../../http/pagination';
import { decimalOrNumber, idParam, optionalText } from '../../http/schemas';
import { TransactionSchema } from '../../schemas/transactions';
import { refundTransaction } from '../../services/payments/refunds';
import { getTransaction, listTransactions, transactionListQuery } from '../../services/payments/transactions';

const tags = ['Transactions'];
const params = z.object({ id: idParam('id', 'Transaction id') });

export const transactionRoutes = createRouter();

transactionRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/transactions',
    access: 'transaction:read',
    tags,
    summary: 'Payments, refunds and returned debits, newest first',
    description: 'Filters take one value or several (`status=failed&status=pending`).',
    request: { query: transactionListQuery },
    responses: { 200: jsonResponse(collectionSchema(TransactionSchema, 'TransactionCollection'), 'Transactions') },
  }),
  async (c) => c.json(await listTransactions(serviceContext(c), c.req.valid('query')), 200),
);

transactionRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/transactions/{id}',
    access: 'transaction:read',
    tags,
    summary: 'A transaction',
    request: { params },
    responses: { 200: jsonResponse(TransactionSchema, 'The transaction') },
  }),
  async (c) => c.json(await getTransaction(serviceContext(c), c.req.valid('param').id), 200),
);

const RefundSchema = z
  .strictObject({
    amount: decimalOrNumber(undefined, {}, '19.99').nullable().optional().openapi({ description: 'Default: everything not yet refunded. A decimal string or a JSON number.' }),
    reason: optionalText(1, 255),
    createDocument: z.boolean().nullable().optional().openapi({ description: 'Whether a refund document (TYPE_REFUND) corrects the invoice; default true for a payment of an invoice' }),
  })
  .openapi('RefundRequest');

transactionRoutes.use('/transactions/:id/refund', exactNumbers('amount'));

transactionRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/transactions/{id}/refund',
    access: 'transaction:write',
    tags,
    summary: 'Refund a succeeded payment, in full or in part',
    description:
      'Card and testing payments are refunded through their gateway at once; SEPA and transfer payments get a pending refund that the next credit-transfer file (POST /sepa-xml {type: credit_transfer}) pays out. A refund that went through issues a refund document against the invoice and sends invoice.refunded.',
    request: { params, body: { required: false, content: { 'application/json': { schema: RefundSchema } } } },
    responses: { 201: jsonResponse(TransactionSchema, 'The refund transaction') },
  }),
  async (c) => {
    const body = c.req.valid('json') ?? {};
    const { refund } = await refundTransaction(serviceContext(c), c.req.valid('param').id, { amount: body.amount ?? null, reason: body.reason ?? null, createDocument: body.createDocument ?? null });
    return c.json(refund, 201);
  },
);
