import { z } from '@hono/zod-openapi';
import { and, asc, eq, sql } from 'drizzle-orm';
import { electronicFormatIBAN, isSEPACountry, isValidIBAN } from 'ibantools';
import { checkDecimal, documentAmountLimit, withinDocumentLimit } from '../../billing/money';
import type { ShardSweep } from '../../db/directory';
import { fetchPage } from '../../db/paging';
import { openBankingAccounts, tenants } from '../../db/schema';
import type { Env } from '../../env';
import { ApiError, Violations } from '../../http/errors';
import { paginationQuery } from '../../http/pagination';
import { sha256Hex } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { logError } from '../../lib/log';
import { CURRENCY_MINOR_UNITS } from '../../reference/iso';
import type { OpenBankingAccountResource } from '../../schemas/open-banking';
import { importBankItems } from '../bank/import';
import { createServiceContext, type ServiceContext } from '../context';
import { maskIban } from '../documents/settings';
import { feedFakeTransactions, type FakeBankTransaction } from '../ports/open-banking';

// Open-banking accounts (docs/decisions.md, Payments, "Open banking"): a bank account linked through
// the provider port; its booked transactions are pulled (nightly, or on request) after the stored
// cursor and go through the same import and matching as a camt statement.

type AccountRow = typeof openBankingAccounts.$inferSelect;

export function renderOpenBankingAccount(r: AccountRow): OpenBankingAccountResource {
  return {
    id: r.id,
    alias: r.alias,
    bankName: r.bankName,
    iban: maskIban(r.iban),
    status: r.status as OpenBankingAccountResource['status'],
    provider: r.provider,
    createdAt: r.createdAt,
    validUntil: r.validUntil,
    lastAccessedAt: r.lastAccessedAt,
    lastInformedAt: r.lastInformedAt,
  };
}

export interface LinkInput {
  iban: string;
  alias: string | null;
  bankName: string | null;
}

export async function linkOpenBankingAccount(ctx: ServiceContext, input: LinkInput) {
  const iban = electronicFormatIBAN(input.iban) ?? '';
  if (!isValidIBAN(iban)) throw ApiError.violation('iban', 'Must be a valid IBAN.', 'invalid_iban');
  if (!isSEPACountry(iban.slice(0, 2))) throw ApiError.violation('iban', 'Must be an account in the SEPA area.', 'not_sepa');
  const linked = await ctx.openBanking.link({ tenantId: ctx.tenant.id, iban, bankName: input.bankName, now: ctx.now });
  const nowIso = ctx.now.toISOString();
  const row: AccountRow = {
    id: newId(),
    tenantId: ctx.tenant.id,
    alias: input.alias,
    bankName: linked.bankName,
    iban,
    status: linked.status,
    provider: ctx.openBanking.name,
    providerAccountId: linked.providerAccountId,
    createdAt: nowIso,
    updatedAt: nowIso,
    validUntil: linked.validUntil,
    lastAccessedAt: null,
    lastInformedAt: null,
    syncCursor: null,
  };
  await ctx.db.insert(openBankingAccounts).values(row);
  return renderOpenBankingAccount(row);
}

export const openBankingListQuery = z.object({ ...paginationQuery });

export async function listOpenBankingAccounts(ctx: ServiceContext, q: z.output<typeof openBankingListQuery>) {
  return fetchPage(ctx.db, openBankingAccounts, eq(openBankingAccounts.tenantId, ctx.tenant.id), [asc(openBankingAccounts.createdAt), asc(openBankingAccounts.id)], q, renderOpenBankingAccount);
}

async function findAccount(ctx: ServiceContext, id: string): Promise<AccountRow> {
  const row = await ctx.db.select().from(openBankingAccounts).where(and(eq(openBankingAccounts.tenantId, ctx.tenant.id), eq(openBankingAccounts.id, id))).get();
  if (!row) throw ApiError.notFound('Open-banking account');
  return row;
}

export const getOpenBankingAccount = async (ctx: ServiceContext, id: string) => renderOpenBankingAccount(await findAccount(ctx, id));

/** Ends the consent at the provider and removes the account; its imported lines stay. */
export async function unlinkOpenBankingAccount(ctx: ServiceContext, id: string): Promise<void> {
  const row = await findAccount(ctx, id);
  await ctx.openBanking.unlink(row.providerAccountId);
  await ctx.db.delete(openBankingAccounts).where(and(eq(openBankingAccounts.tenantId, ctx.tenant.id), eq(openBankingAccounts.id, id)));
}

/**
 * Pulls the account's new booked transactions and imports them like a statement (the batch is
 * identified by the cursor it starts from and the items, so a pull repeated after a crash adds
 * nothing). An account whose consent ended is `expired` and pulled no more.
 */
