import { describe, expect, it } from 'vitest';
import { api, countRows, del, eventsOf, expect422, expectProblem, expectStatus, get, patch, post, put, query, unique, type TestTenant, dbOf } from '../support/api';
import { created, createCustomer, createTenant, eventTypes, setClock } from '../support/builders';
import { baseBody, createGroup, defineField, normalized, UNREGISTERED_VAT_ID, VALID_VAT_ID } from './builders';

// Customers (spec §2.1, §4.2) once they exist: list and get, replace, merge patch, delete, archive,
// and the outbox events every change writes. Storage is shared by every test file, so every test
// works in a fresh tenant of its own.

describe('GET /customers', () => {
  async function tenantWithCustomers(n: number) {
    const t = await createTenant();
    for (let i = 0; i < n; i++) await createCustomer(t);
    return t;
  }

  it.each([
    { query: '', data: 5, meta: { totalItems: 5, itemsPerPage: 30, currentPage: 1, lastPage: 1, pageTotalItems: 5 } },
    { query: '?limit=2', data: 2, meta: { totalItems: 5, itemsPerPage: 2, currentPage: 1, lastPage: 3, pageTotalItems: 2 } },
    { query: '?limit=2&page=2', data: 2, meta: { totalItems: 5, itemsPerPage: 2, currentPage: 2, lastPage: 3, pageTotalItems: 2 } },
    { query: '?limit=2&page=3', data: 1, meta: { totalItems: 5, itemsPerPage: 2, currentPage: 3, lastPage: 3, pageTotalItems: 1 } },
    { query: '?limit=2&page=4', data: 0, meta: { totalItems: 5, itemsPerPage: 2, currentPage: 4, lastPage: 3, pageTotalItems: 0 } },
    { query: '?limit=100', data: 5, meta: { totalItems: 5, itemsPerPage: 100, currentPage: 1, lastPage: 1, pageTotalItems: 5 } },
    { query: '?limit=0', data: 0, meta: { totalItems: 5, itemsPerPage: 0, currentPage: 1, pageTotalItems: 0 } },
  ])('paginates with "$query"', async ({ query: q, data, meta }) => {
    const t = await tenantWithCustomers(5);
    const res = await get(t, `/customers${q}`);
    expectStatus(res, 200);
    expect(res.body.data).toHaveLength(data);
    expect(res.body.meta.pagination).toMatchObject(meta);
  });

  it('walks every customer exactly once across pages', async () => {
    const t = await tenantWithCustomers(5);
    const seen: string[] = [];
    for (const page of [1, 2, 3]) seen.push(...(await get(t, `/customers?limit=2&page=${page}`)).body.data.map((c: any) => c.id));
    expect(new Set(seen).size).toBe(5);
  });

  it.each(['limit=101', 'limit=-1', 'limit=abc', 'page=-1', 'page=1.5', 'status=deleted', 'order[createdAt]=up'])('400 for %s', async (q) => {
    const t = await createTenant();
    expectProblem(await get(t, `/customers?${q}`), 400);
  });

  it('returns each customer in its full representation, as GET /customers/{id} does', async () => {
    const t = await createTenant();
    const group = await createGroup(t);
    const c = await createCustomer(t, { customerGroup: group.id, invoiceEmail: 'bill@example.com', invoiceAddress: { city: 'Bonn' } });
    const res = await get(t, '/customers');
    expectStatus(res, 200);
    expect(res.body.data).toHaveLength(1);
    const item = res.body.data[0];
    expect(item.addresses).toHaveLength(2);
    expect(item.emailAddresses).toHaveLength(2);
    expect(item.defaultInvoiceAddress).toMatchObject({ type: 'TYPE_INVOICE', city: 'Bonn' });
    expect(item.customerGroup).toEqual({ id: group.id, name: group.name, description: group.description });
    expect(normalized(item)).toEqual(normalized(c));
  });

  it('shows only the own tenant', async () => {
    const a = await tenantWithCustomers(2);
    const b = await tenantWithCustomers(1);
    expect((await get(a, '/customers')).body.meta.pagination.totalItems).toBe(2);
    expect((await get(b, '/customers')).body.meta.pagination.totalItems).toBe(1);
  });

  describe('filters', () => {
    async function people(t: TestTenant) {
      const anna = await createCustomer(t, { email: 'anna@alpha.example', firstName: 'Anna', lastName: 'Berg', customerNumber: 'N-100' });
      const bernd = await createCustomer(t, { email: 'bernd@beta.example', firstName: 'Bernd', lastName: 'Stein', companyName: 'Steinbruch AG', customerNumber: 'N-200' });
      const clara = await createCustomer(t, { email: 'Clara@Gamma.example', companyName: 'Gamma Werke', customerNumber: 'X-300' });
      expectStatus(await put(t, `/customers/${clara.id}/archive`), 200);
      return { anna: anna.id, bernd: bernd.id, clara: clara.id } as Record<string, string>;
    }

    it.each([
      { query: 'search=anna', expected: ['anna'] },
      { query: 'search=BERG', expected: ['anna'] },
      { query: 'search=Anna%20Berg', expected: ['anna'] },
      { query: 'search=steinbruch', expected: ['bernd'] },
      { query: 'search=stein', expected: ['bernd'] },
      { query: 'search=gamma.example', expected: ['clara'] },
      { query: 'search=N-', expected: ['anna', 'bernd'] },
      { query: 'search=X-300', expected: ['clara'] },
      { query: 'search=%25', expected: [] },
      { query: 'search=_', expected: [] },
      { query: 'search=nobody', expected: [] },
      { query: 'status=STATUS_ACTIVE', expected: ['anna', 'bernd'] },
      { query: 'status=STATUS_ARCHIVED', expected: ['clara'] },
      { query: 'status=STATUS_SUSPENDED', expected: [] },
      { query: 'customerNumber=N-200', expected: ['bernd'] },
      { query: 'customerNumber=N-2', expected: [] },
      { query: 'email=clara@gamma.example', expected: ['clara'] },
      { query: 'email=ANNA@ALPHA.EXAMPLE', expected: ['anna'] },
      { query: 'email=anna', expected: [] },
      { query: 'search=a&status=STATUS_ARCHIVED', expected: ['clara'] },
    ])('filters by $query', async ({ query: q, expected }) => {
      const t = await createTenant();
      const ids = await people(t);
      const res = await get(t, `/customers?${q}`);
      expectStatus(res, 200);
      const names = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k]));
      expect(res.body.data.map((c: any) => names[c.id]).sort()).toEqual(expected);
      expect(res.body.meta.pagination.totalItems).toBe(expected.length);
    });
  });

  describe('sorting', () => {
    // Created one minute apart; numbers chosen so that number order differs from creation order.
    async function sorted(t: TestTenant) {
      const ids: Record<string, string> = {};
      const specs = [
        ['first', 'N-3', '2031-03-01T10:00:00.000Z'],
        ['second', 'N-1', '2031-03-01T10:01:00.000Z'],
        ['third', 'N-2', '2031-03-01T10:02:00.000Z'],
      ] as const;
      for (const [name, number, at] of specs) {
        await setClock(t, at);
        const c = await createCustomer(t, { customerNumber: number });
        expect(c.createdAt).toBe(at);
        ids[c.id] = name;
      }
      return ids;
    }

    it.each([
      { query: '', expected: ['third', 'second', 'first'] },
      { query: '?order[createdAt]=desc', expected: ['third', 'second', 'first'] },
      { query: '?order[createdAt]=asc', expected: ['first', 'second', 'third'] },
      { query: '?order[customerNumber]=asc', expected: ['second', 'third', 'first'] },
      { query: '?order[customerNumber]=desc', expected: ['first', 'third', 'second'] },
      { query: '?order[createdAt]=asc&limit=2&page=2', expected: ['third'] },
    ])('orders "$query"', async ({ query: q, expected }) => {
      const t = await createTenant();
      const ids = await sorted(t);
      const res = await get(t, `/customers${q}`);
      expectStatus(res, 200);
      expect(res.body.data.map((c: any) => ids[c.id])).toEqual(expected);
    });
  });
});

