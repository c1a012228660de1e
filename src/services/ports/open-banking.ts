import type { BankItem } from '../../documents/camt/model';
import type { Env } from '../../env';
import type { Db } from '../../db/client';
import { randomToken } from '../../lib/ids';
import { nextSequenceValue } from '../common/sequences';

/**
 * The open-banking port: linking a bank account through a provider (PSD2 account information) and
 * pulling its booked transactions after a cursor. Only the local fake provider exists so far; a real
 * one (GoCardless Bank Account Data, finAPI, Tink) implements the same three calls
 * (docs/decisions.md, Payments, "Open banking").
 */
export interface LinkedAccount {
  /** The provider's handle of the account and its consent (secret). */
  providerAccountId: string;
  status: 'linked' | 'pending';
  bankName: string | null;
  /** When the consent ends (PSD2: at most 180 days, then the account must be linked again). */
  validUntil: string;
}

export interface OpenBankingProvider {
  readonly name: string;
  link(input: { tenantId: string; iban: string; bankName: string | null; now: Date }): Promise<LinkedAccount>;
  /** Booked transactions after `cursor` (null: from the start of the consent), oldest first, and the cursor to continue from. */
  transactions(providerAccountId: string, cursor: string | null): Promise<{ items: BankItem[]; cursor: string | null }>;
  unlink(providerAccountId: string): Promise<void>;
}

/** One booked transaction as the fake provider's feed holds it (what a demo or a test puts in). */
export interface FakeBankTransaction {
  bookingDate: string;
  /** Signed decimal string: credits positive. */
  amount: string;
  currency: string;
  counterpartyName: string | null;
  counterpartyIban: string | null;
  remittanceInformation: string | null;
  endToEndId: string | null;
  /** A returned direct debit (an R-transaction): the ISO reason code (MD06, AM04…), its mandate and the bank's charge. */
  returnReason?: string | null;
  mandateId?: string | null;
  charges?: string | null;
}

const CONSENT_DAYS = 180;
const FEED = (providerAccountId: string) => `open-banking-fake/${providerAccountId}/`;

/**
 * The fake provider: linking always succeeds; an account's feed lives in R2 (so the worker, the
 * cron and the tests see the same one) and is filled through `feedFakeTransactions`, which the API
 * offers for test-mode tenants only.
 */
export function fakeOpenBanking(env: Env): OpenBankingProvider {
  return {
    name: 'fake',
    async link({ now, bankName }) {
      return {
        providerAccountId: `fake_${randomToken()}`,
        status: 'linked',
        bankName: bankName ?? 'Fake Bank',
        validUntil: new Date(now.getTime() + CONSENT_DAYS * 86_400_000).toISOString(),
      };
    },
    async transactions(providerAccountId, cursor) {
      const items: BankItem[] = [];
      let next = cursor;
      let listCursor: string | undefined;
      do {
        const page = await env.DOCUMENTS.list({ prefix: FEED(providerAccountId), cursor: listCursor, ...(cursor ? { startAfter: cursor } : {}) });
        for (const object of page.objects) {
          const body = await env.DOCUMENTS.get(object.key);
          if (!body) continue;
          const t = (await body.json()) as FakeBankTransaction;
          items.push(fakeItem(object.key, t));
          next = object.key;
        }
        listCursor = page.truncated ? page.cursor : undefined;
      } while (listCursor);
      return { items, cursor: next };
    },
    async unlink(providerAccountId) {
      const page = await env.DOCUMENTS.list({ prefix: FEED(providerAccountId) });
      if (page.objects.length) await env.DOCUMENTS.delete(page.objects.map((o) => o.key));
    },
  };
}

function fakeItem(key: string, t: FakeBankTransaction): BankItem {
  return {
    source: key,
    statementId: null,
    accountIban: null,
    amount: t.amount,
    currency: t.currency,
    bookingDate: t.bookingDate,
    valueDate: t.bookingDate,
    status: 'BOOK',
    // The feed key is unique and stable: the same transaction pulled twice is imported once.
    accountServicerReference: key,
    detailIndex: null,
    endToEndId: t.endToEndId,
    mandateId: t.mandateId ?? null,
    creditorId: null,
    counterpartyName: t.counterpartyName,
    counterpartyIban: t.counterpartyIban,
    ultimateCounterpartyName: null,
    remittance: t.remittanceInformation,
    structuredReferences: [],
    returnInfo: t.returnReason ? { reason: t.returnReason, additionalInfo: null } : null,
    charges: t.charges ?? null,
    bankTransactionCode: null,
    reversal: false,
  };
}

/** Appends transactions to a fake account's feed, in order. */
export async function feedFakeTransactions(env: Env, db: Db, tenantId: string, providerAccountId: string, transactions: FakeBankTransaction[]) {
  // Keys sort in the order they were fed: a counter per account, then the position in the batch.
  const batch = await nextSequenceValue(db, tenantId, `open_banking_fake:${providerAccountId}`, 1);
  await Promise.all(
    transactions.map((t, i) =>
      env.DOCUMENTS.put(`${FEED(providerAccountId)}${String(batch).padStart(12, '0')}-${String(i).padStart(6, '0')}.json`, JSON.stringify(t), { httpMetadata: { contentType: 'application/json' } }),
    ),
  );
}

export function openBankingProvider(env: Env): OpenBankingProvider {
  return fakeOpenBanking(env);
}
