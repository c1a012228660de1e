import { describe, expect, it } from 'vitest';
import { api, countRows, del, eventsOf, expect422, expectProblem, expectStatus, get, ids, patch, post, put, query, type TestTenant } from '../support/api';
import { createCustomer, createTenant, eventTypes, keyWith, ok, setClock } from '../support/builders';
import { customerSession } from '../documents/builders';
import { bankTransferMethod, BIC, createPaymentMethod, CREDITOR_ID, IBAN, MASKED_IBAN, OTHER_IBAN, paymentSettings, sepaMethod, testingMethod } from './builders';

// The payment-methods API (spec §2.2): creation of each type with its checks, the masked
// representation everywhere (replies, lists, events), list filters, one default per customer,
// revocation. Cards through a configured gateway and the nightly expiry are in
// payment-methods-cards.test.ts.

const TODAY = '2026-03-10';

async function tenantOn(day = TODAY) {
  const t = await createTenant();
  await setClock(t, `${day}T10:00:00Z`);
  return t;
}

const stored = async (t: TestTenant, id: string) =>
  (await query<Record<string, any>>(t, 'SELECT * FROM payment_methods WHERE tenant_id = ? AND id = ?', t.id, id))[0]!;
const defaults = async (t: TestTenant, customerId: string) =>
  (await query<{ id: string }>(t, 'SELECT id FROM payment_methods WHERE tenant_id = ? AND customer_id = ? AND is_default = 1', t.id, customerId)).map((r) => r.id);
const methodEvents = (t: TestTenant) => countRows('events', t, "AND type LIKE 'payment_method.%'");

const sepaBody = (customer: string, sepaDebit: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  customer,
  type: 'sepa_debit',
  sepaDebit: { iban: IBAN, bic: BIC, accountHolder: 'Erika Mustermann', ...sepaDebit },
  ...extra,
});

