import { describe, expect, it } from 'vitest';
import { api, countRows, post, violations } from '../support/api';
import { createCustomer, createTenant, created } from '../support/builders';

// Decimals on input go through one schema (`decimalString`, src/http/schemas.ts) whose accepted
// strings the domain parser accepts: what used to pass the pattern and crash later is a 422.

describe('decimal strings', () => {
  it('refuses leading zeros with 422 wherever decimals come in (no DecimalFormatError, no 500)', async () => {
    const t = await createTenant();
    const coupon = await post(t, '/coupons', { code: 'FIVE', name: 'Five', type: 'fixed_amount', fixedAmount: { amount: '05.00', currencyCode: 'EUR' }, frequency: 'once' });
    expect(violations(coupon)).toEqual(['fixedAmount.amount: invalid_format']);
    const c = await createCustomer(t);
    const invoice = await post(t, '/invoices', { customer: c.id, positions: [{ name: 'x', unitPrice: '010', quantity: '-01', discount: '00.5', taxRate: '07' }] });
    expect(violations(invoice).sort()).toEqual(
      ['positions[0].discount: invalid_format', 'positions[0].quantity: invalid_format', 'positions[0].taxRate: invalid_format', 'positions[0].unitPrice: invalid_format'].sort(),
    );
    expect(violations(await post(t, '/taxes', { taxGroup: 'x', countryCode: 'DE', rate: '019', validFrom: '2030-01-01' }))).toContain('rate: invalid_format');
    expect(await countRows('invoices', t)).toBe(0);
    expect(await countRows('coupons', t)).toBe(0);
  });

  it('still accepts plain decimals, negative where a field allows it', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const inv = await created(post(t, '/invoices', { customer: c.id, positions: [{ name: 'x', unitPrice: '-10.50', quantity: '2', taxRate: '7' }, { name: 'y', unitPrice: '0', taxRate: '0' }] }));
    expect(inv.netAmount.amount).toBe('-21.00');
    expect((await post(t, '/coupons', { code: 'TEN', name: 'Ten', type: 'fixed_amount', fixedAmount: { amount: '0.50', currencyCode: 'EUR' }, frequency: 'once' })).status).toBe(201);
  });
});

describe('tax category and rate', () => {
  it.each([
    ['G', '19'],
    ['Z', '7'],
    ['AE', '19'],
    ['S', '0'],
  ])('category %s with rate %s is a 422, not a 500', async (taxCategory, taxRate) => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const res = await api('/invoices', { token: t.key, body: { customer: c.id, positions: [{ name: 'x', unitPrice: '10', taxRate, taxCategory }] } });
    expect(res.status).toBe(422);
    // The domain check of the positions (one rule for drafts, position items and credits) names the category.
    expect(violations(res)).toEqual(['positions[0].taxCategory: rate_mismatch']);
    expect(await countRows('invoices', t)).toBe(0);
  });

  it('accepts the categories with their rates (G with 0, S with 19)', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const inv = await created(post(t, '/invoices', { customer: c.id, positions: [{ name: 'x', unitPrice: '10', taxRate: '0', taxCategory: 'G' }, { name: 'y', unitPrice: '10', taxRate: '19', taxCategory: 'S' }] }));
    expect(inv.taxAmount.amount).toBe('1.90');
  });
});