describe('GET /customers/{id}', () => {
  it('404 for an unknown id and for the id of another tenant', async () => {
    const a = await createTenant();
    const b = await createTenant();
    const foreign = await createCustomer(b);
    expectProblem(await get(a, '/customers/does-not-exist'), 404);
    expectProblem(await get(a, `/customers/${foreign.id}`), 404);
  });

  it.each([
    { method: 'PUT', path: '/customers/{id}', body: { email: 'x@example.com', countryCode: 'DE' } },
    { method: 'PATCH', path: '/customers/{id}', body: { firstName: 'Mallory' } },
    { method: 'DELETE', path: '/customers/{id}' },
    { method: 'PUT', path: '/customers/{id}/archive' },
    { method: 'PUT', path: '/customers/{id}/partner', body: { partner: null } },
    { method: 'GET', path: '/customers/{id}/addresses' },
    { method: 'POST', path: '/customers/{id}/addresses', body: { type: 'TYPE_INVOICE', city: 'Bonn' } },
    { method: 'POST', path: '/customers/{id}/email-addresses', body: { email: 'x@example.com', type: 'invoice' } },
    { method: 'GET', path: '/customers/{id}/settings/billing' },
    { method: 'PATCH', path: '/customers/{id}/settings/billing', body: { requiresManualInvoiceApproval: true } },
  ])('$method $path on another tenant’s customer is 404 and changes nothing', async ({ method, path, body }) => {
    const a = await createTenant();
    const b = await createTenant();
    const foreign = await createCustomer(b);
    const before = (await get(b, `/customers/${foreign.id}`)).body;
    const res = await api(path.replace('{id}', foreign.id), { token: a.key, method, ...(body ? { body } : {}) });
    expectProblem(res, 404);
    expect((await get(b, `/customers/${foreign.id}`)).body).toEqual(before);
    expect((await get(b, `/customers/${foreign.id}/settings/billing`)).body).toEqual({ requiresManualInvoiceApproval: null });
    expect(await eventTypes(b)).toEqual(['customer.created']);
  });
});

