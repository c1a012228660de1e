import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { exactNumbers } from '../../http/exact-numbers';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema } from '../../http/pagination';
import { decimalOrNumber, idParam } from '../../http/schemas';
import { BankAccountTransactionAssignmentSchema } from '../../schemas/bank';
import { createAssignment, deleteAssignment } from '../../services/bank/manual';
import { assignmentListQuery, getAssignment, listAssignments } from '../../services/bank/read';

const tags = ['Bank account transactions'];
const params = z.object({ id: idParam('id', 'Assignment id') });

const AssignmentBody = z
  .strictObject({
    bankAccountTransaction: z.string().min(1).max(64),
    invoice: z.string().min(1).max(64),
    amount: decimalOrNumber(undefined, {}, '119.00')
      .optional()
      .openapi({ description: 'Default: what the bank account transaction and the invoice both still have; at most the currency’s decimals' }),
    fee: decimalOrNumber(undefined, {}, '0.00').optional().openapi({ description: "The bank's fee on it, stored for information" }),
  })
  .openapi('BankAccountTransactionAssignmentInput');

export const bankAccountTransactionAssignmentRoutes = createRouter();

bankAccountTransactionAssignmentRoutes.use('/payment/bank-account-transaction-assignments', exactNumbers('amount', 'fee'));

bankAccountTransactionAssignmentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/payment/bank-account-transaction-assignments',
    access: 'bank-account-transaction:read',
    tags,
    summary: 'Assignments of bank account transactions to invoices, newest first',
    request: { query: assignmentListQuery },
    responses: { 200: jsonResponse(collectionSchema(BankAccountTransactionAssignmentSchema, 'BankAccountTransactionAssignmentCollection'), 'Assignments') },
  }),
  async (c) => c.json(await listAssignments(serviceContext(c), c.req.valid('query')), 200),
);

bankAccountTransactionAssignmentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/payment/bank-account-transaction-assignments',
    access: 'bank-account-transaction:write',
    tags,
    summary: 'Assign (part of) a credit to an invoice: a payment on it',
    description: 'A suggestion of the same pair is accepted with this amount. The amount may not exceed what is left of the line nor what the invoice still owes, and the currencies must agree.',
    request: { body: jsonBody(AssignmentBody) },
    responses: { 201: jsonResponse(BankAccountTransactionAssignmentSchema, 'The assignment') },
  }),
  async (c) => {
    const body = c.req.valid('json');
    return c.json(
      await createAssignment(serviceContext(c), { bankAccountTransaction: body.bankAccountTransaction, invoice: body.invoice, amount: body.amount ?? null, fee: body.fee ?? null }),
      201,
    );
  },
);

bankAccountTransactionAssignmentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/payment/bank-account-transaction-assignments/{id}',
    access: 'bank-account-transaction:read',
    tags,
    summary: 'An assignment',
    request: { params },
    responses: { 200: jsonResponse(BankAccountTransactionAssignmentSchema, 'The assignment') },
  }),
  async (c) => c.json(await getAssignment(serviceContext(c), c.req.valid('param').id), 200),
);

bankAccountTransactionAssignmentRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/payment/bank-account-transaction-assignments/{id}',
    access: 'bank-account-transaction:write',
    tags,
    summary: 'Remove an assignment: a suggestion goes; an accepted bank transfer is taken off its invoice again',
    description: 'Returned and collected direct debits cannot be removed (409): the bank moved that money.',
    request: { params },
    responses: { 204: noContent },
  }),
  async (c) => {
    await deleteAssignment(serviceContext(c), c.req.valid('param').id);
    return c.body(null, 204);
  },
);
