import { describe, expect, it } from 'vitest';
import { api, eventsOf, expectProblem, get, post, violations } from '../support/api';
import { createCustomer, createTenant } from '../support/builders';
import { draft, finalized, line } from './builders';

// POST /invoices/{id}/address, Fynn's "set customer address" (spec §4.3): a draft takes one of its
// customer's addresses (or, with null, the customer's billing address); a finalized document keeps
// the address it was issued with (docs/decisions.md, Response shapes).

/** A customer with a draft made before its invoice address existed (so the draft shows its default address). */
async function setup() {
  const t = await createTenant();
  const c = await createCustomer(t);
  const d = await draft(t, c.id, [line('10.00')]);
  const invoiceAddress = (await post(t, `/customers/${c.id}/addresses`, { type: 'TYPE_INVOICE', street: 'Rechnungsweg', houseNumber: '5', city: 'Köln', zip: '50667', countryCode: 'DE' })).body;
  expect(invoiceAddress.id).toEqual(expect.any(String));
  expect(d.invoiceAddress).not.toMatchObject({ street: 'Rechnungsweg' });
  return { t, c, d, invoiceAddress };
}

const setAddress = (t: { key: string }, id: string, body: unknown) => api(`/invoices/${id}/address`, { token: t.key, body });

describe('POST /invoices/{id}/address', () => {
  it.each([['address'], ['invoiceAddress']])("copies one of the customer's addresses onto a draft, sent as %s; 201 and invoice.updated", async (field) => {
    const { t, d, invoiceAddress } = await setup();
    const res = await setAddress(t, d.id, { [field]: invoiceAddress.id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.invoiceAddress).toMatchObject({ id: invoiceAddress.id, street: 'Rechnungsweg', houseNumber: '5', city: 'Köln', zip: '50667' });
    expect((await get(t, `/invoices/${d.id}`)).body.invoiceAddress).toEqual(res.body.invoiceAddress);
    expect((await eventsOf(t, d.id)).map((e) => e.type)).toEqual(['invoice.created', 'invoice.updated']);
  });

  it("null puts the customer's billing address back", async () => {
    const { t, d } = await setup();
    const back = await setAddress(t, d.id, { address: null });
    expect(back.status).toBe(201);
    // The customer has an invoice address since the draft was made: billing uses it (spec §2.1).
    expect(back.body.invoiceAddress).toMatchObject({ street: 'Rechnungsweg', city: 'Köln' });
  });

  it('refuses bad bodies and addresses of another customer (422), changing nothing', async () => {
    const { t, d } = await setup();
    const other = await createCustomer(t);
    const foreign = (await post(t, `/customers/${other.id}/addresses`, { type: 'TYPE_INVOICE', street: 'Fremd', city: 'Bonn', zip: '53111', countryCode: 'DE' })).body;
    expect(violations(await setAddress(t, d.id, { address: foreign.id }))).toEqual(['address: not_found']);
    expect(violations(await setAddress(t, d.id, { invoiceAddress: foreign.id }))).toEqual(['invoiceAddress: not_found']);
    expect(violations(await setAddress(t, d.id, { address: foreign.id, invoiceAddress: null }))).toEqual(['invoiceAddress: conflicting_alias']);
    expect(violations(await setAddress(t, d.id, {}))).toEqual(['address: required']);
    expect(violations(await setAddress(t, d.id, { address: foreign.id, colour: 'red' }))).toContain('colour: unknown_field');
    const after = (await get(t, `/invoices/${d.id}`)).body;
    expect(after.invoiceAddress).toEqual(d.invoiceAddress);
    expect(after.updatedAt).toBe(d.updatedAt);
  });

  it('leaves a finalized document as issued: 409 invalid-transition; an unknown invoice is 404', async () => {
    const { t, c, invoiceAddress } = await setup();
    const inv = await finalized(t, c.id, [line('10.00')]);
    expectProblem(await setAddress(t, inv.id, { address: invoiceAddress.id }), 409, '/problems/invalid-transition');
    expect((await get(t, `/invoices/${inv.id}`)).body.invoiceAddress).toEqual(inv.invoiceAddress);
    expectProblem(await setAddress(t, 'no-such-invoice', { address: null }), 404);
  });
});