describe('PUT /customers/{id}', () => {
  it('changes the fields sent, keeps the others, and keeps addresses and e-mail addresses', async () => {
    const t = await createTenant();
    const group = await createGroup(t);
    const c = await createCustomer(t, { firstName: 'Anna', phone: '+49 1', companyName: 'Old Co', street: 'Weg', city: 'Köln', invoiceEmail: 'bill@example.com' });
    const res = await put(t, `/customers/${c.id}`, {
      email: 'new.anna@example.com',
      countryCode: 'AT',
      firstName: 'Anna-Lena',
      language: 'en',
      customerGroup: group.id,
      vatId: VALID_VAT_ID,
    });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      id: c.id,
      customerNumber: c.customerNumber,
      email: 'new.anna@example.com',
      countryCode: 'AT',
      firstName: 'Anna-Lena',
      language: 'en',
      // Not sent, so kept (Fynn's PUT semantics, which the n8n node relies on).
      phone: '+49 1',
      companyName: 'Old Co',
      businessCustomer: true,
      vatId: VALID_VAT_ID,
      isVatIdValid: true,
      customerGroup: { id: group.id, name: group.name, description: group.description },
      createdAt: c.createdAt,
    });
    // Addresses are untouched; the login e-mail (default e-mail address) follows `email`.
    expect(res.body.defaultAddress).toEqual(c.defaultAddress);
    expect(res.body.defaultEmailAddress).toMatchObject({ id: c.defaultEmailAddress.id, email: 'new.anna@example.com' });
    expect(res.body.defaultInvoiceEmailAddress).toEqual(c.defaultInvoiceEmailAddress);
    expect(normalized((await get(t, `/customers/${c.id}`)).body)).toEqual(normalized(res.body));
    const stored = await query<{ email: string }>(t, 'SELECT email FROM customer_email_addresses WHERE tenant_id = ? AND type = ?', t.id, 'default');
    expect(stored).toEqual([{ email: 'new.anna@example.com' }]);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created', 'customer.updated']);
  });

  it('null clears a field sent, or restores its default; an empty string counts as null', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Anna', phone: '+49 1', companyName: 'Old Co', language: 'en', gender: 'female' });
    const res = await put(t, `/customers/${c.id}`, { phone: null, companyName: '', language: null, gender: '' });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ firstName: 'Anna', phone: null, companyName: null, businessCustomer: false, language: 'de', gender: null, email: c.email });
  });

  it.each([
    { name: 'removing the required countryCode', body: { countryCode: null }, path: 'countryCode' },
    { name: 'removing the required email', body: { email: null }, path: 'email' },
    { name: 'an invalid e-mail', body: { email: 'nope' }, path: 'email' },
    { name: 'an unknown field', body: { nickname: 'x' }, path: 'nickname' },
    { name: 'a field of the representation', body: { id: 'x' }, path: 'id' },
  ])('422 for $name, and nothing changes', async ({ body, path }) => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Anna' });
    const before = (await get(t, `/customers/${c.id}`)).body;
    expect422(await put(t, `/customers/${c.id}`, body), [path]);
    expect((await get(t, `/customers/${c.id}`)).body).toEqual(before);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
  });

  it('422 for an invalid body and changes nothing', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Anna' });
    const res = await put(t, `/customers/${c.id}`, { email: 'x@example.com', countryCode: 'DE', firstName: 'A', street: 'Not here' });
    expect422(res, ['firstName', 'street']);
    expect((await get(t, `/customers/${c.id}`)).body.firstName).toBe('Anna');
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
  });

  it('422 for an e-mail or number of another customer', async () => {
    const t = await createTenant();
    const other = await createCustomer(t, { email: 'other@example.com', customerNumber: 'OTHER-1' });
    const c = await createCustomer(t);
    const res = await put(t, `/customers/${c.id}`, { email: 'OTHER@example.com', countryCode: 'DE', customerNumber: other.customerNumber });
    expect422(res, ['email', 'customerNumber']);
    // Keeping its own e-mail and number is fine.
    expectStatus(await put(t, `/customers/${c.id}`, { email: c.email.toUpperCase(), countryCode: 'DE', customerNumber: c.customerNumber }), 200);
  });

  it('404 for an unknown customer', async () => {
    const t = await createTenant();
    expectProblem(await put(t, '/customers/unknown-id', baseBody()), 404);
  });
});

