import { describe, expect, it } from 'vitest';
import { api } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { draft, line } from './builders';

// Positions shaped as spec §2.5 and Fynn's invoice position item: netAmount before the discount,
// taxAmount and grossAmount after it, unit, taxGroup, tax and group; the document totals unchanged.

const amounts = (p: any) => [p.netAmount.amount, p.discountAmount.amount, p.netAmountAfterDiscount.amount, p.taxAmount.amount, p.grossAmount.amount];

describe('invoice positions', () => {
  it('show a discounted line before and after its discount, with its share of the tax', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const inv = await draft(t, c.id, [
      // 4 × 25.00 = 100.00 − 12.50 = 87.50 net; the same as 12.5 %.
      { ...line('25.00', '4'), discount: '12.50' },
      { ...line('25.00', '4'), discountPercentage: '12.5' },
      line('0.35'),
    ]);
    // 19 %: nets 87.50 + 87.50 + 0.35 = 175.35; tax 175.35 × 0.19 = 33.3165 → 33.32.
    // Shares: 16.625 → 16 + 0.625, 16.625 → 16 + 0.625, 0.0665 → 0 + 0.0665 (in cents: 1662.5, 1662.5, 6.65):
    // floors 1662 + 1662 + 6 = 3330, 2 cents missing → the two .5 fractions (.65 is larger!): 6.65 → 7 first, then the first .5 line.
    expect(inv.positions.map(amounts)).toEqual([
      ['100.00', '12.50', '87.50', '16.63', '104.13'],
      ['100.00', '12.50', '87.50', '16.62', '104.12'],
      ['0.35', '0.00', '0.35', '0.07', '0.42'],
    ]);
    expect(inv.positions[1].discountPercentage).toBe('12.5');
    expect(inv.positions[0].discountPercentage).toBeNull();
    // The totals as before: net 175.35, discount 25.00, tax 33.32, gross 208.67 = Σ position grosses.
    expect(inv).toMatchObject({ netAmount: { amount: '175.35' }, discountAmount: { amount: '25.00' }, taxAmount: { amount: '33.32' }, grossAmount: { amount: '208.67' } });
  });

  it('carry unit, tax group, the tenant tax that applied, and their group (the header above them)', async () => {
    const t = await createTenant();
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2026-02-01T10:00:00Z' } });
    const c = await createCustomer(t);
    const unit = (await api('/units', { token: t.key, body: { name: 'Stück', code: 'pcs' } })).body;
    const group = (await api('/tax-groups', { token: t.key, body: { type: 'standard', internalDescription: 'Standard' } })).body;
    const tax = await api('/taxes', { token: t.key, body: { taxGroup: group.id, countryCode: 'DE', validFrom: '2026-01-01', rate: '19', code: 'DE19', description: 'USt 19 %' } });
    expect(tax.status).toBe(201);
    const inv = await draft(t, c.id, [
      { name: 'Consulting', unitPrice: '0', taxRate: '0', taxCategory: 'Z' },
      { name: 'Hours', quantity: '3', unitPrice: '80.00', unit: unit.id, taxGroup: group.id, parent: '0' },
      line('10.00', '1', '7'),
    ]);
    const [header, hours, other] = inv.positions;
    expect(hours).toMatchObject({
      position: 2,
      parent: header.id,
      group: { id: header.id, ranking: 1, name: 'Consulting' },
      unit: { id: unit.id, name: 'Stück' },
      taxGroup: { id: group.id, internalDescription: 'Standard', reverseChargeType: 'REVERSE_CHARGE', type: 'standard' },
      tax: { id: tax.body.id, code: 'DE19', description: 'USt 19 %', rate: 19 },
      type: 'product',
      createdAt: '2026-02-01T10:00:00.000Z',
    });
    // 3 × 80.00 = 240.00 at 19 % = 45.60; 10.00 at 7 % = 0.70.
    expect(amounts(hours)).toEqual(['240.00', '0.00', '240.00', '45.60', '285.60']);
    expect(other).toMatchObject({ group: null, unit: null, taxGroup: null, tax: { id: null, code: 'S', description: '7%', rate: 7 } });
    expect(amounts(other)).toEqual(['10.00', '0.00', '10.00', '0.70', '10.70']);
    expect(header.group).toBeNull();
  });

  it('of a credit note show the credited amounts negated, before and after the discount', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const inv = await draft(t, c.id, [{ ...line('50.00', '2'), discount: '10.00' }]);
    const fin = await api(`/invoices/${inv.id}/finalize`, { method: 'POST', token: t.key });
    const credit = await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [{ id: fin.body.positions[0].id }] } });
    // 2 × 50.00 = 100.00 − 10.00 = 90.00 at 19 % = 17.10 → 107.10, all negated.
    expect(amounts(credit.body.positions[0])).toEqual(['-100.00', '-10.00', '-90.00', '-17.10', '-107.10']);
  });
});
