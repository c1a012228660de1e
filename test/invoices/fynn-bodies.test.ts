import { describe, expect, it } from 'vitest';
import { api, violations, dbOf } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { paymentMethod } from '../subscriptions/builders';
import { draft, finalized, line, postRaw } from './builders';

// The invoice operations with the bodies Fynn documents (docs.fynn.eu; docs/n8n-fynn-node-requests.md §7), next to ours,
// and Fynn's status codes. Every test works in a fresh tenant.

describe('numbers read exactly only where amounts are', () => {
  it('keeps a number custom field a number even when its name is a position field, and checks it against its definition', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    expect((await api('/custom-fields', { token: t.key, body: { name: 'quantity', type: 'number', resource: 'invoice' } })).status).toBe(201);
    const body = (value: string) => `{"customer":"${c.id}","customFields":{"quantity":${value}},"positions":[{"name":"Service","unitPrice":"10.00","quantity":3,"taxRate":"19"}]}`;
    const made = await postRaw(t, '/invoices', body('3'));
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.customFields).toEqual({ quantity: 3 });
    expect(made.body.positions[0].quantity).toBe('3');
    expect(violations(await postRaw(t, '/invoices', body('"three"')))).toEqual(['customFields.quantity: invalid_custom_field_value']);
  });
});

describe('POST /invoices/{id}/payment-method', () => {
  it("takes Fynn's {paymentMethodId} and our {paymentMethod}, answers 201", async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const other = await createCustomer(t);
    const card = await paymentMethod(t, c.id, 'card');
    const sepa = await paymentMethod(t, c.id, 'sepa_debit');
    const inv = await finalized(t, c.id, [line('10.00')]);
    const fynn = await api(`/invoices/${inv.id}/payment-method`, { token: t.key, body: { paymentMethodId: card } });
    expect(fynn.status).toBe(201);
    expect(fynn.body.paymentMethod).toMatchObject({ id: card, type: 'card', customer: c.id });
    const ours = await api(`/invoices/${inv.id}/payment-method`, { token: t.key, body: { paymentMethod: sepa } });
    expect(ours.status).toBe(201);
    expect(ours.body.paymentMethod).toMatchObject({ id: sepa, type: 'sepa_debit', customer: c.id });
    expect((await api(`/invoices/${inv.id}/payment-method`, { token: t.key, body: { paymentMethodId: null } })).body.paymentMethod).toBeNull();
    // The violation names the field that was sent.
    expect(violations(await api(`/invoices/${inv.id}/payment-method`, { token: t.key, body: { paymentMethodId: await paymentMethod(t, other.id) } }))).toEqual([
      'paymentMethodId: not_found',
    ]);
    expect(violations(await api(`/invoices/${inv.id}/payment-method`, { token: t.key, body: { paymentMethodId: card, paymentMethod: sepa } }))).toEqual([
      'paymentMethod: conflicting_alias',
    ]);
    expect(violations(await api(`/invoices/${inv.id}/payment-method`, { token: t.key, body: {} }))).toEqual(['paymentMethodId: required']);
  });
});

