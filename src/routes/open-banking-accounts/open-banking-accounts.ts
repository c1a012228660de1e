import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../http/context';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../http/openapi';
import { collectionSchema } from '../../http/pagination';
import { calendarDate, idParam, optionalText } from '../../http/schemas';
import { OpenBankingAccountSchema, OpenBankingSyncSchema } from '../../schemas/open-banking';
import {
  feedFakeAccount,
  getOpenBankingAccount,
  linkOpenBankingAccount,
  listOpenBankingAccounts,
  openBankingListQuery,
  syncOpenBankingAccount,
  unlinkOpenBankingAccount,
} from '../../services/payments/open-banking';

const tags = ['Open banking'];
const params = z.object({ id: idParam('id', 'Open-banking account id') });

export const openBankingAccountRoutes = createRouter();

const LinkSchema = z
  .strictObject({
    iban: z.string().min(15).max(42).openapi({ example: 'DE89370400440532013000' }),
    alias: optionalText(1, 100),
    bankName: optionalText(1, 140),
  })
  .openapi('OpenBankingAccountLink');

openBankingAccountRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/open-banking-accounts',
    access: 'open-banking-account:write',
    tags,
    summary: "Link one of the tenant's bank accounts through the open-banking provider",
    description: 'Its booked transactions are pulled every night (and by POST …/sync) and matched like an imported statement. The consent lasts 180 days.',
    request: { body: jsonBody(LinkSchema) },
    responses: { 201: jsonResponse(OpenBankingAccountSchema, 'The linked account (IBAN masked)') },
  }),
  async (c) => {
    const b = c.req.valid('json');
    return c.json(await linkOpenBankingAccount(serviceContext(c), { iban: b.iban, alias: b.alias ?? null, bankName: b.bankName ?? null }), 201);
  },
);

openBankingAccountRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/open-banking-accounts',
    access: 'open-banking-account:read',
    tags,
    summary: 'Linked bank accounts',
    request: { query: openBankingListQuery },
    responses: { 200: jsonResponse(collectionSchema(OpenBankingAccountSchema, 'OpenBankingAccountCollection'), 'Accounts') },
  }),
  async (c) => c.json(await listOpenBankingAccounts(serviceContext(c), c.req.valid('query')), 200),
);

openBankingAccountRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/open-banking-accounts/{id}',
    access: 'open-banking-account:read',
    tags,
    summary: 'A linked bank account',
    request: { params },
    responses: { 200: jsonResponse(OpenBankingAccountSchema, 'The account') },
  }),
  async (c) => c.json(await getOpenBankingAccount(serviceContext(c), c.req.valid('param').id), 200),
);

openBankingAccountRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/open-banking-accounts/{id}',
    access: 'open-banking-account:write',
    tags,
    summary: 'Unlink a bank account (its imported transactions stay)',
    request: { params },
    responses: { 204: noContent },
  }),
  async (c) => {
    await unlinkOpenBankingAccount(serviceContext(c), c.req.valid('param').id);
    return c.body(null, 204);
  },
);

openBankingAccountRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/open-banking-accounts/{id}/sync',
    access: 'open-banking-account:write',
    tags,
    summary: "Pull the account's new transactions now and match them",
    request: { params },
    responses: { 200: jsonResponse(OpenBankingSyncSchema, 'What was pulled and imported') },
  }),
  async (c) => c.json(await syncOpenBankingAccount(serviceContext(c), c.req.valid('param').id), 200),
);

const FakeTransactionSchema = z.strictObject({
  bookingDate: calendarDate,
  amount: z.string().max(24).openapi({ description: 'Signed decimal: credits positive', example: '119.00' }),
  currency: z.string().length(3).openapi({ example: 'EUR' }),
  counterpartyName: z.string().max(140).nullable().default(null),
  counterpartyIban: z.string().max(42).nullable().default(null),
  remittanceInformation: z.string().max(500).nullable().default(null),
  endToEndId: z.string().max(35).nullable().default(null),
  returnReason: z.string().regex(/^[A-Z0-9]{4}$/).nullable().default(null).openapi({ description: 'A returned direct debit: its ISO reason code (MD06, AM04, …)' }),
  mandateId: z.string().max(35).nullable().default(null),
  charges: z.string().max(24).nullable().default(null).openapi({ description: "The bank's charge on a return, a decimal" }),
});

openBankingAccountRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/open-banking-accounts/{id}/fake-transactions',
    access: 'open-banking-account:write',
    tags,
    summary: "Test-mode tenants: book transactions on a fake provider's account",
    description: 'The fake provider stands in for a bank in tests and demos; the next pull (POST …/sync, or the nightly one) brings what was booked here.',
    request: { params, body: jsonBody(z.strictObject({ transactions: z.array(FakeTransactionSchema).min(1).max(1000) }).openapi('FakeBankTransactions')) },
    responses: { 201: jsonResponse(z.object({ fed: z.number().int() }), 'How many were booked') },
  }),
  async (c) => c.json(await feedFakeAccount(serviceContext(c), c.req.valid('param').id, c.req.valid('json').transactions), 201),
);