export async function syncOpenBankingAccount(ctx: ServiceContext, id: string) {
  const row = await findAccount(ctx, id);
  const nowIso = ctx.now.toISOString();
  if (row.status !== 'linked') throw ApiError.conflict(`The account is ${row.status}; link it again to pull its transactions.`, 'not-linked');
  if (row.validUntil && row.validUntil < nowIso) {
    await ctx.db.update(openBankingAccounts).set({ status: 'expired', updatedAt: nowIso }).where(and(eq(openBankingAccounts.tenantId, ctx.tenant.id), eq(openBankingAccounts.id, id)));
    throw ApiError.conflict('The consent for this account ended; link it again to pull its transactions.', 'consent-expired');
  }
  const pulled = await ctx.openBanking.transactions(row.providerAccountId, row.syncCursor);
  const items = pulled.items.map((item) => ({ ...item, accountIban: row.iban }));
  let imported = 0;
  if (items.length > 0) {
    const sha256 = await sha256Hex(JSON.stringify([row.id, row.syncCursor, items.map((i) => i.source)]));
    const outcome = await importBankItems(ctx, items, { format: 'open_banking', sha256, openBankingAccountId: row.id });
    imported = outcome.result.added;
  }
  const next: AccountRow = {
    ...row,
    syncCursor: pulled.cursor,
    lastAccessedAt: nowIso,
    lastInformedAt: imported > 0 ? nowIso : row.lastInformedAt,
    updatedAt: nowIso,
  };
  await ctx.db
    .update(openBankingAccounts)
    .set({ syncCursor: next.syncCursor, lastAccessedAt: next.lastAccessedAt, lastInformedAt: next.lastInformedAt, updatedAt: nowIso })
    .where(and(eq(openBankingAccounts.tenantId, ctx.tenant.id), eq(openBankingAccounts.id, id), eq(openBankingAccounts.updatedAt, row.updatedAt)));
  return { account: renderOpenBankingAccount(next), pulled: items.length, imported };
}

/** The nightly pull: every linked account of every tenant on a shard, at the tenant's now. */
export async function syncAllOpenBankingAccounts(env: Env, sweep: ShardSweep): Promise<{ accounts: number; imported: number }> {
  const db = sweep.db;
  const result = { accounts: 0, imported: 0 };
  const [linked, owners] = await db.batch([
    db.select({ id: openBankingAccounts.id, tenantId: openBankingAccounts.tenantId }).from(openBankingAccounts).where(eq(openBankingAccounts.status, 'linked')),
    db.select().from(tenants).where(sql`${tenants.id} IN (SELECT tenant_id FROM open_banking_accounts WHERE status = 'linked')`),
  ]);
  const tenantById = new Map(owners.filter((t) => sweep.tenants.has(t.id)).map((t) => [t.id, t]));
  for (const account of linked) {
    const tenant = tenantById.get(account.tenantId);
    if (!tenant) continue;
    try {
      const synced = await syncOpenBankingAccount(createServiceContext({ env, db, tenant }), account.id);
      result.accounts++;
      result.imported += synced.imported;
    } catch (err) {
      if (!(err instanceof ApiError)) logError({ job: 'open-banking-sync', tenantId: account.tenantId, accountId: account.id }, err);
    }
  }
  return result;
}

/**
 * The fake provider's feed, for test-mode tenants: what a demo or a test wants the "bank" to have
 * booked. Refused for live tenants and for accounts of another provider.
 */
export async function feedFakeAccount(ctx: ServiceContext, id: string, transactions: FakeBankTransaction[]) {
  if (ctx.tenant.mode !== 'test') throw ApiError.forbidden('The fake bank feed is for test-mode tenants only.');
  const row = await findAccount(ctx, id);
  if (row.provider !== 'fake') throw ApiError.conflict('Only accounts of the fake provider take a fed transaction.', 'not-fake');
  const v = new Violations();
  transactions.forEach((t, i) => {
    const scale = CURRENCY_MINOR_UNITS.get(t.currency);
    if (scale === undefined) v.add(`transactions[${i}].currency`, 'Must be an ISO 4217 currency.', 'invalid_currency');
    else if (checkDecimal(t.amount, { maxDecimals: scale }) !== null || /^-?0+(\.0+)?$/.test(t.amount)) v.add(`transactions[${i}].amount`, `Must be a non-zero decimal with at most ${scale} decimals.`, 'invalid_amount');
    else if (!withinDocumentLimit(t.amount, t.currency)) v.add(`transactions[${i}].amount`, `Must stay below ${documentAmountLimit(t.currency).toFixed(0)} ${t.currency}.`, 'too_large');
    if (scale !== undefined && t.charges != null && (checkDecimal(t.charges, { maxDecimals: scale, allowNegative: false }) !== null || !withinDocumentLimit(t.charges, t.currency))) {
      v.add(`transactions[${i}].charges`, `Must be a decimal of at most ${scale} decimals, not negative.`, 'invalid_amount');
    }
    if (t.counterpartyIban !== null && !isValidIBAN(electronicFormatIBAN(t.counterpartyIban) ?? '')) v.add(`transactions[${i}].counterpartyIban`, 'Must be a valid IBAN.', 'invalid_iban');
  });
  v.throwIfAny();
  await feedFakeTransactions(ctx.env, ctx.db, ctx.tenant.id, row.providerAccountId, transactions);
  return { fed: transactions.length };
}
