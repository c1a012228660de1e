import { env } from 'cloudflare:workers';
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { api, countRows, del, expect422, get, post, query, type TestTenant } from '../support/api';
import { createCustomer, createTenant, keyWith, setClock } from '../support/builders';
import { finalizedInvoice, line } from '../documents/builders';
import { IBAN, MASKED_IBAN, OTHER_IBAN } from './builders';

// Open-banking accounts: linked through the provider port (the fake provider here), their booked
// transactions pulled on request and every night, and matched like an imported statement.

async function linked(t: TestTenant) {
  const res = await post(t, '/open-banking-accounts', { iban: 'DE89 3704 0044 0532 0130 00', alias: 'Main account' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const feed = (t: TestTenant, id: string, transactions: unknown[]) => post(t, `/open-banking-accounts/${id}/fake-transactions`, { transactions });

const credit = (amount: string, remittanceInformation: string) => ({ bookingDate: '2027-02-02', amount, currency: 'EUR', counterpartyName: 'Erika Mustermann', counterpartyIban: OTHER_IBAN, remittanceInformation, endToEndId: null });

describe('open-banking accounts', () => {
  it('links an account (IBAN masked), lists it as the spec shows, unlinks it', async () => {
    const t = await createTenant();
    await setClock(t, '2027-02-01T08:00:00.000Z');
    const account = await linked(t);
    expect(account).toEqual({
      id: expect.any(String),
      alias: 'Main account',
      bankName: 'Fake Bank',
      iban: MASKED_IBAN,
      status: 'linked',
      provider: 'fake',
      createdAt: '2027-02-01T08:00:00.000Z',
      validUntil: '2027-07-31T08:00:00.000Z',
      lastAccessedAt: null,
      lastInformedAt: null,
    });
    const list = await get(t, '/open-banking-accounts?page=1&limit=10');
    expect(list.body.data).toEqual([account]);
    expect(JSON.stringify(list.body)).not.toContain(IBAN);
    expect((await get(await createTenant(), `/open-banking-accounts/${account.id}`)).status).toBe(404);
    expect((await del(t, `/open-banking-accounts/${account.id}`)).status).toBe(204);
    expect((await get(t, '/open-banking-accounts')).body.data).toEqual([]);
  });

  it('refuses an invalid IBAN, an unknown field, and keys without the permission', async () => {
    const t = await createTenant();
    expect422(await post(t, '/open-banking-accounts', { iban: 'DE89370400440532013001' }), ['iban']);
    expect422(await post(t, '/open-banking-accounts', { iban: IBAN, secret: 'x' }), ['secret']);
    const reader = await keyWith(t, ['open-banking-account:read']);
    expect((await api('/open-banking-accounts', { token: reader, body: { iban: IBAN } })).status).toBe(403);
    expect(await countRows('open_banking_accounts', t)).toBe(0);
  });

  it('a pull imports the new transactions once and matches them; the nightly cron pulls every linked account', async () => {
    const t = await createTenant();
    await setClock(t, '2027-02-01T08:00:00.000Z');
    const c = await createCustomer(t);
    const a = await finalizedInvoice(t, c.id, [line('100.00')]);
    const b = await finalizedInvoice(t, c.id, [line('50.00')]);
    const account = await linked(t);
    expect((await feed(t, account.id, [credit('119.00', `Rechnung ${a.number}`), { ...credit('-12.00', 'Kontoführung'), counterpartyIban: null }])).status).toBe(201);

    const first = await post(t, `/open-banking-accounts/${account.id}/sync`, {});
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ pulled: 2, imported: 2, account: { lastAccessedAt: '2027-02-01T08:00:00.000Z', lastInformedAt: '2027-02-01T08:00:00.000Z' } });
    expect((await get(t, `/invoices/${a.id}`)).body).toMatchObject({ status: 'STATUS_PAID', unpaidAmount: { amount: '0.00' } });
    const lines = await query<{ status: string; amount: number; open_banking_account_id: string }>(t, 'SELECT status, amount, open_banking_account_id FROM bank_account_transactions WHERE tenant_id = ? ORDER BY amount', t.id);
    expect(lines).toEqual([
      { status: 'STATUS_IGNORED', amount: -1200, open_banking_account_id: account.id },
      { status: 'STATUS_BOOKED', amount: 11900, open_banking_account_id: account.id },
    ]);

    // Nothing new: a second pull adds nothing.
    expect((await post(t, `/open-banking-accounts/${account.id}/sync`, {})).body).toMatchObject({ pulled: 0, imported: 0 });

    // The bank books the second payment; the nightly job pulls it.
    await feed(t, account.id, [credit('59.50', b.number)]);
    await setClock(t, '2027-02-03T03:00:00.000Z');
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ cron: '0 3 * * *', scheduledTime: new Date() }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect((await get(t, `/invoices/${b.id}`)).body.status).toBe('STATUS_PAID');
    expect((await get(t, `/open-banking-accounts/${account.id}`)).body).toMatchObject({ lastInformedAt: '2027-02-03T03:00:00.000Z' });
    expect(await countRows('bank_account_transactions', t)).toBe(3);
  });

  it('an account whose consent ended is not pulled', async () => {
    const t = await createTenant();
    await setClock(t, '2027-02-01T08:00:00.000Z');
    const account = await linked(t);
    await setClock(t, '2027-08-01T08:00:00.000Z');
    const res = await post(t, `/open-banking-accounts/${account.id}/sync`, {});
    expect(res.status).toBe(409);
    expect((await get(t, `/open-banking-accounts/${account.id}`)).body.status).toBe('expired');
  });

  it('the fake feed is validated, and only for test-mode tenants', async () => {
    const t = await createTenant();
    const account = await linked(t);
    expect422(
      await feed(t, account.id, [
        { ...credit('1.001', 'x'), currency: 'EUR' },
        { ...credit('5.00', 'y'), currency: 'XXY' },
        { ...credit('5.00', 'z'), counterpartyIban: 'DE00' },
        // Beyond any amount a document can carry: refused here, so no pull can ever choke on it.
        credit('99999999999999.00', 'too much'),
      ]),
      ['transactions[0].amount', 'transactions[1].currency', 'transactions[2].counterpartyIban', 'transactions[3].amount'],
    );
    const live = await createTenant({ mode: 'live' });
    const liveAccount = await linked(live);
    expect((await feed(live, liveAccount.id, [credit('5.00', 'x')])).status).toBe(403);
  });
});
