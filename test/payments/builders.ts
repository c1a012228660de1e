import { expect } from 'vitest';
import { api, get, post, put, type TestTenant } from '../support/api';
import { created, createCustomer, createTenant, ok, setClock } from '../support/builders';
import { SETTINGS } from '../documents/builders';

// Shared builders of the payment tests. Payment methods are made through POST /payment-methods
// (the shape in docs/decisions.md, Payments); IBANs and BICs are the public example accounts of
// German banks' documentation (Commerzbank's DE89 3704 0044 0532 0130 00 in every IBAN example).

export const IBAN = 'DE89370400440532013000';
export const MASKED_IBAN = 'DE89**************3000';
export const BIC = 'COBADEFFXXX';
/** A second valid German IBAN (ibantools' test data) for a second payer. */
export const OTHER_IBAN = 'DE02120300000000202051';
/** The Bundesbank's example creditor identifier (DE98ZZZ09999999999). */
export const CREDITOR_ID = 'DE98ZZZ09999999999';

export async function createPaymentMethod(t: TestTenant, body: Record<string, unknown>) {
  const res = await api('/payment-methods', { token: t.key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** An active SEPA direct-debit mandate of the customer (reference generated, signed today unless given). */
export const sepaMethod = (t: TestTenant, customerId: string, extra: Record<string, unknown> = {}) =>
  createPaymentMethod(t, { customer: customerId, type: 'sepa_debit', sepaDebit: { iban: IBAN, bic: BIC, accountHolder: 'Erika Mustermann' }, ...extra });

/** A method of the testing gateway whose charges end as the magic token says (TESTING_TOKENS). */
export const testingMethod = (t: TestTenant, customerId: string, token = 'testing_succeeds', extra: Record<string, unknown> = {}) =>
  createPaymentMethod(t, { customer: customerId, type: 'fake_provider', gatewayName: 'testing', token, ...extra });

export const bankTransferMethod = (t: TestTenant, customerId: string, extra: Record<string, unknown> = {}) =>
  createPaymentMethod(t, { customer: customerId, type: 'bank_transfer', ...extra });

/** Sets the tenant settings the payment tests rely on (creditor id, retry schedule…). */
export async function paymentSettings(t: TestTenant, values: Record<string, unknown>) {
  const res = await api('/settings', {
    token: t.key,
    method: 'PATCH',
    body: { settings: Object.entries(values).map(([key, value]) => ({ key, value })) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/**
 * A tenant that collects by SEPA direct debit (letterhead with its bank account, creditor id; its
 * clock at 2027-03-01, a Monday) and one customer paying by mandate (its default method).
 */
export async function sepaTenant() {
  const t = await createTenant();
  await setClock(t, '2027-03-01T09:00:00Z');
  await ok(put(t, '/settings/documents', SETTINGS));
  await paymentSettings(t, { 'sepa.creditorId': CREDITOR_ID });
  const c = await createCustomer(t, { firstName: 'Erika', lastName: 'Mustermann' });
  await sepaMethod(t, c.id, { sepaDebit: { iban: OTHER_IBAN, bic: 'BYLADEM1001', accountHolder: 'Erika Mustermann' } });
  return { t, c };
}

/** Writes a SEPA file of everything due and answers its transactions. */
export async function sepaFileTransactions(t: TestTenant, type: 'direct_debit' | 'credit_transfer') {
  const file = await created(post(t, '/sepa-xml', { type }));
  return (await ok(get(t, `/sepa-xml/${file.id}`))).transactions as { id: string; endToEndId: string; amount: string; invoice: { id: string } }[];
}
