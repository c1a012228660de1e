import { describe, expect, it } from 'vitest';
import { countRows, del, expect422, expectProblem, expectStatus, get, paths, post, put, query, type TestTenant } from '../support/api';
import { created, createCustomer, createTenant, eventTypes } from '../support/builders';
import { text } from './builders';

// The addresses of a customer (/customers/{id}/addresses). Storage is shared by every test file, so
// every test works in a fresh tenant of its own.

describe('addresses sub-resource', () => {
  const addr = (overrides: Record<string, unknown> = {}) => ({
    type: 'TYPE_DEFAULT',
    street: 'Nebenstraße',
    houseNumber: '5',
    zip: '50667',
    city: 'Köln',
    ...overrides,
  });

  async function storedDefaults(t: TestTenant, customerId: string) {
    return query<{ id: string; type: string }>(
      t,
      'SELECT id, type FROM customer_addresses WHERE tenant_id = ? AND customer_id = ? AND is_default = 1 ORDER BY type',
      t.id,
      customerId,
    );
  }

  it('lists the addresses with pagination', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { invoiceAddress: { city: 'Bonn' } });
    const res = await get(t, `/customers/${c.id}/addresses`);
    expectStatus(res, 200);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.data).toEqual(expect.arrayContaining([c.defaultAddress, c.defaultInvoiceAddress]));
    expect(res.body.meta.pagination).toMatchObject({ totalItems: 2, currentPage: 1, pageTotalItems: 2 });
    const page = await get(t, `/customers/${c.id}/addresses?limit=1&page=2`);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta.pagination).toMatchObject({ totalItems: 2, itemsPerPage: 1, currentPage: 2, lastPage: 2, pageTotalItems: 1 });
    expectProblem(await get(t, `/customers/${c.id}/addresses?limit=101`), 400);
  });

  it('makes the first address of a type its default; later ones are not', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const firstInvoice = await created(post(t, `/customers/${c.id}/addresses`, addr({ type: 'TYPE_INVOICE', city: 'Bonn' })));
    expect(firstInvoice).toMatchObject({ type: 'TYPE_INVOICE', default: true, status: 'active', city: 'Bonn', countryCode: 'DE' });
    const secondInvoice = await created(post(t, `/customers/${c.id}/addresses`, addr({ type: 'TYPE_INVOICE', city: 'Essen' })));
    expect(secondInvoice.default).toBe(false);
    const extra = await created(post(t, `/customers/${c.id}/addresses`, addr()));
    expect(extra.default).toBe(false);

    const after = (await get(t, `/customers/${c.id}`)).body;
    expect(after.addresses).toHaveLength(4);
    expect(after.defaultAddress.id).toBe(c.defaultAddress.id);
    expect(after.defaultInvoiceAddress.id).toBe(firstInvoice.id);
    expect(await storedDefaults(t, c.id)).toEqual([
      { id: c.defaultAddress.id, type: 'TYPE_DEFAULT' },
      { id: firstInvoice.id, type: 'TYPE_INVOICE' },
    ]);
  });

  it('moves the default with default: true, keeping one default per type', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const moved = await created(post(t, `/customers/${c.id}/addresses`, addr({ default: true, countryCode: 'NL', city: 'Amsterdam' })));
    expect(moved).toMatchObject({ default: true, countryCode: 'NL' });
    const after = (await get(t, `/customers/${c.id}`)).body;
    expect(after.defaultAddress.id).toBe(moved.id);
    expect(after.addresses.find((a: any) => a.id === c.defaultAddress.id).default).toBe(false);
    expect(await storedDefaults(t, c.id)).toEqual([{ id: moved.id, type: 'TYPE_DEFAULT' }]);
    // The invoice address is still the fallback to the (new) default address.
    expect(after.defaultInvoiceAddress.id).toBe(moved.id);
  });

  it('uses the invoice address as defaultInvoiceAddress while it exists, else the default address', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { city: 'Berlin' });
    expect(c.defaultInvoiceAddress.id).toBe(c.defaultAddress.id);
    const inv = await created(post(t, `/customers/${c.id}/addresses`, addr({ type: 'TYPE_INVOICE', city: 'Hamburg' })));
    let view = (await get(t, `/customers/${c.id}`)).body;
    expect(view.defaultInvoiceAddress).toEqual(inv);
    expect(view.defaultAddress.id).toBe(c.defaultAddress.id);
    expectStatus(await del(t, `/customers/${c.id}/addresses/${inv.id}`), 204);
    view = (await get(t, `/customers/${c.id}`)).body;
    expect(view.defaultInvoiceAddress).toEqual(view.defaultAddress);
  });

  it('gets and updates an address: PUT changes the fields sent and keeps the others', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const a = await created(post(t, `/customers/${c.id}/addresses`, addr({ salutation: 'Frau', firstName: 'Eva', lastName: 'Ernst', costCentre: 'K1' })));
    const read = await get(t, `/customers/${c.id}/addresses/${a.id}`);
    expectStatus(read, 200);
    expect(read.body).toEqual(a);

    const res = await put(t, `/customers/${c.id}/addresses/${a.id}`, addr({ street: 'Neue Allee', houseNumber: '', zip: '04109', city: 'Leipzig', status: 'archived' }));
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id: a.id, street: 'Neue Allee', houseNumber: '', zip: '04109', city: 'Leipzig', status: 'archived', salutation: 'Frau', firstName: 'Eva', lastName: 'Ernst', costCentre: 'K1' });
    expect((await get(t, `/customers/${c.id}/addresses/${a.id}`)).body).toEqual(res.body);
    // null clears a field; a body of one field changes that field only.
    const cleared = await put(t, `/customers/${c.id}/addresses/${a.id}`, { salutation: null, firstName: null, costCentre: '' });
    expectStatus(cleared, 200);
    expect(cleared.body).toEqual({ ...res.body, salutation: null, firstName: null, costCentre: null });
    expect(await eventTypes(t, c.id)).toEqual(['customer.created', 'customer.updated', 'customer.updated', 'customer.updated']);
  });

  it('makes another address the default through PUT', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const a = await created(post(t, `/customers/${c.id}/addresses`, addr()));
    expectStatus(await put(t, `/customers/${c.id}/addresses/${a.id}`, addr({ default: true })), 200);
    expect(await storedDefaults(t, c.id)).toEqual([{ id: a.id, type: 'TYPE_DEFAULT' }]);
    expect((await get(t, `/customers/${c.id}`)).body.defaultAddress.id).toBe(a.id);
    // The former default is an ordinary address now and can go.
    expectStatus(await del(t, `/customers/${c.id}/addresses/${c.defaultAddress.id}`), 204);
  });

  it.each([
    { name: 'unsetting default', body: { default: false }, path: 'default' },
    { name: 'turning it into an invoice address', body: { type: 'TYPE_INVOICE' }, path: 'default' },
  ])('422 for $name on the only default address', async ({ body, path }) => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const res = await put(t, `/customers/${c.id}/addresses/${c.defaultAddress.id}`, addr(body));
    expectProblem(res, 422);
    expect(paths(res)).toContain(path);
    expect((await get(t, `/customers/${c.id}`)).body.defaultAddress).toEqual(c.defaultAddress);
  });

  it('deletes an ordinary address but refuses the default address with 409', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const a = await created(post(t, `/customers/${c.id}/addresses`, addr()));
    const before = await eventTypes(t, c.id);
    expectProblem(await del(t, `/customers/${c.id}/addresses/${c.defaultAddress.id}`), 409);
    expect(await eventTypes(t, c.id)).toEqual(before);
    expect(await countRows('customer_addresses', t, 'AND id = ?', c.defaultAddress.id)).toBe(1);
    expectStatus(await del(t, `/customers/${c.id}/addresses/${a.id}`), 204);
    expect(await countRows('customer_addresses', t, 'AND id = ?', a.id)).toBe(0);
    expectProblem(await get(t, `/customers/${c.id}/addresses/${a.id}`), 404);
    expect(await eventTypes(t, c.id)).toEqual([...before, 'customer.updated']);
  });

  it.each([
    { name: 'a missing type', body: { type: undefined }, path: 'type' },
    { name: 'an unknown type', body: { type: 'TYPE_SHIPPING' }, path: 'type' },
    { name: 'a 1-character zip', body: { zip: '1' }, path: 'zip' },
    { name: 'a 256-character street', body: { street: text(256) }, path: 'street' },
    { name: 'a 256-character houseNumber', body: { houseNumber: text(256) }, path: 'houseNumber' },
    { name: 'a bad country', body: { countryCode: 'XX' }, path: 'countryCode' },
    { name: 'a bad VAT id', body: { vatId: 'DE123' }, path: 'vatId' },
    { name: 'an unknown salutation', body: { salutation: 'Dr' }, path: 'salutation' },
    { name: 'an unknown field', body: { floor: 3 }, path: 'floor' },
    { name: 'an archived default address', body: { default: true, status: 'archived' }, path: 'status' },
  ])('422 on create for $name', async ({ body, path }) => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const res = await post(t, `/customers/${c.id}/addresses`, addr(body));
    expect422(res, [path]);
    expect(await countRows('customer_addresses', t)).toBe(1);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
  });

  it('404 for an unknown customer or address, and for an address of another customer', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    const other = await createCustomer(t);
    expectProblem(await get(t, '/customers/unknown-id/addresses'), 404);
    expectProblem(await post(t, '/customers/unknown-id/addresses', addr()), 404);
    expectProblem(await get(t, `/customers/${c.id}/addresses/unknown-id`), 404);
    expectProblem(await get(t, `/customers/${c.id}/addresses/${other.defaultAddress.id}`), 404);
    expectProblem(await put(t, `/customers/${c.id}/addresses/${other.defaultAddress.id}`, addr()), 404);
    expectProblem(await del(t, `/customers/${c.id}/addresses/${other.defaultAddress.id}`), 404);
    expect(await countRows('customer_addresses', t, 'AND id = ?', other.defaultAddress.id)).toBe(1);
  });
});
