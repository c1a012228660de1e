import { describe, expect, it } from 'vitest';
import { api, violations } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { finalized, line } from './builders';

// Credit notes: a credit without positions credits exactly what is left, per tax rate, also after
// partial credits; partial credits stay within each rate of the invoice, also when they arrive at
// the same time (docs/decisions.md, Invoices and billing).

const totals = (doc: any) => [doc.netAmount.amount, doc.taxAmount.amount, doc.grossAmount.amount];

describe('credit notes', () => {
  it('credits exactly the rest after a partial credit (the 123.75 / 108.29 case)', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    // 103.99 at 19 %: tax 19.7581 → 19.76, gross 123.75.
    const inv = await finalized(t, c.id, [line('103.99')]);
    expect(totals(inv)).toEqual(['103.99', '19.76', '123.75']);
    // 12.99 at 19 %: tax 2.4681 → 2.47, gross 15.46; 123.75 − 15.46 = 108.29 left.
    const part = await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [line('12.99')] } });
    expect(totals(part.body)).toEqual(['-12.99', '-2.47', '-15.46']);
    // The rest: 103.99 − 12.99 = 91.00 net, 91.00 × 0.19 = 17.29 tax (= 19.76 − 2.47), 108.29 gross.
    const rest = await api(`/invoices/${inv.id}/credit`, { token: t.key, body: {} });
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    expect(totals(rest.body)).toEqual(['-91.00', '-17.29', '-108.29']);
    expect(rest.body.positions.map((p: any) => [p.name, p.quantity, p.unitPrice.amount, p.netAmount.amount, p.taxRate])).toEqual([
      [`Remaining amount of ${inv.number} (19 %)`, '-1', '91.00', '-91.00', '19'],
    ]);
    expect((await api(`/invoices/${inv.id}`, { token: t.key })).body.status).toBe('STATUS_CLOSED');
    expect(violations(await api(`/invoices/${inv.id}/credit`, { token: t.key, body: {} }))).toEqual(['positions: required']);
  });

  it('never credits more than the invoice when two credits arrive at the same time', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const inv = await finalized(t, c.id, [line('100.00')]);
    // Each credits 70.00 of 100.00: one of them fits, both together do not.
    for (let round = 0; round < 3; round++) {
      const [a, b] = await Promise.all([0, 1].map(() => api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [line('70.00')] } })));
      const statuses = [a!.status, b!.status];
      // At most one fits; the other is refused (exceeds_creditable) or loses the race (409).
      expect(statuses.filter((s) => s === 201).length).toBeLessThanOrEqual(1);
      expect(statuses.every((s) => s === 201 || s === 409 || s === 422), JSON.stringify(statuses)).toBe(true);
      if (round === 0) expect(statuses).toContain(201);
    }
    const credits = (await api(`/invoices?type[]=TYPE_CREDIT&limit=100`, { token: t.key })).body.data;
    expect(credits).toHaveLength(1);
    expect(credits[0].grossAmount.amount).toBe('-83.30'); // 70.00 + 19 % = 83.30
    // A reason named like a property of every object is free text, not a reason code.
    const more = await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [line('1.00')], reason: 'constructor' } });
    expect(more.status).toBe(201);
    expect(more.body.title).toBe(`Credit note for ${inv.number}: constructor`);
  });

  it('credits the rest per tax rate, and partial credits only at the invoice rates and within each', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    // 100.00 at 19 % (19.00) + 50.00 at 7 % (3.50): net 150.00, tax 22.50, gross 172.50.
    const inv = await finalized(t, c.id, [line('100.00'), line('50.00', '1', '7')]);
    expect(violations(await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [line('10.00', '1', '5')] } }))).toEqual(['positions[0].taxRate: not_on_invoice']);
    // 50.01 at 7 % is 53.51 gross, well below the 172.50 left, but more than the 50.00 charged at 7 %.
    expect(violations(await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [line('50.01', '1', '7')] } }))).toEqual(['positions: exceeds_creditable']);
    // 20.00 at 7 %: 1.40 tax, 21.40 gross.
    const part = await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [line('20.00', '1', '7')], reason: 'order_change' } });
    expect(part.body.title).toBe(`Credit note for ${inv.number}: order changed`);
    expect(totals(part.body)).toEqual(['-20.00', '-1.40', '-21.40']);
    // The rest: 100.00 at 19 % (19.00) and 30.00 at 7 % (2.10): net 130.00, tax 21.10, gross 151.10; 21.40 + 151.10 = 172.50.
    const rest = await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [] } });
    expect(totals(rest.body)).toEqual(['-130.00', '-21.10', '-151.10']);
    expect(rest.body.taxes.map((x: any) => [x.rate, x.taxableAmount.amount, x.taxAmount.amount])).toEqual([
      ['7', '-30.00', '-2.10'],
      ['19', '-100.00', '-19.00'],
    ]);
  });

  it('computes the tax of the rest on the rest (EN16931), which may differ by a cent from the tax not yet credited', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    // 0.06 at 19 %: 0.0114 → 0.01 tax, 0.07 gross.
    const inv = await finalized(t, c.id, [line('0.06')]);
    // 0.03 at 19 %: 0.0057 → 0.01 tax, 0.04 gross; the rest again 0.03 net and 0.01 tax (not 0.00):
    // every credit note's tax is its own net × rate, rounded once; the net is credited exactly.
    await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [line('0.03')] } });
    const rest = await api(`/invoices/${inv.id}/credit`, { token: t.key, body: {} });
    expect(rest.status).toBe(201);
    expect(totals(rest.body)).toEqual(['-0.03', '-0.01', '-0.04']);
    expect((await api(`/invoices/${inv.id}`, { token: t.key })).body.status).toBe('STATUS_CLOSED');
  });
});
