import { describe, expect, it } from 'vitest';
import { api, countRows, type TestTenant, dbOf } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';

// Writes of many rows go through insertRows (src/db/insert.ts), whose chunks follow the table's
// column count. These requests write far more rows than fit in one statement.

async function created(t: TestTenant, path: string, body: unknown) {
  const res = await api(path, { token: t.key, body });
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
  return res.body;
}

const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `Line ${i + 1}`, unitPrice: '1.25', quantity: String(i + 1), taxRate: i % 2 ? '7' : '19' }));

describe('inserting many rows', () => {
  it('D1 in this runtime refuses a statement with more than 100 bound parameters', async () => {
    const placeholders = (n: number) => `SELECT ${Array.from({ length: n }, () => '?').join(', ')}`;
    const t = await createTenant();
    await expect((await dbOf(t)).prepare(placeholders(100)).bind(...Array(100).fill(1)).all()).resolves.toBeDefined();
    await expect((await dbOf(t)).prepare(placeholders(101)).bind(...Array(101).fill(1)).all()).rejects.toThrow();
  });

  it('an invoice draft with 65 positions, replaced by 130, extended by 200, then cancelled line by line', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const invoice = await created(t, '/invoices', { customer: c.id, positions: lines(65) });
    expect(invoice.positions).toHaveLength(65);
    expect(await countRows('invoice_positions', t, 'AND invoice_id = ?', invoice.id)).toBe(65);

    const replaced = await api(`/invoices/${invoice.id}`, { method: 'PUT', token: t.key, body: { customer: c.id, positions: lines(130) } });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(await countRows('invoice_positions', t, 'AND invoice_id = ?', invoice.id)).toBe(130);

    const added = await api(`/invoices/${invoice.id}/position-items`, { token: t.key, body: { positions: lines(200) } });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(await countRows('invoice_positions', t, 'AND invoice_id = ?', invoice.id)).toBe(330);

    expect((await api(`/invoices/${invoice.id}/finalize`, { token: t.key, body: {} })).status).toBe(201);
    const cancelled = await api(`/invoices/${invoice.id}/cancel`, { token: t.key, method: 'POST' });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    const cancellation = cancelled.body.cancellationDocument.id;
    expect(await countRows('invoice_positions', t, 'AND invoice_id = ?', cancellation)).toBe(330);
    const gross = await countRows('invoices', t, 'AND id = ? AND gross_amount = -(SELECT gross_amount FROM invoices WHERE id = ?)', cancellation, invoice.id);
    expect(gross).toBe(1);
  });

  it('a subscription with 100 items, each with an entitlement', async () => {
    const t = await createTenant();
    const family = await created(t, '/product-families', { name: 'Family' });
    const unit = await created(t, '/units', { name: 'Unit', code: 'unit' });
    const measurement = await created(t, '/measurements', { unit: unit.id, code: 'seats', aggregationType: 'last_value', type: 'recurring' });
    const taxGroup = await created(t, '/tax-groups', { type: 'standard' });
    const product = await created(t, '/catalogue/products', { name: 'Seat', type: 'product', productFamilies: [family.id], measurement: measurement.id, taxGroup: taxGroup.id });
    const feature = await created(t, '/entitlement/features', { code: 'sso', name: 'SSO', type: 'switch' });
    await created(t, '/entitlement/feature-assignments', { feature: feature.id, value: 'true', object: 'product', objectId: product.id });
    const price = await created(t, '/price-plans', { product: product.id, calculationType: 'flat_fee', currencyCode: 'EUR', price: { amount: '10' }, billingInterval: '1M' });
    const c = await createCustomer(t);
    const items = Array.from({ length: 100 }, (_, i) => ({ product: product.id, pricePlan: price.id, quantity: String(i + 1) }));
    const sub = await created(t, '/subscriptions', { customer: c.id, items });
    expect(await countRows('subscription_items', t, 'AND subscription_id = ?', sub.id)).toBe(100);
    const activated = await api(`/subscriptions/${sub.id}/activate`, { method: 'PUT', token: t.key, body: {} });
    expect(activated.status, JSON.stringify(activated.body)).toBe(200);
    expect(activated.body.items).toHaveLength(100);
    expect(await countRows('entitlements', t, 'AND subscription_id = ?', sub.id)).toBe(100);
  });
});