describe('POST /payment-methods', () => {
  it('creates a SEPA mandate with a generated reference from its own number range, shown masked', async () => {
    const t = await tenantOn();
    const c = await createCustomer(t);
    const first = await sepaMethod(t, c.id);
    const mandate = { mandateReference: 'MNDT-00000001', signingDate: TODAY, creditorId: null, type: 'CORE', sequenceType: 'FRST' };
    expect(first).toEqual({
      id: expect.any(String),
      customer: c.id,
      gatewayName: 'sepa_debit',
      type: 'sepa_debit',
      referenceId: 'MNDT-00000001',
      default: true,
      enabled: true,
      status: 'active',
      source: 'api',
      name: 'SEPA DE89 …3000',
      data: [],
      creationDate: `${TODAY}T10:00:00.000Z`,
      expirationDate: null,
      sepaMandate: mandate,
      sepaDebit: { iban: MASKED_IBAN, bic: BIC, mandateReference: 'MNDT-00000001', signingDate: TODAY },
    });
    expect(await stored(t, first.id)).toMatchObject({ iban: IBAN, mandate_reference: 'MNDT-00000001', mandate_signed_at: TODAY, reference_id: 'MNDT-00000001', gateway_token: null });

    // The second mandate takes the next number and leaves the default where it is; the creditor id shows once set.
    await paymentSettings(t, { 'sepa.creditorId': CREDITOR_ID });
    const second = await sepaMethod(t, c.id, { sepaDebit: { iban: OTHER_IBAN, accountHolder: 'Max Mustermann', signingDate: '2026-01-31' } });
    expect(second).toMatchObject({
      referenceId: 'MNDT-00000002',
      default: false,
      name: 'SEPA DE02 …2051',
      sepaMandate: { ...mandate, mandateReference: 'MNDT-00000002', signingDate: '2026-01-31', creditorId: CREDITOR_ID },
      sepaDebit: { iban: 'DE02**************2051', bic: null, mandateReference: 'MNDT-00000002', signingDate: '2026-01-31' },
    });
    expect(await defaults(t, c.id)).toEqual([first.id]);
    expect((await get(t, `/payment-methods/${first.id}`)).body.sepaMandate.creditorId).toBe(CREDITOR_ID);
    expect(await eventTypes(t, first.id)).toEqual(['payment_method.created']);
  });

  it.each([
    ['a given reference is kept', { mandateReference: 'ABC-123/X.(1)' }, {}, 'ABC-123/X.(1)'],
    ['the format setting with date parts', {}, { 'sepa.mandateReferenceFormat': 'M-{yearLong}{month}-{number:4}' }, 'M-202603-0001'],
    ['the customer number in the format', {}, { 'sepa.mandateReferenceFormat': '{customerNumber}-{number}' }, 'CUSTNO-1'],
    // `_` and `#` are allowed in number formats but not in SEPA ids: the default format takes over.
    ['a format SEPA forbids falls back to the default', {}, { 'sepa.mandateReferenceFormat': 'M_{number:3}#' }, 'MNDT-00000001'],
  ])('mandate reference: %s', async (_name, sepaDebit, settings, expected) => {
    const t = await tenantOn();
    if (Object.keys(settings).length) await paymentSettings(t, settings);
    const c = await createCustomer(t, { customerNumber: 'CUSTNO' });
    const m = await createPaymentMethod(t, sepaBody(c.id, sepaDebit));
    expect([m.referenceId, m.sepaMandate.mandateReference, m.sepaDebit.mandateReference]).toEqual([expected, expected, expected]);
  });

  it('normalises an IBAN with spaces and lower case; the full IBAN appears in no reply, list or event', async () => {
    const t = await tenantOn();
    const c = await createCustomer(t);
    const m = await createPaymentMethod(t, sepaBody(c.id, { iban: ' de89 3704 0044 0532 0130 00 ', bic: 'cobadeffxxx', accountHolder: 'Jürgen Müller-Lüdenscheidt' }));
    expect(m.sepaDebit).toMatchObject({ iban: MASKED_IBAN, bic: BIC });
    expect(await stored(t, m.id)).toMatchObject({ iban: IBAN });
    expect(JSON.parse((await stored(t, m.id)).details)).toEqual({ iban: MASKED_IBAN, bic: BIC, accountHolder: 'Jürgen Müller-Lüdenscheidt' });
    await ok(patch(t, `/payment-methods/${m.id}`, { name: 'Main account' }));
    const shown = [
      m,
      (await get(t, `/payment-methods/${m.id}`)).body,
      (await get(t, '/payment-methods')).body,
      (await get(t, `/customers/${c.id}/payment-methods`)).body,
      (await get(t, `/customers/${c.id}`)).body,
      await eventsOf(t),
    ];
    for (const body of shown) {
      const text = JSON.stringify(body);
      expect(text).not.toContain(IBAN);
      expect(text).not.toContain('0532013000');
    }
    expect((await eventsOf(t, m.id)).map((e) => [e.type, e.data.sepaDebit.iban])).toEqual([
      ['payment_method.created', MASKED_IBAN],
      ['payment_method.updated', MASKED_IBAN],
    ]);
  });

  it('creates bank transfer and testing methods with their default gateways and names', async () => {
    const t = await tenantOn();
    const c = await createCustomer(t);
    const transfer = await bankTransferMethod(t, c.id, { data: ['ref 1', 'ref 2'], source: 'checkout' });
    expect(transfer).toMatchObject({ gatewayName: 'bank_transfer', type: 'bank_transfer', name: 'Bank transfer', referenceId: null, sepaMandate: null, expirationDate: null, default: true, data: ['ref 1', 'ref 2'], source: 'checkout' });
    expect(transfer).not.toHaveProperty('sepaDebit');
    expect(transfer).not.toHaveProperty('card');

    const testing = await testingMethod(t, c.id, 'testing_declined', { name: 'Declines', default: true });
    expect(testing).toMatchObject({ gatewayName: 'testing', type: 'fake_provider', name: 'Declines', referenceId: null, default: true, status: 'active' });
    expect(await stored(t, testing.id)).toMatchObject({ gateway_token: 'testing_declined' });
    expect(await defaults(t, c.id)).toEqual([testing.id]);
    // The previous default lost it in the same batch, and says so.
    expect((await eventsOf(t, transfer.id)).map((e) => [e.type, e.data.default])).toEqual([
      ['payment_method.created', true],
      ['payment_method.updated', false],
    ]);

    const fake = await createPaymentMethod(t, { customer: c.id, type: 'fake_provider', gatewayName: 'fake_provider', enabled: false });
    expect(fake).toMatchObject({ gatewayName: 'fake_provider', name: 'Testing', enabled: false, default: false });
    expect(await stored(t, fake.id)).toMatchObject({ gateway_token: null });
  });

  it('a card without a configured card gateway is gateway_unconfigured, without card details, and never the default by itself', async () => {
    const t = await tenantOn();
    const c = await createCustomer(t);
    const m = await createPaymentMethod(t, { customer: c.id, type: 'card', token: 'pm_card_visa_secret' });
    expect(m).toMatchObject({ gatewayName: 'card_provider', type: 'card', status: 'gateway_unconfigured', card: null, expirationDate: null, name: 'Card', default: false, referenceId: null, sepaMandate: null });
    expect(JSON.stringify(m)).not.toContain('pm_card_visa_secret');
    expect(await stored(t, m.id)).toMatchObject({ gateway_token: 'pm_card_visa_secret', details: '{}' });
  });

  const future = '2026-03-11';
  it.each<[string, (customer: string) => Record<string, unknown>, string[]]>([
    ['an IBAN with a wrong check digit', (c) => sepaBody(c, { iban: 'DE89370400440532013001' }), ['sepaDebit.iban']],
    ['an IBAN outside SEPA', (c) => sepaBody(c, { iban: 'TR330006100519786457841326' }), ['sepaDebit.iban']],
    ['a BIC with a country that is none', (c) => sepaBody(c, { bic: 'COBA12FF' }), ['sepaDebit.bic']],
    ['a mandate reference with a space', (c) => sepaBody(c, { mandateReference: 'MANDATE 1' }), ['sepaDebit.mandateReference']],
    ['a mandate reference with //', (c) => sepaBody(c, { mandateReference: 'A//B' }), ['sepaDebit.mandateReference']],
    ['a mandate reference with an umlaut', (c) => sepaBody(c, { mandateReference: 'MÜNCHEN-1' }), ['sepaDebit.mandateReference']],
    ['a mandate reference of 36 characters', (c) => sepaBody(c, { mandateReference: 'M'.repeat(36) }), ['sepaDebit.mandateReference']],
    ['a signing date tomorrow', (c) => sepaBody(c, { signingDate: future }), ['sepaDebit.signingDate']],
    ['a signing date that is no date', (c) => sepaBody(c, { signingDate: '2026-02-30' }), ['sepaDebit.signingDate']],
    ['an account holder outside the SEPA character set', (c) => sepaBody(c, { accountHolder: 'Erika @ Home' }), ['sepaDebit.accountHolder']],
    ['an account holder of one character', (c) => sepaBody(c, { accountHolder: 'E' }), ['sepaDebit.accountHolder']],
    ['several SEPA rules at once', (c) => sepaBody(c, { iban: 'DE00123', bic: 'COBA12FF', signingDate: future }), ['sepaDebit.bic', 'sepaDebit.iban', 'sepaDebit.signingDate']],
    ['sepa_debit without sepaDebit', (c) => ({ customer: c, type: 'sepa_debit' }), ['sepaDebit']],
    ['sepaDebit on a bank transfer', (c) => sepaBody(c, {}, { type: 'bank_transfer' }), ['sepaDebit']],
    ['sepaDebit without accountHolder', (c) => ({ customer: c, type: 'sepa_debit', sepaDebit: { iban: IBAN } }), ['sepaDebit.accountHolder']],
    ['an unknown testing token', (c) => ({ customer: c, type: 'fake_provider', token: 'tok_visa' }), ['token']],
    ['a card without token', (c) => ({ customer: c, type: 'card' }), ['token']],
    ['a token on a SEPA mandate', (c) => sepaBody(c, {}, { token: 'testing_succeeds' }), ['token']],
    ['sepa_debit through the testing gateway', (c) => sepaBody(c, {}, { gatewayName: 'testing' }), ['gatewayName']],
    ['fake_provider through the card provider', (c) => ({ customer: c, type: 'fake_provider', gatewayName: 'card_provider' }), ['gatewayName']],
    ['a card through the wallet gateway', (c) => ({ customer: c, type: 'card', gatewayName: 'wallet', token: 'pm_1' }), ['gatewayName']],
    ['a gateway that does not exist', (c) => ({ customer: c, type: 'card', gatewayName: 'stripe', token: 'pm_1' }), ['gatewayName']],
    ['a type the API does not create', (c) => ({ customer: c, type: 'payaccount' }), ['type']],
    ['an unknown customer', () => sepaBody('no-such-customer'), ['customer']],
    ['the default that is disabled', (c) => ({ customer: c, type: 'bank_transfer', default: true, enabled: false }), ['default']],
    ['21 data entries', (c) => ({ customer: c, type: 'bank_transfer', data: Array.from({ length: 21 }, (_, i) => `d${i}`) }), ['data']],
    ['a data entry of 256 characters', (c) => ({ customer: c, type: 'bank_transfer', data: ['x'.repeat(256)] }), ['data[0]']],
    ['an unknown source', (c) => ({ customer: c, type: 'bank_transfer', source: 'import' }), ['source']],
    ['an unknown field', (c) => ({ customer: c, type: 'bank_transfer', payaccount: {} }), ['payaccount']],
    ['an unknown field in sepaDebit', (c) => sepaBody(c, { creditorId: CREDITOR_ID }), ['sepaDebit.creditorId']],
  ])('422 for %s; nothing is written', async (_name, body, expectedPaths) => {
    const t = await tenantOn();
    const c = await createCustomer(t);
    expect422(await post(t, '/payment-methods', body(c.id)), expectedPaths);
    expect(await countRows('payment_methods', t)).toBe(0);
    expect(await methodEvents(t)).toBe(0);
  });

  it("422 for another tenant's customer and for a mandate reference the tenant already uses; nothing is written", async () => {
    const t = await tenantOn();
    const foreign = await tenantOn();
    const foreignCustomer = await createCustomer(foreign);
    expect422(await post(t, '/payment-methods', sepaBody(foreignCustomer.id)), ['customer']);

    const c = await createCustomer(t);
    await createPaymentMethod(t, sepaBody(c.id, { mandateReference: 'MANDATE-1' }));
    // Another tenant (another creditor) may use the same reference.
    await createPaymentMethod(foreign, sepaBody(foreignCustomer.id, { mandateReference: 'MANDATE-1' }));
    expect422(await post(t, '/payment-methods', sepaBody(c.id, { mandateReference: 'MANDATE-1' })), ['sepaDebit.mandateReference']);
    expect(await countRows('payment_methods', t)).toBe(1);
    expect(await methodEvents(t)).toBe(1);

    // A generated reference skips a number the tenant already gave by hand.
    await createPaymentMethod(t, sepaBody(c.id, { mandateReference: 'MNDT-00000001' }));
    expect((await sepaMethod(t, c.id)).referenceId).toBe('MNDT-00000002');
  });

  it('needs payment-method:write', async () => {
    const t = await tenantOn();
    const c = await createCustomer(t);
    const readOnly = await keyWith(t, ['payment-method:read']);
    expectProblem(await api('/payment-methods', { token: readOnly, body: sepaBody(c.id) }), 403);
    expect(await countRows('payment_methods', t)).toBe(0);
  });
});