describe('POST /invoices/{id}/payments', () => {
  it("takes Fynn's body: amount as a JSON number read exactly, currency, fee, date defaulting to now; 201", async () => {
    const t = await createTenant();
    await api('/test-clock', { method: 'PUT', token: t.key, body: { now: '2026-04-02T08:30:00Z' } });
    const c = await createCustomer(t);
    const inv = await finalized(t, c.id, [line('100.00')]); // 100.00 + 19.00 = 119.00
    const path = `/invoices/${inv.id}/payments`;
    // 50.10 as written: a float would make it 50.1 (the same here), so the next checks prove exactness.
    const first = await postRaw(t, path, '{"paymentMethod":"pm_bank","description":"Bank transfer","amount":50.10,"currencyCode":"EUR","feeAmount":0.35}');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.unpaidAmount.amount).toBe('68.90'); // 119.00 − 50.10
    const stored = await (await dbOf(t)).prepare('SELECT amount, fee_amount, payment_date, payment_method, description FROM invoice_payments WHERE invoice_id = ?').bind(inv.id).first();
    expect(stored).toEqual({ amount: 5010, fee_amount: 35, payment_date: '2026-04-02T08:30:00.000Z', payment_method: 'pm_bank', description: 'Bank transfer' });
    // 10.10000000000000001 parses to the float 10.1; read from the text it has 17 decimals: refused, not rounded.
    expect(violations(await postRaw(t, path, '{"paymentMethod":"pm","description":"x","amount":10.10000000000000001}'))).toEqual(['amount: too_many_decimals']);
    expect(violations(await postRaw(t, path, '{"paymentMethod":"pm","description":"x","amount":1e1}'))).toEqual(['amount: invalid_format']);
    expect(violations(await postRaw(t, path, '{"paymentMethod":"pm","description":"x","amount":-5}'))).toEqual(['amount: negative']);
    expect(violations(await postRaw(t, path, '{"paymentMethod":"pm","description":"x","amount":5,"currencyCode":"USD"}'))).toEqual(['currencyCode: currency_mismatch']);
    expect(violations(await postRaw(t, path, '{"paymentMethod":"pm","description":"x","amount":5,"feeAmount":0.001}'))).toEqual(['feeAmount: too_many_decimals']);
    // Our body still works: a string amount and a date.
    const rest = await api(path, { token: t.key, body: { amount: '68.90', paymentDate: '2026-04-03T00:00:00Z' } });
    expect(rest.status).toBe(201);
    expect(rest.body).toMatchObject({ status: 'STATUS_PAID', payDate: '2026-04-03T00:00:00.000Z', unpaidAmount: { amount: '0.00' } });
  });
});

describe('POST /invoices/{id}/credit', () => {
  it("takes Fynn's body: positions of the invoice by id (all or a quantity), reason code, comment, payment method and texts; 201", async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const pm = await paymentMethod(t, c.id, 'sepa_debit');
    // 3 × 10.00 at 19 % = 30.00 + 5.70; 1 × 20.00 at 7 % = 20.00 + 1.40; gross 57.10.
    const inv = await finalized(t, c.id, [line('10.00', '3'), line('20.00', '1', '7')], { introduction: 'Hello', closing: 'Bye' });
    const [seats, book] = inv.positions;
    const credit = await api(`/invoices/${inv.id}/credit`, {
      token: t.key,
      body: {
        positions: [{ id: seats.id, quantity: 1 }, { id: book.id }],
        reason: 'product_unsatisfactory',
        comment: 'Two items broken',
        paymentMethod: pm,
        customIntroduction: 'We are sorry.',
        customClosing: 'Kind regards',
      },
    });
    expect(credit.status, JSON.stringify(credit.body)).toBe(201);
    // 1 of 3 seats: −10.00 at 19 % (tax −1.90); the whole book: −20.00 at 7 % (tax −1.40); gross −33.30.
    expect(credit.body).toMatchObject({
      type: 'TYPE_CREDIT',
      title: `Credit note for ${inv.number}: product unsatisfactory`,
      internalNote: 'Two items broken',
      paymentMethod: { id: pm, type: 'sepa_debit' },
      referencedInvoice: { id: inv.id, number: inv.number, type: 'TYPE_INVOICE' },
      introduction: 'We are sorry.',
      closing: 'Kind regards',
      netAmount: { amount: '-30.00' },
      taxAmount: { amount: '-3.30' },
      grossAmount: { amount: '-33.30' },
    });
    expect(credit.body.positions.map((p: any) => [p.quantity, p.netAmount.amount, p.taxRate])).toEqual([
      ['-1', '-10.00', '19'],
      ['-1', '-20.00', '7'],
    ]);
    const tooMany = await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [{ id: seats.id, quantity: '4' }] } });
    expect(violations(tooMany)).toEqual(['positions[0].quantity: exceeds_quantity']);
    const unknown = await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [{ id: 'nope' }, { id: seats.id, name: 'x' }] } });
    expect(violations(unknown)).toEqual(['positions[1].name: conflicting_fields']);
    expect(violations(await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { positions: [{ id: 'nope' }] } }))).toEqual(['positions[0].id: not_found']);
    expect(violations(await api(`/invoices/${inv.id}/credit`, { token: t.key, body: { reason: 'other', paymentMethod: 'nope' } }))).toEqual(['paymentMethod: not_found']);
  });
});