describe('PATCH /customers/{id} (merge patch)', () => {
  it('changes only the given fields', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Anna', lastName: 'Berg', phone: '+49 30 1', language: 'en' });
    const res = await patch(t, `/customers/${c.id}`, { firstName: 'Berta' });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ firstName: 'Berta', lastName: 'Berg', phone: '+49 30 1', language: 'en', email: c.email });
    expect((await get(t, `/customers/${c.id}`)).body.firstName).toBe('Berta');
    const evts = await eventsOf(t, c.id);
    expect(evts.map((e) => e.type)).toEqual(['customer.created', 'customer.updated']);
    expect(evts[1]!.data).toMatchObject({ id: c.id, firstName: 'Berta' });
  });

  it.each([
    { field: 'phone', initial: { phone: '+49 30 1' } },
    { field: 'companyName', initial: { companyName: 'Berg GmbH' }, also: { businessCustomer: false } },
    { field: 'gender', initial: { gender: 'diverse' } },
    { field: 'currencyCode', initial: { currencyCode: 'USD' } },
    { field: 'vatId', initial: { vatId: VALID_VAT_ID }, also: { isVatIdValid: false } },
    { field: 'ledgerId', initial: { ledgerId: 'L-1' } },
  ])('null removes $field', async ({ field, initial, also }) => {
    const t = await createTenant();
    const c = await createCustomer(t, initial);
    expect(c[field]).not.toBeNull();
    const res = await patch(t, `/customers/${c.id}`, { [field]: null });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ [field]: null, ...also });
    expect((await get(t, `/customers/${c.id}`)).body[field]).toBeNull();
  });

  it('null on a field with a default restores the default', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { language: 'en', timeZone: 'America/New_York', taxExempt: 'exempt' });
    const res = await patch(t, `/customers/${c.id}`, { language: null, timeZone: null, taxExempt: null });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ language: 'de', timeZone: 'Europe/Berlin', taxExempt: 'auto' });
  });

  it('merges customFields member by member', async () => {
    const t = await createTenant();
    await defineField(t, 'a', 'string');
    await defineField(t, 'b', 'number');
    const c = await createCustomer(t, { customFields: { a: 'x', b: 1 } });
    const res = await patch(t, `/customers/${c.id}`, { customFields: { b: 2 } });
    expectStatus(res, 200);
    expect(res.body.customFields).toEqual({ a: 'x', b: 2 });
    const removed = await patch(t, `/customers/${c.id}`, { customFields: { a: null } });
    expect(removed.body.customFields).toEqual({ b: 2 });
  });

  it.each([
    { vatId: UNREGISTERED_VAT_ID, isVatIdValid: false },
    { vatId: VALID_VAT_ID, isVatIdValid: true },
  ])('re-checks a changed vatId ($vatId → $isVatIdValid)', async ({ vatId, isVatIdValid }) => {
    const t = await createTenant();
    const c = await createCustomer(t, { vatId: isVatIdValid ? UNREGISTERED_VAT_ID : VALID_VAT_ID });
    expect(c.isVatIdValid).toBe(!isVatIdValid);
    const res = await patch(t, `/customers/${c.id}`, { vatId });
    expectStatus(res, 200);
    expect(res.body.isVatIdValid).toBe(isVatIdValid);
  });

  it.each([
    { name: 'a too short firstName', body: { firstName: 'B' }, path: 'firstName' },
    { name: 'an invalid e-mail', body: { email: 'not-an-email' }, path: 'email' },
    { name: 'removing the required countryCode', body: { countryCode: null }, path: 'countryCode' },
    { name: 'removing the required email', body: { email: null }, path: 'email' },
    { name: 'an unknown field', body: { nickname: 'x' }, path: 'nickname' },
    { name: 'a bad VAT id', body: { vatId: 'DE123' }, path: 'vatId' },
    { name: 'an unknown customer group', body: { customerGroup: 'missing' }, path: 'customerGroup' },
    { name: 'a lower-case country', body: { countryCode: 'at' }, path: 'countryCode' },
  ])('422 when the result has $name, and nothing changes', async ({ body, path }) => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Anna' });
    const before = (await get(t, `/customers/${c.id}`)).body;
    const res = await patch(t, `/customers/${c.id}`, body);
    expect422(res, [path]);
    expect((await get(t, `/customers/${c.id}`)).body).toEqual(before);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
  });

  it('422 for the e-mail of another customer, in any case', async () => {
    const t = await createTenant();
    await createCustomer(t, { email: 'first@example.com' });
    const c = await createCustomer(t);
    const res = await patch(t, `/customers/${c.id}`, { email: 'FIRST@example.com' });
    expect422(res, ['email']);
  });

  it('changes the login e-mail together with the default e-mail address', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { email: 'old@example.com' });
    const res = await patch(t, `/customers/${c.id}`, { email: 'new@example.com' });
    expectStatus(res, 200);
    expect(res.body.defaultEmailAddress).toMatchObject({ id: c.defaultEmailAddress.id, email: 'new@example.com' });
    const found = await get(t, '/customers?email=new@example.com');
    expect(found.body.data.map((x: any) => x.id)).toEqual([c.id]);
    expect((await get(t, '/customers?email=old@example.com')).body.data).toEqual([]);
  });

  it.each([{ name: 'text/plain', contentType: 'text/plain' }])('415 for a body sent as $name', async ({ contentType }) => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Anna' });
    const res = await api(`/customers/${c.id}`, { token: t.key, method: 'PATCH', body: { firstName: 'Berta' }, contentType: 'text/plain' });
    expectProblem(res, 415);
    expect((await get(t, `/customers/${c.id}`)).body.firstName).toBe('Anna');
  });

  it('reads a body sent as application/json as a merge patch (as the n8n node sends every PATCH)', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Anna', lastName: 'Berg' });
    const res = await api(`/customers/${c.id}`, { token: t.key, method: 'PATCH', body: { firstName: 'Berta', lastName: null }, contentType: 'application/json' });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ firstName: 'Berta', lastName: null });
  });

  it('404 for an unknown customer', async () => {
    const t = await createTenant();
    expectProblem(await patch(t, '/customers/unknown-id', { firstName: 'Anna' }), 404);
  });
});