describe('GET /payment-methods', () => {
  it('filters by customer, type, status and enabled, pages, and never shows another tenant', async () => {
    const t = await tenantOn();
    const a = await createCustomer(t);
    const b = await createCustomer(t);
    const sepaA = (await sepaMethod(t, a.id)).id;
    const testingA = (await testingMethod(t, a.id)).id;
    const transferB = (await bankTransferMethod(t, b.id, { enabled: false })).id;
    const sepaB = (await sepaMethod(t, b.id, { sepaDebit: { iban: OTHER_IBAN, accountHolder: 'Max Mustermann' } })).id;
    expectStatus(await put(t, `/payment-methods/${testingA}/revoke`), 200);
    const foreign = await tenantOn();
    const foreignMethod = (await sepaMethod(foreign, (await createCustomer(foreign)).id)).id;

    const cases: [string, string[]][] = [
      ['', [sepaA, testingA, transferB, sepaB]],
      [`customer=${a.id}`, [sepaA, testingA]],
      [`customer[]=${a.id}&customer[]=${b.id}`, [sepaA, testingA, transferB, sepaB]],
      ['type=sepa_debit', [sepaA, sepaB]],
      ['type[]=bank_transfer&type[]=fake_provider', [testingA, transferB]],
      ['status=revoked', [testingA]],
      ['status[]=active', [sepaA, transferB, sepaB]],
      ['enabled=false', [testingA, transferB]],
      [`enabled=true&customer=${b.id}`, [sepaB]],
      ['limit=2&page=2', [transferB, sepaB]],
      [`customer=${foreign.id}`, []],
    ];
    for (const [q, expected] of cases) {
      const res = await get(t, `/payment-methods${q ? `?${q}` : ''}`);
      expectStatus(res, 200);
      expect(ids(res), q).toEqual(expected);
    }
    expect((await get(t, '/payment-methods?limit=2&page=2')).body.meta.pagination).toEqual({ totalItems: 4, itemsPerPage: 2, currentPage: 2, lastPage: 2, pageTotalItems: 2 });
    expect(ids(await get(t, `/customers/${b.id}/payment-methods?type=sepa_debit`))).toEqual([sepaB]);
    expect(ids(await get(t, `/customers/${a.id}/payment-methods`))).toEqual([sepaA, testingA]);

    expect((await get(t, '/payment-methods?enabled=yes')).status).toBe(400);
    expect((await get(t, '/payment-methods?gateway=testing')).status).toBe(400);
    expectProblem(await get(t, `/payment-methods/${foreignMethod}`), 404);
    expectProblem(await patch(t, `/payment-methods/${foreignMethod}`, { name: 'Mine' }), 404);
    expectProblem(await put(t, `/payment-methods/${foreignMethod}/revoke`), 404);
    expectProblem(await del(t, `/payment-methods/${foreignMethod}`), 404);
    expectProblem(await get(t, `/customers/${(await createCustomer(foreign)).id}/payment-methods`), 404);
    expect((await get(foreign, `/payment-methods/${foreignMethod}`)).body.status).toBe('active');
  });

  it('a customer session sees its own methods only', async () => {
    const t = await tenantOn();
    const a = await createCustomer(t);
    const b = await createCustomer(t);
    const own = (await sepaMethod(t, a.id)).id;
    const other = (await bankTransferMethod(t, b.id)).id;
    const session = await customerSession(t, a.id);
    const as = (path: string) => api(path, { token: session });
    expect(ids(await as(`/customers/${a.id}/payment-methods`))).toEqual([own]);
    expect(ids(await as('/payment-methods'))).toEqual([own]);
    expect(ids(await as(`/payment-methods?customer=${b.id}`))).toEqual([]);
    expect((await as(`/payment-methods/${own}`)).body.sepaDebit.iban).toBe(MASKED_IBAN);
    expectProblem(await as(`/payment-methods/${other}`), 404);
    expectProblem(await as(`/customers/${b.id}/payment-methods`), 404);
    expectProblem(await api('/payment-methods', { token: session, body: sepaBody(a.id) }), 403);
    expectProblem(await api(`/payment-methods/${own}/revoke`, { token: session, method: 'PUT' }), 403);
    // The customer-scoped list is a payment-method read, not a customer read.
    expectStatus(await api(`/customers/${a.id}/payment-methods`, { token: await keyWith(t, ['payment-method:read']) }), 200);
    expectProblem(await api(`/customers/${a.id}/payment-methods`, { token: await keyWith(t, ['customer:read']) }), 403);
  });
});

