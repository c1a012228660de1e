import { describe, expect, it } from 'vitest';
import { api, countRows, violations } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { draft, finalized, line } from './builders';

// Amounts that cannot be stored or billed and decimals the domain cannot parse are 422s with a
// violation, never 500s, and nothing is written (docs/decisions.md, Invoices and billing: Amount
// bounds). Every amount of a document below 10^12 in major units (EUR: 999,999,999,999.99 at most).

describe('amount bounds', () => {
  it('refuses a line whose quantity × unitPrice leaves the money range, on create', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const huge = await api('/invoices', { token: t.key, body: { customer: c.id, positions: [{ ...line('999999999999999'), quantity: '999999999999999' }] } });
    expect(violations(huge)).toEqual(['positions[0]: too_large']);
    // Two lines of 50,000,000,000,000.01 (5 × 10^13 each): each alone is out of range.
    const two = await api('/invoices', { token: t.key, body: { customer: c.id, positions: [line('50000000000000.01'), line('50000000000000.01')] } });
    expect(violations(two)).toEqual(['positions[0]: too_large', 'positions[1]: too_large']);
    // Two lines of 600,000,000,000.00: each fits, the document (1.2 × 10^12 net) does not.
    const sum = await api('/invoices', { token: t.key, body: { customer: c.id, positions: [line('600000000000.00'), line('600000000000.00')] } });
    expect(violations(sum)).toEqual(['positions: too_large']);
    // 900,000,000,000.00 net at 19 % is 1,071,000,000,000.00 gross: out of range; 800,000,000,000.00 is 952,000,000,000.00.
    expect(violations(await api('/invoices', { token: t.key, body: { customer: c.id, positions: [line('900000000000.00')] } }))).toEqual(['positions: too_large']);
    expect(await countRows('invoices', t)).toBe(0);
    const largest = await draft(t, c.id, [line('800000000000.00')]);
    expect(largest.grossAmount.amount).toBe('952000000000.00');
  });

  it('refuses the same when positions are added, replaced or removed, and on credit notes', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    // 700,000,000,000.00 − 400,000,000,000.00 = 300,000,000,000.00 net.
    const inv = await draft(t, c.id, [line('700000000000.00'), line('-400000000000.00')]);
    const add = await api(`/invoices/${inv.id}/position-items`, { token: t.key, body: { positions: [line('800000000000.00')] } });
    expect(violations(add)).toEqual(['positions: too_large']); // 1.1 × 10^12
    expect(violations(await api(`/invoices/${inv.id}/position-items`, { token: t.key, body: { name: 'X', unitPrice: '2000000000000', taxRate: '19' } }))).toEqual(['unitPrice: too_large']);
    const [, credit] = inv.positions;
    expect(violations(await api(`/invoice-position-items/${credit.id}`, { method: 'PUT', token: t.key, body: line('500000000000.00') }))).toEqual(['positions: too_large']);
    // Removing a credit line raises the total: 700 − 400 + 300 (at 0 %) = 600 × 10^9 net, without the
    // −400 × 10^9 line 1.0 × 10^12: refused.
    const three = await draft(t, c.id, [line('700000000000.00'), line('-400000000000.00'), line('300000000000.00', '1', '0')]);
    expect(violations(await api(`/invoice-position-items/${three.positions[1].id}`, { method: 'DELETE', token: t.key }))).toEqual(['positions: too_large']);
    const fin = await finalized(t, c.id, [line('10.00')]);
    expect(violations(await api(`/invoices/${fin.id}/credit`, { token: t.key, body: { positions: [{ ...line('999999999999999'), quantity: '999999999999999' }] } }))).toEqual([
      'positions[0]: too_large',
    ]);
    expect((await api(`/invoices/${inv.id}`, { token: t.key })).body.netAmount.amount).toBe('300000000000.00');
  });
});

describe('decimals and tax categories', () => {
  it('refuses leading zeros and exponents in the schema (422), not in the domain (500)', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const res = await api('/invoices', {
      token: t.key,
      body: { customer: c.id, positions: [{ ...line('10.00'), taxRate: '07' }, { ...line('05.00') }, { ...line('1e3') }, { ...line('1.00'), quantity: '01' }, { ...line('1.00'), taxRate: '101' }] },
    });
    expect(violations(res)).toEqual(['positions[0].taxRate: invalid_format', 'positions[1].unitPrice: invalid_format', 'positions[2].unitPrice: invalid_format', 'positions[3].quantity: invalid_format', 'positions[4].taxRate: too_large']);
  });

  it('refuses a rate that does not fit its category (G with 19 %, S with 0 %), wherever positions are written', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const export19 = { ...line('10.00'), taxCategory: 'G' };
    expect(violations(await api('/invoices', { token: t.key, body: { customer: c.id, positions: [export19, { ...line('1.00', '1', '0'), taxCategory: 'S' }] } }))).toEqual([
      'positions[0].taxCategory: rate_mismatch',
      'positions[1].taxCategory: rate_mismatch',
    ]);
    const inv = await draft(t, c.id, [line('1.00')]);
    expect(violations(await api(`/invoices/${inv.id}/position-items`, { token: t.key, body: { positions: [export19] } }))).toEqual(['positions[0].taxCategory: rate_mismatch']);
    expect(violations(await api(`/invoice-position-items/${inv.positions[0].id}`, { method: 'PUT', token: t.key, body: export19 }))).toEqual(['taxCategory: rate_mismatch']);
    const fin = await finalized(t, c.id, [line('10.00')]);
    expect(violations(await api(`/invoices/${fin.id}/credit`, { token: t.key, body: { positions: [export19] } }))).toEqual(['positions[0].taxCategory: rate_mismatch']);
    // G at 0 % is an export: accepted.
    expect((await api('/invoices', { token: t.key, body: { customer: c.id, positions: [{ ...line('10.00', '1', '0'), taxCategory: 'G' }] } })).status).toBe(201);
  });
});