describe('POST /invoices/{id}/position-items', () => {
  it("takes one Fynn item with children, unitId, taxGroupId, a percentage discount and a place", async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const unit = (await api('/units', { token: t.key, body: { name: 'Stück', code: 'pcs' } })).body;
    const group = (await api('/tax-groups', { token: t.key, body: { type: 'standard', internalDescription: '19%' } })).body;
    const inv = await draft(t, c.id, [line('1.00')]);
    const res = await postRaw(
      t,
      `/invoices/${inv.id}/position-items`,
      JSON.stringify({
        position: 1,
        name: 'Workshop',
        quantity: 2,
        unitId: unit.id,
        unitPrice: '12.50',
        currencyCode: 'EUR',
        taxGroupId: group.id,
        discountAmount: '0.00',
        discountPercentage: 10,
        serviceDateFrom: '2026-01-01T00:00:00+01:00',
        serviceDateTo: '2026-01-31T00:00:00+01:00',
        children: [{ name: 'Material', quantity: 1, unitId: unit.id, unitPrice: '5.00', taxGroupId: group.id }],
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Put in front: Workshop 2 × 12.50 = 25.00 − 10 % (2.50) = 22.50; Material 5.00; the old line 1.00 last.
    expect(res.body.positions.map((p: any) => [p.position, p.name, p.netAmount.amount, p.discountAmount.amount, p.netAmountAfterDiscount.amount])).toEqual([
      [1, 'Workshop', '25.00', '2.50', '22.50'],
      [2, 'Material', '5.00', '0.00', '5.00'],
      [3, 'Service', '1.00', '0.00', '1.00'],
    ]);
    const [workshop, material] = res.body.positions;
    expect(workshop).toMatchObject({
      quantity: '2',
      unit: { id: unit.id, name: 'Stück' },
      discountPercentage: '10',
      taxGroup: { id: group.id, internalDescription: '19%', reverseChargeType: 'REVERSE_CHARGE', type: 'standard' },
      serviceDateFrom: '2025-12-31T23:00:00.000Z',
    });
    expect(material).toMatchObject({ parent: workshop.id, group: { id: workshop.id, ranking: 1, name: 'Workshop' } });
    // 28.50 at 19 % = 5.415 → 5.42 tax; 33.92 gross.
    expect(res.body).toMatchObject({ netAmount: { amount: '28.50' }, discountAmount: { amount: '2.50' }, taxAmount: { amount: '5.42' }, grossAmount: { amount: '33.92' } });
    const bad = await api(`/invoices/${inv.id}/position-items`, {
      token: t.key,
      body: { name: 'X', quantity: 1, unitId: 'nope', unitPrice: '1.00', taxGroupId: group.id, currencyCode: 'USD', discountAmount: '1.00', discountPercentage: 5, children: [{ name: 'Y', unitPrice: '1', taxGroupId: 'nope' }] },
    });
    expect(violations(bad)).toEqual(['unitId: not_found', 'currencyCode: currency_mismatch', 'discountPercentage: conflicting_fields', 'children[0].taxGroupId: not_found']);
    expect(violations(await api(`/invoices/${inv.id}/position-items`, { token: t.key, body: { name: 'X', unitPrice: '1', taxGroup: group.id, taxGroupId: group.id } }))).toEqual([
      'taxGroupId: conflicting_alias',
    ]);
    // Our list form still works.
    expect((await api(`/invoices/${inv.id}/position-items`, { token: t.key, body: { positions: [line('2.00')] } })).status).toBe(200);
  });
});