describe('PATCH /payment-methods/{id}', () => {
  it('switches the default and keeps exactly one; disabling the default clears it', async () => {
    const t = await tenantOn();
    const c = await createCustomer(t);
    const [one, two, three] = [(await sepaMethod(t, c.id)).id, (await testingMethod(t, c.id)).id, (await bankTransferMethod(t, c.id)).id];
    expect(await defaults(t, c.id)).toEqual([one]);

    const res = await patch(t, `/payment-methods/${two}`, { default: true });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id: two, default: true });
    expect(await defaults(t, c.id)).toEqual([two]);
    expect((await get(t, `/payment-methods/${one}`)).body.default).toBe(false);
    expect((await get(t, `/customers/${c.id}`)).body.defaultPaymentMethod).toMatchObject({ id: two, default: true });

    // As plain application/json too (the n8n node).
    expectStatus(await api(`/payment-methods/${three}`, { token: t.key, method: 'PATCH', body: { default: true }, contentType: 'application/json' }), 200);
    expect(await defaults(t, c.id)).toEqual([three]);
    expect((await eventsOf(t, two)).map((e) => [e.type, e.data.default])).toEqual([
      ['payment_method.created', false],
      ['payment_method.updated', true],
      ['payment_method.updated', false],
    ]);

    const disabled = await ok(patch(t, `/payment-methods/${three}`, { enabled: false }));
    expect(disabled).toMatchObject({ enabled: false, default: false });
    expect(await defaults(t, c.id)).toEqual([]);
    expect422(await patch(t, `/payment-methods/${three}`, { default: true }), ['default']);
    expect((await ok(patch(t, `/payment-methods/${three}`, { default: true, enabled: true }))).default).toBe(true);
    expect(await defaults(t, c.id)).toEqual([three]);
  });

  it('renames, resets the name, sets data; an empty patch changes nothing', async () => {
    const t = await tenantOn();
    const c = await createCustomer(t);
    const m = await sepaMethod(t, c.id);
    expect(await ok(patch(t, `/payment-methods/${m.id}`, { name: 'Main account', data: ['crm:42'] }))).toMatchObject({ name: 'Main account', data: ['crm:42'] });
    expect(await ok(patch(t, `/payment-methods/${m.id}`, { name: null, data: null }))).toMatchObject({ name: 'SEPA DE89 …3000', data: [] });
    const before = await countRows('events', t);
    expect(await ok(patch(t, `/payment-methods/${m.id}`, {}))).toEqual((await get(t, `/payment-methods/${m.id}`)).body);
    expect(await countRows('events', t)).toBe(before);
    expect422(await patch(t, `/payment-methods/${m.id}`, { status: 'active', sepaDebit: {} }), ['sepaDebit', 'status']);
    expect422(await patch(t, `/payment-methods/${m.id}`, { default: null, name: 'x'.repeat(256) }), ['default', 'name']);
  });

  it('refuses default on revoked and expired methods, and enabling a revoked one', async () => {
    const t = await tenantOn();
    const c = await createCustomer(t);
    const revoked = (await testingMethod(t, c.id)).id;
    const expired = (await bankTransferMethod(t, c.id)).id;
    expectStatus(await del(t, `/payment-methods/${revoked}`), 200);
    await query(t, 'UPDATE payment_methods SET status = ? WHERE id = ?', 'expired', expired);
    const before = await countRows('events', t);
    expect422(await patch(t, `/payment-methods/${revoked}`, { default: true }), ['default']);
    expect422(await patch(t, `/payment-methods/${revoked}`, { enabled: true }), ['enabled']);
    expect422(await patch(t, `/payment-methods/${expired}`, { default: true }), ['default']);
    expect(await countRows('events', t)).toBe(before);
    expect(await defaults(t, c.id)).toEqual([]);
    // The lead's PATCH /customers/{id}/payment-method agrees.
    expect422(await api(`/customers/${c.id}/payment-method`, { token: t.key, method: 'PATCH', body: { paymentMethodId: revoked } }), ['paymentMethodId']);
  });
});