describe('DELETE /customers/{id}', () => {
  it('deletes the customer with its addresses and e-mail addresses', async () => {
    const t = await createTenant();
    const keep = await createCustomer(t);
    const c = await createCustomer(t, { invoiceEmail: 'bill@example.com', invoiceAddress: { city: 'Bonn' } });
    expect(await countRows('customer_addresses', t, 'AND customer_id = ?', c.id)).toBe(2);
    const res = await del(t, `/customers/${c.id}`);
    expectStatus(res, 204);
    expectProblem(await get(t, `/customers/${c.id}`), 404);
    expect(await countRows('customers', t, 'AND id = ?', c.id)).toBe(0);
    expect(await countRows('customer_addresses', t, 'AND customer_id = ?', c.id)).toBe(0);
    expect(await countRows('customer_email_addresses', t, 'AND customer_id = ?', c.id)).toBe(0);
    // Other customers keep theirs.
    expect(await countRows('customer_addresses', t, 'AND customer_id = ?', keep.id)).toBe(1);
    const evts = await eventsOf(t, c.id);
    expect(evts.map((e) => e.type)).toEqual(['customer.created', 'customer.deleted']);
    expect(evts[1]!.data).toMatchObject({ id: c.id });
    // The e-mail is free again.
    expectStatus(await post(t, '/customers', baseBody({ email: c.email })), 201);
  });

  it('409 while the customer has documents; the customer stays', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    await (await dbOf(t)).prepare('INSERT INTO invoices (id, tenant_id, customer_id, type, status, number, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .bind(unique('inv'), t.id, c.id, 'TYPE_INVOICE', 'STATUS_PAID', 'RE-2030-00001', new Date().toISOString())
      .run();
    const res = await del(t, `/customers/${c.id}`);
    expectProblem(res, 409);
    expectStatus(await get(t, `/customers/${c.id}`), 200);
    expect(await countRows('customer_addresses', t, 'AND customer_id = ?', c.id)).toBe(1);
    expect(await countRows('customer_email_addresses', t, 'AND customer_id = ?', c.id)).toBe(1);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created']);
  });

  it('ignores documents of another tenant with the same customer id', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    await (await dbOf(t)).prepare('INSERT INTO invoices (id, tenant_id, customer_id, type, status, number, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .bind(unique('inv'), 'some-other-tenant', c.id, 'TYPE_INVOICE', 'STATUS_DRAFT', null, new Date().toISOString())
      .run();
    expectStatus(await del(t, `/customers/${c.id}`), 204);
  });

  it('404 for an unknown customer and for a second delete', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    expectProblem(await del(t, '/customers/unknown-id'), 404);
    expectStatus(await del(t, `/customers/${c.id}`), 204);
    expectProblem(await del(t, `/customers/${c.id}`), 404);
    expect(await eventTypes(t, c.id)).toEqual(['customer.created', 'customer.deleted']);
  });
});

