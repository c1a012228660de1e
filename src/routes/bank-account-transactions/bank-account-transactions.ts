import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { ApiError } from '../../http/errors';
import { createRouter, defineRoute, jsonBody, jsonResponse } from '../../http/openapi';
import { collectionSchema } from '../../http/pagination';
import { idParam } from '../../http/schemas';
import { AcceptSuggestionsResultSchema, BankAccountTransactionSchema, BankImportResultSchema } from '../../schemas/bank';
import { importStatement, MAX_STATEMENT_BYTES } from '../../services/bank/import';
import { acceptSuggestions, assignInvoices, ignoreLine } from '../../services/bank/manual';
import { bankTransactionListQuery, getBankTransaction, listBankTransactions } from '../../services/bank/read';

const tags = ['Bank account transactions'];
const params = z.object({ id: idParam('id', 'Bank account transaction id') });
const XML_TYPE = /^(application|text)\/xml\s*(;.*)?$/i;

const ImportJsonSchema = z
  .strictObject({
    file: z
      .string()
      .min(1)
      .max(Math.ceil(MAX_STATEMENT_BYTES / 3) * 4)
      .openapi({ description: 'The camt file, base64-encoded' }),
  })
  .openapi('BankStatementImportFile');

export const bankAccountTransactionRoutes = createRouter();

bankAccountTransactionRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/payment/bank-account-transactions/import',
    access: 'bank-account-transaction:write',
    tags,
    summary: 'Import a bank statement (camt.053, camt.054 or camt.052) and match its lines to invoices',
    description:
      'The body is the camt XML (application/xml or text/xml, at most 20 MB) or JSON {"file": "<base64>"}. The whole file is checked first: a file that is not camt, truncated, or has an amount its currency cannot book is a 422 naming each problem, and nothing is imported. The same file again answers 200 with the earlier import and adds nothing; lines another statement brought already are skipped. Lines are matched at once: certain matches are booked as payments, others wait as suggestions or for a person.',
    request: {
      body: {
        required: false,
        content: {
          'application/json': { schema: ImportJsonSchema },
          'application/xml': { schema: z.string().openapi({ description: 'The camt file' }) },
          'text/xml': { schema: z.string().openapi({ description: 'The camt file' }) },
        },
      },
    },
    responses: {
      201: jsonResponse(BankImportResultSchema, 'Imported and matched'),
      200: jsonResponse(BankImportResultSchema, 'The same file was imported before; nothing was added'),
    },
  }),
  async (c) => {
    const bytes = XML_TYPE.test(c.req.header('Content-Type') ?? '') ? new Uint8Array(await c.req.arrayBuffer()) : fileOf(c.req.valid('json') as { file?: string });
    const outcome = await importStatement(serviceContext(c), bytes);
    return outcome.created ? c.json(outcome.result, 201) : c.json(outcome.result, 200);
  },
);

/** The base64 `file` of a JSON body as bytes. */
function fileOf(body: { file?: string }): Uint8Array {
  if (body.file === undefined) throw ApiError.violation('file', 'Send the camt file as the body (application/xml) or base64 in "file".', 'required');
  const text = body.file.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) throw ApiError.violation('file', 'Must be base64.', 'invalid_base64');
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    throw ApiError.violation('file', 'Must be base64.', 'invalid_base64');
  }
  return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
}

bankAccountTransactionRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/payment/bank-account-transactions',
    access: 'bank-account-transaction:read',
    tags,
    summary: 'Booked lines of imported statements and open-banking accounts, newest booking first',
    request: { query: bankTransactionListQuery },
    responses: { 200: jsonResponse(collectionSchema(BankAccountTransactionSchema, 'BankAccountTransactionCollection'), 'Bank account transactions') },
  }),
  async (c) => c.json(await listBankTransactions(serviceContext(c), c.req.valid('query')), 200),
);

bankAccountTransactionRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/payment/bank-account-transactions/accept-suggestions',
    access: 'bank-account-transaction:write',
    tags,
    summary: 'Accept suggested assignments: each becomes a payment on its invoice',
    description: '`ids` name bank account transactions (all their suggestions) or suggested assignments; without `ids`, every suggestion of the tenant. A suggestion whose invoice was paid meanwhile is dropped; one it owes less is accepted for what is still owed.',
    request: {
      body: jsonBody(
        z.strictObject({ ids: z.array(z.string().min(1).max(64)).min(1).max(1000).optional().openapi({ description: 'Bank account transaction ids or suggested assignment ids' }) }).openapi('AcceptSuggestions'),
      ),
    },
    responses: { 200: jsonResponse(AcceptSuggestionsResultSchema, 'What was accepted') },
  }),
  async (c) => c.json(await acceptSuggestions(serviceContext(c), c.req.valid('json').ids), 200),
);

bankAccountTransactionRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/payment/bank-account-transactions/{id}',
    access: 'bank-account-transaction:read',
    tags,
    summary: 'A bank account transaction with its assignments, assigned amount and remainder',
    request: { params },
    responses: { 200: jsonResponse(BankAccountTransactionSchema, 'The bank account transaction') },
  }),
  async (c) => c.json(await getBankTransaction(serviceContext(c), c.req.valid('param').id), 200),
);

bankAccountTransactionRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/payment/bank-account-transactions/{id}/assign-invoices',
    access: 'bank-account-transaction:write',
    tags,
    summary: 'Pay invoices with what is left of a credit, oldest due first',
    description:
      'Fynn\'s body {"invoiceIds": [...]}. The remainder of the line is spread over the invoices: each is paid fully while it lasts, the last one touched partly; what is left over stays on the line. Replaces the line\'s suggestions.',
    request: { params, body: jsonBody(z.strictObject({ invoiceIds: z.array(z.string().min(1).max(64)).min(1).max(100) }).openapi('AssignInvoices')) },
    responses: { 200: jsonResponse(BankAccountTransactionSchema, 'The bank account transaction') },
  }),
  async (c) => c.json(await assignInvoices(serviceContext(c), c.req.valid('param').id, c.req.valid('json').invoiceIds), 200),
);

bankAccountTransactionRoutes.openapi(
  defineRoute({
    method: 'put',
    path: '/payment/bank-account-transactions/{id}/ignore',
    access: 'bank-account-transaction:write',
    tags,
    summary: 'Mark a line as nothing to match (STATUS_IGNORED); its suggestions are removed',
    request: { params },
    responses: { 200: jsonResponse(BankAccountTransactionSchema, 'The bank account transaction') },
  }),
  async (c) => c.json(await ignoreLine(serviceContext(c), c.req.valid('param').id), 200),
);