describe('revoking', () => {
  it('is final: revoked, disabled, no longer the default; a second revoke is 409', async () => {
    const t = await tenantOn();
    const c = await createCustomer(t);
    const m = await sepaMethod(t, c.id);
    await setClock(t, '2026-03-12T08:00:00Z');
    const res = await put(t, `/payment-methods/${m.id}/revoke`);
    expectStatus(res, 200);
    expect(res.body).toEqual({ ...m, status: 'revoked', enabled: false, default: false });
    expect(await stored(t, m.id)).toMatchObject({ revoked_at: '2026-03-12T08:00:00.000Z', is_default: 0, enabled: 0 });
    expect(await defaults(t, c.id)).toEqual([]);
    expect((await eventsOf(t, m.id)).map((e) => [e.type, e.data.status])).toEqual([
      ['payment_method.created', 'active'],
      ['payment_method.updated', 'revoked'],
    ]);
    expectProblem(await put(t, `/payment-methods/${m.id}/revoke`), 409, '/problems/already-revoked');
    expectProblem(await del(t, `/payment-methods/${m.id}`), 409, '/problems/already-revoked');
    expect(await eventTypes(t, m.id)).toHaveLength(2);
    // Still readable: transactions and SEPA files refer to it.
    expect((await get(t, `/payment-methods/${m.id}`)).body.status).toBe('revoked');
    expect(ids(await get(t, '/payment-methods?status=revoked'))).toEqual([m.id]);

    const other = await bankTransferMethod(t, c.id);
    expect((await ok(del(t, `/payment-methods/${other.id}`))).status).toBe('revoked');
  });
});