describe('archive and unarchive', () => {
  it.each([
    { from: 'STATUS_ACTIVE', action: 'archive', status: 200, to: 'STATUS_ARCHIVED', event: 'customer.archived' },
    { from: 'STATUS_ARCHIVED', action: 'unarchive', status: 200, to: 'STATUS_ACTIVE', event: 'customer.unarchived' },
    { from: 'STATUS_ARCHIVED', action: 'archive', status: 409, to: 'STATUS_ARCHIVED', event: null },
    { from: 'STATUS_ACTIVE', action: 'unarchive', status: 409, to: 'STATUS_ACTIVE', event: null },
  ])('$action from $from → $status', async ({ from, action, status, to, event }) => {
    const t = await createTenant();
    const c = await createCustomer(t);
    if (from === 'STATUS_ARCHIVED') expectStatus(await put(t, `/customers/${c.id}/archive`), 200);
    const before = await eventTypes(t, c.id);
    const res = await put(t, `/customers/${c.id}/${action}`);
    if (status === 200) {
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ id: c.id, status: to });
    } else {
      expectProblem(res, 409);
    }
    expect((await get(t, `/customers/${c.id}`)).body.status).toBe(to);
    expect(await eventTypes(t, c.id)).toEqual(event ? [...before, event] : before);
  });

  it('404 for an unknown customer', async () => {
    const t = await createTenant();
    expectProblem(await put(t, '/customers/unknown-id/archive'), 404);
    expectProblem(await put(t, '/customers/unknown-id/unarchive'), 404);
  });
});

describe('outbox events', () => {
  it('writes one event per change over a customer’s life, with the resource as data', async () => {
    const t = await createTenant();
    const c = await createCustomer(t, { firstName: 'Anna' });
    await patch(t, `/customers/${c.id}`, { firstName: 'Berta' });
    await put(t, `/customers/${c.id}/archive`);
    await put(t, `/customers/${c.id}/unarchive`);
    await del(t, `/customers/${c.id}`);

    const evts = await eventsOf(t);
    expect(evts.map((e) => [e.type, e.resourceId])).toEqual([
      ['customer.created', c.id],
      ['customer.updated', c.id],
      ['customer.archived', c.id],
      ['customer.unarchived', c.id],
      ['customer.deleted', c.id],
    ]);
    expect(evts[0]!.data).toMatchObject({ id: c.id, customerNumber: c.customerNumber, email: c.email, firstName: 'Anna' });
    expect(evts[1]!.data).toMatchObject({ id: c.id, firstName: 'Berta' });
    expect(evts[2]!.data).toMatchObject({ id: c.id, status: 'STATUS_ARCHIVED' });
    expect(evts[3]!.data).toMatchObject({ id: c.id, status: 'STATUS_ACTIVE' });
    expect(evts[4]!.data).toMatchObject({ id: c.id, customerNumber: c.customerNumber });
    const [row] = await query<{ version: string; created_at: string }>(t, 'SELECT version, created_at FROM events WHERE tenant_id = ? LIMIT 1', t.id);
    expect(row!.version).toEqual(expect.any(String));
    expect(row!.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('writes no event for refused changes (422, 409, 404)', async () => {
    const t = await createTenant();
    const c = await createCustomer(t);
    await (await dbOf(t)).prepare('INSERT INTO invoices (id, tenant_id, customer_id, type, status, number, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .bind(unique('inv'), t.id, c.id, 'TYPE_INVOICE', 'STATUS_DRAFT', null, new Date().toISOString())
      .run();
    const refused = [
      await post(t, '/customers', baseBody({ email: c.email })),
      await patch(t, `/customers/${c.id}`, { firstName: 'X' }),
      await put(t, `/customers/${c.id}`, { email: 'bad', countryCode: 'DE' }),
      await put(t, `/customers/${c.id}/unarchive`),
      await del(t, `/customers/${c.id}`),
      await put(t, `/customers/${c.id}/partner`, { partner: c.id }),
      await post(t, `/customers/${c.id}/addresses`, { type: 'TYPE_INVOICE', zip: '1' }),
      await post(t, `/customers/${c.id}/email-addresses`, { email: 'nope', type: 'invoice' }),
      await patch(t, `/customers/${c.id}/settings/billing`, { requiresManualInvoiceApproval: 'yes' }),
      await patch(t, '/customers/unknown-id', { firstName: 'Xavier' }),
    ];
    expect(refused.map((r) => r.status)).toEqual([422, 422, 422, 409, 409, 422, 422, 422, 422, 404]);
    expect(await eventTypes(t)).toEqual(['customer.created']);
  });

  it('writes customer.updated for address, e-mail, partner and billing-setting changes', async () => {
    const t = await createTenant();
    const partner = await createCustomer(t, { isPartner: true });
    const c = await createCustomer(t);
    const a = await created(post(t, `/customers/${c.id}/addresses`, { type: 'TYPE_INVOICE', city: 'Bonn' }));
    await put(t, `/customers/${c.id}/addresses/${a.id}`, { type: 'TYPE_INVOICE', city: 'Köln' });
    const e = await created(post(t, `/customers/${c.id}/email-addresses`, { email: 'bill@example.com', type: 'invoice' }));
    await del(t, `/customers/${c.id}/email-addresses/${e.id}`);
    await put(t, `/customers/${c.id}/partner`, { partner: partner.id });
    await patch(t, `/customers/${c.id}/settings/billing`, { requiresManualInvoiceApproval: true });
    const evts = await eventsOf(t, c.id);
    expect(evts.map((x) => x.type)).toEqual(['customer.created', ...Array(6).fill('customer.updated')]);
    expect(evts[2]!.data.defaultInvoiceAddress).toMatchObject({ id: a.id, city: 'Köln' });
    expect(evts[5]!.data.partner).toMatchObject({ id: partner.id });
  });
});
